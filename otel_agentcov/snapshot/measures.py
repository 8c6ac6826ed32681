"""Measures: the report a scrape reads, rebuilt only for the agents whose state changed.

A scrape shows the report's measures (`MEASURE_SECTIONS`: no recommendations or contexts).
Between two scrapes of a busy service many agents did nothing, so each agent's report is kept
with what it was built from and rebuilt when any of that moved: the agent's state object and its
revision (every fold and merge bumps it), the spec, the delegation edges observed across all
agents (an agent's delegation coverage reads the others') and the number of agents no spec entry
names (a gate target).
"""

from __future__ import annotations

from .. import agent_names
from ..spec import CoverageSpec
from ..state import AgentState, CoverageState
from .schema import REPORT_VERSION, AgentReport, Report, SpanStats
from .sections import MEASURE_SECTIONS, AgentView, agent_report, observed, span_section


class Measures:
    """`measures(state, spec, spans)`: the measures report; callers serialize calls (the
    engine's lock) and never mutate what it returns (the next call may return the same agent
    reports)."""

    def __init__(self) -> None:
        self._spec: CoverageSpec | None = None
        self._edges: set[tuple[str, str]] = set()
        self._unlisted = 0
        self._agents: dict[str, tuple[AgentState, int, AgentReport]] = {}

    def __call__(self, state: CoverageState, spec: CoverageSpec, spans: SpanStats | None = None
                 ) -> Report:
        edges = observed(state)
        # the gate's `spec.unmatched_agents` target reads how many agents no entry names
        unlisted = len(agent_names.unlisted(
            spec, {name: st.outcomes.runs for name, st in state.agents.items()}))
        same = spec is self._spec and edges == self._edges and unlisted == self._unlisted
        kept = self._agents if same else {}
        self._spec, self._edges, self._unlisted = spec, edges, unlisted
        built: dict[str, tuple[AgentState, int, AgentReport]] = {}
        for name, st in sorted(state.agents.items()):
            old = kept.get(name)
            if old is not None and old[0] is st and old[1] == st.revision:
                built[name] = old
            else:
                view = AgentView(name, st, spec.for_agent(name), edges,
                                 unlisted_agents=unlisted)
                built[name] = (st, st.revision, agent_report(view, MEASURE_SECTIONS))
        self._agents = built  # only the agents of this state: the cache never outgrows it
        agents = {name: report for name, (_, _, report) in built.items()}
        return {"version": REPORT_VERSION, "agents": agents, "spans": span_section(spans)}
