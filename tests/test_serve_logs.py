"""`agentcov serve` takes OTLP logs: the SDK's real OTLP log exporters (HTTP protobuf, gRPC) and
OTLP/JSON, with the traces' auth, journal and gate. Expected counts are worked out by hand from
the `_decisions` scripts named in each test."""

from __future__ import annotations

import http.client
import json
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from _decisions import CANARY, SPEC, Script, providers, run_agent
from _support import start_service
from opentelemetry.exporter.otlp.json.common._log_encoder import encode_logs as logs_json
from opentelemetry.exporter.otlp.proto.grpc._log_exporter import OTLPLogExporter as GrpcLogs
from opentelemetry.exporter.otlp.proto.grpc.trace_exporter import OTLPSpanExporter as GrpcSpans
from opentelemetry.exporter.otlp.proto.http._log_exporter import OTLPLogExporter as HttpLogs
from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter as HttpSpans
from opentelemetry.sdk._logs.export import (
    InMemoryLogRecordExporter,
    SimpleLogRecordProcessor,
)
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

from otel_agentcov import CoverageSpec
from otel_agentcov.gate import evaluate
from otel_agentcov.readers.otlp_logs import events_from_json
from otel_agentcov.semconv.events import ToolDecision
from otel_agentcov.service import Service
from otel_agentcov.stats.verdicts import FAIL

SPEC_OBJ = CoverageSpec.from_dict(SPEC, source="<test>")
TOKEN = "s3cret-token"


def start(tmp_path: Path, **kw: Any) -> Service:
    """A service on free ports (`_support.start_service`)."""
    service: Service = start_service(SPEC_OBJ, **kw)
    return service


@pytest.fixture()
def service(tmp_path: Path) -> Iterator[Service]:
    svc = start(tmp_path, token=TOKEN, state_file=str(tmp_path / "state.json"))
    yield svc
    svc.stop()


def export(service: Service, transport: str, script: Script, logs_first: bool) -> None:
    """The script through the SDK's OTLP exporters, logs before or after the spans."""
    headers = {"authorization": f"Bearer {TOKEN}"}
    tracer_provider, logger_provider = providers()
    if transport == "grpc":
        target = f"127.0.0.1:{service.config.otlp_grpc}"
        spans: Any = GrpcSpans(endpoint=target, insecure=True, headers=headers)
        logs: Any = GrpcLogs(endpoint=target, insecure=True, headers=headers)
    else:
        base = f"http://127.0.0.1:{service.config.otlp_http}"
        spans = HttpSpans(endpoint=f"{base}/v1/traces", headers=headers)
        logs = HttpLogs(endpoint=f"{base}/v1/logs", headers=headers)
    span_memory, log_memory = [], []

    class Hold:  # the SDK's records, exported together when the test says (either order)
        def __init__(self, into: list[Any]) -> None:
            self.into = into

        def export(self, batch: Any) -> Any:
            self.into.extend(batch)

        def shutdown(self) -> None: ...

        def force_flush(self, timeout_millis: int = 0) -> bool:
            return True

    tracer_provider.add_span_processor(SimpleSpanProcessor(Hold(span_memory)))  # type: ignore[arg-type]
    logger_provider.add_log_record_processor(SimpleLogRecordProcessor(Hold(log_memory)))  # type: ignore[arg-type]
    run_agent(tracer_provider.get_tracer("t"), logger_provider.get_logger("t"), script)
    sends = [(logs, log_memory), (spans, span_memory)]
    for exporter, batch in sends if logs_first else reversed(sends):
        assert exporter.export(batch).name == "SUCCESS"
        exporter.shutdown()


def report(service: Service) -> dict[str, Any]:
    return service.store.snapshot().to_dict()


@pytest.mark.slow
@pytest.mark.parametrize("transport", ["http", "grpc"])
@pytest.mark.parametrize("logs_first", [True, False])
def test_a_policy_denial_exported_as_a_log_record_fails_the_gate(
        service: Service, transport: str, logs_first: bool) -> None:
    """deny issue_refund (c1), no tool span; allow lookup (c2) and its span: one attempt
    `denied`, decisions issue_refund (0, 1, 0) and lookup (1, 0, 0), whichever signal comes
    first; the default gate fails; no content anywhere."""
    export(service, transport, Script(
        decisions=[("issue_refund", "deny", "c1"), ("lookup", "allow", "c2")],
        tools=[("lookup", "c2")]), logs_first)
    got = report(service)
    agent = got["agents"]["support"]
    assert agent["edges"]["restricted"] == [
        {"tool": "issue_refund", "outcome": "denied", "count": 1}]
    assert {d["tool"]: (d["allow"], d["deny"], d["require_approval"])
            for d in agent["edges"]["decisions"]} == {"issue_refund": (0, 1, 0),
                                                      "lookup": (1, 0, 0)}
    check = next(c for c in evaluate(got, SPEC_OBJ) if c.target == "edges.restricted_attempts")
    assert check.verdict == FAIL
    assert CANARY not in json.dumps(got)
    journal = Path(service.store.journal_path or "")
    assert CANARY.encode() not in journal.read_bytes()


def post_logs(service: Service, body: bytes, token: str | None) -> int:
    conn = http.client.HTTPConnection("127.0.0.1", service.config.otlp_http, timeout=10)
    headers = {"Content-Type": "application/json"}
    if token is not None:
        headers["Authorization"] = f"Bearer {token}"
    try:
        conn.request("POST", "/v1/logs", body=body, headers=headers)
        return conn.getresponse().status
    finally:
        conn.close()


def json_logs(script: Script) -> bytes:
    """The script's log records as OTLP/JSON, by the SDK's own JSON encoder."""
    tracer_provider, logger_provider = providers()
    memory = InMemoryLogRecordExporter()
    logger_provider.add_log_record_processor(SimpleLogRecordProcessor(memory))
    run_agent(tracer_provider.get_tracer("t"), logger_provider.get_logger("t"), script)
    text: str = logs_json(memory.get_finished_logs()).to_json()
    return text.encode()


def test_logs_need_the_token_and_bad_bodies_are_malformed(service: Service) -> None:
    body = json_logs(Script(decisions=[("issue_refund", "deny", "c9")]))
    assert post_logs(service, body, None) == 401
    assert post_logs(service, body, "wrong") == 401
    assert post_logs(service, b"{not json", TOKEN) == 400
    assert post_logs(service, body, TOKEN) == 200
    assert service.intake.requests["http", "unauthenticated"] == 2
    assert service.intake.requests["http", "malformed"] == 1
    # its trace never comes: the event waits with the trace TTL, counted
    assert report(service)["spans"]["events"]["received"] == 1


def test_journaled_events_survive_a_restart(tmp_path: Path) -> None:
    """deny issue_refund (c1) over OTLP/JSON logs, then the spans; the service is stopped
    without a compaction it could have relied on, and a new one replays the journal: the same
    attempt."""
    state = tmp_path / "state.json"
    first = start(tmp_path, state_file=str(state))
    try:
        tracer_provider, logger_provider = providers()
        spans = HttpSpans(endpoint=f"http://127.0.0.1:{first.config.otlp_http}/v1/traces")
        memory = InMemoryLogRecordExporter()
        tracer_provider.add_span_processor(SimpleSpanProcessor(spans))
        logger_provider.add_log_record_processor(SimpleLogRecordProcessor(memory))
        run_agent(tracer_provider.get_tracer("t"), logger_provider.get_logger("t"),
                  Script(after=[("issue_refund", "deny", "c1")]))
        body: str = logs_json(memory.get_finished_logs()).to_json()
        assert post_logs(first, body.encode(), None) == 200
        before = report(first)["agents"]["support"]["edges"]["restricted"]
        journal = first.store.journal_path
        assert journal is not None and os.path.getsize(journal) > 0
        second_state = tmp_path / "copy.json"
        # what a crash leaves: the snapshot and the journal as they are now
        second_state.write_bytes(state.read_bytes())
        Path(f"{second_state}.journal").write_bytes(Path(journal).read_bytes())
    finally:
        first.stop()
    second = start(tmp_path, state_file=str(second_state))
    try:
        assert before == [{"tool": "issue_refund", "outcome": "denied", "count": 1}]
        assert report(second)["agents"]["support"]["edges"]["restricted"] == before
    finally:
        second.stop()


def test_events_waiting_for_their_spans_survive_a_compaction(tmp_path: Path) -> None:
    """deny issue_refund (c1) arrives first and waits; the store compacts and restarts; the
    spans then come: one attempt `denied`, the event counted received once."""
    from _trace_files import protobuf_bytes

    from otel_agentcov.service.store import PROTOBUF, CoverageStore, decode_records

    tracer_provider, logger_provider = providers()
    span_memory, log_memory = InMemorySpanExporter(), InMemoryLogRecordExporter()
    tracer_provider.add_span_processor(SimpleSpanProcessor(span_memory))
    logger_provider.add_log_record_processor(SimpleLogRecordProcessor(log_memory))
    run_agent(tracer_provider.get_tracer("t"), logger_provider.get_logger("t"),
              Script(decisions=[("issue_refund", "deny", "c1")]))
    state = str(tmp_path / "state.json")
    first = CoverageStore(SPEC_OBJ, state)
    first.open()
    payload = logs_json(log_memory.get_finished_logs()).to_json().encode()
    items = list(events_from_json(json.loads(payload)))
    first.submit_events([e for e in items if isinstance(e, ToolDecision)], 0)
    assert first.engine.assembler.pending_events == 1
    first.close()  # compacts: the snapshot holds the waiting event
    second = CoverageStore(SPEC_OBJ, state)
    second.open()
    assert second.engine.assembler.pending_events == 1
    second.submit(decode_records(PROTOBUF, protobuf_bytes(span_memory.get_finished_spans()),
                                 "test"))
    got = second.snapshot().to_dict()
    second.close()
    assert got["agents"]["support"]["edges"]["restricted"] == [
        {"tool": "issue_refund", "outcome": "denied", "count": 1}]
    assert (got["spans"]["events"]["received"], got["spans"]["events"]["joined"]) == (1, 1)
