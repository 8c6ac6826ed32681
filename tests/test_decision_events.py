"""Tool-call decision events (`gen_ai.tool.call.decision` log records) through the real SDK: the
in-process pairing of span and log processors, offline log files written by the SDK's own
encoders, and the decision counts, restricted attempts and gate they feed.

The agent each test runs is `_decisions.run_agent`; every expected count is worked out by hand
from its script in the test's docstring.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from _decisions import CANARY, SPEC, Script, providers, run_agent
from opentelemetry.exporter.otlp.json.common.trace_encoder import encode_spans as spans_json
from opentelemetry.exporter.otlp.proto.common._log_encoder import encode_logs as logs_pb
from opentelemetry.exporter.otlp.proto.common.trace_encoder import encode_spans as spans_pb
from opentelemetry.sdk._logs.export import InMemoryLogRecordExporter, SimpleLogRecordProcessor
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

from otel_agentcov import AgentCoverageProcessor, CoverageSpec
from otel_agentcov.cli import main as cli
from otel_agentcov.gate import evaluate
from otel_agentcov.offline import load
from otel_agentcov.stats.verdicts import FAIL, PASS

SPEC_OBJ = CoverageSpec.from_dict(SPEC, source="<test>")


def in_process(*scripts: Script) -> dict[str, Any]:
    """The report of the processor pair fed by the SDK, one run per script."""
    tracer_provider, logger_provider = providers()
    processor = AgentCoverageProcessor(SPEC_OBJ)
    tracer_provider.add_span_processor(processor)
    logger_provider.add_log_record_processor(processor.log_processor())
    tracer, logger = tracer_provider.get_tracer("t"), logger_provider.get_logger("t")
    for script in scripts:
        run_agent(tracer, logger, script)
    processor.force_flush()
    report = processor.snapshot().to_dict()
    processor.shutdown()
    return report


def support(report: dict[str, Any]) -> dict[str, Any]:
    agent: dict[str, Any] = report["agents"]["support"]
    return agent


def decisions(report: dict[str, Any]) -> dict[str, tuple[int, int, int]]:
    return {d["tool"]: (d["allow"], d["deny"], d["require_approval"])
            for d in support(report)["edges"].get("decisions", [])}


def gate_verdict(report: dict[str, Any]) -> str:
    checks = [c for c in evaluate(report, SPEC_OBJ) if c.target == "edges.restricted_attempts"]
    assert len(checks) == 1
    return checks[0].verdict


def test_a_denied_restricted_tool_with_no_span_fails_the_gate() -> None:
    """deny issue_refund (c1), no tool span: one attempt `denied`, one deny, the gate fails."""
    report = in_process(Script(decisions=[("issue_refund", "deny", "c1")]))
    agent = support(report)
    assert agent["edges"]["restricted"] == [
        {"tool": "issue_refund", "outcome": "denied", "count": 1}]
    assert agent["edges"]["restricted_attempts"] == 1
    assert decisions(report) == {"issue_refund": (0, 1, 0)}
    assert agent["tools"]["called"] == {}  # nothing ran
    assert agent["runs"]["count"] == 1 and agent["runs"]["passed"] == 0
    assert gate_verdict(report) == FAIL


def test_the_same_runs_without_the_event_pass_the_gate() -> None:
    """The control: the same agent with no decision event has nothing restricted to find."""
    report = in_process(Script())
    assert support(report)["edges"]["restricted_attempts"] == 0
    assert gate_verdict(report) == PASS


@pytest.mark.parametrize("when", ["before", "after"])
def test_a_decision_counts_once_whether_it_comes_before_or_after_its_tool_span(when: str) -> None:
    """allow lookup (c2) and the lookup span (c2): one allow, one call, whichever comes first
    (after: the event is emitted once the agent span ended, so its run was folded already)."""
    event = [("lookup", "allow", "c2")]
    script = (Script(decisions=event, tools=[("lookup", "c2")]) if when == "before"
              else Script(tools=[("lookup", "c2")], after=event))
    report = in_process(script)
    assert decisions(report) == {"lookup": (1, 0, 0)}
    assert support(report)["tools"]["called"]["lookup"] == {"ok": 1, "error": 0}
    events = report["spans"]["events"]
    assert events["received"] == 1
    assert (events["joined"], events["late"]) == ((1, 0) if when == "before" else (0, 1))


def test_a_late_deny_of_a_restricted_tool_still_fails_the_gate() -> None:
    """deny issue_refund (c3) after the run was folded: one attempt `denied`, the gate fails."""
    report = in_process(Script(after=[("issue_refund", "deny", "c3")]))
    assert support(report)["edges"]["restricted"] == [
        {"tool": "issue_refund", "outcome": "denied", "count": 1}]
    assert gate_verdict(report) == FAIL


def test_a_repeated_event_and_a_decision_attribute_count_once() -> None:
    """allow lookup (c4) twice before its span, once more after the run: one allow, two
    duplicates."""
    report = in_process(Script(decisions=[("lookup", "allow", "c4")] * 2,
                               tools=[("lookup", "c4")], after=[("lookup", "allow", "c4")]))
    assert decisions(report) == {"lookup": (1, 0, 0)}
    assert report["spans"]["events"]["duplicate"] == 2


def test_pending_approvals_are_their_own_count_until_answered() -> None:
    """Run 1: require_approval lookup (c5), never answered: pending 1. Run 2: require_approval
    then allow for c6, and the lookup span: allow 1, pending 0. Together (1, 0, 1)."""
    report = in_process(
        Script(decisions=[("lookup", "require_approval", "c5")]),
        Script(decisions=[("lookup", "require_approval", "c6"), ("lookup", "allow", "c6")],
               tools=[("lookup", "c6")]),
    )
    assert decisions(report) == {"lookup": (1, 0, 1)}
    assert support(report)["tools"]["called"]["lookup"] == {"ok": 1, "error": 0}


def test_no_content_reaches_the_report_through_the_logs_front_door() -> None:
    """The canary is in every log body, tool argument and prompt: nowhere in the outputs."""
    tracer_provider, logger_provider = providers()
    processor = AgentCoverageProcessor(SPEC_OBJ)
    tracer_provider.add_span_processor(processor)
    logger_provider.add_log_record_processor(processor.log_processor())
    run_agent(tracer_provider.get_tracer("t"), logger_provider.get_logger("t"),
              Script(decisions=[("issue_refund", "deny", "c7"), ("lookup", "allow", "c8")],
                     tools=[("lookup", "c8")], after=[("lookup", "deny", None)]))
    processor.force_flush()
    snapshot = processor.snapshot()
    outputs = [json.dumps(snapshot.to_dict()), str(snapshot),
               json.dumps(processor.engine.state.to_dict())]
    assert all(CANARY not in text for text in outputs)
    processor.shutdown()


# ---------------------------------------------------------------- offline files


def recorded(*scripts: Script) -> tuple[list[Any], list[Any]]:
    """The finished spans and log records of the scripts, as the SDK's exporters receive them."""
    tracer_provider, logger_provider = providers()
    spans, logs = InMemorySpanExporter(), InMemoryLogRecordExporter()
    tracer_provider.add_span_processor(SimpleSpanProcessor(spans))
    logger_provider.add_log_record_processor(SimpleLogRecordProcessor(logs))
    for script in scripts:
        run_agent(tracer_provider.get_tracer("t"), logger_provider.get_logger("t"), script)
    return list(spans.get_finished_spans()), list(logs.get_finished_logs())


def write(tmp_path: Path, fmt: str, spans: list[Any], logs: list[Any]) -> tuple[Path, Path]:
    if fmt == "json":
        from opentelemetry.exporter.otlp.json.common._log_encoder import encode_logs as logs_json

        traces, events = tmp_path / "traces.jsonl", tmp_path / "logs.jsonl"
        traces.write_text(spans_json(spans).to_json() + "\n", encoding="utf-8")
        events.write_text(logs_json(logs).to_json() + "\n", encoding="utf-8")
    else:
        traces, events = tmp_path / "traces.pb", tmp_path / "logs.pb"
        traces.write_bytes(spans_pb(spans).SerializeToString())
        events.write_bytes(logs_pb(logs).SerializeToString())
    return traces, events


@pytest.mark.parametrize("fmt", ["json", "protobuf"])
@pytest.mark.parametrize("logs_first", [True, False])
def test_offline_log_files_in_either_order(tmp_path: Path, fmt: str, logs_first: bool) -> None:
    """deny issue_refund (c1) with no span, allow lookup (c2) with its span: the files read in
    either order give one attempt `denied`, one deny, one allow, and the gate fails."""
    spans, logs = recorded(Script(decisions=[("issue_refund", "deny", "c1"),
                                             ("lookup", "allow", "c2")],
                                  tools=[("lookup", "c2")]))
    traces, events = write(tmp_path, fmt, spans, logs)
    paths = [str(events), str(traces)] if logs_first else [str(traces), str(events)]
    report = load(SPEC_OBJ, traces=paths).snapshot().to_dict()
    assert decisions(report) == {"issue_refund": (0, 1, 0), "lookup": (1, 0, 0)}
    assert support(report)["edges"]["restricted"] == [
        {"tool": "issue_refund", "outcome": "denied", "count": 1}]
    assert gate_verdict(report) == FAIL


def test_agentcov_gate_fails_on_a_policy_denial_in_a_log_file(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The CLI: the same denial, spans and logs as protobuf files: exit 1 (FAIL)."""
    spans, logs = recorded(Script(decisions=[("issue_refund", "deny", "c1")]))
    traces, events = write(tmp_path, "protobuf", spans, logs)
    spec = tmp_path / "agentcov.json"
    spec.write_text(json.dumps(SPEC), encoding="utf-8")
    assert cli(["gate", "--spec", str(spec), str(traces), str(events)]) == 1
    assert CANARY not in capsys.readouterr().out


@pytest.mark.parametrize("front_door", ["in_process", "json_file"])
def test_decision_span_events_are_read_like_log_records(tmp_path: Path, front_door: str) -> None:
    """The older form: the deny as a span event on the agent span (no log record, no tool
    span): one attempt `denied`, one deny; a span event with an unknown outcome is ignored."""
    tracer_provider, _ = providers()
    spans = InMemorySpanExporter()
    tracer_provider.add_span_processor(SimpleSpanProcessor(spans))
    processor = AgentCoverageProcessor(SPEC_OBJ)
    if front_door == "in_process":
        tracer_provider.add_span_processor(processor)
    tracer = tracer_provider.get_tracer("t")
    with tracer.start_as_current_span("invoke_agent support", attributes={
            "gen_ai.operation.name": "invoke_agent", "gen_ai.agent.name": "support"}) as agent:
        agent.add_event("gen_ai.tool.call.decision", {
            "gen_ai.tool.call.decision.outcome": "deny", "gen_ai.tool.name": "issue_refund",
            "gen_ai.tool.call.id": "c1"})
        agent.add_event("gen_ai.tool.call.decision", {
            "gen_ai.tool.call.decision.outcome": "maybe", "gen_ai.tool.name": "lookup"})
    if front_door == "in_process":
        processor.force_flush()
        report = processor.snapshot().to_dict()
    else:
        path = tmp_path / "traces.json"
        path.write_text(spans_json(spans.get_finished_spans()).to_json(), encoding="utf-8")
        report = load(SPEC_OBJ, traces=[str(path)]).snapshot().to_dict()
    processor.shutdown()
    assert decisions(report) == {"issue_refund": (0, 1, 0)}
    assert support(report)["edges"]["restricted_attempts"] == 1
    assert gate_verdict(report) == FAIL
