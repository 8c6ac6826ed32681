"""Report section for behaviour contracts: per behaviour its counts and violation rate (§3a)."""

from __future__ import annotations

from typing import Any

from ..judge.contracts import SEVERITIES
from ..stats import wilson
from .view import AgentView


def _violations(rows: list[dict[str, Any]]) -> int | None:
    """Violations counted, or None (n/a, which no gate passes) while a behaviour was checked only
    without the content it needs: 0 violations of a check never decided is no evidence."""
    if any(r["unknown"] and not r["satisfied"] + r["violated"] for r in rows):
        return None
    return int(sum(r["violated"] for r in rows))


def contracts_section(v: AgentView) -> None:
    """`contracts` rows, violations first, and the `contracts.*` gate targets.

    The violation rate is over the runs where the behaviour could be decided: an `unknown`
    run (content not captured) is counted but is neither a violation nor a pass."""
    rec = v.st.contracts
    rows: list[dict[str, Any]] = []
    for (contract, behavior, kind, severity), (sat, vio, unk) in rec.checks.items():
        decided = sat + vio
        ci = wilson(vio, decided)
        rows.append({
            "contract": contract,
            "behavior": behavior,
            "kind": kind,
            "severity": severity,
            "satisfied": sat,
            "violated": vio,
            "unknown": unk,
            "violation_rate": vio / decided if decided else None,
            "violation_rate_ci95": list(ci) if ci else None,
        })
    rank = {s: i for i, s in enumerate(SEVERITIES)}
    rows.sort(key=lambda r: (-r["violated"], -rank.get(r["severity"], -1),
                             r["contract"], r["behavior"]))
    v.report["contracts"] = rows
    declared = bool(v.spec.contracts) or bool(rec.checks)
    critical = [r for r in rows if r["severity"] == "critical"]
    v.targets.update({
        "contracts.violations": _violations(rows) if declared else None,
        "contracts.violations_critical": _violations(critical) if declared else None,
        "contracts.pass_rate": (rec.judged - rec.failed) / rec.judged if rec.judged else None,
    })
