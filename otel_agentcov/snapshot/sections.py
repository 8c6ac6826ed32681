"""The order report sections are built in; later sections read what earlier ones wrote."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import cast

from ..spec import UNMATCHED_TARGET, evaluate_expect
from ..state import CoverageState
from ..stats.verdicts import PASS
from .arguments import arguments_section
from .contexts import contexts_section
from .contracts import contracts_section
from .coverage import (
    boundaries_section,
    coverage_section,
    diversity_section,
    skills_section,
    tools_section,
)
from .edges import edges_section
from .faults import faults_section
from .gate_reasons import detail
from .narrative import narrative_section
from .pass_rate import PASS_RATE, pass_rate_verdict
from .recommendations import recommendations_section
from .runs import concerns_section, runs_section
from .schema import AgentReport, ExpectResult, SpanStats, empty_report
from .versions import versions_section
from .view import AgentView


def expect_section(v: AgentView) -> None:
    """The agent's `expect` list (or default gate) over the targets every section defined;
    a failed check names what failed (`gate_reasons`). A pass-rate minimum passes by its Wilson
    interval, as the gate judges it, not by the point estimate."""
    v.targets[UNMATCHED_TARGET] = v.unlisted_agents
    rows: list[ExpectResult] = []
    for item, r in zip(v.spec.expect, evaluate_expect(v.spec.expect, v.targets), strict=True):
        passed, reason = r.passed, r.reason
        decided = (pass_rate_verdict(item, v.report["runs"], v.spec)
                   if item.target == PASS_RATE else None)
        if decided is not None:
            passed = decided[0] == PASS
            reason = "" if passed else f"{decided[0]}: {decided[1]}"
        rows.append({"target": r.target, "value": r.value, "passed": passed,
                     "reason": reason if passed else _named(reason, detail(r.target, v))})
    v.report["expect"] = rows


def _named(reason: str, what: str) -> str:
    return f"{reason}: {what}" if what else reason


Section = Callable[[AgentView], None]
AGENT_SECTIONS: tuple[Section, ...] = (
    tools_section,
    skills_section,
    arguments_section,  # after tools: it lists the known tools
    diversity_section,
    boundaries_section,
    faults_section,
    edges_section,
    coverage_section,
    runs_section,
    concerns_section,
    narrative_section,  # after concerns: it adds the hallucinated-action concern
    contracts_section,
    versions_section,
    contexts_section,
    recommendations_section,
    expect_section,  # last: it reads every target
)
# What a report's measures need (the metric families read no more): every section but the
# advice, the slower part of a report. The expect list stays: `agentcov_gate_passed` is the gate.
MEASURE_SECTIONS = tuple(
    s for s in AGENT_SECTIONS if s not in (contexts_section, recommendations_section)
)
# the JSON report's key order per agent (docs/report.md); `contexts` only when asked for,
# `arguments` only when argument coverage is on
REPORT_KEYS = (
    "runs", "coverage", "tools", "skills", "arguments", "models", "paths", "states", "boundaries",
    "boundary_hits", "faults", "delegations", "edges", "narrative", "concerns", "contracts",
    "expect", "contexts", "versions", "recommendations",
)



def agent_report(view: AgentView, sections: Sequence[Section] = AGENT_SECTIONS) -> AgentReport:
    """One agent's report: `sections` run in order, their keys in the report's order."""
    for section in sections:
        section(view)
    written: Mapping[str, object] = view.report
    return cast(AgentReport, {key: written[key] for key in REPORT_KEYS if key in written})


def observed(state: CoverageState) -> set[tuple[str, str]]:
    """Every delegation edge some agent was seen taking (an agent's delegation coverage reads
    the others')."""
    return {e for st in state.agents.values() for e in st.edges.delegations}


def span_section(spans: SpanStats | None) -> SpanStats:
    return spans.copy() if spans is not None else empty_report()["spans"]


__all__ = [
    "AGENT_SECTIONS", "MEASURE_SECTIONS", "REPORT_KEYS", "AgentView", "agent_report", "observed",
    "span_section",
]
