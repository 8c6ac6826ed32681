"""Recommendations (docs/semantics.md#next-steps-recommendations): each kind where it should be
and nowhere else, in impact order, and the runs-needed numbers against hand computations."""

from __future__ import annotations

import math
from typing import Any

from otel_agentcov.assembler import AgentRun
from otel_agentcov.judge import PASSING
from otel_agentcov.semconv.step import LLM, TOOL, Step
from otel_agentcov.snapshot import compute_snapshot
from otel_agentcov.spec import CoverageSpec
from otel_agentcov.state import CoverageState
from otel_agentcov.stats import Z95, extrapolated_coverage, runs_for_coverage, runs_for_interval

_ids = iter(range(1, 10_000))


def _tool(name: str, error: str | None = None) -> Step:
    return Step(1, next(_ids), 1, TOOL, 0, 1, "a", tool=name, error=error)


def _llm(model: str) -> Step:
    return Step(1, next(_ids), 1, LLM, 0, 1, "a", model=model)


def _report(entry: dict[str, Any], runs: list[list[Step]]) -> dict[str, Any]:
    spec = CoverageSpec.from_dict({"version": 1, "agents": [{"name": "a", **entry}]})
    state = CoverageState()
    for i, steps in enumerate(runs):
        state.update(AgentRun("a", i + 1, 0, 1, steps=steps), spec.for_agent("a"), PASSING)
    report: dict[str, Any] = compute_snapshot(state, spec).to_dict()["agents"]["a"]
    return report


ENTRY = {
    "tools": ["t1", "t2", "t3", "t4"],
    "models": ["m1", "m2"],
    "boundaries": {"conditions": ["error_path", "tool_failure"]},
    "tool_edges": {"delegation": [{"from": "a", "to": "b"}]},
    "min_runs": 3,  # the three runs below are enough for the extrapolation to count
}


def test_every_kind_in_impact_order_with_hand_computed_runs() -> None:
    report = _report(ENTRY, [
        [_llm("m1"), _tool("t1"), _tool("t2"), _tool("delete_user")],
        [_tool("t1")],
        [_tool("t1", error="ValueError")],
    ])
    steps = report["recommendations"]
    assert [(s["kind"], s["subject"]) for s in steps] == [
        # boundary 1/2 -> 2/2 and model 1/2 -> 2/2 double a factor of the geometric mean; a
        # third tool (2/4 -> 3/4) raises one by half; equal gains keep the kind order
        ("boundary", "error_path"),
        ("model", "m2"),
        ("uncovered_tool", "t3"),
        ("uncovered_tool", "t4"),
        ("restrict", "delete_user"),  # destructive-looking, not restricted
        ("delegation", "a->b"),
        ("undeclared_tool", "delete_user"),
        ("more_runs", "runs"),
    ]
    # paths: [llm, tool, tool, tool] once, [tool] twice -> f1 = 1, f2 = 1, n = 3; the ratio
    # (n-1)f1/((n-1)f1 + 2f2) = 1/2, so C(3+m) = 1 - (1/3)(1/2)^(m+1): m = 1 gives 0.9167,
    # m = 2 gives 0.9583 >= 0.95
    # pass rate 3/3: the Wilson interval is [N/(N+z^2), 1], half its width z^2/(2(N+z^2)) is
    # at most 0.05 from N >= 9 z^2 = 34.57, so N = 35: 32 more runs
    more = steps[-1]
    assert more["runs_for_paths"] == 2
    assert more["runs_for_pass_rate"] == math.ceil(9 * Z95**2) - 3 == 32
    assert more["runs"] == 32


def test_nothing_to_recommend_where_everything_is_covered() -> None:
    entry = {**ENTRY, "tool_edges": {"restricted": ["delete_user"]}}
    run = [_llm("m1"), _llm("m2"), _tool("t1"), _tool("t2"), _tool("t3"), _tool("t4", "E")]
    # t4 also succeeds in half the runs: a tool only ever failing is not covered
    # (docs/report.md#tool-outcomes)
    ok = [*run[:-1], _tool("t4")]
    report = _report({**entry, "boundaries": {"conditions": ["tool_failure"]}},
                     [run] * 200 + [ok] * 200)
    kinds = {s["kind"] for s in report["recommendations"]}
    # a restricted destructive tool needs no `restrict`; one path seen 400 times needs no more
    # runs for paths, and 400/400 passes is within ±5 % (N >= 35)
    assert kinds == set()


def test_below_min_runs_more_runs_reach_min_runs_at_least() -> None:
    # one run is one path seen once: f1 = 1, f2 = 0 extrapolates to full coverage, which one
    # run cannot show; the default min_runs (10) asks for 9 more
    report = _report({"tools": ["t1"]}, [[_tool("t1")]])
    more = report["recommendations"][-1]
    assert more["kind"] == "more_runs" and more["runs_for_paths"] == 9


def test_lifting_a_zero_dimension_ranks_first() -> None:
    # tool 1/4 and boundary 0/1 and model 0/2: the overall is 0 whatever tool is added; lifting
    # boundary or model from 0 lifts a zero, a new tool does not. Boundary (0 -> 1) then gives
    # a higher mean of the non-zero dimensions than model (0 -> 1/2)
    entry = {**ENTRY, "boundaries": {"conditions": ["tool_failure"]}}
    report = _report(entry, [[_tool("t1")]] * 3)
    kinds = [s["kind"] for s in report["recommendations"]]
    assert kinds[:4] == ["boundary", "model", "model", "uncovered_tool"]


def test_hand_off_tools_are_not_asked_to_be_restricted() -> None:
    handoff = _tool("transfer_to_billing")
    handoff.handoff_tool = True
    report = _report({"tools": ["t1"]}, [[_tool("t1"), handoff, _tool("delete_user")]])
    restrict = [s["subject"] for s in report["recommendations"] if s["kind"] == "restrict"]
    assert restrict == ["delete_user"]  # `transfer` is a destructive word, but not here
    allowed = _report({"tools": ["t1"], "tool_edges": {"allowed": ["t1", "delete_user"]}},
                      [[_tool("t1"), _tool("delete_user")]])
    assert not [s for s in allowed["recommendations"] if s["kind"] == "restrict"]
    # known but never called: the hand-off is recognised by its name, as classify recognises it
    offered = _report({"tools": ["t1", "transfer_to_agent", "transfer_to_billing"]},
                      [[_tool("t1")]])
    assert not [s for s in offered["recommendations"] if s["kind"] == "restrict"]


def test_runs_for_coverage_matches_the_chao_jost_formula() -> None:
    # f1 = 4, f2 = 1, n = 10: ratio = 9*4/(9*4 + 2) = 36/38
    ratio = 36 / 38
    need = next(m for m in range(1000) if 1 - (4 / 10) * ratio ** (m + 1) >= 0.95)
    assert runs_for_coverage(4, 1, 10) == need
    assert math.isclose(extrapolated_coverage(4, 1, 10, 0), 1 - 0.4 * ratio)
    # f2 = 0 uses (n-1)(f1-1)/((n-1)(f1-1)+2): f1 = 3, n = 5 -> 8/10
    need = next(m for m in range(1000) if 1 - (3 / 5) * 0.8 ** (m + 1) >= 0.95)
    assert runs_for_coverage(3, 0, 5) == need
    assert runs_for_coverage(0, 0, 0) is None  # no runs: nothing to extrapolate from


def test_runs_for_interval_at_half() -> None:
    # p = 1/2: half width z*sqrt(1/(4N) + z^2/(4N^2))/(1 + z^2/N) <= 0.05, found by counting
    z = Z95

    def half(n: int) -> float:
        return z * math.sqrt(0.25 / n + z * z / (4 * n * n)) / (1 + z * z / n)

    first = next(n for n in range(1, 10_000) if half(n) <= 0.05)
    assert runs_for_interval(0, 0) == first
    assert runs_for_interval(5, 10) == first - 10
