"""The server's half of a traced call joins its caller's run, on every route a span takes to
the engine (docs/architecture.md#one-root-rule): the SDK processor, an OTLP/JSON file, a
protobuf file (decoded and classified by the core).

The workload, and what it gives (worked out by hand): the agent `weather` calls the model
`weather-model` and the tool get_weather; the tool runs in another service, `tool-server`,
whose span of kind SERVER has the client's tool span as its remote parent and fails there.
One run of weather, one call of get_weather, failed; no run of the tool server.

The tool spans are OpenInference's (`openinference.span.kind: TOOL`): a table entry reads them,
not inference and not the MCP table (tests/test_inference.py has the inferred reading).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import pytest
from _trace_files import protobuf_bytes, write_jsonl
from opentelemetry import trace
from opentelemetry.context import Context
from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import ReadableSpan, SpanProcessor, TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from opentelemetry.trace import SpanContext, SpanKind, Status, StatusCode, TraceFlags

from otel_agentcov import AgentCoverageProcessor, CoverageSpec
from otel_agentcov.compiled import local_root
from otel_agentcov.offline import load

SCOPE = "openinference.instrumentation.acme"
EXPECTED = {"weather": {"runs": 1, "tools": {"get_weather": {"ok": 0, "error": 1}},
                        "models": {"weather-model": 1}}}


def _kind(kind: str, **more: str) -> dict[str, str]:
    return {"openinference.span.kind": kind, **more}


def _sent(client: trace.Span) -> Context:
    """The context a server receives from `client`: its span as a remote parent."""
    sent = client.get_span_context()
    return trace.set_span_in_context(trace.NonRecordingSpan(SpanContext(
        sent.trace_id, sent.span_id, is_remote=True,
        trace_flags=TraceFlags(TraceFlags.SAMPLED))))


def workload(app: trace.Tracer, server: trace.Tracer) -> None:
    with app.start_as_current_span("weather", attributes=_kind("AGENT", **{
            "agent.name": "weather"})):
        with app.start_as_current_span("complete", attributes=_kind("LLM", **{
                "llm.model_name": "weather-model"})):
            pass
        with app.start_as_current_span("get_weather", kind=SpanKind.CLIENT, attributes=_kind(
                "TOOL", **{"tool.name": "get_weather"})) as client:
            with server.start_as_current_span("get_weather", context=_sent(client),
                                              kind=SpanKind.SERVER, attributes=_kind(
                                                  "TOOL", **{"tool.name": "get_weather"})) as s:
                s.set_status(Status(StatusCode.ERROR))


def _tracer(service: str, processor: SpanProcessor) -> trace.Tracer:
    provider = TracerProvider(resource=Resource.create({"service.name": service}))
    provider.add_span_processor(processor)
    return provider.get_tracer(SCOPE)


def _spans() -> Sequence[ReadableSpan]:
    """The server's spans, then the app's: its half ends first, so a Collector batching both
    services' exports holds its resource first (resources of one protobuf request are read in
    turn: an app's root read first would close its run before the half arrives)."""
    app, server = InMemorySpanExporter(), InMemorySpanExporter()
    workload(*(_tracer(service, SimpleSpanProcessor(memory)) for service, memory in (
        ("weather-app", app), ("tool-server", server))))
    return [*server.get_finished_spans(), *app.get_finished_spans()]


def _agents(report: dict[str, Any]) -> dict[str, Any]:
    return {name: {"runs": a["runs"]["count"], "tools": a["tools"]["called"],
                   "models": a["models"]["used"]} for name, a in report["agents"].items()}


def _in_process(traffic: Callable[[trace.Tracer, trace.Tracer], None], server: str
                ) -> dict[str, Any]:
    """The agents of `traffic` run through the processor, the app's and the server's spans."""
    processor = AgentCoverageProcessor()
    traffic(_tracer("weather-app", processor), _tracer(server, processor))
    processor.force_flush()
    report = processor.snapshot().to_dict()
    processor.shutdown()
    return _agents(report)


def test_in_process() -> None:
    assert _in_process(workload, "tool-server") == EXPECTED


@pytest.mark.parametrize("layout", ["jsonl", "pb"])
def test_offline(tmp_path: Path, layout: str) -> None:
    if layout == "jsonl":
        traces = write_jsonl(tmp_path / "traces.jsonl", _spans())
    else:
        traces = tmp_path / "traces.pb"
        traces.write_bytes(protobuf_bytes(_spans()))
    report = load(CoverageSpec.empty(), traces=[str(traces)]).snapshot().to_dict()
    assert _agents(report) == EXPECTED


def test_the_rule_as_the_engine_asks_the_core() -> None:
    """`compiled.local_root(has parent, parent remote, span kind, step kind)`: SpanKind SERVER
    is 1 in the SDK's numbering; a kind string that is no kind is no server's half."""
    assert [local_root(*args) for args in [
        (False, False, 1, "tool"), (True, False, 0, "llm"), (True, True, 1, "tool"),
        (True, True, 1, "agent"), (True, True, 1, "llm"), (True, True, 1, "workflow"),
        (True, True, 1, "other"), (True, True, 3, "tool"), (True, True, 0, "llm"),
        (True, True, 1, "bogus")]] == [
        True, False, False, False, False, False, True, True, True, True]


def model_server_workload(app: trace.Tracer, server: trace.Tracer) -> None:
    """The agent `weather` calls its model through a client span; the model server, another
    service, records the request as a model call too (kind SERVER, the client's span its
    remote parent)."""
    with app.start_as_current_span("weather", attributes=_kind("AGENT", **{
            "agent.name": "weather"})):
        with app.start_as_current_span("complete", kind=SpanKind.CLIENT, attributes=_kind(
                "LLM", **{"llm.model_name": "weather-model"})) as client:
            with server.start_as_current_span("serve", context=_sent(client), kind=SpanKind.SERVER,
                                              attributes=_kind("LLM", **{
                                                  "llm.model_name": "weather-model"})):
                pass


def test_a_model_servers_half_is_the_callers_one_call() -> None:
    """One model call, in weather's run: no second call, no run of the model server."""
    assert _in_process(model_server_workload, "model-server") == {
        "weather": {"runs": 1, "tools": {}, "models": {"weather-model": 1}}}
