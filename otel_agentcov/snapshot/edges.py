"""Report sections for tool edges: allowed tools, delegation edges, restricted attempts."""

from __future__ import annotations

from ..semconv.events import ALLOW, DENY, OUTCOMES, REQUIRE_APPROVAL
from .schema import Decision, Edges
from .view import AgentView


def _pct(hit: int, total: int) -> float | None:
    return None if total == 0 else 100.0 * hit / total


def _called(v: AgentView) -> set[str]:
    """The tools the agent called, asked only when an `allowed` list is declared (most agents
    declare none, and a scrape builds every agent's report)."""
    return {t for t, (ok, err) in v.st.inventory.tools.items() if ok + err > 0}


def edges_section(v: AgentView) -> None:
    """`edges.*` (docs/semantics.md#tool-edges) and the delegations observed from this agent."""
    spec, edges_rec = v.spec, v.st.edges
    attempts = sum(edges_rec.restricted.values())
    declared_edges = set(spec.delegation)
    edges: Edges = {
        "allowed_pct": _pct(spec.allowed_tools.entries_hit(_called(v)), len(spec.allowed))
        if spec.allowed
        else None,
        "restricted_attempts": attempts,
        "delegation_pct": _pct(len(declared_edges & v.observed_edges), len(declared_edges))
        if declared_edges
        else None,
        "gate_passed": 1 if attempts == 0 else 0,
        "delegation_declared": [{"from": a, "to": b} for a, b in sorted(declared_edges)],
        "restricted": [
            {"tool": t, "outcome": o, "count": c}
            for (t, o), c in sorted(edges_rec.restricted.items())
        ],
        # newest first; trace ids are identifiers, never content
        "restricted_traces": {
            t: [f"{trace:032x}" for _, trace in reversed(attempts)]
            for t, attempts in sorted(edges_rec.last_attempts.items())
        },
    }
    totals = dict.fromkeys(OUTCOMES, 0)
    if v.st.decisions.by_tool:
        rows = []
        for tool, counts in sorted(v.st.decisions.by_tool.items()):
            row = dict(zip(OUTCOMES, counts, strict=True))
            rows.append(Decision(tool=tool, allow=row[ALLOW], deny=row[DENY],
                                 require_approval=row[REQUIRE_APPROVAL]))
            for outcome, n in row.items():
                totals[outcome] += n
        edges["decisions"] = rows
    v.report["edges"] = edges
    v.report["delegations"] = [
        {"from": a, "to": b, "count": c} for (a, b), c in sorted(edges_rec.delegations.items())
    ]
    v.targets.update({
        "edges.allowed_pct": edges["allowed_pct"],
        "edges.restricted_attempts": edges["restricted_attempts"],
        "edges.delegation_pct": edges["delegation_pct"],
        "edges.gate_passed": edges["gate_passed"],
        **{f"decisions.{outcome}": n for outcome, n in totals.items()},
    })
