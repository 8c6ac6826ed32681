"""`agentcov compare`: the regression verdict per agent between two states (docs/compare.md).

Pass rates, intervals and coverage come from each side's Snapshot report (never recomputed);
the exact set changes and the per-tool call counts come from the states themselves.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any, Literal

from ..judge.narrative import CONSISTENT, DIVERGENT
from ..snapshot.schema import DIMENSIONS, AgentReport, Report
from ..state import AgentState, CoverageState
from ..stats.means import Sample, mean_rise_verdict
from ..stats.regression import (
    ALPHA,
    TOLERANCE,
    fisher_drop_p,
    holm,
    holm_factors,
    pass_rate_verdict,
    tool_drift,
)
from ..stats.verdicts import FAIL, INCONCLUSIVE, PASS
from .hard import hard_regressions
from .sets import set_changes

_Column = Literal["tool", "path", "state", "boundary", "model", "overall"]
_COLUMNS: tuple[_Column, ...] = (*DIMENSIONS, "overall")


@dataclass(frozen=True)
class Side:
    """One side of a comparison: its state and the Snapshot report computed from it."""

    state: CoverageState
    report: Report

    def agent(self, name: str) -> tuple[AgentState, AgentReport | None]:
        return self.state.agents.get(name) or AgentState(), self.report["agents"].get(name)


@dataclass(frozen=True)
class Settings:
    tolerance: float = TOLERANCE
    alpha: float = ALPHA
    min_count: int = 1


def overall(verdicts: Iterable[str]) -> str:
    """FAIL if any agent failed, else INCONCLUSIVE if any could not be decided, else PASS."""
    seen = set(verdicts)
    return FAIL if FAIL in seen else INCONCLUSIVE if INCONCLUSIVE in seen or not seen else PASS


def _counts(report: AgentReport | None) -> tuple[int, int]:
    """(passed, runs) as the snapshot counted them; an agent absent from a side has none."""
    return (report["runs"]["passed"], report["runs"]["count"]) if report else (0, 0)


def _rate(report: AgentReport | None) -> dict[str, Any]:
    runs = report["runs"] if report else None
    return {
        "rate": runs["pass_rate"] if runs else None,
        "ci95": runs["pass_rate_ci95"] if runs else None,
        "passed": runs["passed"] if runs else 0,
        "runs": runs["count"] if runs else 0,
    }


def _coverage(before: AgentReport | None, after: AgentReport | None
              ) -> dict[str, dict[str, float | None]]:
    return {
        d: {
            "baseline": before["coverage"][d] if before else None,
            "current": after["coverage"][d] if after else None,
        }
        for d in _COLUMNS
    }


def _tool_calls(st: AgentState) -> dict[str, int]:
    return {t: ok + err for t, (ok, err) in st.inventory.tools.items()}


def _unfailed(st: AgentState) -> tuple[int, int]:
    """(runs no contract failed, runs a contract applied to)."""
    return st.contracts.judged - st.contracts.failed, st.contracts.judged


def _consistent(st: AgentState) -> tuple[int, int]:
    """(runs whose story matched their calls, runs whose story could be checked)."""
    consistent = st.narrative.runs.get(CONSISTENT, 0)
    return consistent, consistent + st.narrative.runs.get(DIVERGENT, 0)


def _recovered(st: AgentState) -> tuple[int, int]:
    """(runs with injected faults that recovered, runs with injected faults): docs/faults.md."""
    return st.faults.recovered, st.faults.runs


def _rate_check(before: tuple[int, int], after: tuple[int, int], settings: Settings
                ) -> dict[str, Any] | None:
    """A secondary rate (contract-unfailed runs, narrative-consistent runs) compared like the
    pass rate (docs/compare.md; uncorrected: the pass rate already counts these runs)."""
    (x0, n0), (x1, n1) = before, after
    if not (n0 and n1):
        return None
    v = pass_rate_verdict(x0, n0, x1, n1, tolerance=settings.tolerance, alpha=settings.alpha)
    return {"verdict": v.verdict, "baseline": [x0, n0], "current": [x1, n1],
            "diff_ci95": list(v.diff_ci95), "p_value": v.p_value}


def _sample(st: AgentState, currency: str) -> Sample | None:
    """The runs that recorded a cost in `currency`, or None when the spread is unknown (a state
    written before sums of squares were kept) or none did."""
    entry = st.costs.by_currency.get(currency)
    if entry is None or entry.squares is None or not entry.runs:
        return None
    return Sample(entry.runs, entry.total, entry.squares)


def _side_cost(sample: Sample | None) -> dict[str, Any] | None:
    if sample is None:
        return None
    sd = math.sqrt(sample.variance) if sample.n > 1 else None
    return {"runs": sample.n, "mean": sample.mean, "sd": sd}


def _cost(before: AgentState, after: AgentState, settings: Settings) -> dict[str, Any] | None:
    """Cost per run that recorded one, per currency, compared like the pass rate the other way
    round: a rise beyond `tolerance` × the baseline mean must be ruled out to pass
    (docs/compare.md#cost-per-run). A currency on one side only, or of unknown spread, is
    undecided; the agent's cost verdict is the worst of its currencies."""
    currencies = sorted({*before.costs.by_currency, *after.costs.by_currency})
    if not currencies:
        return None
    out: dict[str, Any] = {}
    for currency in currencies:
        b, c = _sample(before, currency), _sample(after, currency)
        if b is None or c is None:
            missing = before if b is None else after
            reason = ("spread_unknown" if currency in missing.costs.by_currency
                      else "no_baseline_cost" if b is None else "no_current_cost")
            out[currency] = {"verdict": INCONCLUSIVE, "reason": reason, "flags": [],
                             "baseline": _side_cost(b), "current": _side_cost(c),
                             "rise_ci95": None, "p_value": None}
            continue
        v = mean_rise_verdict(b, c, tolerance=settings.tolerance, alpha=settings.alpha)
        out[currency] = {"verdict": v.verdict, "reason": v.reason, "flags": list(v.flags),
                         "baseline": _side_cost(b), "current": _side_cost(c),
                         "rise_ci95": list(v.rise_ci95) if v.rise_ci95 else None,
                         "p_value": v.p_value}
    return {"verdict": overall(e["verdict"] for e in out.values()), "currencies": out}


def _agent(name: str, baseline: Side, current: Side, p_adjusted: float | None,
           settings: Settings, holm_factor: int = 1) -> dict[str, Any]:
    b_st, b_rep = baseline.agent(name)
    c_st, c_rep = current.agent(name)
    (x0, n0), (x1, n1) = _counts(b_rep), _counts(c_rep)
    flags: list[str] = []
    pass_rate: dict[str, Any] = {
        "baseline": _rate(b_rep), "current": _rate(c_rep),
        "diff_ci95": None, "p_value": None, "p_value_holm": None, "cohens_h": None,
    }
    runs_needed: int | None = None
    runs_to_fail: int | None = None
    if n0 and n1:
        v = pass_rate_verdict(
            x0, n0, x1, n1, p_adjusted, tolerance=settings.tolerance, alpha=settings.alpha,
            holm_factor=holm_factor,
        )
        verdict, runs_needed, runs_to_fail = v.verdict, v.runs_needed, v.runs_to_fail
        flags += v.flags
        pass_rate.update(diff_ci95=list(v.diff_ci95), p_value=v.p_value,
                         p_value_holm=v.p_value_adjusted, cohens_h=v.cohens_h)
    else:  # nothing to compare on one side: undecided, never a pass
        verdict = INCONCLUSIVE
        flags.append("no_baseline_runs" if not n0 else "no_current_runs")
    hard = hard_regressions(b_st, c_st)
    if hard:
        verdict = FAIL
        flags.append("hard_regression")
    contracts = _rate_check(_unfailed(b_st), _unfailed(c_st), settings)
    if contracts is not None and contracts["verdict"] == FAIL:
        flags.append("contract_regression")
    narrative = _rate_check(_consistent(b_st), _consistent(c_st), settings)
    if narrative is not None and narrative["verdict"] == FAIL:
        flags.append("narrative_regression")
    recovery = _rate_check(_recovered(b_st), _recovered(c_st), settings)
    if recovery is not None and recovery["verdict"] == FAIL:
        flags.append("recovery_regression")
    drift = tool_drift(_tool_calls(b_st), _tool_calls(c_st), settings.alpha)
    if drift.drift:
        flags.append("drift")
    cost = _cost(b_st, c_st, settings)
    if cost is not None and cost["verdict"] == FAIL:
        flags.append("cost_regression")
    lost, new = set_changes(b_st, c_st, settings.min_count)
    return {
        "verdict": verdict,
        "flags": sorted(flags),
        "pass_rate": pass_rate,
        "runs_needed": runs_needed,
        "runs_to_fail": runs_to_fail,
        "hard_regressions": hard,
        "lost": lost,
        "new": new,
        "coverage": _coverage(b_rep, c_rep),
        "contracts": contracts,
        "narrative": narrative,
        "recovery": recovery,
        "cost": cost,
        "drift": {"p_value": drift.p_value, "cramers_v": drift.cramers_v, "drift": drift.drift,
                  "categories": drift.categories},
    }


def compare(baseline: Side, current: Side, settings: Settings | None = None) -> dict[str, Any]:
    """The comparison report: an overall verdict and one entry per agent seen on either side.

    Fisher p-values are Holm-adjusted across the agents that have runs on both sides, so
    comparing many agents does not multiply the chance of a false FAIL.
    """
    settings = settings or Settings()
    names = sorted({*baseline.report["agents"], *current.report["agents"]})
    raw: dict[str, float] = {}
    for name in names:
        (x0, n0), (x1, n1) = _counts(baseline.agent(name)[1]), _counts(current.agent(name)[1])
        if n0 and n1:
            raw[name] = fisher_drop_p(x0, n0, x1, n1)
    adjusted, factors = holm(raw), holm_factors(raw)
    agents = {name: _agent(name, baseline, current, adjusted.get(name), settings,
                           factors.get(name, 1))
              for name in names}
    return {
        "verdict": overall(a["verdict"] for a in agents.values()),
        # a version compared with itself: the report says so rather than look like evidence
        "same_data": baseline.state.to_dict() == current.state.to_dict(),
        "tolerance": settings.tolerance,
        "alpha": settings.alpha,
        "min_count": settings.min_count,
        "agents": agents,
    }
