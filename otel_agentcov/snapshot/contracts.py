"""Report section for behaviour contracts: per behaviour its counts and violation rate, and the
agent's contract coverage (docs/contracts.md)."""

from __future__ import annotations

from ..contract_spec import DEFAULT_SEVERITY
from ..judge.contracts import SEVERITIES
from ..spec import CONTRACTS_GATE_TARGET, AgentSpec
from ..state.caps import OVERFLOW
from ..stats import wilson
from .schema import ContractRow
from .view import AgentView


def _violations(rows: list[ContractRow]) -> int | None:
    """Violations counted, or None (n/a, which no gate passes) while a behaviour was checked only
    without the content it needs: 0 violations of a check never decided is no evidence."""
    if any(r["unknown"] and not r["satisfied"] + r["violated"] for r in rows):
        return None
    return int(sum(r["violated"] for r in rows))


RANK = {s: i for i, s in enumerate(SEVERITIES)}  # ascending severity


def gates(spec: AgentSpec, row: ContractRow) -> bool:
    """A contract row whose severity is at or above the `fail_on` the gate applies to it."""
    return RANK.get(row["severity"], 0) >= RANK[fail_on(spec, row["contract"])]


def fail_on(spec: AgentSpec, contract: str) -> str:
    """The severity from which a violation of `contract` fails the gate: the spec's `gate.fail_on`,
    else the contract's own `fail_on` (default high, also for contracts only the state knows)."""
    if spec.fail_on is not None:
        return spec.fail_on
    return next((c.fail_on for c in spec.contracts if c.name == contract), DEFAULT_SEVERITY)


def unexercised(v: AgentView) -> tuple[list[str], int]:
    """(`contract.behavior` of every declared behaviour no run decided non-vacuously, how many
    are declared). Declared: the spec's behaviours, else (a state read without its spec) the
    recorded ones."""
    decided = {(c, b) for (c, b, _, _), (sat, vio, *_) in v.st.contracts.checks.items()
               if sat + vio}
    declared = [(c.name, b.name) for c in v.spec.contracts for b in c.behaviours] or sorted(
        {(c, b) for c, b, _, _ in v.st.contracts.checks if c != OVERFLOW})
    return [f"{c}.{b}" for c, b in declared if (c, b) not in decided], len(declared)


def contracts_section(v: AgentView) -> None:
    """`contracts` rows, violations first, contract coverage and the `contracts.*` gate targets.

    The violation rate is over the runs where the behaviour could be decided: an `unknown`
    run (content not captured) or a `not_exercised` one (its trigger never occurred) is counted
    but is neither a violation nor a pass."""
    rec = v.st.contracts
    rows: list[ContractRow] = []
    for (contract, behavior, kind, severity), (sat, vio, unk, idle) in rec.checks.items():
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
            "not_exercised": idle,
            "violation_rate": vio / decided if decided else None,
            "violation_rate_ci95": list(ci) if ci else None,
        })
    rows.sort(key=lambda r: (-r["violated"], -RANK.get(r["severity"], -1),
                             r["contract"], r["behavior"]))
    v.report["contracts"] = rows
    missing, declared = unexercised(v)
    covered = (declared - len(missing)) / declared if declared else None
    v.report["coverage"]["contracts"] = covered
    has_contracts = bool(v.spec.contracts) or bool(rec.checks)
    critical = [r for r in rows if r["severity"] == "critical"]
    gating = [r for r in rows if gates(v.spec, r)]
    v.targets.update({
        "coverage.contracts": covered,
        "contracts.violations": _violations(rows) if has_contracts else None,
        "contracts.violations_critical": _violations(critical) if has_contracts else None,
        CONTRACTS_GATE_TARGET: _violations(gating) if has_contracts else None,
        "contracts.pass_rate": (rec.judged - rec.failed) / rec.judged if rec.judged else None,
    })
