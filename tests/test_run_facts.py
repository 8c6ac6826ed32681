"""What one run contributes to the state (state/facts.py, state/edges.py), worked out by hand:
model calls and their tokens, costs per currency, decisions, boundary hits, the run's score,
and the restricted attempts' trace pointers; also for steps read back from the service's
journal, whose kinds are equal to the step kinds but not the same string objects."""

from __future__ import annotations

import json
from typing import Any

import pytest

from otel_agentcov.assembler import AgentRun
from otel_agentcov.judge import judge
from otel_agentcov.semconv.step import GUARDRAIL, LLM, PLAN, TOOL, WORKFLOW, Step
from otel_agentcov.service.steps import from_row, to_row
from otel_agentcov.spec import CoverageSpec
from otel_agentcov.state import CoverageState, Limits
from otel_agentcov.state.caps import OVERFLOW_EDGE
from otel_agentcov.state.edges import LAST_ATTEMPTS, Edges
from otel_agentcov.state.facts import UNKNOWN_CURRENCY, RunFacts, run_facts

BOUNDARIES = {"max_steps": 4, "cost_limit_usd": 2.0, "min_input_chars": 3,
              "guardrail_blocked": ["action=BLOCKED"]}


def steps() -> list[Step]:
    """Three model calls (100 + 20, 10 + 5 and 0 tokens), a tool call carrying an `allow`
    decision, a blocked guardrail and a plan step; costs 0.5 and 0.25 EUR, 0.1 in no named
    currency, 2.0 USD (no USD price of its own: the amount is the USD cost)."""
    def step(i: int, kind: str, **kw: Any) -> Step:
        return Step(1, i, None, kind, i, i + 1, "a", **kw)

    return [
        step(1, LLM, model="m", input_tokens=100, output_tokens=20, cost_amount=0.5,
             cost_currency="EUR"),
        step(2, TOOL, tool="search", decision="allow", cost_amount=0.1),
        step(3, GUARDRAIL, finish_reason="action=BLOCKED"),
        step(4, LLM, model="m", input_tokens=10, output_tokens=5, cost_amount=0.25,
             cost_currency="EUR"),
        step(5, PLAN),
        step(6, LLM, model="m", cost_amount=2.0, cost_currency="USD"),
    ]


def facts_of(run_steps: list[Step], input_chars: int = 3) -> RunFacts:
    spec = CoverageSpec.from_dict({"version": 1, "agents": [
        {"name": "a", "tools": ["search"], "boundaries": BOUNDARIES}]}).for_agent("a")
    run = AgentRun("a", 1, 0, 10, steps=run_steps, input_chars=input_chars, scores=(1.0, 0.5))
    return run_facts(run, spec, judge(run, spec))


def journaled(step: Step) -> Step:
    """The step as the service reads it back from its journal (JSON rows)."""
    return from_row(json.loads(json.dumps(to_row(step))))


@pytest.mark.parametrize("read_back", [False, True])
def test_model_calls_costs_decisions_and_boundaries_of_one_run(read_back: bool) -> None:
    """Three model calls (the guardrail and plan steps are none) stay below max_steps 4; the
    USD cost 2.0 reaches 90 % of cost_limit_usd 2.0; the guardrail's `action=BLOCKED` is declared
    blocked; 3 input characters are not fewer than min_input_chars 3. The score is the mean
    of the run's scores, (1.0 + 0.5) / 2."""
    facts = facts_of([journaled(s) for s in steps()] if read_back else steps())
    assert facts.tokens == 135
    assert facts.costs == {"EUR": 0.75, UNKNOWN_CURRENCY: 0.1, "USD": 2.0}
    assert facts.models == {"m": 3}
    assert facts.decisions == {("search", "allow"): 1}
    assert sorted(facts.boundary_hits) == ["cost_limit", "guardrail_blocked"]
    assert facts.score == 0.75


def test_one_input_character_short_is_an_empty_input() -> None:
    assert "empty_input" in facts_of(steps(), input_chars=2).boundary_hits
    assert "empty_input" not in facts_of(steps(), input_chars=3).boundary_hits


def test_a_restricted_tool_keeps_its_five_newest_attempts() -> None:
    """Seven runs each calling the restricted `wipe` (ending at 10, 20, ... 70 ns): the state
    points at the five newest, oldest first; a state file listing seven keeps its last five."""
    spec = CoverageSpec.from_dict({"version": 1, "agents": [
        {"name": "a", "tool_edges": {"restricted": ["wipe"]}}]})
    state = CoverageState()
    for trace in range(1, 8):
        run = AgentRun("a", trace, 0, 10 * trace,
                       steps=[Step(trace, 2, None, TOOL, 1, 2, "a", tool="wipe")])
        state.update(run, spec.for_agent("a"), judge(run, spec.for_agent("a")))
    edges = state.agents["a"].edges.to_dict()
    newest = [[10 * t, t] for t in range(3, 8)]
    assert LAST_ATTEMPTS == 5 and edges["restricted_traces"] == {"wipe": newest}
    stored = {**edges, "restricted_traces": {"wipe": [[10 * t, t] for t in range(1, 8)]}}
    assert Edges.from_dict(stored).last_attempts == {"wipe": [(10 * t, t) for t in range(3, 8)]}


def test_delegations_past_the_agent_cap_fold_one_each() -> None:
    """With room for two delegation edges per agent, a run delegating to b, c, d and e keeps
    a->b and a->c; a->d and a->e fold into the overflow edge: two folds of the `agent`
    dimension counted, one per edge left out."""
    spec = CoverageSpec.from_dict({"version": 1, "agents": [{"name": "a"}]}).for_agent("a")
    state = CoverageState(Limits(max_agents=2))
    run = AgentRun("a", 1, 0, 10, delegations=[("a", x) for x in "bcde"])
    state.update(run, spec, judge(run, spec))
    assert state.agents["a"].edges.delegations == {
        ("a", "b"): 1, ("a", "c"): 1, OVERFLOW_EDGE: 2}
    assert state.overflow == {"agent": 2}


def test_an_unknown_boundary_in_a_state_file_is_named_cut_to_40_characters() -> None:
    name = "no_such_condition_" + "x" * 40
    with pytest.raises(ValueError) as refused:
        Edges.from_dict({"boundaries": {name: 1}, "delegations": [], "restricted": []})
    assert str(refused.value) == f"boundaries: unknown condition {name[:40]!r}"
    assert len(name[:40]) == 40


def test_only_a_tool_step_is_a_tool_call() -> None:
    """A step of another kind naming a tool (a workflow around a tool's execution) is no call
    of it: the run calls `search` once."""
    facts = facts_of([Step(1, 1, None, WORKFLOW, 1, 2, "a", tool="search"),
                      Step(1, 2, None, TOOL, 2, 3, "a", tool="search")])
    assert dict(facts.tool_calls) == {("search", False): 1}
    assert facts.called == {"search"}
