"""Red team, round four (issue 37's closing pass): this round's new doors, attacked with the
product's promise in mind (a restricted tool call always fails the gate).

Each test reproduces one attack that broke before its fix, through the real OpenTelemetry SDK
(spans from a TracerProvider, decision events from a LoggerProvider) and the real processor or
offline reader; expected counts are worked out by hand in each docstring.
"""

from __future__ import annotations

import gc
import json
import subprocess
import sys
import tracemalloc
from typing import Any

import pytest
from _acme import finished_spans
from _decisions import CANARY, SPEC, Script, decide, providers, run_agent
from opentelemetry import trace
from opentelemetry._logs import LogRecord
from opentelemetry.sdk.trace import TracerProvider

from otel_agentcov import AgentCoverageProcessor, CoverageSpec
from otel_agentcov.gate import evaluate
from otel_agentcov.readers.otlp_logs import events_from_protobuf, is_logs_protobuf
from otel_agentcov.records import SpanRecord
from otel_agentcov.semconv.inference import infer
from otel_agentcov.stats.verdicts import FAIL

SPEC_OBJ = CoverageSpec.from_dict(SPEC, source="<test>")
# the model's captured answer asks for the restricted tool (a request no span of which ran)
ASKS_REFUND = json.dumps([{"role": "assistant", "parts": [
    {"type": "tool_call", "id": "c1", "name": "issue_refund", "arguments": {"x": CANARY}}]}])


def _report(run: Any, spec: CoverageSpec = SPEC_OBJ, *, shut: bool = False) -> dict[str, Any]:
    """The processor pair's report after `run(tracer, logger)` (`shut`: after shutdown, when
    what still waits for its trace's TTL is finished)."""
    tracer_provider, logger_provider = providers()
    processor = AgentCoverageProcessor(spec)
    tracer_provider.add_span_processor(processor)
    logger_provider.add_log_record_processor(processor.log_processor())
    run(tracer_provider.get_tracer("t"), logger_provider.get_logger("t"))
    processor.force_flush()
    if shut:
        processor.shutdown()
    report = processor.snapshot().to_dict()
    processor.shutdown()
    return report


def _restricted_verdict(report: dict[str, Any], spec: CoverageSpec = SPEC_OBJ) -> str:
    [check] = [c for c in evaluate(report, spec) if c.target == "edges.restricted_attempts"]
    return check.verdict


# ---------------------------------------------------------------- logs in: decision events


def test_an_allow_before_a_deny_of_the_same_restricted_call_still_fails_the_gate() -> None:
    """allow issue_refund (c1), then deny issue_refund (c1), no tool span. The deny alone fails
    the gate (test_decision_events); before, the allow counted first and the deny was a
    `duplicate`, so the attempt vanished and the gate passed, while deny-then-allow failed it:
    the verdict hung on arrival order. A deny of a restricted tool is an attempt whatever came
    first: one attempt `denied`."""
    def run(tracer: trace.Tracer, logger: Any) -> None:
        run_agent(tracer, logger, Script(decisions=[("issue_refund", "allow", "c1"),
                                                    ("issue_refund", "deny", "c1")]))
    report = _report(run)
    agent = report["agents"]["support"]
    assert agent["edges"]["restricted"] == [
        {"tool": "issue_refund", "outcome": "denied", "count": 1}]
    assert _restricted_verdict(report) == FAIL


def test_an_allow_after_the_run_cannot_undo_a_deny_either() -> None:
    """The late path: allow issue_refund (c2) in the run, deny (c2) once the run was folded.
    One attempt `denied`, the gate fails (before: the late deny was a duplicate, PASS)."""
    def run(tracer: trace.Tracer, logger: Any) -> None:
        run_agent(tracer, logger, Script(decisions=[("issue_refund", "allow", "c2")],
                                         after=[("issue_refund", "deny", "c2")]))
    report = _report(run)
    assert report["agents"]["support"]["edges"]["restricted_attempts"] == 1
    assert _restricted_verdict(report) == FAIL


def _asks_for_refund(events: list[tuple[str, str, str | None]]) -> Any:
    """invoke_agent support > chat (its captured answer asks for issue_refund), then `events`;
    no issue_refund span ever runs."""
    def run(tracer: trace.Tracer, logger: Any) -> None:
        with tracer.start_as_current_span("invoke_agent support", attributes={
                "gen_ai.operation.name": "invoke_agent", "gen_ai.agent.name": "support"}):
            with tracer.start_as_current_span("chat gpt-4o", attributes={
                    "gen_ai.operation.name": "chat", "gen_ai.request.model": "gpt-4o",
                    "gen_ai.output.messages": ASKS_REFUND}):
                pass
            for tool, outcome, call_id in events:
                decide(logger, tool, outcome, call_id)
    return run


def test_a_requested_restricted_call_is_not_cancelled_by_an_allow_event() -> None:
    """The model asked for issue_refund and no span of it ran: one attempt `denied` (the
    control below). An `allow` (or `require_approval`) event for it is no call (a decision is
    never a call, docs/semantics.md#decisions), yet before it counted as a tool seen and
    cancelled the request: restricted attempts 0, gate PASS."""
    control = _report(_asks_for_refund([]))
    assert control["agents"]["support"]["edges"]["restricted_attempts"] == 1
    for outcome in ("allow", "require_approval"):
        report = _report(_asks_for_refund([("issue_refund", outcome, "c1")]))
        agent = report["agents"]["support"]
        assert agent["edges"]["restricted_attempts"] == 1, outcome
        assert agent["tools"]["called"] == {}
        assert _restricted_verdict(report) == FAIL


def test_a_denial_recorded_in_a_span_that_never_arrives_still_fails_the_gate() -> None:
    """A guardrail inside the run (its own TracerProvider: its spans go elsewhere) denies
    issue_refund (c9). The event's trace is the run's, its span never reaches agentcov, so it
    joins no span: before, it was only counted `unjoined` and the restricted attempt vanished
    (0 attempts, PASS). A denial is an attempt whether or not its spans arrive: 1 attempt
    `denied` for support (the agent of the event's trace), the event still counted unjoined
    once it can join nothing more (here at shutdown; in a long-lived process, its trace's TTL)."""
    guardrail = TracerProvider().get_tracer("guardrail")

    def run(tracer: trace.Tracer, logger: Any) -> None:
        with tracer.start_as_current_span("invoke_agent support", attributes={
                "gen_ai.operation.name": "invoke_agent", "gen_ai.agent.name": "support"}):
            with tracer.start_as_current_span("chat gpt-4o", attributes={
                    "gen_ai.operation.name": "chat", "gen_ai.request.model": "gpt-4o"}):
                pass
            with guardrail.start_as_current_span("guardrail check"):
                decide(logger, "issue_refund", "deny", "c9")
    report = _report(run, shut=True)
    assert report["agents"]["support"]["edges"]["restricted"] == [
        {"tool": "issue_refund", "outcome": "denied", "count": 1}]
    assert report["spans"]["events"]["unjoined"] == 1
    assert _restricted_verdict(report) == FAIL


def test_a_log_record_with_ids_no_span_could_carry_is_counted_invalid() -> None:
    """The logs API takes any value for a record's ids: a denial of issue_refund with trace id
    1.5, "abc", -5 or 2**200 is no event of any trace (a span with such ids is dropped as
    `invalid_ids`). Folded as a denial, one of them made `snapshot()` raise printing its trace
    id; each is counted `invalid` (4) and nothing else happens."""
    def run(tracer: trace.Tracer, logger: Any) -> None:
        for n, trace_id in enumerate((1.5, "abc", -5, 1 << 200)):
            logger.emit(LogRecord(
                trace_id=trace_id, span_id=n + 1, event_name="gen_ai.tool.call.decision",
                body=CANARY, attributes={"gen_ai.tool.call.decision.outcome": "deny",
                                         "gen_ai.tool.name": "issue_refund"}))
    report = _report(run, shut=True)
    assert report["spans"]["events"]["invalid"] == 4
    assert report["spans"]["events"]["received"] == 4
    assert report["agents"] == {}


# ---------------------------------------------------------------- inference


def _inferred_report(traffic: Any, spec: dict[str, Any]) -> dict[str, Any]:
    """The processor's report of an in-house vocabulary no built-in table reads (inference on,
    as by default)."""
    processor = AgentCoverageProcessor(CoverageSpec.from_dict(spec, source="<test>"))
    for span in finished_spans(traffic):
        processor.on_end(span)
    processor.force_flush()
    report = processor.snapshot().to_dict()
    processor.shutdown()
    return report


def _billing(tool_attributes: dict[str, Any]) -> Any:
    """billing's run (`acme.step: agent`) calling `tool:refund`, its span carrying
    `tool_attributes` besides."""
    def traffic(tracer: Any) -> None:
        with tracer.start_as_current_span("run", attributes={"acme.step": "agent",
                                                             "acme.agent": "billing"}):
            with tracer.start_as_current_span("complete", attributes={
                    "acme.step": "completion", "acme.model": "acme-large"}):
                pass
            with tracer.start_as_current_span("tool:refund", attributes=tool_attributes):
                pass
    return traffic


REFUND_RESTRICTED: dict[str, Any] = {
    "version": 1, "agents": [{"name": "billing", "tool_edges": {"restricted": ["refund"]}}]}


def _attempts(report: dict[str, Any]) -> int:
    attempts: int = report["agents"]["billing"]["edges"]["restricted_attempts"]
    return attempts


def test_a_kind_word_that_disagrees_cannot_hide_a_restricted_tool() -> None:
    """No built-in table reads `tool:refund`; inference does (a `tool:` prefix): 1 attempt, nothing
    overruled (the control). The tool span also carries `acme.args.kind: chat` (a tool argument
    named `kind` the model chose, recorded flat by the tracer): the kind words disagree (tool by
    name, llm by attribute), so inference leaves the span unclassified. Before, the restricted
    call vanished (0 attempts, PASS); a span whose name says `tool:refund` is a restricted call
    whatever else it says: 1 attempt, and the report says the reading was overruled."""
    control = _inferred_report(_billing({}), REFUND_RESTRICTED)
    assert _attempts(control) == 1 and "conventions_overruled" not in control["spans"]
    report = _inferred_report(_billing({"acme.args.kind": "chat"}), REFUND_RESTRICTED)
    assert _attempts(report) == 1
    assert report["spans"]["conventions_overruled"] == 1
    assert _restricted_verdict(report, CoverageSpec.from_dict(REFUND_RESTRICTED)) == FAIL


def test_a_code_function_name_is_not_the_tool_name() -> None:
    """OpenTelemetry's `code.function.name` (the instrumented Python function, here the
    framework's `_run_tool`) ends in `function.name`, which inference took for the tool's name:
    the call became `_run_tool`, refund vanished (0 attempts). The tool is `refund`."""
    report = _inferred_report(_billing({"code.function.name": "_run_tool"}), REFUND_RESTRICTED)
    assert _attempts(report) == 1
    assert "_run_tool" not in report["agents"]["billing"]["tools"]["called"]


def test_a_spec_entry_cannot_hide_a_tool_only_inference_reads() -> None:
    """A `conventions:` entry reading `tool:*` as `other` (or `llm`): the guard compared it
    with the built-in tables alone, which read nothing there, so the restricted call inference
    finds vanished with no word said (PASS). The built-in reading the guard keeps is the
    tables' and inference's: 1 attempt, overruled 1."""
    for kind in ("other", "llm"):
        spec = {**REFUND_RESTRICTED,
                "conventions": [{"match": {"name": "tool:*"}, "kind": kind}]}
        report = _inferred_report(_billing({}), spec)
        assert _attempts(report) == 1, kind
        assert report["spans"]["conventions_overruled"] == 1


@pytest.mark.timeout(120)
def test_a_span_name_of_spaces_is_read_in_linear_time() -> None:
    """`x`, 4 000 spaces, `y`: the name-affix patterns backtracked cubically under Python's
    `re` (400 spaces: 1 s, 2 000: 140 s, 4 000: about 20 min), stalling the processor's worker
    and every force_flush behind it; on RE2 it reads as a candidate named so, at once. The
    timeout bounds the test; the reading is asserted."""
    name = "x" + " " * 4000 + "y"
    report = _report(lambda tracer, logger: _spaced(tracer, name))
    assert report["spans"]["by_kind"]["other"] == 1


def _spaced(tracer: trace.Tracer, name: str) -> None:
    with tracer.start_as_current_span(name):
        pass


def test_inference_keeps_no_long_name_or_key_in_its_caches() -> None:
    """200 spans with distinct 100 KB names and keys: inference's per-name caches kept every
    one of them (4 096 entries, unbounded in bytes: 40 MB here, gigabytes from `serve`). Now a
    name or key past 512 characters is read each time and never kept: once the records are
    gone, under 1 MB of what they allocated is still held."""
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        for i in range(200):
            infer(SpanRecord(1, i + 1, None, f"{i}:" + "n" * 100_000,
                             attributes={"k" + "a" * 100_000 + f"{i}.kind": "tool"}))
        gc.collect()
        held = tracemalloc.get_traced_memory()[0] - before
    finally:
        tracemalloc.stop()
    assert held < 1_000_000, held


# ---------------------------------------------------------------- logs in: protobuf payloads

_LOGS_BOMB = """
import resource, sys
from otel_agentcov.readers.otlp_logs import events_from_protobuf
from otel_agentcov.readers.otlp_size import ElementCaps, TooLarge

def ld(field, data):
    size, out = len(data), bytearray([field << 3 | 2])
    while size >= 0x80:
        out.append(size & 0x7F | 0x80)
        size >>= 7
    return bytes(out) + bytes([size]) + data

payload = ld(1, ld(2, b"\\x12\\x00" * 2_000_000))  # 4 MB: two million empty log records
before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
try:
    events_from_protobuf(payload, "request", caps=ElementCaps(50_000, 500_000))
except TooLarge as exc:
    print(str(exc).splitlines()[0], file=sys.stderr)
print((resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before) // 1024)
"""


def test_a_logs_request_of_empty_records_is_refused_before_it_is_decoded() -> None:
    """4 MB of empty log records (two bytes each; a few KB of gzip, under the service's 80 MB
    decompressed limit): the whole request was parsed into two million records before the
    caps were counted, growing the process by ~260 MB (80 MB of them: about 5 GB). Read on
    the wire, the walk stops at the 50 001st record: TooLarge, and the process grows by a few
    MB at most (its peak RSS, in a child process)."""
    proc = subprocess.run([sys.executable, "-c", _LOGS_BOMB], capture_output=True, text=True,
                          timeout=120, check=True)
    assert "past the caps (50000, 500000)" in proc.stderr
    assert int(proc.stdout) < 32, proc.stdout


def test_a_log_body_is_never_decoded_and_a_traces_file_is_not_read_as_logs() -> None:
    """A log record whose body holds the canary and invalid UTF-8 still yields its decision
    (the body is skipped on the wire, never decoded); a traces request whose first span lists
    its attributes first (field 9, as a log record's trace id) is not sniffed as logs."""
    body = b"gen_ai.tool.call.decision"
    attributes = b"".join(_ld(6, _kv(k, v)) for k, v in (
        ("gen_ai.tool.call.decision.outcome", "deny"), ("gen_ai.tool.name", "issue_refund")))
    record = (_ld(5, _ld(1, CANARY.encode() + b"\xff")) + attributes + _ld(9, b"\x01" * 16)
              + _ld(10, b"\x02" * 8) + _ld(12, body))
    payload = _ld(1, _ld(2, _ld(2, record)))
    assert is_logs_protobuf(payload)
    [event] = events_from_protobuf(payload)
    assert (event.tool, event.outcome) == ("issue_refund", "deny")
    assert (event.trace_id, event.span_id) == (int("01" * 16, 16), int("02" * 8, 16))
    span = _ld(9, _kv("k", "v")) + _ld(1, b"\x01" * 16) + _ld(2, b"\x02" * 8)
    assert not is_logs_protobuf(_ld(1, _ld(2, _ld(2, span))))


def _ld(field: int, data: bytes) -> bytes:
    size, out = len(data), bytearray([field << 3 | 2])
    while size >= 0x80:
        out.append(size & 0x7F | 0x80)
        size >>= 7
    return bytes(out) + bytes([size]) + data


def _kv(key: str, value: str) -> bytes:
    return _ld(1, key.encode()) + _ld(2, _ld(1, value.encode()))
