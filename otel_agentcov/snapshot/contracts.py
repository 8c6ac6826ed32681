"""Report section for behaviour contracts: per behaviour its counts and violation rate (§3a)."""

from __future__ import annotations

from typing import Any

from ..contract_spec import DEFAULT_SEVERITY
from ..judge.contracts import SEVERITIES
from ..spec import CONTRACTS_GATE_TARGET, AgentSpec
from ..stats import wilson
from .view import AgentView


def _violations(rows: list[dict[str, Any]]) -> int | None:
    """Violations counted, or None (n/a, which no gate passes) while a behaviour was checked only
    without the content it needs: 0 violations of a check never decided is no evidence."""
    if any(r["unknown"] and not r["satisfied"] + r["violated"] for r in rows):
        return None
    return int(sum(r["violated"] for r in rows))


RANK = {s: i for i, s in enumerate(SEVERITIES)}  # ascending severity


def gates(spec: AgentSpec, row: dict[str, Any]) -> bool:
    """A contract row whose severity is at or above the `fail_on` the gate applies to it."""
    return RANK.get(row["severity"], 0) >= RANK[fail_on(spec, row["contract"])]


def fail_on(spec: AgentSpec, contract: str) -> str:
    """The severity from which a violation of `contract` fails the gate: the spec's `gate.fail_on`,
    else the contract's own `fail_on` (default high, also for contracts only the state knows)."""
    if spec.fail_on is not None:
        return spec.fail_on
    return next((c.fail_on for c in spec.contracts if c.name == contract), DEFAULT_SEVERITY)


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
    rows.sort(key=lambda r: (-r["violated"], -RANK.get(r["severity"], -1),
                             r["contract"], r["behavior"]))
    v.report["contracts"] = rows
    declared = bool(v.spec.contracts) or bool(rec.checks)
    critical = [r for r in rows if r["severity"] == "critical"]
    gating = [r for r in rows if gates(v.spec, r)]
    v.targets.update({
        "contracts.violations": _violations(rows) if declared else None,
        "contracts.violations_critical": _violations(critical) if declared else None,
        CONTRACTS_GATE_TARGET: _violations(gating) if declared else None,
        "contracts.pass_rate": (rec.judged - rec.failed) / rec.judged if rec.judged else None,
    })
