"""Verdicts as OpenTelemetry GenAI evaluation events (docs/evaluations.md), emitted by the real
SDK processor into a real SDK `LoggerProvider` with an in-memory exporter.

Expected records are derived from what each test's workload did (which tools it called, which
behaviour it broke), never from the code under test.
"""

from __future__ import annotations

import base64
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from _trace_files import write_jsonl, write_spec
from google.protobuf.json_format import ParseDict
from opentelemetry.exporter.otlp.json.common._log_encoder import encode_logs as encode_json
from opentelemetry.proto.collector.logs.v1.logs_service_pb2 import ExportLogsServiceRequest
from opentelemetry.sdk._logs import LoggerProvider, ReadableLogRecord
from opentelemetry.sdk._logs.export import InMemoryLogRecordExporter, SimpleLogRecordProcessor
from opentelemetry.sdk.trace import Tracer, TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

from otel_agentcov.cli import main
from otel_agentcov.evaluations import Encoder, Evaluation, otlp_json
from otel_agentcov.processor import EVALUATIONS_ENV, AgentCoverageProcessor
from otel_agentcov.spec import CoverageSpec

CANARY = "CANARY-e31-never-in-an-event"
SPEC: dict[str, Any] = {"version": 1, "agents": [{
    "name": "support",
    "tools": ["verify_customer", "issue_refund", "lookup_order", "delete_account",
              "send_email"],
    "tool_edges": {"restricted": ["delete_account"]},
    "narrative": {},
    "contracts": [{
        "name": "refund_policy", "when": {"called": "issue_refund"}, "fail_on": "high",
        "must": [
            {"behavior": "verifies_identity", "severity": "critical",
             "before": {"first": "verify_customer", "then": "issue_refund"}},
            {"behavior": "ascii_order", "severity": "low",
             "called": {"tool": "lookup_order", "args": {"order": "A-1"}, "args_mode": "subset"}},
        ],
    }],
}]}


def _messages(role: str, text: str) -> str:
    return json.dumps([{"role": role, "parts": [{"type": "text", "content": text}]}])


@pytest.fixture
def sdk() -> Iterator[tuple[AgentCoverageProcessor, Tracer, InMemoryLogRecordExporter]]:
    exporter = InMemoryLogRecordExporter()
    logs = LoggerProvider()
    logs.add_log_record_processor(SimpleLogRecordProcessor(exporter))
    processor = AgentCoverageProcessor(CoverageSpec.from_dict(SPEC), logger_provider=logs,
                                       flush_interval_s=3600.0)
    traces = TracerProvider()
    traces.add_span_processor(processor)
    yield processor, traces.get_tracer("evaluations"), exporter
    processor.shutdown()
    logs.shutdown()


def _run(tracer: Tracer, tools: list[str], answer: str) -> tuple[int, int]:
    """One `support` run calling `tools` in order, with the canary in its prompt, its answer
    and every tool's arguments; returns the agent span's (trace id, span id)."""
    agent = {"gen_ai.operation.name": "invoke_agent", "gen_ai.agent.name": "support",
             "gen_ai.input.messages": _messages("user", f"refund me {CANARY}"),
             "gen_ai.output.messages": _messages("assistant", f"{answer} {CANARY}")}
    with tracer.start_as_current_span("invoke_agent support", attributes=agent) as span:
        with tracer.start_as_current_span("chat m", attributes={
                "gen_ai.operation.name": "chat", "gen_ai.request.model": "m",
                "gen_ai.input.messages": _messages("user", CANARY)}):
            pass
        for tool in tools:
            with tracer.start_as_current_span(f"execute_tool {tool}", attributes={
                    "gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": tool,
                    "gen_ai.tool.call.arguments": json.dumps({"order": CANARY})}):
                pass
        context = span.get_span_context()
    return context.trace_id, context.span_id


def _by_span(records: list[ReadableLogRecord]) -> dict[tuple[int, int], dict[str, Any]]:
    """(trace id, span id) -> evaluation name -> (label, score, severity, explanation)."""
    out: dict[tuple[int, int], dict[str, Any]] = {}
    for r in records:
        rec = r.log_record
        assert rec.event_name == "gen_ai.evaluation.result"
        a = dict(rec.attributes or {})
        assert a["gen_ai.agent.name"] == "support"
        key = (rec.trace_id or 0, rec.span_id or 0)
        name = a["gen_ai.evaluation.name"]
        assert name not in out.setdefault(key, {}), f"two records for {name}"
        out[key][name] = (a["gen_ai.evaluation.score.label"], a["gen_ai.evaluation.score.value"],
                          a.get("agentcov.severity"), a["gen_ai.evaluation.explanation"])
    return out


def test_one_record_per_verdict_on_the_agent_span(
    sdk: tuple[AgentCoverageProcessor, Tracer, InMemoryLogRecordExporter],
) -> None:
    processor, tracer, exporter = sdk
    # refunds without verifying, then calls the restricted tool; its story claims an email
    bad = _run(tracer, ["issue_refund", "delete_account"],
               "I refunded you and I sent you an email.")
    # verifies first, looks the order up, refunds; an honest story
    good = _run(tracer, ["verify_customer", "lookup_order", "issue_refund"],
                "I refunded you.")
    assert processor.force_flush()
    got = _by_span(exporter.get_finished_logs())
    assert set(got) == {bad, good}
    assert set(got[bad]) == {"agentcov.restricted_tool",
                             "agentcov.contract.refund_policy.verifies_identity",
                             "agentcov.contract.refund_policy.ascii_order",
                             "agentcov.narrative", "agentcov.run"}
    label = {name: v[:3] for name, v in got[bad].items()}
    assert label == {
        "agentcov.restricted_tool": ("fail", 0.0, None),
        "agentcov.contract.refund_policy.verifies_identity": ("fail", 0.0, "critical"),
        "agentcov.contract.refund_policy.ascii_order": ("fail", 0.0, "low"),
        "agentcov.narrative": ("fail", 0.0, None),
        "agentcov.run": ("fail", 0.0, None),
    }
    assert "delete_account" in got[bad]["agentcov.restricted_tool"][3]
    # the good run's arguments hold the canary, not "A-1": that behaviour fails on content,
    # yet only its name and result reach the record
    assert {name: v[:3] for name, v in got[good].items()} == {
        "agentcov.restricted_tool": ("pass", 1.0, None),
        "agentcov.contract.refund_policy.verifies_identity": ("pass", 1.0, "critical"),
        "agentcov.contract.refund_policy.ascii_order": ("fail", 0.0, "low"),
        "agentcov.narrative": ("pass", 1.0, None),
        "agentcov.run": ("pass", 1.0, None),  # a low-severity violation does not fail it
    }
    counts = processor.snapshot().to_dict()["spans"]["evaluations"]
    assert counts == {"emitted": 10, "queue_full": 0, "export_failed": 0, "shutdown": 0}


def test_no_content_reaches_a_record(
    sdk: tuple[AgentCoverageProcessor, Tracer, InMemoryLogRecordExporter],
) -> None:
    processor, tracer, exporter = sdk
    _run(tracer, ["issue_refund", "delete_account", "lookup_order"], "Done, sorry.")
    assert processor.force_flush()
    records = exporter.get_finished_logs()
    assert len(records) == 5
    text = "\n".join(r.to_json() for r in records)
    assert "support" in text  # the search looks at real output
    assert CANARY not in text and CANARY.encode().hex() not in text


def test_emitted_on_the_worker_thread_never_the_hosts() -> None:
    threads: list[str] = []

    class Spy(InMemoryLogRecordExporter):
        def export(self, batch: Any) -> Any:
            import threading

            threads.append(threading.current_thread().name)
            return super().export(batch)

    logs = LoggerProvider()
    logs.add_log_record_processor(SimpleLogRecordProcessor(Spy()))
    processor = AgentCoverageProcessor(CoverageSpec.from_dict(SPEC), logger_provider=logs,
                                       flush_interval_s=3600.0)
    traces = TracerProvider()
    traces.add_span_processor(processor)
    _run(traces.get_tracer("t"), ["verify_customer"], "ok")
    processor.snapshot()  # folds the run on this (the host's) thread
    assert threads == []
    processor.force_flush()
    _run(traces.get_tracer("t"), ["verify_customer"], "ok")
    processor.shutdown()  # the last run is finished and emitted by the worker too
    assert threads and set(threads) == {"agentcov-worker"}


def test_bounded_with_counted_drops() -> None:
    exporter = InMemoryLogRecordExporter()
    logs = LoggerProvider()
    logs.add_log_record_processor(SimpleLogRecordProcessor(exporter))
    processor = AgentCoverageProcessor(CoverageSpec.from_dict(SPEC), logger_provider=logs,
                                       flush_interval_s=3600.0)
    assert processor.engine.evaluations is not None
    processor.engine.evaluations._max_pending = 3  # a tiny queue, so one run overflows it
    traces = TracerProvider()
    traces.add_span_processor(processor)
    _run(traces.get_tracer("t"), ["issue_refund"], "ok")  # 5 records: 3 fit
    processor.snapshot()
    counts = processor.snapshot().to_dict()["spans"]["evaluations"]
    assert counts["queue_full"] == 2
    processor.force_flush()
    assert len(exporter.get_finished_logs()) == 3
    processor.shutdown()


def test_nothing_emitted_without_a_provider(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(EVALUATIONS_ENV, raising=False)
    processor = AgentCoverageProcessor(CoverageSpec.from_dict(SPEC))
    assert processor.engine.evaluations is None
    assert "evaluations" not in processor.snapshot().to_dict()["spans"]
    processor.shutdown()


def test_environment_uses_the_global_provider(monkeypatch: pytest.MonkeyPatch) -> None:
    exporter = InMemoryLogRecordExporter()
    logs = LoggerProvider()
    logs.add_log_record_processor(SimpleLogRecordProcessor(exporter))
    monkeypatch.setattr("otel_agentcov.processor.get_logger_provider", lambda: logs)
    monkeypatch.setenv(EVALUATIONS_ENV, "on")
    processor = AgentCoverageProcessor(CoverageSpec.from_dict(SPEC), flush_interval_s=3600.0)
    traces = TracerProvider()
    traces.add_span_processor(processor)
    _run(traces.get_tracer("t"), ["verify_customer"], "ok")
    processor.force_flush()
    processor.shutdown()
    assert {r.log_record.attributes["gen_ai.evaluation.name"]  # type: ignore[index]
            for r in exporter.get_finished_logs()} == {"agentcov.restricted_tool",
                                                       "agentcov.narrative", "agentcov.run"}


def _decode(path: Path) -> list[tuple[tuple[int, int], dict[str, Any]]]:
    """Each record of an OTLP/JSON logs file, parsed into the protobuf message (hex ids turned
    back into the bytes protobuf's JSON mapping expects): ((trace id, span id), attributes)."""
    out = []
    for line in path.read_text(encoding="utf-8").splitlines():
        doc = json.loads(line)
        for rl in doc["resourceLogs"]:
            for sl in rl["scopeLogs"]:
                for rec in sl["logRecords"]:
                    for key in ("traceId", "spanId"):
                        rec[key] = base64.b64encode(bytes.fromhex(rec[key])).decode()
        request = ParseDict(doc, ExportLogsServiceRequest())
        for rl in request.resource_logs:
            for sl in rl.scope_logs:
                for rec in sl.log_records:
                    assert rec.event_name == "gen_ai.evaluation.result"
                    attrs = {a.key: getattr(a.value, a.value.WhichOneof("value"))
                             for a in rec.attributes}
                    ids = (int.from_bytes(rec.trace_id, "big"), int.from_bytes(rec.span_id, "big"))
                    out.append((ids, attrs))
    return out


def test_coverage_writes_them_as_otlp_json_logs(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    exporter = InMemorySpanExporter()
    traces = TracerProvider()
    traces.add_span_processor(SimpleSpanProcessor(exporter))
    tracer = traces.get_tracer("offline")
    bad = _run(tracer, ["issue_refund", "delete_account"], "Refunded.")
    good = _run(tracer, ["verify_customer"], "Checked.")
    trace_file = write_jsonl(tmp_path / "traces.jsonl", exporter.get_finished_spans())
    spec_file = write_spec(tmp_path / "spec.yaml", SPEC)
    out = tmp_path / "evaluations.jsonl"
    code = main(["coverage", str(trace_file), "--spec", str(spec_file), "--evaluations-out",
                 str(out), "--output", str(tmp_path / "report.txt"), "--jobs", "2"])
    assert code == 0
    assert capsys.readouterr().err == ("agentcov: --jobs is ignored with --evaluations-out: one "
                                       "process reads the files\n")  # said, not silent
    records = _decode(out)
    by_span: dict[tuple[int, int], dict[str, str]] = {}
    for ids, a in records:
        by_span.setdefault(ids, {})[a["gen_ai.evaluation.name"]] = a[
            "gen_ai.evaluation.score.label"]
    assert by_span == {
        bad: {"agentcov.restricted_tool": "fail",
              "agentcov.contract.refund_policy.verifies_identity": "fail",
              "agentcov.contract.refund_policy.ascii_order": "fail",
              "agentcov.narrative": "pass", "agentcov.run": "fail"},
        good: {"agentcov.restricted_tool": "pass", "agentcov.narrative": "pass",
               "agentcov.run": "pass"},  # no refund: the contract does not apply
    }
    assert len(records) == 8
    assert CANARY not in out.read_text(encoding="utf-8")


def test_the_json_is_the_sdk_official_otlp_json() -> None:
    """Our encoding (the protobuf encoder + hex ids) equals the SDK's own OTLP/JSON encoder."""
    batch = Encoder().readable([
        Evaluation("agentcov.run", False, "failed: errored", "a", 0xABC, 0xDE, 5),
        Evaluation("agentcov.contract.c.b", True, "before satisfied", "a", 1 << 100, 1 << 60, 6,
                   "high"),
    ])
    assert json.loads(otlp_json(batch)) == json.loads(encode_json(batch).to_json())
