"""Report section for narrative vs trace (docs/narrative.md): run results, divergences per tool."""

from __future__ import annotations

from ..judge.narrative import CLAIMED_NOT_CALLED, CONSISTENT, DIVERGENT, RESULTS
from .schema import Concern, Divergence
from .view import AgentView


def narrative_section(v: AgentView) -> None:
    """`narrative` counts, its targets (null until a run was verifiable) and a concern for
    hallucinated actions; names and counts only."""
    rec = v.st.narrative
    divergences: list[Divergence] = [
        {"tool": t, "kind": k, "count": n} for (t, k), n in sorted(rec.divergences.items())
    ]
    v.report["narrative"] = {
        "declared": v.spec.narrative is not None,
        "runs": {r: rec.runs.get(r, 0) for r in RESULTS},
        "divergences": divergences,
    }
    if rec.not_english:  # unverifiable runs: answer in a language not read
        v.report["narrative"]["not_english"] = rec.not_english
    if rec.too_long:  # unverifiable runs whose answer was past the size cap: shown, not silent
        v.report["narrative"]["too_long"] = rec.too_long
    verifiable = rec.runs.get(CONSISTENT, 0) + rec.runs.get(DIVERGENT, 0)
    hallucinated = [d for d in divergences if d["kind"] == CLAIMED_NOT_CALLED]
    total = sum(rec.divergences.values())
    not_called = sum(n for (_, k), n in rec.divergences.items() if k == CLAIMED_NOT_CALLED)
    v.targets["narrative.divergences"] = total if verifiable else None
    v.targets["narrative.claimed_not_called"] = not_called if verifiable else None
    if hallucinated:
        concern: Concern = {
            "type": "hallucinated_action",
            "severity": "high",
            "message": "story claims actions never taken: "
            + ", ".join(f"{d['tool']} ×{d['count']}" for d in hallucinated),
        }
        v.report["concerns"].append(concern)
