"""Narrative vs trace (docs/narrative.md) on runs built from real OpenTelemetry SDK spans.

Spans are made with the SDK (the final answer in the agent span's `gen_ai.output.messages`),
then converted, classified with content capture and assembled exactly as the engine does.
Expected verdicts are read off each scenario by hand.
"""

from __future__ import annotations

import dataclasses
import itertools
import json
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from _support import rendered_outputs
from _trace_files import protobuf_bytes, write_jsonl
from hypothesis import given, settings
from hypothesis import strategies as st
from opentelemetry.sdk.trace import Tracer, TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from opentelemetry.trace import Status, StatusCode

from otel_agentcov.assembler import AgentRun, RunContent, assemble
from otel_agentcov.engine import CoverageEngine
from otel_agentcov.judge import judge
from otel_agentcov.processor import AgentCoverageProcessor
from otel_agentcov.records import STATUS_ERROR, SpanRecord, from_readable_span
from otel_agentcov.semconv import classify
from otel_agentcov.semconv.step import AGENT, HANDOFF, TOOL, WORKFLOW, Step
from otel_agentcov.snapshot import compute_snapshot
from otel_agentcov.spec import CoverageSpec, SpecError
from otel_agentcov.state import CoverageState, Limits, StateError

TOOLS = ["lookup_order", "issue_refund", "send_email", "issue_credit"]


@pytest.fixture
def sdk() -> Iterator[tuple[Tracer, InMemorySpanExporter]]:
    exporter = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    yield provider.get_tracer("narrative-tests"), exporter
    provider.shutdown()


@contextmanager
def agent(tracer: Tracer, name: str, output: str | None = None) -> Iterator[None]:
    """An agent invocation; `output` is its captured final answer (None: not captured)."""
    attrs = {"gen_ai.operation.name": "invoke_agent", "gen_ai.agent.name": name}
    if output is not None:
        message = {"role": "assistant", "parts": [{"type": "text", "content": output}]}
        attrs["gen_ai.output.messages"] = json.dumps([message])
    with tracer.start_as_current_span(f"invoke_agent {name}", attributes=attrs):
        yield


def tool(tracer: Tracer, name: str, outcome: str = "ok") -> None:
    attrs: dict[str, Any] = {"gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": name}
    if outcome == "denied":
        attrs["gen_ai.tool.call.decision"] = "deny"
    with tracer.start_as_current_span(f"execute_tool {name}", attributes=attrs) as span:
        if outcome == "error":
            span.set_attribute("error.type", "PaymentDeclined")
            span.set_status(Status(StatusCode.ERROR))


def runs(exporter: InMemorySpanExporter) -> dict[str, AgentRun]:
    """The trace's runs by agent, classified with content capture on."""
    steps = [classify(from_readable_span(s), (), True) for s in exporter.get_finished_spans()]
    exporter.clear()
    return {r.agent: r for r in assemble(steps, content=True)}


def spec(narrative: dict[str, Any] | None = None, **entry: Any) -> CoverageSpec:
    declared = {"tools": TOOLS, "narrative": narrative if narrative is not None else {}}
    return CoverageSpec.from_dict(
        {"version": 1, "agents": [{"name": "*", **declared, **entry}]}
    )


def verdict(run: AgentRun, cov: CoverageSpec) -> tuple[str, tuple[tuple[str, str], ...], bool]:
    v = judge(run, cov.for_agent(run.agent).checks)
    assert v.narrative is not None
    return v.narrative.result, v.narrative.divergences, v.fails_run


def test_consistent_story(sdk: tuple[Tracer, InMemorySpanExporter]) -> None:
    tracer, exporter = sdk
    out = "I looked up your order and issued a refund of $20. Anything else?"
    with agent(tracer, "support", out):
        tool(tracer, "lookup_order")
        tool(tracer, "issue_refund")
    run = runs(exporter)["support"]
    assert verdict(run, spec()) == ("consistent", (), False)


def test_claimed_not_called_is_a_hallucinated_action(
    sdk: tuple[Tracer, InMemorySpanExporter],
) -> None:
    tracer, exporter = sdk
    out = "I looked up your order. I've issued the refund and sent you a confirmation email."
    with agent(tracer, "support", out):
        tool(tracer, "lookup_order")
    run = runs(exporter)["support"]
    assert verdict(run, spec()) == (
        "divergent",
        (("issue_refund", "claimed_not_called"), ("send_email", "claimed_not_called")),
        True,
    )


@pytest.mark.parametrize("outcome", ["error", "denied"])
def test_claimed_but_failed(sdk: tuple[Tracer, InMemorySpanExporter], outcome: str) -> None:
    tracer, exporter = sdk
    with agent(tracer, "support", "Your refund has been issued."):
        tool(tracer, "issue_refund", outcome)
        tool(tracer, "issue_refund", outcome)
    run = runs(exporter)["support"]
    assert verdict(run, spec()) == (
        "divergent", (("issue_refund", "claimed_but_failed"),), True
    )


def test_one_successful_call_among_failures_is_consistent(
    sdk: tuple[Tracer, InMemorySpanExporter],
) -> None:
    tracer, exporter = sdk
    with agent(tracer, "support", "Your refund has been issued."):
        tool(tracer, "issue_refund", "error")
        tool(tracer, "issue_refund")  # the retry worked
    run = runs(exporter)["support"]
    assert verdict(run, spec())[0] == "consistent"


def test_called_not_claimed_only_for_must_report(
    sdk: tuple[Tracer, InMemorySpanExporter],
) -> None:
    tracer, exporter = sdk
    with agent(tracer, "support", "All sorted, have a nice day."):
        tool(tracer, "issue_credit")
        tool(tracer, "send_email")
    run = runs(exporter)["support"]
    assert verdict(run, spec({"must_report": ["issue_credit"]})) == (
        "divergent", (("issue_credit", "called_not_claimed"),), True
    )
    assert verdict(run, spec())[0] == "consistent"  # send_email need not be reported
    with agent(tracer, "support", "I issued a credit of $5."):
        tool(tracer, "issue_credit")
    told = runs(exporter)["support"]
    assert verdict(told, spec({"must_report": ["issue_credit"]}))[0] == "consistent"


def test_no_captured_output_is_unverifiable_and_never_fails(
    sdk: tuple[Tracer, InMemorySpanExporter],
) -> None:
    tracer, exporter = sdk
    with agent(tracer, "support"):
        tool(tracer, "lookup_order")
    run = runs(exporter)["support"]
    assert verdict(run, spec({"must_report": ["lookup_order"]})) == ("unverifiable", (), False)
    empty = dataclasses.replace(run, content=RunContent(output="", input=None))
    assert verdict(empty, spec())[0] == "unverifiable"


def test_a_call_by_a_delegated_agent_counts_as_done(
    sdk: tuple[Tracer, InMemorySpanExporter],
) -> None:
    tracer, exporter = sdk
    out = "I looked up the order and our billing team issued your refund."
    with agent(tracer, "triage", out):
        tool(tracer, "lookup_order")
        with agent(tracer, "billing", "Refund issued."):  # triage delegated to billing
            with agent(tracer, "payments"):  # ... which delegated to payments
                tool(tracer, "issue_refund")
    by_agent = runs(exporter)
    assert by_agent["triage"].delegations == [("triage", "billing")]
    assert verdict(by_agent["triage"], spec()) == ("consistent", (), False)
    assert verdict(by_agent["billing"], spec()) == ("consistent", (), False)
    # without the delegation, the same story is a hallucinated action
    with agent(tracer, "triage", out):
        tool(tracer, "lookup_order")
    alone = runs(exporter)["triage"]
    assert verdict(alone, spec())[1] == (("issue_refund", "claimed_not_called"),)


def test_a_call_after_a_hand_off_to_a_sibling_agent_counts_as_done(
    sdk: tuple[Tracer, InMemorySpanExporter],
) -> None:
    """OpenAI-Agents-style hand-off: triage calls transfer_to_billing, then billing runs beside
    it under the workflow span (not nested) and issues the refund."""
    tracer, exporter = sdk
    out = "I passed your case to billing and your refund was issued."
    with tracer.start_as_current_span("workflow", attributes={"gen_ai.operation.name":
                                                              "invoke_workflow"}):
        with agent(tracer, "triage", out):
            tool(tracer, "transfer_to_billing")
        with agent(tracer, "billing", "Refund issued."):
            tool(tracer, "issue_refund")
    by_agent = runs(exporter)
    assert by_agent["triage"].delegations == [("triage", "billing")]
    assert verdict(by_agent["triage"], spec()) == ("consistent", (), False)


def test_a_failed_call_by_a_delegated_agent_is_claimed_but_failed(
    sdk: tuple[Tracer, InMemorySpanExporter],
) -> None:
    tracer, exporter = sdk
    with agent(tracer, "triage", "Your refund was issued."):
        with agent(tracer, "billing"):
            tool(tracer, "issue_refund", "error")
    run = runs(exporter)["triage"]
    assert verdict(run, spec())[1] == (("issue_refund", "claimed_but_failed"),)


def test_fail_run_false_keeps_the_run_passing(sdk: tuple[Tracer, InMemorySpanExporter]) -> None:
    tracer, exporter = sdk
    with agent(tracer, "support", "I sent the email."):
        pass
    run = runs(exporter)["support"]
    assert verdict(run, spec({"fail_run": False})) == (
        "divergent", (("send_email", "claimed_not_called"),), False
    )


def test_declared_claim_patterns(sdk: tuple[Tracer, InMemorySpanExporter]) -> None:
    tracer, exporter = sdk
    with agent(tracer, "support", "Good news: your money is on its way back."):
        pass
    run = runs(exporter)["support"]
    assert verdict(run, spec())[0] == "consistent"
    patterns = {"claims": {"issue_refund": ["(?i)money is on its way back"]}}
    assert verdict(run, spec(patterns))[1] == (("issue_refund", "claimed_not_called"),)


@pytest.mark.parametrize("answer", [
    "Jag har återbetalat beloppet och skickat ett mejl.",  # Swedish
    "Zwróciłem pieniądze i wysłałem e-mail z potwierdzeniem.",  # Polish
    "Я оформил возврат и отправил письмо с подтверждением.",  # Russian
])  # fmt: skip
def test_an_answer_in_a_language_not_read_is_unverifiable_never_consistent_nor_divergent(
    sdk: tuple[Tracer, InMemorySpanExporter], answer: str
) -> None:
    tracer, exporter = sdk
    for calls in ([], ["issue_refund", "send_email"]):
        with agent(tracer, "support", answer):
            for name in calls:
                tool(tracer, name)
        run = runs(exporter)["support"]
        checks = spec({"must_report": ["issue_refund"]}).for_agent("support").checks
        v = judge(run, checks).narrative
        assert v is not None and (v.result, v.divergences, v.not_english) == (
            "unverifiable", (), True)  # fmt: skip


@pytest.mark.parametrize("answer", [
    "J'ai émis le remboursement et envoyé l'e-mail de confirmation.",
    "Ich habe die Rückerstattung veranlasst und die E-Mail gesendet.",
    "He emitido el reembolso y le he enviado un correo.",
    "Emiti o reembolso e enviei o e-mail de confirmação.",
    "Ho emesso il rimborso e inviato l'email di conferma.",
    "Ik heb de terugbetaling uitgevoerd en de e-mail verstuurd.",
    "已为您办理退款并发送邮件。",
    "返金を完了し、確認メールを送信しました。",
    "환불을 처리하고 확인 이메일을 보냈습니다.",
])  # fmt: skip
def test_an_answer_in_a_supported_language_is_judged_like_an_english_one(
    sdk: tuple[Tracer, InMemorySpanExporter], answer: str
) -> None:
    """Each answer says: refund issued, email sent (read by a speaker of the language)."""
    tracer, exporter = sdk
    with agent(tracer, "support", answer):
        pass
    assert verdict(runs(exporter)["support"], spec())[:2] == ("divergent", (
        ("issue_refund", "claimed_not_called"), ("send_email", "claimed_not_called")))
    with agent(tracer, "support", answer):
        tool(tracer, "issue_refund")
        tool(tracer, "send_email")
    assert verdict(runs(exporter)["support"], spec())[:2] == ("consistent", ())


def test_patterns_in_the_answers_language_judge_it(
    sdk: tuple[Tracer, InMemorySpanExporter],
) -> None:
    tracer, exporter = sdk
    french = {"claims": {"issue_refund": ["(?i)j'ai (émis|effectué) le remboursement"]}}
    with agent(tracer, "support", "J'ai émis le remboursement hier soir."):
        pass
    assert verdict(runs(exporter)["support"], spec(french))[:2] == (
        "divergent", (("issue_refund", "claimed_not_called"),))  # fmt: skip
    with agent(tracer, "support", "J'ai émis le remboursement hier soir."):
        tool(tracer, "issue_refund")
    assert verdict(runs(exporter)["support"], spec(french))[0] == "consistent"


def test_without_narrative_declared_nothing_is_judged(
    sdk: tuple[Tracer, InMemorySpanExporter],
) -> None:
    tracer, exporter = sdk
    with agent(tracer, "support", "I sent the email."):
        pass
    run = runs(exporter)["support"]
    plain = CoverageSpec.from_dict({"version": 1, "agents": [{"name": "*", "tools": TOOLS}]})
    assert not plain.needs_content and spec().needs_content
    assert judge(run, plain.for_agent("support").checks).narrative is None


def _fold(state: CoverageState, cov: CoverageSpec, run: AgentRun) -> None:
    state.update(run, cov.for_agent(run.agent), judge(run, cov.for_agent(run.agent).checks))


def _scenario(tracer: Tracer, exporter: InMemorySpanExporter) -> list[AgentRun]:
    """Five support runs: 2 consistent, 2 divergent (3 divergences), 1 unverifiable."""
    made: list[AgentRun] = []
    for calls, out in [
        (["issue_refund"], "I issued the refund."),
        (["lookup_order"], "I looked up your order."),
        ([], "I issued the refund and sent the email."),
        ([("issue_refund", "error")], "Refund issued."),
        ([], None),
    ]:
        with agent(tracer, "support", out):
            for c in calls:
                tool(tracer, *(c if isinstance(c, tuple) else (c,)))
        made.append(runs(exporter)["support"])
    return made


def test_state_snapshot_and_targets(sdk: tuple[Tracer, InMemorySpanExporter]) -> None:
    cov = spec(expect=[{"target": "narrative.claimed_not_called",
                        "matcher": {"schema": {"maximum": 0}}}])
    state = CoverageState()
    for run in _scenario(*sdk):
        _fold(state, cov, run)
    report = compute_snapshot(state, cov).to_dict()["agents"]["support"]
    assert report["narrative"] == {
        "declared": True,
        "runs": {"consistent": 2, "divergent": 2, "unverifiable": 1},
        "divergences": [
            {"tool": "issue_refund", "kind": "claimed_but_failed", "count": 1},
            {"tool": "issue_refund", "kind": "claimed_not_called", "count": 1},
            {"tool": "send_email", "kind": "claimed_not_called", "count": 1},
        ],
    }
    assert report["runs"]["passed"] == 3  # 2 consistent + 1 unverifiable; the divergent 2 fail
    assert report["expect"] == [
        {"target": "narrative.claimed_not_called", "value": 2, "passed": False,
         "reason": "2 is greater than the maximum of 0: claimed tool issue_refund without "
         "calling it ×1, claimed tool send_email without calling it ×1"},
        {"target": "edges.restricted_attempts", "value": 0, "passed": True, "reason": ""},
    ]
    assert any(c["type"] == "hallucinated_action" for c in report["concerns"])


def test_targets_are_null_until_a_run_was_verifiable(
    sdk: tuple[Tracer, InMemorySpanExporter],
) -> None:
    tracer, exporter = sdk
    cov = spec(expect=[{"target": "narrative.divergences", "matcher": {"schema": {"maximum": 0}}}])
    state = CoverageState()
    with agent(tracer, "support"):
        pass
    _fold(state, cov, runs(exporter)["support"])
    report = compute_snapshot(state, cov).to_dict()["agents"]["support"]
    assert report["expect"][0]["passed"] is False  # nothing checked is not a pass
    assert report["expect"][0]["value"] is None


def test_merge_is_exact_and_the_record_round_trips(
    sdk: tuple[Tracer, InMemorySpanExporter],
) -> None:
    cov = spec()
    made = _scenario(*sdk)
    tracer, exporter = sdk
    for _ in range(2):  # answers in another language are counted apart, and merge exactly
        with agent(tracer, "support", "Jag har återbetalat beloppet till ditt kort."):
            pass
        made.append(runs(exporter)["support"])
    whole, left, right = CoverageState(), CoverageState(), CoverageState()
    for i, run in enumerate(made):
        _fold(whole, cov, run)
        _fold(left if i % 2 else right, cov, run)
    left.merge(right)
    assert left.to_dict()["agents"]["support"]["narrative"] == (
        whole.to_dict()["agents"]["support"]["narrative"]
    )
    assert whole.to_dict()["agents"]["support"]["narrative"]["not_english"] == 2
    again = CoverageState.from_dict(json.loads(json.dumps(whole.to_dict())))
    assert again.to_dict() == whole.to_dict()


def test_a_state_without_the_narrative_record_still_loads() -> None:
    state = CoverageState()
    state.agent("support")
    data = state.to_dict()
    del data["agents"]["support"]["narrative"]
    loaded = CoverageState.from_dict(data)
    assert loaded.agents["support"].narrative.runs == {}


def test_divergent_tools_are_capped_and_the_folds_counted(
    sdk: tuple[Tracer, InMemorySpanExporter],
) -> None:
    tracer, exporter = sdk
    things = ["memo", "letter", "fax", "invoice", "receipt"]
    names = [f"send_{t}" for t in things]
    cov = CoverageSpec.from_dict(
        {"version": 1, "agents": [{"name": "*", "tools": names, "narrative": {}}]}
    )
    state = CoverageState(Limits(max_tools=2))
    with agent(tracer, "support", " ".join(f"I sent the {t}." for t in things)):
        pass
    run = runs(exporter)
    _fold(state, cov, run["support"])
    table = state.agents["support"].narrative.divergences
    assert len(table) == 3 and table[("__overflow__", "claimed_not_called")] == 3
    assert state.overflow["tool"] == 3


CANARY = "CANARY-narrative-51c0-do-not-store"


def test_processor_lists_hallucinated_actions_and_keeps_no_text(tmp_path: Path) -> None:
    """Through the real SDK processor: the verdicts reach every output, the text reaches none."""
    cov = spec({"must_report": ["issue_credit"]})
    processor = AgentCoverageProcessor(cov, flush_interval_s=3600.0)
    provider = TracerProvider()
    provider.add_span_processor(processor)
    tracer = provider.get_tracer("narrative-canary")
    answers = [
        ([], f"{CANARY}: I have issued your refund and sent the email."),
        (["issue_refund"], f"I issued the refund ({CANARY})."),
        (["issue_credit"], f"All done, {CANARY}."),
        (["lookup_order"], None),
        # other languages are read too, and their text goes nowhere either
        ([], f"J'ai émis le remboursement ({CANARY}) et envoyé un courriel de confirmation."),
        ([], f"返金を完了しました（{CANARY}）。"),
        # a language the check does not read: unverifiable, counted
        ([], f"Jag har återbetalat beloppet ({CANARY}) och skickat ett mejl."),
    ]
    for calls, answer in answers:
        with agent(tracer, "support", answer):
            for name in calls:
                tool(tracer, name)
    processor.force_flush()
    report = processor.snapshot().to_dict()
    story = report["agents"]["support"]["narrative"]
    assert story["runs"] == {"consistent": 1, "divergent": 4, "unverifiable": 2}
    assert story["not_english"] == 1
    assert story["divergences"] == [
        {"tool": "issue_credit", "kind": "called_not_claimed", "count": 1},
        {"tool": "issue_refund", "kind": "claimed_not_called", "count": 3},
        {"tool": "send_email", "kind": "claimed_not_called", "count": 2},
    ]
    outputs = rendered_outputs(processor, tmp_path)
    for where, text in outputs.items():
        assert CANARY not in text, f"captured text leaked into the {where}"
    assert "unverifiable 2 (1 in a language not read)" in outputs["text report"]
    # the verdicts are in every output (so the search above looked at a rendered section)
    for where in ("/metrics", "text report", "markdown report", "json report"):
        assert "send_email" in outputs[where] and "claimed_not_called" in outputs[where], where
    assert any("send_email" in t and "claimed_not_called" in t
               for w, t in outputs.items() if w.startswith("html"))
    metrics = outputs["/metrics"]
    assert ('agentcov_narrative_runs_total{agent="support",result="divergent"} 4.0'
            in metrics)
    assert ('agentcov_narrative_divergences_total{agent="support",kind="claimed_not_called",'
            'tool="send_email"} 2.0' in metrics)
    provider.shutdown()


def test_agentcov_coverage_over_trace_files_lists_hallucinated_actions(
    sdk: tuple[Tracer, InMemorySpanExporter], tmp_path: Path
) -> None:
    """`agentcov coverage` (a real subprocess) over OTLP protobuf and JSON Lines files."""
    tracer, exporter = sdk
    for calls, answer in [
        (["lookup_order"], "I looked up your order and issued a refund."),
        (["lookup_order", "issue_refund"], "I looked up your order and issued a refund."),
        ([], "I've sent you a confirmation email."),
        ([], f"Jag har återbetalat beloppet ({CANARY}) och skickat mejlet."),  # Swedish: not read
    ]:
        with agent(tracer, "support", answer):
            for name in calls:
                tool(tracer, name)
    spans = exporter.get_finished_spans()
    pb = tmp_path / "traces.pb"
    pb.write_bytes(protobuf_bytes(spans))
    jsonl = write_jsonl(tmp_path / "traces.jsonl", spans)
    spec_file = tmp_path / "agentcov.yaml"
    spec_file.write_text(
        "version: 1\nagents:\n  - name: support\n    tools: [lookup_order, issue_refund, "
        "send_email]\n    narrative: {}\n"
    )
    for traces in (pb, jsonl):
        proc = subprocess.run(
            [sys.executable, "-m", "otel_agentcov.cli", "coverage", "--spec", str(spec_file),
             "--traces", str(traces), "--format", "json"],
            capture_output=True, text=True, timeout=120, check=False,
        )
        assert proc.returncode == 0, proc.stderr
        story = json.loads(proc.stdout)["agents"]["support"]["narrative"]
        assert story["runs"] == {"consistent": 1, "divergent": 2, "unverifiable": 1}
        assert story["not_english"] == 1
        assert story["divergences"] == [
            {"tool": "issue_refund", "kind": "claimed_not_called", "count": 1},
            {"tool": "send_email", "kind": "claimed_not_called", "count": 1},
        ]
        assert "confirmation email" not in proc.stdout
        assert CANARY not in proc.stdout + proc.stderr
    text = subprocess.run(
        [sys.executable, "-m", "otel_agentcov.cli", "coverage", "--spec", str(spec_file),
         "--traces", str(pb)],
        capture_output=True, text=True, timeout=120, check=False,
    )
    assert "unverifiable 1 (1 in a language not read)" in text.stdout, text.stdout
    assert CANARY not in text.stdout + text.stderr


# --- merge laws of the narrative record, on states built by the engine from random runs ------

ANSWERS = (None, "All done.", "I issued the refund.", "I sent the email and issued the refund.",
           "I looked up the order.", "Called `issue_credit`.", "I did not send the email.")
story_run = st.tuples(
    st.sampled_from(("support", "billing", "triage")),
    st.lists(st.tuples(st.sampled_from(TOOLS), st.sampled_from(("ok", "error", "denied"))),
             max_size=4),
    st.sampled_from(ANSWERS),
)
story_runs = st.lists(story_run, max_size=10)
_trace_seq = itertools.count(1)


def story_state(runs_: list[Any], limits: Limits | None = None) -> CoverageState:
    """The state one engine builds from these runs (each its own trace, fed as SpanRecords)."""
    engine = CoverageEngine(spec({"must_report": ["issue_credit"]}), limits=limits)
    for name, calls, answer in runs_:
        trace = next(_trace_seq)
        for i, (tool_name, outcome) in enumerate(calls):
            attrs: dict[str, Any] = {"gen_ai.operation.name": "execute_tool",
                                     "gen_ai.tool.name": tool_name}
            if outcome == "denied":
                attrs["gen_ai.tool.call.decision"] = "deny"
            engine.ingest(SpanRecord(
                trace_id=trace, span_id=i + 2, parent_id=1, name="tool", start_ns=i + 1,
                end_ns=i + 2, status_code=STATUS_ERROR if outcome == "error" else 0,
                attributes=attrs,
            ))
        attrs = {"gen_ai.operation.name": "invoke_agent", "gen_ai.agent.name": name}
        if answer is not None:
            attrs["gen_ai.output.messages"] = json.dumps(
                [{"role": "assistant", "parts": [{"type": "text", "content": answer}]}])
        engine.ingest(SpanRecord(trace_id=trace, span_id=1, parent_id=None, name="agent",
                                 start_ns=0, end_ns=10, attributes=attrs))
    return engine.state


def _stories(state: CoverageState) -> dict[str, Any]:
    return {name: st_.narrative.to_dict() for name, st_ in state.agents.items()}


def _merged(*states: CoverageState, limits: Limits | None = None) -> CoverageState:
    out = CoverageState(limits)
    for s in states:
        out.merge(s)
    return out


@settings(max_examples=40, deadline=None)
@given(story_runs, story_runs, story_runs)
def test_narrative_merge_is_exact_commutative_and_associative(
    x: list[Any], y: list[Any], z: list[Any]
) -> None:
    a, b, c = story_state(x), story_state(y), story_state(z)
    assert _stories(_merged(a, b)) == _stories(_merged(b, a)) == _stories(story_state(x + y))
    assert _stories(_merged(_merged(a, b), c)) == _stories(_merged(a, _merged(b, c)))
    # every run judged exactly once: results sum to the runs with a narrative verdict
    whole = story_state(x + y)
    assert sum(sum(s.narrative.runs.values()) for s in whole.agents.values()) == len(x + y)
    again = CoverageState.from_dict(json.loads(json.dumps(whole.to_dict())))
    assert _stories(again) == _stories(whole)


@settings(max_examples=40, deadline=None)
@given(st.lists(story_runs, min_size=1, max_size=3))
def test_narrative_caps_hold_through_merge(parts: list[list[Any]]) -> None:
    tight = Limits(max_tools=1)
    for state in (story_state([r for p in parts for r in p], tight),
                  _merged(*(story_state(p, tight) for p in parts), limits=tight)):
        for st_ in state.agents.values():
            # one real tool, then one __overflow__ bucket per divergence kind at most
            assert len({t for t, _ in st_.narrative.divergences if t != "__overflow__"}) <= 1
            assert len(st_.narrative.divergences) <= 1 + 3


@pytest.mark.parametrize(("narrative", "message"), [
    ({"claims": {"issue_refund": ["(unclosed"]}},
     "agentcov.yaml: agents[0].narrative.claims.issue_refund[0]: not a valid regular "
     "expression: missing ): (unclosed"),  # RE2's message
    ({"claims": {"issue_refund": "refund sent"}},
     "agentcov.yaml: agents[0].narrative.claims.issue_refund: expected an array of regular "
     "expressions, got 'refund sent'"),
    ({"must_report": "issue_credit"},
     "agentcov.yaml: agents[0].narrative.must_report: expected an array of strings, "
     "got 'issue_credit'"),
    ({"fail_run": "no"}, "agentcov.yaml: agents[0].narrative.fail_run: expected a boolean, "
     "got 'no'"),
    ({"claim": {}}, "agentcov.yaml: agents[0].narrative.claim: unknown key; expected one of: "
     "claims, must_report, fail_run, synonyms, words"),
])  # fmt: skip
def test_bad_narrative_specs_are_one_line_errors(
    tmp_path: Path, narrative: dict[str, Any], message: str
) -> None:
    path = tmp_path / "agentcov.yaml"
    path.write_text(json.dumps({"version": 1, "agents": [{"name": "a", "narrative": narrative}]}))
    with pytest.raises(SpecError) as err:
        CoverageSpec.from_yaml(path)
    assert str(err.value) == f"{tmp_path}/{message}"


def test_a_call_after_a_hand_off_a_workflow_records_counts_as_done() -> None:
    """Agent Framework shape: the workflow, not an agent, records the hand-off writer ->
    billing (a `handoff` step outside any run); billing's refund is done for writer's story."""
    def step(span_id: int, parent: int | None, kind: str, start: int, **kw: Any) -> Step:
        return Step(trace_id=9, span_id=span_id, parent_id=parent, kind=kind, start_ns=start,
                    end_ns=start + 5, fallback_agent="svc", **kw)

    steps = [
        Step(trace_id=9, span_id=1, parent_id=None, kind=WORKFLOW, start_ns=0, end_ns=100,
             fallback_agent="svc"),
        step(2, 1, AGENT, 10, agent="writer"),
        step(3, 1, HANDOFF, 20, handoff_from="writer", handoff_to="billing"),
        step(4, 1, AGENT, 30, agent="billing"),
        step(5, 4, TOOL, 31, tool="issue_refund"),
    ]
    by_agent = {r.agent: r for r in assemble(steps, content=True)}
    assert by_agent["writer"].delegations == [("writer", "billing")]
    assert by_agent["writer"].delegated_calls == {"issue_refund": True}
    answered = dataclasses.replace(
        by_agent["writer"], content=RunContent(output="Your refund was issued.", input=None)
    )
    assert verdict(answered, spec()) == ("consistent", (), False)


@pytest.mark.parametrize(("damage", "message"), [
    (None, "agents.support: narrative: expected an object, got NoneType"),
    ({"runs": {"consistent": "3"}}, "agents.support: narrative.runs.consistent: expected a "
                                    "count (0..2^63-1), got '3'"),
    ({"runs": {"lied": 1}}, "agents.support: narrative.runs: unknown result 'lied'"),
    ({"divergences": [["send_email", "made_up", 1]]},
     "agents.support: narrative.divergences: unknown kind 'made_up'"),
    ({"divergences": [["send_email", "claimed_not_called"]]},
     "agents.support: narrative.divergences: expected a list of 3, got \"['send_email', "
     "'claimed_not_called']\""),
])  # fmt: skip
def test_a_damaged_narrative_record_is_one_state_error_naming_the_field(
    damage: Any, message: str
) -> None:
    state = CoverageState()
    state.agent("support")
    data = state.to_dict()
    data["agents"]["support"]["narrative"] = damage
    with pytest.raises(StateError) as err:
        CoverageState.from_dict(data)
    assert str(err.value) == message


def _module_caches_holding(word: str) -> int:
    """Containers of otel_agentcov's modules (their globals, and what their functions hold,
    such as an lru_cache's dict) that have `word` as a member or key."""
    import gc

    found = 0
    for name, module in list(sys.modules.items()):
        if not name.startswith("otel_agentcov"):
            continue
        for value in list(vars(module).values()):
            for held in (value, *gc.get_referents(value)):
                if isinstance(held, dict | set | frozenset) and word in held:
                    found += 1
    return found


def test_no_word_of_an_answer_outside_the_lexicon_outlives_its_judgement() -> None:
    """The word caches of the narrative check (lexicon lookups, the English test) once kept
    every word of every answer judged, names and ids among them, for the life of the process.
    Only words the English lexicon knows may be remembered: nothing an answer alone holds."""
    secret = "zqvkelmorthax"  # lowercase, so the language test and the clause reader read it
    processor = AgentCoverageProcessor(spec({"must_report": ["issue_credit"]}),
                                       flush_interval_s=3600.0)
    provider = TracerProvider()
    provider.add_span_processor(processor)
    with agent(provider.get_tracer("narrative-words"), "support",
               f"I have issued your refund to {secret} and sent the email, {secret} said."):
        pass
    processor.force_flush()
    story = processor.snapshot().to_dict()["agents"]["support"]["narrative"]
    assert story["runs"]["divergent"] == 1  # the answer was read and judged
    provider.shutdown()
    assert _module_caches_holding(secret) == 0
    assert _module_caches_holding("refund") > 0  # the search sees the caches: lexicon words stay


def test_a_claim_repeated_in_the_last_sentence_of_another_language_stays_claimed() -> None:
    """Spanish: "I have issued the refund to your card. I confirm that I issued the refund
    today." The first sentence's claim is kept when the second does not retract it; the
    second claims the refund again. Never called: a hallucinated action, not dropped because
    it was said twice."""
    from otel_agentcov.judge.language import language_of
    from otel_agentcov.judge.narrative import NarrativeSpec, judge_story

    text = "He emitido el reembolso a su tarjeta. Le confirmo que he emitido el reembolso hoy."
    assert language_of(text) == "es"
    verdict = judge_story(text, frozenset({"issue_refund", "send_email"}), {}, NarrativeSpec())
    assert verdict.divergences == (("issue_refund", "claimed_not_called"),)


def test_one_languages_declared_words_are_not_another_languages() -> None:
    """`narrative.words` per language (docs/narrative.md): German's word for *refund* is no
    word of French, and French's none of German."""
    from otel_agentcov.judge.vocabulary import declared_words

    words = [("de", "refund", ("erstatten",)), ("fr", "refund", ("rembourser",)),
             ("fr", "cancel", ("résilier",))]
    assert declared_words(words, "de") == {"refund": ("erstatten",)}
    assert declared_words(words, "fr") == {"refund": ("rembourser",), "cancel": ("résilier",)}
    assert declared_words(words, "es") == {}


@pytest.mark.parametrize(("answer", "claimed"), [
    # "I have refunded the amount to your card": the action of issue_refund is *refund*
    ("He reembolsado el importe en su tarjeta.", ("issue_refund",)),
    ("Ich habe Ihnen den Betrag erstattet.", ("issue_refund",)),
    ("返金しました。", ("issue_refund",)),  # "I refunded"
    # "I have booked the flight": booking is cancel_booking's object, never its action
    ("He reservado el vuelo.", ("book_flight",)),
    # "the cancellation of the booking was carried out": cancel as a noun, done by a carrier
    ("La cancelación de la reserva se realizó.", ("cancel_booking",)),
])  # fmt: skip
def test_a_carrier_names_its_action_and_only_a_carrier_does(
    answer: str, claimed: tuple[str, ...]
) -> None:
    """docs/narrative.md#answers-in-other-languages: a tool named by a carrier verb and an
    action (issue_refund) is claimed by the action's own verb; a tool whose verb is the action
    (cancel_booking) is not claimed by its object's verb, and is by its action named as a noun."""
    from otel_agentcov.judge.narrative import NarrativeSpec, judge_story

    tools = frozenset({"issue_refund", "send_email", "cancel_booking", "book_flight"})
    verdict = judge_story(answer, tools, {}, NarrativeSpec())
    assert verdict.divergences == tuple((t, "claimed_not_called") for t in claimed)


@pytest.mark.parametrize(("filler", "claim"), [
    # "thank you for your patience and understanding throughout this long process"; "I have
    # issued the refund" (long sentences: fewer to read, the test stays fast)
    ("Gracias por su paciencia y comprensión durante todo este proceso tan largo. ",
     "He emitido el reembolso."),
    # "we apologise for the inconvenience"; "I refunded"
    ("ご不便をおかけして申し訳ございません。", "返金しました。"),
])  # fmt: skip
def test_an_answer_in_another_language_is_scanned_up_to_64_kib(filler: str, claim: str) -> None:
    """As in English (docs/narrative.md): a claim after some 3 000 characters is read; one
    after more than 64 KiB (65 536 characters) is past the scan and claims nothing."""
    from otel_agentcov.judge.narrative import NarrativeSpec, judge_story

    tools = frozenset({"issue_refund", "send_email"})
    near = filler * (3000 // len(filler))
    far = filler * (70_000 // len(filler))
    assert len(near) < 3000 and len(far) > 65_536
    refund = (("issue_refund", "claimed_not_called"),)
    assert judge_story(near + claim, tools, {}, NarrativeSpec()).divergences == refund
    assert judge_story(far + claim, tools, {}, NarrativeSpec()).divergences == ()


@pytest.mark.parametrize("answer", [
    "He eliminado el archivo.",  # "I have deleted the file"
    "Lo he eliminado.",  # "I have deleted it"
    "Ich habe sie gelöscht.",  # "I have deleted it"
])  # fmt: skip
def test_a_generic_object_may_go_unsaid_in_another_language(answer: str) -> None:
    """As in English ("I deleted it for you." claims delete_file): `file` is a generic
    object, so the deletion alone claims delete_file in Spanish and German too."""
    from otel_agentcov.judge.narrative import NarrativeSpec, judge_story

    tools = frozenset({"delete_file", "send_email"})
    assert judge_story(answer, tools, {}, NarrativeSpec()).divergences == (
        ("delete_file", "claimed_not_called"),)
