"""Turn-aware trajectories: calls one model response requested form a group that `exact` and
`in_order` compare as a multiset (agentevals' strict mode ignores the order of parallel calls).

Runs are built by hand from model steps and tool spans with times; every verdict is read off
docs/contracts.md#turns by hand, and checked in both polarities.
"""

from __future__ import annotations

from collections import Counter
from itertools import combinations, permutations
from typing import Any

import pytest
from _contract_runs import shows
from hypothesis import given, settings
from hypothesis import strategies as st

from otel_agentcov.assembler import AgentRun, RunContent
from otel_agentcov.semconv.step import LLM, TOOL, Step
from otel_agentcov.spec import CoverageSpec, SpecError

Span = tuple[str, str, int, int, int | None]  # (kind, tool or model, start, end, parent id)


def run_of(*spans: Span) -> AgentRun:
    """Span ids are positions from 1; `parent` None means the agent span."""
    steps = [
        Step(1, i, parent, kind, start, end, "a", tool=name if kind == TOOL else None,
             model=name if kind == LLM else None)
        for i, (kind, name, start, end, parent) in enumerate(spans, start=1)
    ]
    steps.sort(key=lambda s: s.start_ns)
    args: dict[int, Any] = {s.span_id: {} for s in steps if s.kind == TOOL}
    return AgentRun("a", 1, 0, 1000, steps=steps, content=RunContent(None, None, args))


def llm(start: int, end: int | None = None, parent: int | None = None) -> Span:
    return (LLM, "gpt", start, end if end is not None else start + 5, parent)


def tool(name: str, start: int, end: int | None = None, parent: int | None = None) -> Span:
    return (TOOL, name, start, end if end is not None else start + 5, parent)


# (built per test: a run holds captured content, which no module may keep alive, see
# test_contracts_e2e.test_content_lives_only_until_the_run_is_judged)
def parallel() -> AgentRun:
    """One response asks for two forecasts (run in parallel, NYC first), the next one books."""
    return run_of(llm(0), tool("weather_nyc", 10, 30), tool("weather_sf", 12, 25), llm(40),
                  tool("book", 50))


def sequential() -> AgentRun:
    """The same calls, each after a model response of its own: three turns."""
    return run_of(llm(0), tool("weather_nyc", 10), llm(20), tool("weather_sf", 30), llm(40),
                  tool("book", 50))


def traj(mode: str, *tools: Any) -> dict[str, Any]:
    return {"trajectory": {"tools": list(tools), "mode": mode}}


def test_exact_ignores_order_within_a_turn_only() -> None:
    assert shows(traj("exact", "weather_sf", "weather_nyc", "book"), parallel()) == "yes"
    assert shows(traj("exact", "weather_nyc", "weather_sf", "book"), parallel()) == "yes"
    # the turns keep their order: book came in the second
    assert shows(traj("exact", "book", "weather_sf", "weather_nyc"), parallel()) == "no"
    # chunks follow the turns: {sf, book} is not the first turn {nyc, sf}
    assert shows(traj("exact", "weather_sf", "book", "weather_nyc"), parallel()) == "no"
    # separate responses: order is the run's
    assert shows(traj("exact", "weather_sf", "weather_nyc", "book"), sequential()) == "no"
    assert shows(traj("exact", "weather_nyc", "weather_sf", "book"), sequential()) == "yes"


def test_a_reference_with_its_own_turns() -> None:
    """Nested lists are the model responses the reference expects: exact pairs them one to one
    with the run's turns (agentevals' strict mode compares assistant messages so)."""
    one_response = run_of(llm(0), tool("weather_sf", 10, 30), tool("weather_nyc", 12, 30))
    two_responses = run_of(llm(0), tool("weather_sf", 10), llm(20), tool("weather_nyc", 30))
    together = traj("exact", ["weather_nyc", "weather_sf"])
    apart = traj("exact", ["weather_sf"], ["weather_nyc"])
    assert shows(together, one_response) == "yes"
    assert shows(together, two_responses) == "no"  # two messages where one was expected
    assert shows(apart, two_responses) == "yes"
    assert shows(apart, one_response) == "no"
    assert shows(traj("exact", "weather_sf", ["weather_nyc"]), two_responses) == "yes"
    assert shows(traj("exact", ["weather_nyc"], "weather_sf"), two_responses) == "no"
    # a flat reference takes the run's own turns: both runs show it
    flat = traj("exact", "weather_sf", "weather_nyc")
    assert shows(flat, one_response) == "yes" and shows(flat, two_responses) == "yes"


def test_in_order_with_reference_turns() -> None:
    run = run_of(llm(0), tool("a", 10, 30), tool("b", 11, 30), llm(40), tool("c", 50),
                 llm(60), tool("d", 70, 90), tool("e", 71, 90))
    assert shows(traj("in_order", ["b"], ["e", "d"]), run) == "yes"
    assert shows(traj("in_order", ["a", "b"], ["c"]), run) == "yes"
    assert shows(traj("in_order", ["a", "c"]), run) == "no"  # a and c were asked apart
    assert shows(traj("in_order", ["c"], ["a"]), run) == "no"  # turns keep their order
    assert shows(traj("in_order", ["d"], ["e"]), run) == "no"  # one run turn holds one


def test_in_order_over_turns() -> None:
    assert shows(traj("in_order", "weather_sf", "book"), parallel()) == "yes"
    assert shows(traj("in_order", "weather_sf", "weather_nyc", "book"), parallel()) == "yes"
    assert shows(traj("in_order", "book", "weather_nyc"), parallel()) == "no"
    assert shows(traj("in_order", "weather_sf", "weather_nyc"), sequential()) == "no"
    # a turn can give a chunk of the reference only once: two forecasts of SF are not there
    assert shows(traj("in_order", "weather_sf", "weather_sf"), parallel()) == "no"


def test_selectors_inside_a_turn_are_matched_optimally() -> None:
    run = run_of(llm(0), tool("search_web", 10, 20), tool("search_kb", 11, 20))
    # first-fit would give search_* the web call and leave nothing for search_web
    assert shows(traj("exact", "search_*", "search_web"), run) == "yes"
    assert shows(traj("exact", "search_web", "search_web"), run) == "no"


def test_a_model_call_inside_a_tool_is_no_turn_of_the_agent() -> None:
    # tool 2 (summarize) calls a model itself (span 3, its child) while tool 4 runs in the same
    # response: still one turn {summarize, search}
    run = run_of(llm(0), tool("summarize", 10, 40), llm(15, 20, parent=2), tool("search", 30))
    assert shows(traj("exact", "search", "summarize"), run) == "yes"


def test_calls_whose_parent_is_the_model_step() -> None:
    # a convention nesting tool spans under the response that asked for them
    run = run_of(llm(0, 100), tool("b", 10), tool("a", 20, parent=1), llm(40, 100),
                 tool("c", 50, parent=4), tool("d", 60, parent=4))
    # span 2 (b) has no model parent: the latest model step before it is span 1, same turn
    assert shows(traj("exact", "a", "b", "d", "c"), run) == "yes"
    assert shows(traj("exact", "a", "d", "b", "c"), run) == "no"


def test_without_model_steps_overlapping_spans_are_a_turn() -> None:
    run = run_of(tool("a", 0, 10), tool("b", 5, 15), tool("c", 20, 30))
    assert shows(traj("exact", "b", "a", "c"), run) == "yes"
    assert shows(traj("exact", "a", "c", "b"), run) == "no"
    # touching is not overlapping: one after the other
    flat = run_of(tool("a", 0, 10), tool("b", 10, 20))
    assert shows(traj("exact", "b", "a"), flat) == "no"
    assert shows(traj("exact", "a", "b"), flat) == "yes"


def test_order_free_modes_do_not_depend_on_turns() -> None:
    for run in (parallel(), sequential()):
        assert shows(traj("same_tools", "book", "weather_sf", "weather_nyc"), run) == "yes"
        assert shows(traj("contains", "book"), run) == "yes"
        assert shows(traj("only", "book", "weather_sf"), run) == "no"


def _orderings(groups: list[list[str]]) -> list[list[str]]:
    """Every flat call order the turns allow: each turn's calls in any order."""
    out: list[list[str]] = [[]]
    for group in groups:
        out = [done + list(p) for done in out for p in set(permutations(group))]
    return out


def _subsequence(ref: list[str], calls: list[str]) -> bool:
    it = iter(calls)
    return all(any(c == r for c in it) for r in ref)


@settings(max_examples=300, deadline=None)
@given(st.lists(st.lists(st.sampled_from("abc"), min_size=1, max_size=3), max_size=4),
       st.lists(st.sampled_from("abc"), max_size=6))
def test_turns_equal_every_order_they_allow(groups: list[list[str]], ref: list[str]) -> None:
    """Brute force, written independently: exact holds iff some allowed order equals the
    reference; in_order iff the reference is a subsequence of some allowed order."""
    spans: list[Span] = []
    t = 0
    for group in groups:
        spans.append(llm(t))
        spans += [tool(name, t + 10 + i, t + 50) for i, name in enumerate(group)]
        t += 100
    run = run_of(*spans)
    orders = _orderings(groups)
    expect_exact = any(order == ref for order in orders)
    expect_in_order = any(_subsequence(ref, order) for order in orders)
    assert (shows(traj("exact", *ref), run) == "yes") == expect_exact
    if ref:  # an empty in_order reference is refused at spec load
        assert (shows(traj("in_order", *ref), run) == "yes") == expect_in_order


def _contains(big: list[str], small: list[str]) -> bool:
    return not Counter(small) - Counter(big)


@settings(max_examples=300, deadline=None)
@given(st.lists(st.lists(st.sampled_from("abc"), min_size=1, max_size=3), max_size=4),
       st.lists(st.lists(st.sampled_from("abc"), min_size=1, max_size=2), min_size=1,
                max_size=3))
def test_reference_turns_against_brute_force(groups: list[list[str]],
                                             ref: list[list[str]]) -> None:
    """exact: as many turns, each the same multiset; in_order: the reference turns sit inside
    run turns picked in increasing order, one each (every choice of turns tried)."""
    spans: list[Span] = []
    for t, group in enumerate(groups):
        spans.append(llm(100 * t))
        spans += [tool(name, 100 * t + 10 + i, 100 * t + 50) for i, name in enumerate(group)]
    run = run_of(*spans)
    expect_exact = len(ref) == len(groups) and all(
        sorted(r) == sorted(g) for r, g in zip(ref, groups, strict=False))
    expect_in_order = any(all(_contains(groups[i], r) for i, r in zip(picked, ref, strict=True))
                          for picked in combinations(range(len(groups)), len(ref)))
    assert (shows(traj("exact", *ref), run) == "yes") == expect_exact
    assert (shows(traj("in_order", *ref), run) == "yes") == expect_in_order


def test_an_empty_reference_turn_is_refused() -> None:
    with pytest.raises(SpecError, match=r"trajectory\.tools"):
        CoverageSpec.from_dict({"version": 1, "agents": [{"name": "a", "contracts": [
            {"name": "c", "must": [{"behavior": "b", "trajectory": {"tools": [["x"], []]}}]}]}]})
