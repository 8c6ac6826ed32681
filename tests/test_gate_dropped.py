"""Spans and decision events dropped for bounds never pass the gate (docs/gate.md#dropped-spans-
and-events): a restricted call or a `deny` lost to a full queue or buffer once passed, counted but
ignored. Through the real OpenTelemetry SDK and the processor, the data file it writes and
`agentcov gate` / `agentcov merge` on it; every count below is worked out by hand in the test's
docstring.
"""

from __future__ import annotations

import json
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from _builders import agent_attrs, tool_attrs
from _decisions import SPEC, Script, providers, run_agent
from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import TracerProvider

from otel_agentcov import AgentCoverageProcessor, CoverageSpec
from otel_agentcov import gate as gate_module
from otel_agentcov.assembler import Bounds
from otel_agentcov.cli import main as cli
from otel_agentcov.gate import Check
from otel_agentcov.offline import save_data_file
from otel_agentcov.stats.verdicts import INCONCLUSIVE, PASS

pytest_plugins = ["pytester"]

SPEC_OBJ = CoverageSpec.from_dict(SPEC, source="agentcov.yaml")
LOST_TAIL = ("dropped before they were judged: runs, restricted attempts or denials among them "
             "are unknown, so the gate cannot pass, with --allow-inconclusive or without "
             "(agentcov docs gate)")


def _data_file(processor: AgentCoverageProcessor, path: Path) -> Path:
    """What `pytest --agentcov` writes at the end of a session, for this processor."""
    engine = processor.engine
    save_data_file(engine.state, SPEC_OBJ, path, engine.lost())
    return path


def _gate(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, list[str]]:
    code = cli(["gate", *args])
    return code, capsys.readouterr().out.splitlines()


def _queue_overflow(tmp_path: Path) -> AgentCoverageProcessor:
    """20 runs of `support` (invoke_agent > execute_tool lookup, 2 spans each), the 20th also
    calling the restricted issue_refund (3 spans): 41 spans ended while the worker cannot drain,
    into a queue of 10. The first 10 spans (runs 1-5) are kept, 31 are `queue_full`, the
    restricted call among them."""
    processor = AgentCoverageProcessor(SPEC_OBJ, bounds=Bounds(max_queue=10),
                                       flush_interval_s=3600.0)
    provider = TracerProvider(resource=Resource.create({"service.name": "svc"}))
    provider.add_span_processor(processor)
    tracer = provider.get_tracer("t")
    with processor._drain_lock:  # the worker cannot drain while the test holds this
        for run in range(20):
            with tracer.start_as_current_span("invoke_agent support",
                                              attributes=agent_attrs("support")):
                tools = ["lookup", "issue_refund"] if run == 19 else ["lookup"]
                for tool in tools:
                    with tracer.start_as_current_span(f"execute_tool {tool}",
                                                      attributes=tool_attrs(tool)):
                        pass
    processor.force_flush()
    return processor


def test_a_restricted_call_lost_to_a_full_queue_is_inconclusive_never_a_pass(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    processor = _queue_overflow(tmp_path)
    try:
        snapshot = processor.snapshot()
        agent = snapshot.agents["support"]
        assert agent["runs"]["count"] == 5
        assert agent["edges"]["restricted_attempts"] == 0  # the restricted call was dropped
        assert snapshot.to_dict()["spans"]["dropped"] == {"queue_full": 31}
        assert not snapshot.gate_passed
        assert snapshot.gate_problems == (f"31 spans (queue_full 31) {LOST_TAIL}",)
        data = _data_file(processor, tmp_path / ".agentcov")
    finally:
        processor.shutdown()
    assert json.loads(data.read_text())["dropped"] == {"spans.queue_full": 31}
    row = (f'*        data.dropped               31     {{"maximum": 0}}  INCONCLUSIVE  '
           f"(31 spans (queue_full 31) {LOST_TAIL})")
    for allow in ((), ("--allow-inconclusive",)):
        code, out = _gate(capsys, str(data), *allow)
        assert code == 3, out
        assert out[2] == row
        assert out[3] == "gate INCONCLUSIVE: 1 passed, 0 failed, 1 inconclusive"  # no (allowed)


def test_a_deny_lost_to_a_full_event_buffer_is_inconclusive(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """One run: chat, then decisions allow lookup c1, c2, c3 and deny issue_refund c4, before
    the agent span ends. With max_buffered_spans=3 the first three events wait with their trace,
    the deny finds the buffer full (`buffer_full` 1): no restricted attempt is seen. With the
    default bounds (the control) the deny is the restricted attempt `denied` and the gate
    fails."""
    decisions = [("lookup", "allow", "c1"), ("lookup", "allow", "c2"), ("lookup", "allow", "c3"),
                 ("issue_refund", "deny", "c4")]
    attempts = {}
    for bounds in (Bounds(max_buffered_spans=3), Bounds()):
        tracer_provider, logger_provider = providers()
        processor = AgentCoverageProcessor(SPEC_OBJ, bounds=bounds)
        tracer_provider.add_span_processor(processor)
        logger_provider.add_log_record_processor(processor.log_processor())
        run_agent(tracer_provider.get_tracer("t"), logger_provider.get_logger("t"),
                  Script(decisions=decisions))
        processor.force_flush()
        snapshot = processor.snapshot()
        attempts[bounds.max_buffered_spans] = snapshot.agents["support"]["edges"][
            "restricted_attempts"]
        if bounds.max_buffered_spans == 3:
            assert snapshot.to_dict()["spans"]["events"]["buffer_full"] == 1
            assert not snapshot.gate_passed
        data = _data_file(processor, tmp_path / f"{bounds.max_buffered_spans}.agentcov")
        processor.shutdown()
        if bounds.max_buffered_spans == 3:
            code, out = _gate(capsys, str(data), "--allow-inconclusive")
            assert code == 3
            assert f"(1 decision event (buffer_full 1) {LOST_TAIL})" in out[2]
        else:
            assert _gate(capsys, str(data))[0] == 1
    assert attempts == {3: 0, 500_000: 1}


def test_merge_keeps_the_drops_and_a_bad_dropped_field_is_one_line(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A data file with drops merged with a clean one: the merged file still has them (31 + 0),
    so its gate is still INCONCLUSIVE; a `dropped` entry no writer makes is exit 2."""
    processor = _queue_overflow(tmp_path)
    lossy = _data_file(processor, tmp_path / "lossy.json")
    processor.shutdown()
    clean = json.loads(lossy.read_text())
    clean["dropped"] = {}
    (tmp_path / "clean.json").write_text(json.dumps(clean))
    assert cli(["merge", str(lossy), str(tmp_path / "clean.json"), "-o",
                str(tmp_path / "merged.json")]) == 0
    merged = json.loads((tmp_path / "merged.json").read_text())
    assert merged["dropped"] == {"spans.queue_full": 31}
    assert _gate(capsys, str(tmp_path / "merged.json"))[0] == 3
    assert _gate(capsys, str(tmp_path / "clean.json"))[0] == 0  # the control: nothing dropped
    clean["dropped"] = {"events.joined": 2}  # not a loss: no writer records it
    (tmp_path / "bad.json").write_text(json.dumps(clean))
    assert cli(["gate", str(tmp_path / "bad.json")]) == 2
    err = capsys.readouterr().err
    assert err == (f"agentcov: {tmp_path / 'bad.json'}: dropped: unknown key 'events.joined' "
                   "(spans.<reason> or events.<buffer_full|invalid>)\n")


def _checks() -> list[Check]:
    return [
        Check("support", "runs.pass_rate", 0.75, {"minimum": 0.9}, INCONCLUSIVE, "4 runs"),
        Check("support", "edges.restricted_attempts", 0, {"maximum": 0}, PASS, ""),
        *gate_module.dropped({"spans.queue_full": 2, "events.buffer_full": 1}),
    ]


def test_an_allowed_inconclusive_still_reports_the_drops_as_a_failure() -> None:
    """Under --allow-inconclusive the undecided pass rate is skipped in JUnit, the drops stay a
    failure, and the exit code is 3 (nothing failed)."""
    checks = _checks()
    assert checks[2].reason == (f"2 spans (queue_full 2) and 1 decision event (buffer_full 1) "
                                f"{LOST_TAIL}")
    assert gate_module.outcome(checks, True) == 3
    assert gate_module.outcome(checks[:2], True) == 0  # without the drops: allowed
    assert gate_module.status(checks, True) == "INCONCLUSIVE"
    suite = ET.fromstring(gate_module.junit_xml(checks, True)).find("testsuite")
    assert suite is not None
    cases = {case.get("name"): [child.tag for child in case] for case in suite}
    assert cases == {"runs.pass_rate": ["skipped"], "edges.restricted_attempts": [],
                     "data.dropped": ["failure"]}
    assert (suite.get("failures"), suite.get("skipped")) == ("1", "1")
    assert gate_module.dropped({"spans.queue_full": 0}) == []


SUITE = '''
import time

from opentelemetry import trace


def test_support_closes_the_account():
    """The agent's delete_account span ends before it starts (a clock step, a broken
    instrumentation): it cannot be read, so it is dropped (`end_before_start`)."""
    tracer = trace.get_tracer("support")
    with tracer.start_as_current_span("invoke_agent support", attributes={
            "gen_ai.operation.name": "invoke_agent", "gen_ai.agent.name": "support"}):
        now = time.time_ns()
        span = tracer.start_span("execute_tool delete_account", start_time=now, attributes={
            "gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": "delete_account"})
        span.end(end_time=now - 1_000)
'''


@pytest.mark.slow
def test_pytest_agentcov_fails_a_session_whose_restricted_call_was_dropped(
        pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> None:
    """One run of `support` (its agent span), its delete_account call dropped as
    `end_before_start`: no restricted attempt is seen, so the gate passed before. Now the session
    fails under --agentcov-allow-inconclusive too, the gate table has the line, and the data file
    it wrote carries the drop: `agentcov gate .agentcov` is exit 3 with the flag as without."""
    monkeypatch.setenv("PYTHONPATH", str(Path(__file__).resolve().parents[1]))
    pytester.makepyfile(test_support=SUITE)
    spec = {"version": 1, "agents": [{"name": "support",
                                      "tool_edges": {"restricted": ["delete_account"]}}]}
    (pytester.path / "agentcov.yaml").write_text(json.dumps(spec))
    result = pytester.runpytest_subprocess("--agentcov=agentcov.yaml",
                                           "--agentcov-allow-inconclusive")
    assert result.ret == 1, result.stdout.str()
    result.stdout.fnmatch_lines([
        "*support*edges.restricted_attempts*0*PASS",
        f"*data.dropped*1*INCONCLUSIVE*(1 span (end_before_start 1) {LOST_TAIL})",
        "gate INCONCLUSIVE: 1 passed, 0 failed, 1 inconclusive",
        "*agentcov gate INCONCLUSIVE*",
    ])
    data = pytester.path / ".agentcov"
    assert json.loads(data.read_text())["dropped"] == {"spans.end_before_start": 1}
    for allow in ((), ("--allow-inconclusive",)):
        proc = pytester.run(sys.executable, "-m", "otel_agentcov.cli", "gate", str(data), *allow)
        assert proc.ret == 3, proc.stdout.str()


def _otlp_json(tool_end_ns: int) -> bytes:
    """One run of `support` calling the restricted issue_refund, as OTLP/JSON; the tool span
    starts at 2000 and ends at `tool_end_ns`."""
    def span(span_id: str, parent: str, name: str, start: int, end: int,
             attributes: dict[str, str]) -> dict[str, object]:
        return {"traceId": "ab" * 16, "spanId": span_id, "parentSpanId": parent, "name": name,
                "startTimeUnixNano": str(start), "endTimeUnixNano": str(end),
                "attributes": [{"key": k, "value": {"stringValue": v}}
                               for k, v in attributes.items()]}
    spans = [span("01" * 8, "02" * 8, "execute_tool issue_refund", 2000, tool_end_ns,
                  tool_attrs("issue_refund")),
             span("02" * 8, "", "invoke_agent support", 1000, 9000, agent_attrs("support"))]
    return json.dumps({"resourceSpans": [{"scopeSpans": [{"scope": {"name": "t"},
                                                          "spans": spans}]}]}).encode()


def test_serve_keeps_its_drops_across_a_restart_and_its_state_file_does_not_pass(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """`agentcov serve --data-file F`'s store: one export whose restricted tool span ends
    (1500) before it starts (2000), dropped `end_before_start`. After a restart F still holds
    that one drop (not two: the restored counters are the same drop), and `agentcov gate F` is
    INCONCLUSIVE; the control export (the tool span ends at 3000) fails the gate."""
    from otel_agentcov.service.store import JSON, CoverageStore, decode_records

    codes = {}
    for end in (1500, 3000):
        path = tmp_path / f"serve-{end}.json"
        store = CoverageStore(SPEC_OBJ, str(path))
        store.open()
        store.submit(decode_records(JSON, _otlp_json(end), "test"))
        store.close()
        again = CoverageStore(SPEC_OBJ, str(path))
        again.open()
        assert again.engine.lost() == ({"spans.end_before_start": 1} if end == 1500 else {})
        again.close()
        codes[end] = _gate(capsys, str(path), "--allow-inconclusive")[0]
    assert codes == {1500: 3, 3000: 1}
