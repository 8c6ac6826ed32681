"""Declared means gated, and a misconfigured spec never passes silently (docs/gate.md).

Real SDK spans written as an OTLP/JSON file, judged by `agentcov gate` in a subprocess as CI runs
it. Each scenario failed before the gate took declarations as checks:
- a `high` contract violation and a hallucinated action (narrative) passed the default gate;
- a spec naming `support-agent` over runs of `support_agent` exited 0 although the agent called
  its restricted tool 9 times;
- a failed restricted check did not name the tool.
"""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest
from _trace_files import json_text
from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import ReadableSpan, TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

from otel_agentcov.agent_names import closest, distance, fold
from otel_agentcov.engine import CoverageEngine
from otel_agentcov.reporting import render
from otel_agentcov.snapshot import compute_snapshot
from otel_agentcov.spec import CoverageSpec, SpecError
from otel_agentcov.state import CoverageState

Run = tuple[str, Sequence[str], str | None]  # agent, tools called, final output


def spans(runs: Sequence[Run]) -> list[ReadableSpan]:
    exporter = InMemorySpanExporter()
    provider = TracerProvider(resource=Resource.create({"service.name": "support-app"}))
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    tracer = provider.get_tracer("support-app")
    for agent, tools, output in runs:
        attrs: dict[str, Any] = {"gen_ai.operation.name": "invoke_agent",
                                 "gen_ai.agent.name": agent}
        if output is not None:
            attrs["gen_ai.output.messages"] = json.dumps(
                [{"role": "assistant", "parts": [{"type": "text", "content": output}]}])
        with tracer.start_as_current_span(f"invoke_agent {agent}", attributes=attrs):
            for tool in tools:
                with tracer.start_as_current_span(f"execute_tool {tool}", attributes={
                    "gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": tool}):
                    pass
    provider.shutdown()
    return list(exporter.get_finished_spans())


def gate(tmp_path: Path, runs: Sequence[Run], spec: dict[str, Any],
         *extra: str) -> subprocess.CompletedProcess[str]:
    traces = tmp_path / "traces.json"
    traces.write_text(json_text(spans(runs)), encoding="utf-8")
    spec_file = tmp_path / "agentcov.yaml"
    spec_file.write_text(json.dumps({"version": 1, **spec}), encoding="utf-8")
    proc = subprocess.run(
        [sys.executable, "-m", "otel_agentcov.cli", "gate", "--spec", str(spec_file),
         "--traces", str(traces), *extra],
        capture_output=True, text=True, timeout=120, check=False)
    assert "Traceback" not in proc.stderr, proc.stderr
    return proc


REFUNDS: dict[str, Any] = {"name": "refunds", "must": [
    {"behavior": "looks_up_first", "before": {"first": "lookup_order", "then": "issue_refund"}}]}
CLAIMS: dict[str, Any] = {"claims": {"issue_refund": ["(?i)refund(ed)? (has been )?issued"]}}


def test_a_high_contract_violation_fails_the_default_gate_naming_it(tmp_path: Path) -> None:
    """Severity defaults to high, the contract's fail_on to high: the violation gates."""
    runs: list[Run] = [("support", ["issue_refund"], None), ("support", ["lookup_order"], None)]
    proc = gate(tmp_path, runs, {"agents": [{"name": "support", "contracts": [REFUNDS]}]})
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert "contract refunds.looks_up_first (high) violated ×1" in proc.stdout
    relaxed = gate(tmp_path, runs, {"gate": {"fail_on": "critical"},
                                    "agents": [{"name": "support", "contracts": [REFUNDS]}]})
    assert relaxed.returncode == 0, relaxed.stdout + relaxed.stderr


def test_a_hallucinated_action_fails_the_default_gate_naming_the_tool(tmp_path: Path) -> None:
    runs: list[Run] = [("support", ["lookup_order"], "Your refund has been issued.")]
    spec = {"agents": [{"name": "support", "narrative": CLAIMS}]}
    proc = gate(tmp_path, runs, spec)
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert "narrative.claimed_not_called" in proc.stdout
    assert "claimed tool issue_refund without calling it ×1" in proc.stdout
    reported = gate(tmp_path, runs, {**spec, "gate": {"narrative": "report"}})
    assert reported.returncode == 0, reported.stdout + reported.stderr


def test_an_explicit_expect_keeps_the_declared_checks_unless_it_names_them(
        tmp_path: Path) -> None:
    runs: list[Run] = [("support", ["issue_refund"], None)]
    count = {"target": "runs.count", "matcher": {"schema": {"minimum": 1}}}
    own = {"target": "contracts.violations", "matcher": {"schema": {"maximum": 5}}}
    kept = gate(tmp_path, runs, {"agents": [
        {"name": "support", "contracts": [REFUNDS], "expect": [count]}]})
    assert kept.returncode == 1 and "refunds.looks_up_first" in kept.stdout
    named = gate(tmp_path, runs, {"agents": [
        {"name": "support", "contracts": [REFUNDS], "expect": [count, own]}]})
    assert named.returncode == 0, named.stdout


def test_a_typo_in_the_agent_name_is_inconclusive_and_names_the_seen_agent(
        tmp_path: Path) -> None:
    runs: list[Run] = [("support_agent", ["lookup_order"], None)] * 9
    entry = {"name": "support-agent", "tool_edges": {"restricted": ["delete_account"]}}
    proc = gate(tmp_path, runs, {"agents": [entry]})
    assert proc.returncode == 3, proc.stdout + proc.stderr
    assert "no run matched spec agent 'support-agent'; did you mean 'support_agent'?" \
        in proc.stdout
    assert "'support_agent'" in proc.stderr  # seen, named by no entry: a warning
    optional = gate(tmp_path, runs, {"agents": [{**entry, "optional": True}]})
    assert optional.returncode == 0, optional.stdout + optional.stderr
    strict = gate(tmp_path, runs, {"gate": {"unmatched_agents": "fail"},
                                   "agents": [{**entry, "optional": True}]})
    assert strict.returncode == 1 and "spec.unmatched_agents" in strict.stdout


@pytest.mark.parametrize("where", ["top", "defaults"])
def test_restricted_tools_for_every_agent_trip_a_renamed_agent(tmp_path: Path,
                                                              where: str) -> None:
    runs: list[Run] = [("support_agent", ["delete_account"], None)] * 9
    every: dict[str, Any] = ({"restricted": ["delete_account"]} if where == "top" else
                             {"defaults": {"tool_edges": {"restricted": ["delete_account"]}}})
    entry = {"name": "support-agent", "tool_edges": {"restricted": ["drop_table"]}}
    proc = gate(tmp_path, runs, {**every, "agents": [entry]})
    assert proc.returncode == 1, proc.stdout + proc.stderr  # FAIL outranks the INCONCLUSIVE
    assert "restricted tool delete_account executed ×9" in proc.stdout
    spec = CoverageSpec.from_dict({"version": 1, **every, "agents": [entry]})
    assert spec.agents["support-agent"].restricted == ("delete_account", "drop_table")


def test_a_failed_restricted_check_names_the_tool_and_up_to_three_traces(
        tmp_path: Path) -> None:
    runs: list[Run] = [("support", ["delete_account"], None)] * 4
    proc = gate(tmp_path, runs, {"agents": [
        {"name": "support", "tool_edges": {"restricted": ["delete_account"]}}]})
    assert proc.returncode == 1
    [line] = [ln for ln in proc.stdout.splitlines() if "edges.restricted_attempts" in ln]
    assert "restricted tool delete_account executed ×4" in line
    listed = line.split("; traces ")[1]
    assert listed.endswith(" (+1 more))")  # 4 attempts: 3 ids and a count
    traces = listed.removesuffix(" (+1 more))").split(", ")
    assert len(traces) == 3 and all(int(t, 16) and len(t) == 32 for t in traces)


def _trace_ids_of(traces: Path, span_name: str) -> set[str]:
    """The trace ids (hex) of the spans named `span_name` in an OTLP/JSON file."""
    doc = json.loads(traces.read_text(encoding="utf-8"))
    return {s["traceId"] for r in doc["resourceSpans"] for sc in r["scopeSpans"]
            for s in sc["spans"] if s["name"] == span_name}


@pytest.mark.parametrize("flags", [(), ("--allow-inconclusive",)])
def test_a_tool_a_misspelt_entry_restricts_fails_whatever_the_flags(
        tmp_path: Path, flags: tuple[str, ...]) -> None:
    """Issue 36: entry `suport` restricts delete_account, agent `support` calls it. Before, the
    gate was INCONCLUSIVE about the name only (exit 3), and with --allow-inconclusive it printed
    `support edges.restricted_attempts 0 PASS` and exited 0."""
    runs: list[Run] = [("support", ["lookup_order", "delete_account"], None)] * 2
    proc = gate(tmp_path, runs, {"agents": [
        {"name": "suport", "tool_edges": {"restricted": ["delete_account"]}}]}, *flags)
    assert proc.returncode == 1, proc.stdout + proc.stderr
    [line] = [ln for ln in proc.stdout.splitlines() if "edges.restricted_attempts" in ln]
    assert line.startswith("support ") and " 2 " in line and "FAIL" in line
    assert ("restricted tool delete_account executed ×2 (restricted by spec entry 'suport')"
            in line)
    ids = _trace_ids_of(tmp_path / "traces.json", "execute_tool delete_account")
    assert len(ids) == 2 and all(i in line for i in ids)
    assert "no run matched spec agent 'suport'; did you mean 'support'?" in proc.stdout


def test_a_tool_any_entry_restricts_is_restricted_for_every_agent(tmp_path: Path) -> None:
    """Another named agent, an agent no entry names: both trip `support`'s restriction; only
    a named entry's own `tool_edges.allowed` exempts it (not `defaults`, not `*`, which would
    reopen the misspelt-entry hole)."""
    support = {"name": "support", "tool_edges": {"restricted": ["delete_*"]}}
    runs: list[Run] = [("support", ["lookup_order"], None), ("admin", ["delete_account"], None)]
    unnamed = gate(tmp_path, runs, {"agents": [support]})
    assert unnamed.returncode == 1, unnamed.stdout + unnamed.stderr
    assert "restricted tool delete_account executed ×1 (restricted by spec entry 'support')" \
        in unnamed.stdout
    named = gate(tmp_path, runs, {"agents": [support, {"name": "admin"}]})
    assert named.returncode == 1, named.stdout + named.stderr
    allowed = {"name": "admin", "tool_edges": {"allowed": ["delete_*"]}}
    exempt = gate(tmp_path, runs, {"agents": [support, allowed]})
    assert exempt.returncode == 0, exempt.stdout + exempt.stderr
    for loophole in ({"agents": [support, {"name": "*", "tool_edges": {"allowed": ["delete_*"]}}]},
                     {"defaults": {"tool_edges": {"allowed": ["delete_*"]}}, "agents": [support]}):
        proc = gate(tmp_path, runs, loophole)
        assert proc.returncode == 1, (loophole, proc.stdout)
        assert "restricted tool delete_account executed ×1" in proc.stdout


def test_an_inherited_restriction_fails_the_in_process_gate(tmp_path: Path) -> None:
    """The processor's Snapshot (and so `serve` and /metrics' agentcov_gate_passed) judges
    the same: the misspelt entry's tool fails `support`'s gate."""
    from otel_agentcov.processor import AgentCoverageProcessor

    spec = CoverageSpec.from_dict({"version": 1, "agents": [
        {"name": "suport", "optional": True, "tool_edges": {"restricted": ["delete_account"]}}]})
    processor = AgentCoverageProcessor(spec)
    for span in spans([("support", ["delete_account"], None)]):
        processor.on_end(span)
    processor.shutdown()
    snap = processor.snapshot()
    assert snap.agents["support"]["edges"]["restricted_attempts"] == 1
    assert snap.agents["support"]["edges"]["gate_passed"] == 0
    assert not snap.gate_passed


def test_names_fold_case_dash_and_underscore_before_the_edit_distance() -> None:
    assert fold("Support-Agent") == fold("support_agent")
    assert distance("kitten", "sitting") == 3  # the textbook example
    assert closest("support-agent", ["billing", "support_agent", "suport_agent"]) == [
        "support_agent", "suport_agent"]
    assert closest("triage", ["billing_agent", "research"]) == []


def test_an_unknown_gate_key_lists_the_valid_ones() -> None:
    with pytest.raises(SpecError, match="gate.fails_on: unknown key; expected one of: "
                       "fail_on, narrative, unmatched_agents"):
        CoverageSpec.from_dict({"version": 1, "gate": {"fails_on": "high"}})


def test_a_snapshot_of_nothing_or_of_an_unmatched_agent_never_passes() -> None:
    spec = CoverageSpec.from_dict({"version": 1, "agents": [{"name": "support"}]})
    empty = compute_snapshot(CoverageState(), CoverageSpec.empty())
    assert not empty.gate_passed and "no agent run" in empty.gate_problems[0]
    missing = compute_snapshot(CoverageState(), spec)
    assert not missing.gate_passed
    assert any("'support'" in p for p in missing.gate_problems)
    engine = CoverageEngine(CoverageSpec.empty())
    shown = engine.snapshot()
    assert not shown.gate_passed  # what the in-process API hands out: 0 spans never pass
    assert str(shown) == render(shown.to_dict(), "text") and "no agent runs" in str(shown)
    assert shown.render("markdown") == render(shown.to_dict(), "markdown")


def test_a_pass_rate_too_few_runs_can_show_never_passes_in_process() -> None:
    """`snapshot.gate_passed` and the report's expect rows judged `runs.pass_rate` by its point
    estimate: one passing run met `minimum: 0.9`, which `agentcov gate` calls INCONCLUSIVE
    (Wilson lower bound of 1/1 is 0.21). Now the interval decides; 40/40 (lower 0.912) passes."""
    from _builders import agent_run, ingest

    from otel_agentcov.stats import wilson

    spec = CoverageSpec.from_dict({"version": 1, "agents": [{
        "name": "support", "min_runs": 1,
        "expect": [{"target": "runs.pass_rate", "matcher": {"schema": {"minimum": 0.9}}}]}]})
    engine = CoverageEngine(spec)
    ingest(engine, agent_run(1, "support"))
    one = engine.snapshot()
    assert one.agents["support"]["runs"]["pass_rate"] == 1.0  # the point estimate meets 0.9
    assert not one.gate_passed
    (rate,) = [e for e in one.agents["support"]["expect"] if e["target"] == "runs.pass_rate"]
    assert not rate["passed"] and rate["reason"].startswith("INCONCLUSIVE: ")  # the report too
    for trace in range(2, 41):
        ingest(engine, agent_run(trace, "support"))
    lower = wilson(40, 40)
    assert lower is not None and lower[0] >= 0.9
    assert engine.snapshot().gate_passed


def test_unmatched_agents_fail_fails_in_process_as_in_the_gate() -> None:
    """With `gate.unmatched_agents: fail`, `agentcov gate` FAILs on an agent no entry names;
    `snapshot.gate_passed` said True for the same runs."""
    from _builders import agent_run, ingest

    def snapshot(policy: str) -> Any:
        spec = CoverageSpec.from_dict({"version": 1, "gate": {"unmatched_agents": policy},
                                       "agents": [{"name": "support", "optional": True}]})
        return ingest(CoverageEngine(spec), agent_run(1, "stranger")).snapshot()

    failing = snapshot("fail")
    assert not failing.gate_passed
    assert failing.gate_problems == (
        "1 agent ran but no spec entry names them: 'stranger' (judged by the spec defaults; "
        "add entries or a '*' entry)",)
    assert snapshot("warn").gate_passed  # the default only warns, in the gate too


def test_the_reports_call_an_undecided_pass_rate_inconclusive_not_fail() -> None:
    from _builders import agent_run, ingest

    spec = CoverageSpec.from_dict({"version": 1, "agents": [{
        "name": "support", "min_runs": 1,
        "expect": [{"target": "runs.pass_rate", "matcher": {"schema": {"minimum": 0.9}}}]}]})
    report = ingest(CoverageEngine(spec), agent_run(1, "support")).snapshot().to_dict()
    markdown = render(report, "markdown")
    assert "| runs.pass_rate | 1 | **INCONCLUSIVE** |" in markdown  # what `agentcov gate` says
    assert "**FAIL**" not in markdown


@pytest.mark.parametrize(("key", "passed", "verdict", "reason"), [
    # 5/10: Wilson centre (0.5 + 1.92/10) / 1.384 = 0.5, spread 1.96·√(0.025 + 0.0096) / 1.384
    # = 0.2634, so [23.7%, 76.3%] straddles 0.5 whether the minimum is exclusive or not
    ("exclusiveMinimum", 5, "INCONCLUSIVE",
     "pass rate 50.0%, 95% interval [23.7%, 76.3%] straddles 0.5"),
    ("minimum", 5, "INCONCLUSIVE", "pass rate 50.0%, 95% interval [23.7%, 76.3%] straddles 0.5"),
    # 0/10: upper bound z²/(10 + z²) = 3.84 / 13.84 = 27.8%, below 0.5 either way
    ("exclusiveMinimum", 0, "FAIL",
     "pass rate 0.0%, 95% interval [0.0%, 27.8%] entirely below 0.5"),
])
def test_a_pass_rate_interval_that_straddles_an_exclusive_minimum_is_inconclusive(
        key: str, passed: int, verdict: str, reason: str) -> None:
    """`exclusiveMinimum` moves only the bound itself: an interval holding the threshold
    decides nothing, as under `minimum`; one entirely below it fails."""
    from otel_agentcov.snapshot.pass_rate import pass_rate_verdict
    from otel_agentcov.spec import ExpectItem

    agent = CoverageSpec.from_dict({"version": 1, "agents": [{"name": "support"}]}).for_agent(
        "support")  # min_runs 10 by default
    runs = {"count": 10, "passed": passed, "pass_rate": passed / 10}
    item = ExpectItem("runs.pass_rate", {key: 0.5})
    assert pass_rate_verdict(item, runs, agent) == (verdict, reason)  # type: ignore[arg-type]
