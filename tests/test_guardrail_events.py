"""`gen_ai.guardrail.result` events (docs/semantics.md#plans-and-guardrails) through the real
OpenTelemetry SDK: log records from a LoggerProvider and span events, joined to their runs by
trace and span id as decision events are, feeding the guardrail step, its result and the
boundary `guardrail_blocked`; read in-process, offline from the SDK encoders' files, and by
`serve` through the SDK's OTLP exporters (protobuf span events included).

The workload, and what it should give (worked out by hand, not from a run); the spec says
`tripwire_triggered=true` means blocked:

- run 1: a result event (log record) in the agent span, no `apply_guardrail` span (the
  OpenAI Agents shape): `tripwire_triggered=true`, with the evaluated content and a reason
  holding the canary: a guardrail step, blocked;
- run 2: an `apply_guardrail` span that reports no result, and an event in it, `action=NONE`:
  that span's result (one guardrail step, not two);
- run 3: the older form, a span event on the agent span: `tripwire_triggered=false`;
- run 4: a result event `tripwire_triggered=true` emitted after its run ended: joined late.

So `guardrail_blocked` is hit by runs 1 and 4 (2 hits); the states are the guardrail results,
`tripwire_triggered=true` twice, `action=NONE` and `tripwire_triggered=false` once each (3
observed). In-process run 4's event comes after its run was folded: it adds its state and its
hit, not a path token, so the paths are `guardrail` (runs 1-3) and run 4's empty path; offline
the logs are read first, so every event waits for its span and all four paths are `guardrail`.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import _otel_events
import pytest
from _otel_events import measured_in_process, otlp_exporters
from opentelemetry import trace
from opentelemetry._logs import Logger, LogRecord, SeverityNumber
from opentelemetry.exporter.otlp.json.common._log_encoder import encode_logs
from opentelemetry.exporter.otlp.json.common.trace_encoder import encode_spans
from opentelemetry.exporter.otlp.proto.common.trace_encoder import encode_spans as encode_pb
from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

from otel_agentcov import AgentCoverageProcessor, CoverageSpec
from otel_agentcov.offline import load
from otel_agentcov.readers.otlp_logs import events_from_json
from otel_agentcov.reporting import render_text
from otel_agentcov.semconv.events import GuardrailResult
from otel_agentcov.service.intake import Intake, RequestLimits
from otel_agentcov.service.store import PROTOBUF, CoverageStore, decode_records

SPEC = CoverageSpec.from_dict({"version": 1, "agents": [{
    "name": "support", "tools": ["lookup"], "tool_edges": {"restricted": ["issue_refund"]},
    "boundaries": {"guardrail_blocked": ["tripwire_triggered=true"]}}]}, source="<test>")
RESOURCE = Resource.create({"service.name": "svc"})
CANARY = "CANARY-4b2e-guardrail-content-do-not-store"
RESULT = "gen_ai.guardrail.result"


def result(kind: str, value: str) -> dict[str, Any]:
    """A result event's attributes, with the content and reason a guardrail may add."""
    return {"gen_ai.guardrail.result.type": kind, "gen_ai.guardrail.result.value": value,
            "gen_ai.guardrail.component.name": "OpenAI Agents",
            "gen_ai.guardrail.content.input.value": CANARY,
            "gen_ai.guardrail.result.reason": CANARY}


def emit(logger: Logger, span: trace.Span, attributes: dict[str, Any]) -> None:
    logger.emit(LogRecord(context=trace.set_span_in_context(span), body=CANARY,
                          severity_number=SeverityNumber.INFO, event_name=RESULT,
                          attributes=attributes))


def _agent(tracer: trace.Tracer) -> Any:
    return tracer.start_as_current_span("invoke_agent support", attributes={
        "gen_ai.operation.name": "invoke_agent", "gen_ai.agent.name": "support"})


def workload(tracer: trace.Tracer, logger: Logger) -> None:
    """The four runs of the module docstring."""
    with _agent(tracer) as one:
        emit(logger, one, result("tripwire_triggered", "true"))
    with _agent(tracer), tracer.start_as_current_span("apply_guardrail Bedrock", attributes={
            "gen_ai.operation.name": "apply_guardrail"}) as guard:
        emit(logger, guard, result("action", "NONE"))
    with _agent(tracer) as three:
        three.add_event(RESULT, result("tripwire_triggered", "false"))
    with _agent(tracer) as four:
        pass
    emit(logger, four, result("tripwire_triggered", "true"))


def in_process() -> dict[str, Any]:
    return measured_in_process(SPEC, RESOURCE, workload)[0]


def recorded() -> tuple[list[Any], list[Any]]:
    spans, logs = _otel_events.recorded(RESOURCE, workload)
    return list(spans.get_finished_spans()), list(logs.get_finished_logs())


def offline(tmp_path: Path, fmt: str) -> dict[str, Any]:
    """Logs first, then traces (OTLP/JSON or protobuf, whose span events are read beside the
    core's steps): every log event waits for its spans (run 4's too)."""
    spans, logs = recorded()
    traces, events = tmp_path / f"traces.{fmt}", tmp_path / "logs.json"
    if fmt == "json":
        traces.write_text(encode_spans(spans).to_json(), encoding="utf-8")
    else:
        traces.write_bytes(encode_pb(spans).SerializeToString())
    events.write_text(encode_logs(logs).to_json(), encoding="utf-8")
    return load(SPEC, traces=[str(events), str(traces)]).snapshot().to_dict()


@pytest.fixture(params=["in_process", "offline_json", "offline_pb"])
def measured(request: pytest.FixtureRequest, tmp_path: Path) -> tuple[str, dict[str, Any]]:
    door = request.param
    return door, in_process() if door == "in_process" else offline(
        tmp_path, door.removeprefix("offline_"))


@pytest.fixture
def report(measured: tuple[str, dict[str, Any]]) -> dict[str, Any]:
    return measured[1]


def test_results_without_a_span_hit_the_declared_boundary(report: dict[str, Any]) -> None:
    support = report["agents"]["support"]
    assert support["boundary_hits"]["guardrail_blocked"] == 2
    assert support["boundaries"]["guardrail_blocked"] is True
    assert support["runs"]["count"] == 4


def test_each_result_is_one_guardrail_state(measured: tuple[str, dict[str, Any]]) -> None:
    door, report = measured
    support = report["agents"]["support"]
    assert support["states"]["observed"] == 3
    paths = {tuple(p["path"]): p["count"] for p in support["paths"]["top"]}
    assert paths == ({("guardrail",): 3, (): 1} if door == "in_process"
                     else {("guardrail",): 4})


def test_no_guardrail_content_reaches_the_report(report: dict[str, Any]) -> None:
    for output in (json.dumps(report), render_text(report)):
        assert CANARY[:20] not in output


def test_without_the_events_the_boundary_is_not_hit() -> None:
    """The same spans with no log records: only run 3's span event, `=false`, is a result."""
    spans, _ = recorded()
    processor = AgentCoverageProcessor(SPEC)
    for span in spans:
        processor.on_end(span)
    processor.force_flush()
    support = processor.snapshot().to_dict()["agents"]["support"]
    processor.shutdown()
    assert support["boundary_hits"]["guardrail_blocked"] == 0


@pytest.mark.parametrize("restart", ["journal", "snapshot"])
def test_a_result_waiting_for_its_span_survives_a_restart(tmp_path: Path, restart: str) -> None:
    """`serve`'s store: run 1's result event comes first and waits; the store restarts, reading
    it back from its journal (a crash, as tests/test_service_state.py makes one: no snapshot)
    or its snapshot (a clean stop); then run
    1's span comes: the result joins it and hits the boundary, its content nowhere on disk."""
    spans, logs = recorded()
    items = [e for e in events_from_json(json.loads(encode_logs(logs[:1]).to_json()))
             if isinstance(e, GuardrailResult)]
    assert [e.result for e in items] == ["tripwire_triggered=true"]
    state = str(tmp_path / "state.json")
    first = CoverageStore(SPEC, state)
    first.open()
    first.submit_events(items, 0)
    if restart == "snapshot":
        first.close()
    elif first._lock_fd is not None:  # a crash: the kernel frees the lock, nothing is written
        os.close(first._lock_fd)
        first._lock_fd = None
    on_disk = b"".join(p.read_bytes() for p in tmp_path.iterdir() if p.is_file())
    assert b"tripwire_triggered=true" in on_disk and CANARY[:20].encode() not in on_disk
    second = CoverageStore(SPEC, state)
    second.open()
    assert second.engine.assembler.pending_events == 1
    second.submit(decode_records(PROTOBUF, encode_pb(spans[:1]).SerializeToString(), "test"))
    support = second.snapshot().to_dict()["agents"]["support"]
    second.close()
    assert support["boundary_hits"]["guardrail_blocked"] == 1


@pytest.mark.slow
@pytest.mark.parametrize("transport", ["http", "grpc"])
def test_serve_reads_span_events_from_protobuf_as_it_reads_log_records(
        tmp_path: Path, transport: str) -> None:
    """The workload through the SDK's real OTLP exporters (protobuf) to `agentcov serve`, and
    a fifth run whose policy denied the restricted `issue_refund` (a decision span event, no
    tool span): the same guardrail counts as in-process (and the denial's tool state), one
    restricted attempt `denied`, and
    no guardrail content in the report or the journal."""
    from _support import start_service

    service = start_service(SPEC, state_file=str(tmp_path / "state.json"))
    try:
        logs, spans = otlp_exporters(service, transport)
        span_batch, log_batch = recorded()
        provider, memory = TracerProvider(resource=RESOURCE), InMemorySpanExporter()
        provider.add_span_processor(SimpleSpanProcessor(memory))
        with _agent(provider.get_tracer("t")) as denied:
            denied.add_event("gen_ai.tool.call.decision", {
                "gen_ai.tool.call.decision.outcome": "deny", "gen_ai.tool.name": "issue_refund",
                "gen_ai.tool.call.arguments": CANARY})
        for exporter, batch in ((logs, log_batch),
                                (spans, [*span_batch, *memory.get_finished_spans()])):
            assert exporter.export(batch).name == "SUCCESS"
            exporter.shutdown()
        report = service.store.snapshot().to_dict()
        support = report["agents"]["support"]
        assert support["boundary_hits"]["guardrail_blocked"] == 2
        assert support["states"]["observed"] == 4  # the denial is a (tool) step of its run
        assert support["edges"]["restricted"] == [
            {"tool": "issue_refund", "outcome": "denied", "count": 1}]
        assert CANARY[:20] not in json.dumps(report)
        journal = Path(service.store.journal_path or "")
        assert CANARY[:20].encode() not in journal.read_bytes()
    finally:
        service.stop()


@pytest.mark.parametrize("content", [False, True])
def test_serve_reads_a_protobuf_spans_events_once(content: bool) -> None:
    """A run whose span carries a tripwire result and a policy's denial of issue_refund, to
    `serve`'s intake as protobuf: each event read once, whether the core classifies the spans
    (no check reads content) or a contract reading tool arguments makes them SpanRecords."""
    agent: dict[str, Any] = {
        "name": "support", "tools": ["lookup"], "tool_edges": {"restricted": ["issue_refund"]},
        "boundaries": {"guardrail_blocked": ["tripwire_triggered=true"]}}
    if content:
        agent["contracts"] = [{"name": "small", "must_not": [{"behavior": "big", "called": {
            "tool": "issue_refund", "args": {"amount": "^[0-9]{4,}$"}}}]}]
    spec = CoverageSpec.from_dict({"version": 1, "agents": [agent]}, source="<test>")
    provider, memory = TracerProvider(resource=RESOURCE), InMemorySpanExporter()
    provider.add_span_processor(SimpleSpanProcessor(memory))
    with _agent(provider.get_tracer("t")) as run:
        run.add_event(RESULT, result("tripwire_triggered", "true"))
        run.add_event("gen_ai.tool.call.decision", {
            "gen_ai.tool.call.decision.outcome": "deny", "gen_ai.tool.name": "issue_refund"})
    store = CoverageStore(spec, None)
    store.open()
    try:
        intake = Intake(store, RequestLimits())
        intake.export("http", PROTOBUF, encode_pb(memory.get_finished_spans()).SerializeToString())
        support = store.snapshot().to_dict()["agents"]["support"]
        received = store.engine.counters.events["received"]
    finally:
        store.close()
    assert received == 2
    assert support["edges"]["restricted"] == [
        {"tool": "issue_refund", "outcome": "denied", "count": 1}]
    assert support["boundary_hits"]["guardrail_blocked"] == 1
