"""Outcome evidence (issue 35): an exception event fails a span inference read, a conventions
entry can say so (`error: {exception: true}`) and `agentcov explain --write` pins it; a run out
of steps is told by one rule over the failure's words, not a list of phrases
(docs/conventions.md#inference, docs/semantics.md#detection-rules).

Spans come from the real OpenTelemetry SDK; expected failures and limits are written down from
the traffic and from the libraries' own messages, by hand.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import yaml
from _acme import finished_spans
from _reference import ReferenceClassifier
from _trace_files import write_jsonl
from opentelemetry.sdk.trace import Tracer
from opentelemetry.trace import Status, StatusCode

from otel_agentcov import compiled
from otel_agentcov.cli import main
from otel_agentcov.records import STATUS_ERROR, STATUS_OK, STATUS_UNSET, SpanRecord
from otel_agentcov.semconv import Classifier
from otel_agentcov.semconv.common import error_limit
from otel_agentcov.semconv.step import Step
from otel_agentcov.spec import CoverageSpec, SpecError

CANARY = "canary-exception-5d2b"  # in exception messages and stack traces: never shown


def _thrown(span: Any, type_: str, message: str) -> None:
    """What `record_exception` writes, without touching the status (as some tracers do)."""
    span.add_event("exception", {"exception.type": type_, "exception.message": message,
                                 "exception.stacktrace": f"Traceback: {CANARY}"})


def thrown_traffic(tracer: Tracer) -> None:
    """`support.agent` runs `tool_call.lookup_order`, which records a KeyError and leaves its
    status unset (failed), then `tool_call.refund`, which records one and sets OK (failed too:
an exception event fails a span whatever its status, as some instrumentations mark every span
OK);
    `looper.agent` records OpenAI Agents' MaxTurnsExceeded, its status unset."""
    with tracer.start_as_current_span("support.agent"):
        with tracer.start_as_current_span("acme/support-model", attributes={
                "acme.tokens.prompt": 20, "acme.tokens.reply": 4}):
            pass
        with tracer.start_as_current_span("tool_call.lookup_order") as span:
            _thrown(span, "builtins.KeyError", f"order 42 {CANARY}")
        with tracer.start_as_current_span("tool_call.refund") as span:
            _thrown(span, "ValueError", CANARY)
            span.set_status(Status(StatusCode.OK))
    with tracer.start_as_current_span("looper.agent") as span:
        with tracer.start_as_current_span("acme/support-model", attributes={
                "acme.tokens.prompt": 20, "acme.tokens.reply": 4}):
            pass
        _thrown(span, "agents.exceptions.MaxTurnsExceeded", "Max turns (1) exceeded")


def _agents(report: dict[str, Any]) -> dict[str, Any]:
    return {name: {"tools": a["tools"]["called"], "errors": a["runs"]["errors"],
                   "failed": {b for b in ("tool_failure", "error_path", "max_steps")
                              if a["boundaries"][b]}}
            for name, a in report["agents"].items()}


THROWN_AGENTS = {
    "support": {"tools": {"lookup_order": {"ok": 0, "error": 1}, "refund": {"ok": 0, "error": 1}},
                "errors": 0, "failed": {"tool_failure"}},
    "looper": {"tools": {}, "errors": 1, "failed": {"error_path", "max_steps"}},
}


def _coverage(tmp_path: Path, traces: Path, *argv: str) -> dict[str, Any]:
    out = tmp_path / "report.json"
    assert main(["coverage", str(traces), "--format", "json", "--output", str(out), *argv]) == 0
    text = out.read_text()
    assert CANARY not in text
    return json.loads(text)  # type: ignore[no-any-return]


def test_an_exception_event_fails_an_inferred_span_whatever_its_status(
        tmp_path: Path) -> None:
    traces = write_jsonl(tmp_path / "t.jsonl", finished_spans(thrown_traffic, "zeta.sdk"))
    assert _agents(_coverage(tmp_path, traces)) == THROWN_AGENTS


@pytest.mark.parametrize(("status", "attributes", "error"), [
    (STATUS_UNSET, {}, "KeyError"),  # the type as for every span: shortened
    (STATUS_OK, {}, "KeyError"),  # an OK status does not hide it
    (STATUS_UNSET, {"zeta.error.type": "Timeout"}, "Timeout"),  # a failure flag first
])
def test_an_inferred_steps_error_type_comes_from_its_exception(
        status: int, attributes: dict[str, Any], error: str | None) -> None:
    record = SpanRecord(1, 2, None, "tool_call.lookup", status_code=status,
                        attributes=attributes,
                        events=(("exception", {"exception.type": "builtins.KeyError"}),))
    step = Classifier().classify(record)
    assert (step.kind, step.tool, step.error) == ("tool", "lookup", error)


def test_explain_pins_the_exception_source_and_the_file_reads_as_inference(
        capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    traces = write_jsonl(tmp_path / "t.jsonl", finished_spans(thrown_traffic, "zeta.sdk"))
    pinned = tmp_path / "agentcov.yaml"
    assert main(["explain", str(traces), "--write", str(pinned)]) == 0
    captured = capsys.readouterr()
    assert "loading it gives the same report as inference" in captured.err
    assert CANARY not in captured.out + captured.err + pinned.read_text()
    entries = yaml.safe_load(pinned.read_text())["conventions"]
    assert {e["kind"]: e.get("error") for e in entries} == {
        "llm": None, "tool": {"exception": True}, "agent": {"exception": True}}
    assert _agents(_coverage(tmp_path, traces, "--spec", str(pinned), "--no-inference")) == (
        THROWN_AGENTS)


ENTRY = {"match": {"name": "tool:*"}, "kind": "tool", "tool": {"span_name": "tool:(.+)"},
         "error": {"exception": True}}


@pytest.mark.parametrize(("status", "events", "attributes", "error"), [
    (STATUS_UNSET, [("exception", {"exception.type": "a.OrderMissing"})], {}, "OrderMissing"),
    (STATUS_UNSET, [("exception", {"exception.message": CANARY})], {}, "_OTHER"),
    (STATUS_UNSET, [("exception", {"exception.type": "KeyError"})], {"error.type": "Timeout"},
     "Timeout"),  # error.type first, as for every span
    (STATUS_OK, [("exception", {"exception.type": "KeyError"})], {}, "KeyError"),
    (STATUS_UNSET, [("other", {"exception.type": "KeyError"})], {}, None),
    (STATUS_ERROR, [], {}, "_OTHER"),  # no event: the status alone, as without the source
    (STATUS_ERROR, [("exception", {"exception.type": "KeyError"})], {}, "KeyError"),
])
def test_an_entrys_exception_source(status: int, events: list[Any], attributes: dict[str, Any],
                                    error: str | None) -> None:
    spec = CoverageSpec.from_dict({"version": 1, "conventions": [ENTRY]})
    classifier = ReferenceClassifier(spec.conventions)
    record = SpanRecord(1, 2, None, "tool:lookup", status_code=status, attributes=attributes,
                        events=tuple(events))
    core = classifier._core.classify(record, ())
    assert core is not None
    assert (core[0].kind, core[0].tool, core[0].error) == ("tool", "lookup", error)
    assert core == classifier.reference(record, ())


def test_only_an_error_reads_an_exception_event() -> None:
    entry = {"match": {"name": "*"}, "kind": "agent", "name": {"exception": True}}
    with pytest.raises(SpecError, match=r"conventions\[0\]\.name"):
        CoverageSpec.from_dict({"version": 1, "conventions": [entry]})
    with pytest.raises(ValueError, match="only an error reads an exception event"):
        compiled.Classifier([entry], False, Step)


# (error type, status text or exception message, the boundary): real libraries' own words
# first, then texts that name a limit of something that is no step
LIMITS = [
    ("agents.exceptions.MaxTurnsExceeded", "Max turns (3) exceeded", "max_steps"),  # OpenAI Agents
    ("MaxTurnsExceeded", None, "max_steps"),
    ("_OTHER", "Max turns exceeded: {'max_turns': 2}", "max_steps"),  # ... via OpenInference
    ("langgraph.errors.GraphRecursionError", "Recursion limit of 25 reached without hitting a "
     "stop condition. You can increase the limit by setting the `recursion_limit` config key.",
     "max_steps"),
    ("GraphRecursionError", None, "max_steps"),
    ("Exception", "GraphRecursionError('Recursion limit of 4 reached')", "max_steps"),  # LangSmith
    ("smolagents.utils.AgentMaxStepsError", "Reached max steps.", "max_steps"),
    ("workflows.errors.WorkflowRuntimeError", "Max iterations of 2 reached! Either something "
     "went wrong, or you can increase the max iterations", "max_steps"),  # LlamaIndex
    ("ValueError", "Reached max iterations.", "max_steps"),  # LlamaIndex's ReActAgent
    ("pydantic_ai.exceptions.UsageLimitExceeded", "The next request would exceed the "
     "request_limit of 2", "max_steps"),
    ("UsageLimitExceeded", "Exceeded the tool_calls_limit of 5 (tool_calls=6)", "max_steps"),
    ("UsageLimitExceeded", None, "max_steps"),  # a trial's error name alone
    ("LlmCallsLimitExceededError", "Max number of llm calls limit of `120` exceeded",
     "max_steps"),  # Google ADK
    ("LLMCallsLimitExceededError", None, "max_steps"),
    ("RuntimeError", "Agent stopped due to iteration limit or time limit.", "max_steps"),
    ("MAX_STEPS_EXCEEDED", None, "max_steps"),
    ("AgentError", "maximum number of rounds reached", "max_steps"),
    ("AgentMaxStepsError", "Agent exceeded 10 steps", "max_steps"),
    ("openai.RateLimitError", "Rate limit reached for gpt-4o in organization org-x on requests "
     "per min (RPM): Limit 3, Used 3, Requested 1.", None),
    ("ConnectionError", "HTTPConnectionPool(host='x', port=80): Max retries exceeded with url: "
     "/v1", None),
    ("RecursionError", "maximum recursion depth exceeded while calling a Python object", None),
    ("BadRequestError", "This model's maximum context length is 8192 tokens", None),
    ("UsageLimitExceeded", "Exceeded the total_tokens_limit of 100 (total_tokens=150)", None),
    ("MaxTokensReachedException", "Agent has reached an unrecoverable state due to max_tokens "
     "limit", None),  # Strands: a limit of tokens
    ("ValueError", "max_turns must be a positive integer", None),
    ("TerminatedError", "Maximal number of messages 10 reached, current message count: 10",
     None),  # AutoGen's MaxMessageTermination words: messages are no steps
    ("RuntimeError", "step 3 failed: connection limit exceeded", None),
    ("RateLimitError", "You exceeded your current quota", None),
    ("RuntimeError", "orders database unavailable", None),
    ("openai.APITimeoutError", "Request timed out.", "timeout"),
]


@pytest.mark.parametrize(("error_type", "text", "limit"), LIMITS)
def test_a_run_out_of_steps_is_told_by_its_words(error_type: str, text: str | None,
                                                 limit: str | None) -> None:
    """The same in the core and its Python reference, whether the words are in the status text
    or the exception's message, and for a trial's error name."""
    classifier = ReferenceClassifier()
    for description, message in ((text, None), (None, text)):
        event = {"exception.type": error_type}
        if message is not None:
            event["exception.message"] = message
        record = SpanRecord(1, 2, None, "invoke_agent a", status_code=STATUS_ERROR,
                            status_description=description, events=(("exception", event),),
                            attributes={"gen_ai.operation.name": "invoke_agent",
                                        "gen_ai.agent.name": "a"})
        core = classifier._core.classify(record, ())
        assert core is not None
        assert core[0].limit == limit, (description, message)
        assert core == classifier.reference(record, ())
    short = error_type.rsplit(".", 1)[-1]
    assert error_limit(short, (text,)) == limit
