"""A scrape reads `measures()`: the report built without the sections no metric family reads
(recommendations, contexts). It must be the full report minus exactly those
keys, and the exposition of either must be the same bytes, on every kind of report content."""

from __future__ import annotations

import random

import pytest
from _support import demo_processor
from test_report_golden import fixture_files

from otel_agentcov import offline
from otel_agentcov.assembler import AgentRun, RunContent
from otel_agentcov.engine import CoverageEngine, EngineCounters
from otel_agentcov.exporters.prometheus import exposition
from otel_agentcov.judge import judge
from otel_agentcov.semconv.step import TOOL, Step
from otel_agentcov.spec import CoverageSpec
from otel_agentcov.state import CoverageState

# the expect list stays in the measures: agentcov_gate_passed is the gate (its expect rows)
JUDGED_ONLY = {"recommendations", "contexts"}


def _fixture_corpus() -> CoverageEngine:
    return offline.load(CoverageSpec.empty(), traces=[str(p) for p in fixture_files()])


def _demo() -> CoverageEngine:
    with demo_processor() as proc:
        engine: CoverageEngine = proc.engine
    return engine


def _contracts_and_versions() -> CoverageEngine:
    """Contract verdicts of every result and two versions with a verdict between them."""
    spec = CoverageSpec.from_dict({"version": 1, "agents": [{"name": "a", "contracts": [
        {"name": "refund", "when": {"called": "issue_refund"}, "must": [
            {"behavior": "verifies", "before": {"first": "verify", "then": "issue_refund"}},
            {"behavior": "apologises", "output": {"contains": "sorry"}},
        ]},
    ]}]}, source="<test>")  # fmt: skip
    engine = CoverageEngine(spec)
    plans = [(["verify", "issue_refund"], "sorry", "v1"), (["issue_refund"], None, "v1"),
             (["search"], "ok", "v2"), (["verify", "issue_refund"], "no", "v2")]
    for i, (calls, output, version) in enumerate(plans * 5, start=1):
        steps = [Step(i, j, None, TOOL, j, j, "a", tool=t) for j, t in enumerate(calls, 1)]
        run = AgentRun("a", i, 0, 10 + i, steps=steps, version=version,
                       content=RunContent(output, None, {}))
        agent = spec.for_agent("a")
        engine.state.update(run, agent, judge(run, agent.checks))
    return engine


def _without_judged(full: dict[str, object]) -> dict[str, object]:
    return {k: v for k, v in full.items() if k not in JUDGED_ONLY}


@pytest.mark.parametrize("make", [_fixture_corpus, _demo, _contracts_and_versions])
def test_measures_are_the_report_without_the_judged_sections(make: object) -> None:
    engine = make()  # type: ignore[operator]
    full = engine.snapshot().data
    measures = engine.measures()
    assert full["agents"], "the input made no agent report"
    assert measures["spans"] == full["spans"]
    assert list(measures["agents"]) == list(full["agents"])
    for name, report in full["agents"].items():
        assert JUDGED_ONLY & set(report)  # the full report has what measures leave out
        assert measures["agents"][name] == _without_judged(report), name
    assert exposition(measures) == exposition(full)


SPEC = CoverageSpec.from_dict({"version": 1, "agents": [
    {"name": "a", "tools": ["t1", "t2", "t3"], "tool_edges": {"delegation": [
        {"from": "b", "to": "c"}, {"from": "a", "to": "b"}]}},
]}, source="<test>")  # fmt: skip


def _run(rng: random.Random, trace: int, agent: str) -> AgentRun:
    tools = rng.sample(["t1", "t2", "t3", "t4"], rng.randint(0, 3))
    steps = [Step(trace, j, None, TOOL, j, j, agent, tool=t) for j, t in enumerate(tools, 1)]
    others = [x for x in "abc" if x != agent]
    delegations = [(agent, rng.choice(others))] if rng.random() < 0.3 else []
    return AgentRun(agent, trace, 0, 10 + trace, steps=steps, delegations=delegations,
                    version=rng.choice(["v1", "v2"]), content=RunContent(None, None, {}))


def test_a_change_always_shows_in_the_next_measures_and_only_changed_agents_are_rebuilt() -> None:
    """Measures keep an agent's report until its state (fold or merge), the spec or the
    delegations observed across agents move: after every change, measures() equals the report
    computed from scratch, and an agent nothing touched keeps the very same report object."""
    rng = random.Random(7)
    engine = CoverageEngine(SPEC)
    before = engine.measures()["agents"]
    for trace in range(1, 300):
        agent = rng.choice("abc")
        run = _run(rng, trace, agent)
        edges = {e for st in engine.state.agents.values() for e in st.edges.delegations}
        if rng.random() < 0.2:  # a worker's state merged in (`--jobs`, pytest-xdist)
            other = CoverageState()
            other.update(run, SPEC.for_agent(agent), judge(run, SPEC.for_agent(agent).checks))
            engine.merge(other, EngineCounters())
        else:
            engine.state.update(run, SPEC.for_agent(agent),
                                judge(run, SPEC.for_agent(agent).checks))
        after = engine.measures()["agents"]
        full = engine.snapshot().data["agents"]
        assert list(after) == list(full)
        for name, report in full.items():
            assert after[name] == _without_judged(report), (trace, name)
        moved = {e for st in engine.state.agents.values() for e in st.edges.delegations} != edges
        for name in after:
            if name != agent and name in before and not moved:
                assert after[name] is before[name], (trace, name)  # reused, not rebuilt
        before = after


def test_a_replaced_state_or_spec_is_never_served_from_the_last_measures() -> None:
    engine = CoverageEngine(SPEC)
    rng = random.Random(3)
    spec = SPEC.for_agent("a")
    for trace in range(1, 20):
        run = _run(rng, trace, "a")
        engine.state.update(run, spec, judge(run, spec.checks))
    first = engine.measures()["agents"]["a"]
    engine.state = CoverageState.from_dict(engine.state.to_dict())  # as serve's recovery does
    assert engine.measures()["agents"]["a"] is not first
    assert engine.measures()["agents"]["a"] == first  # same state, same measures
    engine.spec = CoverageSpec.empty()
    full = engine.snapshot().data["agents"]["a"]
    assert engine.measures()["agents"]["a"] == _without_judged(full)
    assert engine.measures()["agents"]["a"] != first  # the spec's tools no longer count
