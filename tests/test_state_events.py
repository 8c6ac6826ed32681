"""State coverage from `gen_ai.execution.state.changed` events (docs/semantics.md#state-from-
events), recorded through the real OpenTelemetry SDK: spans from a TracerProvider, the events as
log records from a LoggerProvider and as a span event, read in-process by the processor pair,
offline from the files the SDK's own encoders write (OTLP/JSON and protobuf), and by `serve`.

The workload, and what it should give (worked out by hand, not from a run):

- planner, three runs, each `invoke_agent planner` over one chat:
  - run A: a log record (keys `plan`, `step`; count 2) and a span event on the agent span
    (key `step`; count 1);
  - run B: a log record (keys `step`, `plan`: the same state as A's) emitted after the agent
    span ended (it joins a run already folded);
  - run C: a log record with no key names (count 3), carrying the canary in its body and in a
    state value attribute; and one whose key list holds the canary, a value and no bounded name
    (count 1): its keys are not read, it counts by its count.
  States: {plan,step}: 2, {step}: 1, #3: 1, #1: 1, so S_obs 4, f1 3, f2 1, n 5; Chao1
  4 + 3·2/(2·2) = 5.5; state coverage 4/5.5 = 8/11; sample coverage 1 − 3/5 = 0.4. The steps
  alone would have given one state (the chat, three times).
- worker, one run, no state events: its states are inferred from its steps, as before: the chat
  and the tool call, 2 states seen once each, Chao1 2 + 2·1/(2·1) = 3.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import _otel_events
import pytest
from _otel_events import measured_in_process, otlp_exporters
from _trace_files import protobuf_bytes
from opentelemetry import trace
from opentelemetry._logs import Logger, LogRecord, SeverityNumber
from opentelemetry.exporter.otlp.json.common._log_encoder import encode_logs
from opentelemetry.exporter.otlp.json.common.trace_encoder import encode_spans
from opentelemetry.exporter.otlp.proto.common._log_encoder import encode_logs as encode_logs_pb
from opentelemetry.sdk._logs.export import InMemoryLogRecordExporter
from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

from otel_agentcov import CoverageSpec
from otel_agentcov.offline import load
from otel_agentcov.readers.otlp_logs import events_from_json
from otel_agentcov.reporting import render_text
from otel_agentcov.semconv.events import StateChange
from otel_agentcov.service.store import PROTOBUF, CoverageStore, decode_records
from otel_agentcov.state import STATE_VERSION, CoverageState

SPEC = CoverageSpec.from_dict({"version": 1, "agents": [{"name": "planner"},
                                                       {"name": "worker"}]}, source="<test>")
RESOURCE = Resource.create({"service.name": "svc"})
CANARY = "CANARY-5e1d-state-value-do-not-store"
STATE_EVENT = "gen_ai.execution.state.changed"


def changed(logger: Logger, count: int, keys: list[str] | None, span: trace.Span,
            body: str = "", **extra: Any) -> None:
    """One state-change event as a log record, in `span`."""
    attributes: dict[str, Any] = {"gen_ai.execution.state.changed_key.count": count, **extra}
    if keys is not None:
        attributes["gen_ai.execution.state.changed_keys"] = keys
    logger.emit(LogRecord(context=trace.set_span_in_context(span),
                          severity_number=SeverityNumber.INFO, event_name=STATE_EVENT,
                          body=body, attributes=attributes))


def _agent(tracer: trace.Tracer, name: str) -> Any:
    return tracer.start_as_current_span(f"invoke_agent {name}", attributes={
        "gen_ai.operation.name": "invoke_agent", "gen_ai.agent.name": name})


def _chat(tracer: trace.Tracer) -> None:
    with tracer.start_as_current_span("chat m1", attributes={
            "gen_ai.operation.name": "chat", "gen_ai.request.model": "m1"}):
        pass


def workload(tracer: trace.Tracer, logger: Logger) -> None:
    """The four runs of the module docstring."""
    with _agent(tracer, "planner") as a:
        _chat(tracer)
        changed(logger, 2, ["plan", "step"], a)
        a.add_event(STATE_EVENT, {"gen_ai.execution.state.changed_key.count": 1,
                                  "gen_ai.execution.state.changed_keys": ["step"]})
    with _agent(tracer, "planner") as b:
        _chat(tracer)
    changed(logger, 2, ["step", "plan"], b)  # after its run ended
    with _agent(tracer, "planner") as c:
        _chat(tracer)
        changed(logger, 3, None, c, body=CANARY,
                **{"gen_ai.execution.state.value": CANARY})
        changed(logger, 1, [CANARY * 3], c)
    with _agent(tracer, "worker"):
        _chat(tracer)
        with tracer.start_as_current_span("execute_tool lookup", attributes={
                "gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": "lookup"}):
            pass


def recorded() -> tuple[InMemorySpanExporter, InMemoryLogRecordExporter]:
    return _otel_events.recorded(RESOURCE, workload)


def in_process() -> tuple[dict[str, Any], CoverageState]:
    return measured_in_process(SPEC, RESOURCE, workload)


def offline(tmp_path: Path, logs_format: str) -> tuple[dict[str, Any], CoverageState]:
    """The workload as files written by the SDK's encoders: traces as OTLP/JSON, the log
    records as OTLP/JSON or protobuf (read after the traces: every log event is late)."""
    spans, logs = recorded()
    traces = tmp_path / "traces.json"
    traces.write_text(encode_spans(spans.get_finished_spans()).to_json(), encoding="utf-8")
    if logs_format == "json":
        events = tmp_path / "logs.json"
        events.write_text(encode_logs(logs.get_finished_logs()).to_json(), encoding="utf-8")
    else:
        events = tmp_path / "logs.pb"
        events.write_bytes(encode_logs_pb(logs.get_finished_logs()).SerializeToString())
    engine = load(SPEC, traces=[str(traces), str(events)])
    return engine.snapshot().to_dict(), engine.state


@pytest.fixture(params=["in_process", "offline_json", "offline_protobuf"])
def measured(request: pytest.FixtureRequest, tmp_path: Path
             ) -> tuple[dict[str, Any], CoverageState]:
    if request.param == "in_process":
        return in_process()
    return offline(tmp_path, request.param.removeprefix("offline_"))


def test_state_coverage_comes_from_the_events(
        measured: tuple[dict[str, Any], CoverageState]) -> None:
    report, _ = measured
    planner = report["agents"]["planner"]
    assert planner["states"] == {"observed": 4, "estimated": 5.5, "sample_coverage": 0.4,
                                 "source": "events"}
    assert planner["coverage"]["state"] == pytest.approx(8 / 11)
    assert planner["runs"]["count"] == 3


def test_an_agent_with_no_state_events_keeps_its_inferred_states(
        measured: tuple[dict[str, Any], CoverageState]) -> None:
    report, _ = measured
    assert report["agents"]["worker"]["states"] == {
        "observed": 2, "estimated": 3.0, "sample_coverage": 0.0}


def test_the_text_report_says_where_the_states_came_from(
        measured: tuple[dict[str, Any], CoverageState]) -> None:
    text = render_text(measured[0])
    assert "4 states seen of ~6 estimated, from state-change events" in text
    assert "2 states seen of ~3 estimated)" in text


def test_no_state_value_reaches_the_report_or_the_state(
        measured: tuple[dict[str, Any], CoverageState]) -> None:
    report, state = measured
    for output in (json.dumps(report), render_text(report), json.dumps(state.to_dict())):
        assert CANARY[:20] not in output


def test_state_files_keep_the_event_states(
        measured: tuple[dict[str, Any], CoverageState]) -> None:
    """Version 6 wrote them first; they read back, and merge by summing (two copies: each count
    doubled, so f1 = 0 and f2 = 3: Chao1 = S_obs = 4)."""
    _, state = measured
    document = json.loads(json.dumps(state.to_dict()))
    assert document["version"] == STATE_VERSION == 8
    assert sorted(document["agents"]["planner"]["event_states"].values()) == [1, 1, 1, 2]
    assert "event_states" not in document["agents"]["worker"]
    merged = CoverageState.from_dict(document)
    merged.merge(CoverageState.from_dict(document))
    assert sorted(merged.agents["planner"].diversity.event_states.values()) == [2, 2, 2, 4]


def test_a_state_event_waiting_for_its_span_survives_a_compaction(tmp_path: Path) -> None:
    """`serve`'s store: run A's state event arrives first and waits; the store compacts and
    restarts (the waiting event is in the snapshot); then the spans come: the event joins."""
    spans, logs = recorded()
    payload = json.loads(encode_logs(logs.get_finished_logs()[:1]).to_json())
    items = [e for e in events_from_json(payload) if isinstance(e, StateChange)]
    assert [(e.count, e.keys) for e in items] == [(2, ("plan", "step"))]
    state = str(tmp_path / "state.json")
    first = CoverageStore(SPEC, state)
    first.open()
    first.submit_events(items, 0)
    first.close()
    second = CoverageStore(SPEC, state)
    second.open()
    assert second.engine.assembler.pending_events == 1
    second.submit(decode_records(PROTOBUF, protobuf_bytes(spans.get_finished_spans()[:2]),
                                 "test"))
    got = second.snapshot().to_dict()
    second.close()
    # run A: the joined log record {plan, step} and its span event {step}
    assert got["agents"]["planner"]["states"] == {
        "observed": 2, "estimated": 3.0, "sample_coverage": 0.0, "source": "events"}
    assert (got["spans"]["events"]["received"], got["spans"]["events"]["joined"]) == (2, 2)


@pytest.mark.slow
@pytest.mark.parametrize("transport", ["http", "grpc"])
def test_serve_reads_state_events_from_the_otlp_log_exporters(
        tmp_path: Path, transport: str) -> None:
    """The workload through the SDK's real OTLP exporters to `agentcov serve`, the logs sent
    first. The exporters send protobuf, whose span events `serve` reads beside the core's
    steps: the same states as in-process (run A's span event {step} included), and no state
    value in the report or the journal."""
    from _support import start_service

    service = start_service(SPEC, state_file=str(tmp_path / "state.json"))
    try:
        logs, spans = otlp_exporters(service, transport)
        span_memory, log_memory = recorded()
        for exporter, batch in ((logs, log_memory.get_finished_logs()),
                                (spans, span_memory.get_finished_spans())):
            assert exporter.export(batch).name == "SUCCESS"
            exporter.shutdown()
        report = service.store.snapshot().to_dict()
        assert report["agents"]["planner"]["states"] == {
            "observed": 4, "estimated": 5.5, "sample_coverage": 0.4, "source": "events"}
        assert CANARY[:20] not in json.dumps(report)
        journal = Path(service.store.journal_path or "")
        assert CANARY[:20].encode() not in journal.read_bytes()
    finally:
        service.stop()
