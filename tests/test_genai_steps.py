"""`plan` and `apply_guardrail` steps and A2A delegation (docs/semantics.md#plans-and-guardrails,
docs/instrumentations.md "GenAI conventions, 2026"), recorded through the real OpenTelemetry
SDK and read in-process and offline from the SDK encoders' OTLP/JSON file.

The workload, and what it should give (worked out by hand, not from a run):

- run 1 of triage: a `plan` span, a chat, then `apply_guardrail Bedrock` reporting
  `action=GUARDRAIL_INTERVENED`: path plan, llm, guardrail; the guardrail blocked it by the
  spec's declaration, so `guardrail_blocked` is hit once.
- run 2 of triage: `apply_guardrail` reporting `action=NONE`, then a chat: path guardrail, llm;
  not blocked (NONE is not declared).
- run 3 of triage: an A2A `SendMessage` client span naming the remote agent kb (its Agent
  Card name) and, in kb's own service, the A2A server span with that client span as its remote
  parent, over kb's chat: one run of kb (both halves of one call), a delegation triage → kb;
  triage's path is delegate.
- triage's states, inferred from its steps: plan, the chat (twice), the two guardrail results
  (each its own state), the delegation: 5 seen, f1 4, f2 1, Chao1 5 + 4·3/(2·2) = 8.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from opentelemetry import trace
from opentelemetry.exporter.otlp.json.common.trace_encoder import encode_spans
from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import SpanProcessor, TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

from otel_agentcov import AgentCoverageProcessor, CoverageSpec
from otel_agentcov.offline import load
from otel_agentcov.spec import DEFAULT_CONDITIONS, SpecError

SPEC = CoverageSpec.from_dict({"version": 1, "agents": [
    {"name": "triage", "boundaries": {"guardrail_blocked": ["action=GUARDRAIL_INTERVENED"]}},
    {"name": "kb"},
]}, source="<test>")


def _chat(tracer: trace.Tracer, model: str) -> None:
    with tracer.start_as_current_span(f"chat {model}", attributes={
            "gen_ai.operation.name": "chat", "gen_ai.request.model": model}):
        pass


def _guardrail(tracer: trace.Tracer, value: str) -> None:
    with tracer.start_as_current_span("apply_guardrail Bedrock", kind=trace.SpanKind.CLIENT,
                                      attributes={
                                          "gen_ai.operation.name": "apply_guardrail",
                                          "gen_ai.guardrail.component.name": "Bedrock",
                                          "gen_ai.guardrail.result.type": "action",
                                          "gen_ai.guardrail.result.value": value}):
        pass


def _triage(tracer: trace.Tracer) -> Any:
    return tracer.start_as_current_span("invoke_agent triage", attributes={
        "gen_ai.operation.name": "invoke_agent", "gen_ai.agent.name": "triage"})


def workload(app: trace.Tracer, kb: trace.Tracer) -> None:
    """The three runs of the module docstring; `kb` is the remote agent's service."""
    with _triage(app):
        with app.start_as_current_span("plan triage", attributes={
                "gen_ai.operation.name": "plan", "gen_ai.agent.name": "triage"}):
            pass
        _chat(app, "m1")
        _guardrail(app, "GUARDRAIL_INTERVENED")
    with _triage(app):
        _guardrail(app, "NONE")
        _chat(app, "m1")
    with _triage(app):
        with app.start_as_current_span("SendMessage", kind=trace.SpanKind.CLIENT, attributes={
                "a2a.method.name": "SendMessage", "gen_ai.agent.name": "kb"}) as client:
            sent = client.get_span_context()
            remote = trace.SpanContext(sent.trace_id, sent.span_id, is_remote=True,
                                       trace_flags=sent.trace_flags)
            with kb.start_as_current_span(
                    "SendMessage", kind=trace.SpanKind.SERVER,
                    context=trace.set_span_in_context(trace.NonRecordingSpan(remote)),
                    attributes={"a2a.method.name": "SendMessage", "gen_ai.agent.name": "kb"}):
                _chat(kb, "m2")


def _tracers(processor: SpanProcessor) -> tuple[trace.Tracer, trace.Tracer]:
    tracers = []
    for service in ("app", "kb"):
        provider = TracerProvider(resource=Resource.create({"service.name": service}))
        provider.add_span_processor(processor)
        tracers.append(provider.get_tracer("t"))
    return tracers[0], tracers[1]


def in_process() -> dict[str, Any]:
    processor = AgentCoverageProcessor(SPEC)
    workload(*_tracers(processor))
    processor.force_flush()
    report = processor.snapshot().to_dict()
    processor.shutdown()
    return report


def offline(tmp_path: Path) -> dict[str, Any]:
    memory = InMemorySpanExporter()
    workload(*_tracers(SimpleSpanProcessor(memory)))
    traces = tmp_path / "traces.json"
    traces.write_text(encode_spans(memory.get_finished_spans()).to_json(), encoding="utf-8")
    return load(SPEC, traces=[str(traces)]).snapshot().to_dict()


@pytest.fixture(params=["in_process", "offline"])
def report(request: pytest.FixtureRequest, tmp_path: Path) -> dict[str, Any]:
    got: dict[str, Any] = in_process() if request.param == "in_process" else offline(tmp_path)
    return got


def test_plans_and_guardrails_are_steps_of_their_own(report: dict[str, Any]) -> None:
    triage = report["agents"]["triage"]
    paths = sorted(tuple(p["path"]) for p in triage["paths"]["top"])
    assert paths == [("delegate",), ("guardrail", "llm"), ("plan", "llm", "guardrail")]
    assert (triage["states"]["observed"], triage["states"]["estimated"]) == (5, 8.0)
    assert (report["spans"]["by_kind"]["plan"], report["spans"]["by_kind"]["guardrail"]) == (1, 2)
    assert triage["tools"]["called"] == {}


def test_a_declared_guardrail_result_is_a_boundary_hit(report: dict[str, Any]) -> None:
    triage = report["agents"]["triage"]
    assert triage["boundary_hits"]["guardrail_blocked"] == 1
    assert triage["boundaries"]["guardrail_blocked"] is True
    # an agent that declares no guardrail results has the six conditions it always had
    assert tuple(report["agents"]["kb"]["boundaries"]) == DEFAULT_CONDITIONS


def test_an_a2a_message_is_a_delegation_to_the_remote_agent(report: dict[str, Any]) -> None:
    agents = report["agents"]
    assert {a: r["runs"]["count"] for a, r in agents.items()} == {"triage": 3, "kb": 1}
    assert agents["triage"]["delegations"] == [{"from": "triage", "to": "kb", "count": 1}]
    assert agents["kb"]["models"]["used"] == {"m2": 1}


def test_guardrail_results_are_declared_as_type_and_value() -> None:
    with pytest.raises(SpecError, match="guardrail_blocked"):
        CoverageSpec.from_dict({"version": 1, "agents": [
            {"name": "a", "boundaries": {"guardrail_blocked": ["GUARDRAIL_INTERVENED"]}}]},
            source="<test>")


def test_spans_of_older_shapes_list_no_new_kind() -> None:
    """A report of traces with neither kind lists the six kinds it always did."""
    processor = AgentCoverageProcessor(SPEC)
    app, _ = _tracers(processor)
    with _triage(app):
        _chat(app, "m1")
    processor.force_flush()
    by_kind = processor.snapshot().to_dict()["spans"]["by_kind"]
    processor.shutdown()
    assert by_kind == {"llm": 1, "tool": 0, "agent": 1, "handoff": 0, "workflow": 0, "other": 0}
