"""Contract verdicts in the state: merged exactly across processes, serialized, version 1 read.

The merge property: splitting a run stream at any point, judging each half in its own state and
merging gives the same contract counts as one state that judged the whole stream.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from otel_agentcov.assembler import AgentRun, RunContent
from otel_agentcov.judge import judge
from otel_agentcov.semconv.step import TOOL, Step
from otel_agentcov.spec import CoverageSpec
from otel_agentcov.state import STATE_VERSION, CoverageState, Limits

SPEC = CoverageSpec.from_dict({"version": 1, "agents": [{"name": "*", "contracts": [
    {"name": "refund_policy", "when": {"called": "issue_refund"}, "must": [
        {"behavior": "verifies", "before": {"first": "verify", "then": "issue_refund"},
         "severity": "critical"},
        {"behavior": "one_refund", "calls": {"tool": "issue_refund", "max": 1}},
        {"behavior": "apologises", "output": {"contains": "sorry"}, "severity": "low"},
    ], "must_not": [
        {"behavior": "big", "called": {"tool": "issue_refund", "args": {"amount": "^[0-9]{4}"}},
         "severity": "medium"},
    ]},
    {"name": "searches", "must": [{"behavior": "search_first",
                                   "eventually": {"tool": "search*", "within": 1}}]},
]}]})

TOOLS = ("verify", "issue_refund", "search_kb", "search_web", "other")
call = st.tuples(st.sampled_from(TOOLS), st.one_of(st.none(), st.integers(0, 20000)))
run_strategy = st.tuples(
    st.sampled_from(("a", "b")),
    st.lists(call, max_size=6),
    st.one_of(st.none(), st.sampled_from(("sorry!", "done"))),
)


def _run(i: int, agent: str, calls: list[tuple[str, int | None]], output: str | None
         ) -> AgentRun:
    steps = [Step(i, j, None, TOOL, j, j, agent, tool=t) for j, (t, _) in enumerate(calls, 1)]
    args = {j: {"amount": a} for j, (_, a) in enumerate(calls, 1) if a is not None}
    return AgentRun(agent, i, 0, 10 + i, steps=steps, content=RunContent(output, None, args))


def _fold(state: CoverageState, runs: list[tuple[int, Any]]) -> None:
    for i, (agent, calls, output) in runs:
        run = _run(i, agent, calls, output)
        spec = SPEC.for_agent(agent)
        state.update(run, spec, judge(run, spec.checks))


def _contract_view(state: CoverageState) -> dict[str, Any]:
    return {
        name: (sorted(st.contracts.checks.items()), st.contracts.judged, st.contracts.failed,
               st.outcomes.passed)
        for name, st in sorted(state.agents.items())
    }


@settings(max_examples=80, deadline=None)
@given(st.lists(run_strategy, max_size=20), st.data())
def test_merging_halves_equals_one_process(runs: list[Any], data: st.DataObject) -> None:
    numbered = list(enumerate(runs))
    cut = data.draw(st.integers(0, len(numbered)))
    whole, left, right = CoverageState(), CoverageState(), CoverageState()
    _fold(whole, numbered)
    _fold(left, numbered[:cut])
    _fold(right, numbered[cut:])
    left.merge(right)
    assert _contract_view(left) == _contract_view(whole)
    # and through a state file's JSON
    again = CoverageState.from_dict(json.loads(json.dumps(left.to_dict())))
    assert _contract_view(again) == _contract_view(whole)


def test_counts_of_a_small_stream_by_hand() -> None:
    state = CoverageState()
    _fold(state, [
        (0, ("a", [("issue_refund", 5000), ("verify", None)], "done")),  # verifies ✗, big ✗
        (1, ("a", [("verify", None), ("issue_refund", 10)], "sorry")),  # all ✓
        (2, ("a", [("other", None)], None)),  # refund policy not exercised; search_first ✗
    ])
    checks = state.agents["a"].contracts.checks
    # [satisfied, violated, unknown, not exercised]
    assert checks[("refund_policy", "verifies", "must", "critical")] == [1, 1, 0, 1]
    assert checks[("refund_policy", "one_refund", "must", "high")] == [2, 0, 0, 1]
    assert checks[("refund_policy", "apologises", "must", "low")] == [1, 1, 0, 1]
    assert checks[("refund_policy", "big", "must_not", "medium")] == [1, 1, 0, 1]
    assert checks[("searches", "search_first", "must", "high")] == [0, 3, 0, 0]
    # every run is subject to `searches`; runs 0 and 2 fail it (high), run 0 also critical
    assert (state.agents["a"].contracts.judged, state.agents["a"].contracts.failed) == (3, 3)


def test_check_rows_are_capped_and_folds_counted() -> None:
    state = CoverageState(Limits(max_checks=2))
    _fold(state, [(0, ("a", [("issue_refund", 1)], "sorry"))])
    checks = state.agents["a"].contracts.checks
    assert len(checks) == 3  # two rows plus the overflow row
    overflow = checks[("__overflow__",) * 4]
    assert sum(overflow) == 3  # five verdicts, two kept by name, three folded
    assert state.overflow["contract"] == 3


def test_version_1_state_files_still_load(tmp_path: Path) -> None:
    """A file written before contracts existed (version 1, no contract keys)."""
    current = CoverageState()
    _fold(current, [(0, ("a", [("search_kb", None)], None))])
    document = current.to_dict()
    assert document["version"] == STATE_VERSION == 8
    old = dict(document, version=1)
    for agent in old["agents"].values():
        del agent["contract_checks"], agent["contract_runs"]
    path = tmp_path / "v1.json"
    path.write_text(json.dumps(old), encoding="utf-8")
    loaded = CoverageState.load(path)
    assert loaded.agents["a"].outcomes.runs == 1
    assert loaded.agents["a"].contracts.checks == {}
    loaded.merge(current)  # and merges with a current state
    assert loaded.agents["a"].contracts.checks == current.agents["a"].contracts.checks


def test_version_2_rows_load_with_no_not_exercised_count(tmp_path: Path) -> None:
    """Version 2 kept [satisfied, violated, unknown] per behaviour: those load, with 0 runs not
    exercised (a version 2 writer never recorded that verdict)."""
    current = CoverageState()
    _fold(current, [(0, ("a", [("verify", None), ("issue_refund", 10)], "sorry")),
                    (1, ("a", [("search_kb", None)], None))])
    document = current.to_dict()
    old = dict(document, version=2)
    for agent in old["agents"].values():
        agent["contract_checks"] = [row[:7] for row in agent["contract_checks"]]
    path = tmp_path / "v2.json"
    path.write_text(json.dumps(old), encoding="utf-8")
    loaded = CoverageState.load(path).agents["a"].contracts.checks
    assert loaded[("refund_policy", "verifies", "must", "critical")] == [1, 0, 0, 0]
    assert current.agents["a"].contracts.checks[
        ("refund_policy", "verifies", "must", "critical")] == [1, 0, 0, 1]


def test_contract_behaviours_per_test_context() -> None:
    """docs/semantics.md#test-contexts: which test decided which behaviour, and which declared
    behaviours no test exercises (an `unknown` verdict exercises nothing; a contract not applied
    neither)."""
    from otel_agentcov.snapshot import compute_snapshot

    spec = CoverageSpec.from_dict({"version": 1, "agents": [{"name": "a", "contracts": [
        {"name": "refund", "when": {"called": "issue_refund"}, "must": [
            {"behavior": "verifies", "before": {"first": "verify", "then": "issue_refund"}},
            {"behavior": "apologises", "output": {"contains": "sorry"}},
        ]},
        {"name": "search", "must": [{"behavior": "searches", "called": "search_kb"}]},
    ]}]})
    state = CoverageState()
    for i, (context, calls, output) in enumerate([
        ("test_refund", [("verify", None), ("issue_refund", None)], None),  # apologises unknown
        ("test_search", [("search_kb", None)], "ok"),
    ]):
        run = _run(i, "a", calls, output)
        run.context = context
        state.update(run, spec.for_agent("a"), judge(run, spec.for_agent("a").checks))
    report = compute_snapshot(state, spec, contexts=True).to_dict()
    contexts = report["agents"]["a"]["contexts"]
    assert contexts["by_test"]["test_refund"]["behaviors"] == ["refund.verifies", "search.searches"]
    assert contexts["by_test"]["test_search"]["behaviors"] == ["search.searches"]
    assert contexts["untested"]["behaviors"] == ["refund.apologises"]
