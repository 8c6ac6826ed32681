"""Cardinality and memory attacks on the engine (docs/guarantees.md: memory bounded by
configuration).

One run of AGENTCOV_ATTACK_SPANS spans (default 1,000,000, about 20-40 s) carries a million
distinct agent, tool and model names and paths, a trace that never ends and a flood of traces
whose roots never arrive. The engine is fed directly (the point is the engine, not the SDK).
Checked: every span counted; every label family stays under its cap in the real /metrics
exposition; every fold and early flush is counted; resident memory stops growing once the caps
are full (growth over the last 80 % of the attack is bounded, whatever its length).
"""

from __future__ import annotations

import os
from collections import Counter

import pytest
from _builders import tool_attrs
from prometheus_client.parser import text_string_to_metric_families

from otel_agentcov.assembler import Bounds
from otel_agentcov.engine import CoverageEngine
from otel_agentcov.exporters.families import OVERFLOW_LABELS
from otel_agentcov.exporters.prometheus import render
from otel_agentcov.records import SpanRecord
from otel_agentcov.spec import CoverageSpec
from otel_agentcov.state import OVERFLOW, Limits

pytestmark = pytest.mark.slow

SPANS = int(os.environ.get("AGENTCOV_ATTACK_SPANS", "1000000"))
LIMITS = Limits(max_agents=50, max_tools=100, max_models=20, max_paths=500, max_states=500,
                max_path_samples=50)
MAX_TRACES, MAX_SPANS_PER_TRACE = 1000, 10_000
RSS_GROWTH_BOUND = 48 * 2**20  # the unbounded engine grew by hundreds of MB on this attack


def rss_bytes() -> int:
    with open("/proc/self/statm") as fh:
        return int(fh.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


def _tool(i: int) -> dict[str, object]:
    return tool_attrs(f"tool-{i}")


def attack(engine: CoverageEngine, spans: int, checkpoint: list[int]) -> Counter[str]:
    """Feed the attack; return what was sent by shape. RSS is sampled at 20 % and at the end."""
    sent: Counter[str] = Counter()
    runs = spans // 8  # half the spans: (chat, tool, child agent) under an agent, names distinct
    never_ending = spans // 4  # one trace whose root never arrives
    rootless = spans - 4 * runs - never_ending  # one span per trace, parent never arrives
    marks = {spans // 5}
    n = 0

    def ingest(record: SpanRecord, shape: str) -> None:
        nonlocal n
        engine.ingest(record)
        sent[shape] += 1
        n += 1
        if n in marks:
            checkpoint.append(rss_bytes())

    for i in range(runs):
        trace = 10**9 + i
        ingest(SpanRecord(trace, 2, 1, "chat", start_ns=1, end_ns=2, attributes={
            "gen_ai.operation.name": "chat", "gen_ai.request.model": f"model-{i}"}), "run")
        ingest(SpanRecord(trace, 3, 1, "execute_tool", start_ns=2, end_ns=3,
                          attributes=_tool(i)), "run")
        ingest(SpanRecord(trace, 4, 1, "invoke_agent", start_ns=3, end_ns=4, attributes={
            "gen_ai.operation.name": "invoke_agent", "gen_ai.agent.name": f"child-{i}"}), "run")
        ingest(SpanRecord(trace, 1, None, "invoke_agent", start_ns=0, end_ns=4, attributes={
            "gen_ai.operation.name": "invoke_agent", "gen_ai.agent.name": f"agent-{i}"}), "run")
    for i in range(never_ending):
        ingest(SpanRecord(7, 10 + i, 1, "execute_tool", start_ns=i, end_ns=i + 1,
                          attributes=_tool(runs + i)), "never_ending")
    for i in range(rootless):
        ingest(SpanRecord(2 * 10**9 + i, 2, 1, "execute_tool", start_ns=1, end_ns=2,
                          attributes=_tool(runs + never_ending + i)), "rootless")
    checkpoint.append(rss_bytes())
    return sent


def series_per_family(exposition: bytes) -> dict[str, int]:
    return {f.name: len(f.samples) for f in text_string_to_metric_families(exposition.decode())}


@pytest.mark.timeout(240)
def test_a_million_distinct_names_and_endless_traces_stay_under_the_caps() -> None:
    spec = CoverageSpec.from_dict({"version": 1, "agents": [
        {"name": "*", "paths": {"granularity": "tool"}}]})  # every tool name is a new path
    engine = CoverageEngine(spec, bounds=Bounds(
        max_traces=MAX_TRACES, max_spans_per_trace=MAX_SPANS_PER_TRACE, idle_ttl_s=3600.0,
    ), limits=LIMITS)
    rss: list[int] = []
    sent = attack(engine, SPANS, rss)

    stats = engine.span_stats()
    assert stats["processed"] == SPANS == sum(sent.values())
    assert stats["dropped"] == {} and stats["internal_errors"] == 0
    assert stats["traces_in_flight"] <= MAX_TRACES
    early = stats["flushed_early"]
    assert early["span_limit"] == sent["never_ending"] // MAX_SPANS_PER_TRACE
    endless_held = sent["never_ending"] % MAX_SPANS_PER_TRACE != 0
    assert early["trace_limit"] == sent["rootless"] - (MAX_TRACES - endless_held)

    # every structure within its cap; every fold counted and conserved
    state = engine.state
    assert len(state.agents) == LIMITS.max_agents + 1 and OVERFLOW in state.agents
    for st in state.agents.values():
        assert len(st.inventory.tools) <= LIMITS.max_tools + 1
        assert len(st.inventory.models) <= LIMITS.max_models + 1
        assert len(st.diversity.paths) <= LIMITS.max_paths
        assert len(st.diversity.states) <= LIMITS.max_states
        assert len(st.edges.delegations) <= LIMITS.max_agents + 1
    folds = state.overflow
    agent_runs = sent["run"] // 2  # each run's agent and its child agent
    # folded runs land in __overflow__ (counted per run), as do folded delegation edges
    assert folds["agent"] >= state.agents[OVERFLOW].outcomes.runs >= agent_runs - LIMITS.max_agents
    folded_runs = sum(s.outcomes.runs for s in state.agents.values())
    agents = list(state.agents.values())
    assert sum(sum(s.diversity.paths.values()) for s in agents) + folds["path"] == folded_runs
    tool_calls = sum(ok + err for s in agents for ok, err in s.inventory.tools.values())
    buffered = sum(len(steps) for _, _, steps in engine.assembler.open_traces())
    assert tool_calls == agent_runs // 2 + sent["never_ending"] + sent["rootless"] - buffered
    assert sum(sum(s.edges.delegations.values()) for s in state.agents.values()) == agent_runs // 2

    # the real exposition: series per family bounded by the caps, whatever the attack size
    exposition = render(engine)
    series = series_per_family(exposition)
    agents = LIMITS.max_agents + 1
    assert series["agentcov_tool_calls"] <= 2 * agents * (LIMITS.max_tools + 1)
    assert series["agentcov_model_calls"] <= agents * (LIMITS.max_models + 1)
    assert series["agentcov_runs"] == agents
    assert series["agentcov_delegations"] <= agents * agents
    assert series["agentcov_label_overflow"] == len(OVERFLOW_LABELS)  # one series per dimension
    assert max(series.values()) <= 2 * agents * (LIMITS.max_tools + 1)
    assert len(exposition) < 4 * 2**20

    growth = rss[-1] - rss[0]
    print(f"\nattack: {SPANS} spans, {sum(series.values())} series, "
          f"{len(exposition)} bytes of /metrics, RSS {rss[0] / 2**20:.0f} -> "
          f"{rss[-1] / 2**20:.0f} MiB (growth {growth / 2**20:.1f} MiB over the last 80 %)")
    assert growth < RSS_GROWTH_BOUND
