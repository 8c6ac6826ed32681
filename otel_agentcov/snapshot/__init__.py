"""Snapshot: the immutable computed view (ratios, estimates, edges, concerns, expect results).

Every output renders a Snapshot; none recomputes coverage (docs/architecture.md#data-flow). Each
report section is built by one function of its own (`AGENT_SECTIONS`), in order, so a new
concern adds a section rather than growing one function.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping, Sequence
from typing import TypeVar

from .. import agent_names
from ..spec import CoverageSpec
from ..state import CoverageState, losses
from ..stats.verdicts import INSTRUMENT_HINT
from .contexts import tested_edges
from .coverage import model_matches
from .measures import Measures
from .schema import DIMENSIONS, REPORT_VERSION, AgentReport, Report, SpanStats
from .sections import AgentView, agent_report, observed, span_section

NO_RUNS = f"no agent run was seen; {INSTRUMENT_HINT}"

__all__ = [
    "DIMENSIONS", "REPORT_VERSION", "Measures", "Snapshot", "compute_snapshot", "model_matches",
]


class Snapshot:
    """One consistent computed view; `to_dict()` is the versioned JSON report (docs/report.md)."""

    def __init__(self, data: Report, problems: Sequence[str] = ()) -> None:
        self._data = data
        self._problems = tuple(problems)

    def to_dict(self) -> Report:
        return copy.deepcopy(self._data)

    @property
    def data(self) -> Report:
        """The report without a copy, for renderers on a hot path (scrapes); do not mutate it."""
        return self._data

    @property
    def agents(self) -> Mapping[str, AgentReport]:
        return self._data["agents"]

    @property
    def gate_problems(self) -> tuple[str, ...]:
        """Why the gate cannot pass whatever the expect lists say: no agent run at all, a spec
        agent no run matched (with a "did you mean"), agents no entry names under
        `gate.unmatched_agents: fail`, spans or decision events dropped before they were judged
        (one line each)."""
        return self._problems

    @property
    def gate_passed(self) -> bool:
        """True when there were runs, every spec agent matched some, and every agent's expect
        list passed (a pass rate by its interval): a snapshot of nothing never passes."""
        return not self._problems and all(
            e["passed"] for a in self.agents.values() for e in a["expect"]
        )


S = TypeVar("S", bound=Snapshot)


def compute_snapshot(
    state: CoverageState,
    spec: CoverageSpec,
    spans: SpanStats | None = None,
    *,
    contexts: bool = False,
    kind: type[S] = Snapshot,  # type: ignore[assignment]
) -> S:
    """Derive every ratio from the state under the spec; the only place coverage is computed.

    `kind` is the Snapshot class to build (the engine's renders itself). `contexts` adds
    who-tests-what per agent (docs/semantics.md#test-contexts)."""
    tested = tested_edges(state.agents.values()) if contexts else set()
    runs = {name: st.outcomes.runs for name, st in state.agents.items()}
    unlisted = agent_names.unlisted(spec, runs)
    edges = observed(state)
    agents = {
        name: agent_report(AgentView(name, st, spec.for_agent(name), edges, contexts, tested,
                                     len(unlisted)))
        for name, st in sorted(state.agents.items())
    }
    problems = [u.message() for u in agent_names.unmatched(spec, runs)]
    if unlisted and spec.gate.unmatched_agents == "fail":
        problems.append(agent_names.unlisted_message(unlisted))
    if not any(runs.values()):
        problems.insert(0, NO_RUNS)
    lost = dict(state.dropped)
    if spans is not None:
        losses.add(lost, losses.of_counters(spans["dropped"], spans.get("events", {})))
    if losses.message(lost):
        problems.append(losses.message(lost))
    return kind({"version": REPORT_VERSION, "agents": agents, "spans": span_section(spans)},
                problems)
