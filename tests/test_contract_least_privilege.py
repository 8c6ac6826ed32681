"""Least privilege: `trajectory: {tools: []}`, the `allowed_only` detector, and undeclared tools
as a gate check (`tool_edges.undeclared: fail`). Verdicts worked out by hand from
docs/contracts.md; `shows` checks the `must` and `must_not` polarities agree."""

from __future__ import annotations

from typing import Any

import pytest
from _contract_runs import NOT_CAPTURED, make_run, shows

from otel_agentcov.assembler import AgentRun
from otel_agentcov.judge import judge
from otel_agentcov.semconv.step import TOOL, Step
from otel_agentcov.snapshot import compute_snapshot
from otel_agentcov.spec import CoverageSpec, SpecError
from otel_agentcov.state import CoverageState

# --- trajectory: {tools: []} ---


@pytest.mark.parametrize("mode", [None, "exact", "same_tools", "only"])
def test_an_empty_trajectory_means_no_tool_call(mode: str | None) -> None:
    rule: dict[str, Any] = {"trajectory": {"tools": []}}
    if mode is not None:
        rule["trajectory"]["mode"] = mode
    assert shows(rule, make_run()) == "yes"
    assert shows(rule, make_run("search")) == "no"
    assert shows(rule, make_run(denied=["delete_repo"])) == "yes"  # a denied request is no call


@pytest.mark.parametrize("mode", ["in_order", "contains"])
def test_an_empty_trajectory_that_every_run_shows_is_refused(mode: str) -> None:
    with pytest.raises(SpecError, match=r"must\[0\]\.trajectory\.tools: an empty trajectory "
                                        f"in mode {mode} holds for every run"):
        CoverageSpec.from_dict({"version": 1, "agents": [{"name": "a", "contracts": [
            {"name": "c", "must": [{"behavior": "b",
                                    "trajectory": {"tools": [], "mode": mode}}]}]}]})


# --- allowed_only ---


def test_allowed_only_names_globs_and_aliases() -> None:
    rule = {"allowed_only": ["lookup", "fetch_*"]}
    aliases = {"aliases": {"lookup": ["search_kb", "search_web"]}}
    assert shows(rule, make_run("search_kb", "fetch_page", "search_web"), **aliases) == "yes"
    assert shows(rule, make_run("search_kb", "delete_repo"), **aliases) == "no"
    assert shows(rule, make_run("fetch"), **aliases) == "no"  # "fetch" is not "fetch_*"
    assert shows(rule, make_run(), **aliases) == "yes"  # no call is outside the list
    # repeated calls are fine: unlike trajectory `only`, no call needs a reference of its own
    assert shows(rule, make_run("fetch_a", "fetch_a", "fetch_a"), **aliases) == "yes"


def test_allowed_only_with_arguments_three_valued() -> None:
    small_pay = {"tool": "pay", "args": {"amount": "^[0-9]{1,3}$"}}
    rule = {"allowed_only": [small_pay, "search"]}
    assert shows(rule, make_run(("pay", {"amount": 50}), "search")) == "yes"
    assert shows(rule, make_run(("pay", {"amount": 5000}))) == "no"
    assert shows(rule, make_run("search", ("pay", NOT_CAPTURED))) == "unknown"
    # a call outside the list whatever the uncaptured arguments say: decided
    assert shows(rule, make_run(("pay", NOT_CAPTURED), "delete_repo")) == "no"


# --- tool_edges.undeclared: fail ---


def _undeclared(entry: dict[str, Any], calls: list[str]) -> dict[str, Any]:
    spec = CoverageSpec.from_dict({"version": 1, "agents": [{"name": "a", **entry}]})
    state = CoverageState()
    steps = [Step(1, j, None, TOOL, j, j, "a", tool=t) for j, t in enumerate(calls, 1)]
    run = AgentRun("a", 1, 0, 10, steps=steps)
    state.update(run, spec.for_agent("a"), judge(run, spec.for_agent("a").checks))
    report = compute_snapshot(state, spec).to_dict()["agents"]["a"]
    return {e["target"]: (e["value"], e["passed"]) for e in report["expect"]}


def test_undeclared_tools_fail_the_gate_when_asked() -> None:
    declared = {"tools": ["search"], "tool_edges": {"undeclared": "fail"}}
    assert _undeclared(declared, ["search", "mystery", "mystery"])[
        "edges.undeclared_tools"] == (1, False)  # one undeclared tool (called twice)
    assert _undeclared(declared, ["search"])["edges.undeclared_tools"] == (0, True)
    # the default is a report only: no gate check
    assert "edges.undeclared_tools" not in _undeclared({"tools": ["search"]}, ["mystery"])


def test_undeclared_with_nothing_declared_is_not_a_pass() -> None:
    """No inventory: every tool is undeclared and none is, so the value is n/a (fail safe)."""
    result = _undeclared({"tool_edges": {"undeclared": "fail"}}, ["search"])
    assert result["edges.undeclared_tools"] == (None, False)


def test_declaring_only_restricted_tools_is_an_inventory() -> None:
    """An agent whose spec names only restricted tools still declared what it may not call:
    every other tool it calls is undeclared (the restricted one is counted as an attempt)."""
    entry = {"tool_edges": {"restricted": ["delete_repo"], "undeclared": "fail"}}
    result = _undeclared(entry, ["search", "delete_repo", "lookup", "search"])
    assert result["edges.undeclared_tools"] == (2, False)  # search, lookup
    assert result["edges.restricted_attempts"] == (1, False)


def test_an_expect_list_keeps_its_own_undeclared_threshold() -> None:
    entry = {"tools": ["search"], "tool_edges": {"undeclared": "fail"}, "expect": [
        {"target": "edges.undeclared_tools", "matcher": {"schema": {"maximum": 1}}}]}
    assert _undeclared(entry, ["search", "mystery"])["edges.undeclared_tools"] == (1, True)


def test_undeclared_fail_from_defaults_applies_to_every_agent() -> None:
    spec = CoverageSpec.from_dict({"version": 1, "defaults": {
        "tool_edges": {"undeclared": "fail"}}, "agents": [{"name": "a", "tools": ["x"]}]})
    targets = [e.target for e in spec.for_agent("a").expect]
    assert "edges.undeclared_tools" in targets
    assert "edges.undeclared_tools" in [e.target for e in spec.for_agent("other").expect]
