"""Values that once sent their span to the Python classifier are held by the core and give what
that path gave (docs/core.md#values), through each door that can carry them: SDK spans through
the real OpenTelemetry SDK and the processor, and OTLP/JSON files. OTLP protobuf carries none of
them (its ints are 64-bit, its arrays read as tuples, its strings are UTF-8), so it has no test
here.

The expected values are worked out by hand: a name is clipped (a lone surrogate becomes `?`,
`common.clip`), a count clips to int64's top (`common.MAX_COUNT`), a state attribute is `str()`
of its value, a list or an unknown object equals no entry's value.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from _table import Table
from opentelemetry.sdk.trace import TracerProvider

from otel_agentcov import processor as processor_module
from otel_agentcov.engine import CoverageEngine
from otel_agentcov.processor import AgentCoverageProcessor
from otel_agentcov.readers.files import read_trace_file
from otel_agentcov.spec import CoverageSpec

BIG = 2**70  # 1180591620717411303424
TOP = 2**63 - 1  # common.MAX_COUNT
SPEC = {"version": 1, "agents": [{"name": "planner", "tools": ["lookup?", "other"],
                                  "state_attributes": ["acme.n", "acme.tags", "acme.who"]}]}


class _Word(str):
    """A str subclass, as an instrumentation's StrEnum member is: read as its text."""


@pytest.fixture
def no_python_path(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[str]]:
    """Counts every entry to the former fallback: the Python interpreter of the tables and the
    processor's SpanRecord conversion."""
    calls: list[str] = []
    classify, convert = Table.classify, processor_module.from_readable_span

    def counted_classify(self: Table, *args: Any) -> Any:
        calls.append("Table.classify")
        return classify(self, *args)

    def counted_convert(span: Any) -> Any:
        calls.append("from_readable_span")
        return convert(span)

    monkeypatch.setattr(Table, "classify", counted_classify)
    monkeypatch.setattr(processor_module, "from_readable_span", counted_convert)
    yield calls


def _sdk_report(attributes: dict[str, Any], tool: str, model: str, tokens: Any,
                inference: bool = True) -> dict[str, Any]:
    """One planner run through the real SDK and the processor: an agent span holding
    `attributes`, a tool call and a model call."""
    spec = CoverageSpec.from_dict({**SPEC, "inference": inference})
    processor = AgentCoverageProcessor(spec, flush_interval_s=3600.0)
    provider = TracerProvider()
    provider.add_span_processor(processor)
    tracer = provider.get_tracer("acme")
    try:
        with tracer.start_as_current_span("invoke_agent planner", attributes={
                "gen_ai.operation.name": "invoke_agent", "gen_ai.agent.name": "planner",
                **attributes}):
            with tracer.start_as_current_span("execute_tool", attributes={
                    "gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": tool}):
                pass
            with tracer.start_as_current_span("chat", attributes={
                    "gen_ai.operation.name": "chat", "gen_ai.request.model": model,
                    "gen_ai.usage.input_tokens": 5, "gen_ai.usage.output_tokens": tokens}):
                pass
        assert processor.force_flush()
        return processor.snapshot().to_dict()
    finally:
        provider.shutdown()


def _planner(report: dict[str, Any]) -> dict[str, Any]:
    assert report["spans"]["dropped"] == {} and report["spans"]["internal_errors"] == 0
    return report["agents"]["planner"]


@pytest.mark.parametrize("inference", [True, False])
def test_a_lone_surrogate_and_a_big_count_from_the_sdk_are_read_by_the_core(
    no_python_path: list[str], inference: bool
) -> None:
    planner = _planner(_sdk_report({}, "lookup\udc80", "m\ud800", BIG, inference))
    assert planner["tools"]["called"] == {"lookup?": {"ok": 1, "error": 0}}
    assert planner["tools"]["uncovered"] == ["other"]
    assert planner["models"]["used"] == {"m?": 1}
    assert planner["runs"]["tokens"]["mean"] == float(TOP + 5)
    assert no_python_path == []


def test_state_attributes_of_every_class_from_the_sdk_are_read_by_the_core(
    no_python_path: list[str]
) -> None:
    """A big int, a tuple holding a big int, a str subclass and a lone surrogate as state values:
    two runs with the same values are one state, a third with another value a second one."""
    values = {"acme.n": BIG, "acme.tags": ("a", -BIG), "acme.who": _Word("x\udc80")}
    reports = [_sdk_report(values, "lookup", "m", 1), _sdk_report(values, "lookup", "m", 1)]
    engine = CoverageEngine(CoverageSpec.from_dict(SPEC))
    read = engine.sdk_steps()
    assert read is not None
    provider = TracerProvider()
    tracer = provider.get_tracer("acme")
    with tracer.start_as_current_span("invoke_agent planner", attributes={
            "gen_ai.operation.name": "invoke_agent", "gen_ai.agent.name": "planner",
            **values}) as span:
        pass
    found = read(span)  # type: ignore[arg-type]
    assert isinstance(found, tuple)
    assert found[0].state_extra == (
        "1180591620717411303424", "('a', -1180591620717411303424)", "x\udc80")
    for report in reports:
        assert _planner(report)["runs"]["count"] == 1
    assert no_python_path == []


def _json_value(value: Any) -> dict[str, Any]:
    if isinstance(value, bool):
        return {"boolValue": value}
    if isinstance(value, int):
        return {"intValue": str(value)}
    return {"stringValue": value}  # the reader takes any JSON here: a list stays a list


def _otlp_json(tmp_path: Path, spans: list[tuple[str, str, str, dict[str, Any]]]) -> Path:
    """One trace in an OTLP/JSON file: (name, span id, parent id, attributes) per span."""
    path = tmp_path / "trace.json"
    document = {"resourceSpans": [{"scopeSpans": [{"scope": {"name": "acme"}, "spans": [{
        "traceId": "0af7651916cd43dd8448eb211c80319c", "spanId": span_id,
        **({"parentSpanId": parent} if parent else {}), "name": name,
        "startTimeUnixNano": str(1_000 + n), "endTimeUnixNano": str(2_000 - n),
        "attributes": [{"key": k, "value": _json_value(v)} for k, v in attributes.items()],
    } for n, (name, span_id, parent, attributes) in enumerate(spans)]}]}]}
    path.write_text(json.dumps(document, ensure_ascii=True), "utf-8")
    return path


def _json_report(path: Path, inference: bool = True) -> dict[str, Any]:
    engine = CoverageEngine(CoverageSpec.from_dict({**SPEC, "inference": inference}))
    engine.ingest_all(read_trace_file(str(path)))
    engine.flush_all()
    return engine.snapshot().to_dict()


ROOT = "b7ad6b7169203331"


def test_a_lone_surrogate_and_a_big_count_in_otlp_json_are_read_by_the_core(
    tmp_path: Path, no_python_path: list[str]
) -> None:
    path = _otlp_json(tmp_path, [
        ("invoke_agent planner", ROOT, "", {"gen_ai.operation.name": "invoke_agent",
                                        "gen_ai.agent.name": "planner", "acme.n": BIG}),
        ("execute_tool", "00f067aa0ba902b7", ROOT, {
            "gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": "lookup\udc80"}),
        ("chat", "00f067aa0ba902b8", ROOT, {
            "gen_ai.operation.name": "chat", "gen_ai.request.model": "m\ud800",
            "gen_ai.usage.input_tokens": 5, "gen_ai.usage.output_tokens": BIG}),
    ])
    planner = _planner(_json_report(path))
    assert planner["tools"]["called"] == {"lookup?": {"ok": 1, "error": 0}}
    assert planner["models"]["used"] == {"m?": 1}
    assert planner["runs"]["tokens"]["mean"] == float(TOP + 5)
    assert no_python_path == []


def test_a_list_valued_kind_attribute_in_otlp_json_equals_no_kind(
    tmp_path: Path, no_python_path: list[str]
) -> None:
    """`openinference.span.kind: ["TOOL"]` is a list, which equals no entry's `TOOL`: the span
    is no tool call (the tuple `("TOOL",)` neither); the same span with the text is one."""
    def kinds(value: Any) -> dict[str, int]:
        path = _otlp_json(tmp_path, [
            ("planner", ROOT, "", {"openinference.span.kind": "AGENT"}),
            ("search", "00f067aa0ba902b7", ROOT, {"openinference.span.kind": value,
                                                  "tool.name": "search"}),
        ])
        report = _json_report(path, inference=False)
        return {k: n for k, n in report["spans"]["by_kind"].items() if n}

    assert kinds(["TOOL"]) == {"agent": 1, "other": 1}
    assert kinds("TOOL") == {"agent": 1, "tool": 1}
    assert no_python_path == []
