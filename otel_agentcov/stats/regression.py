"""The statistics of a regression verdict (docs/compare.md), as pure functions of counts.

Shared by `agentcov compare` and the per-version verdicts of live traffic, so both decide alike.
Fisher's exact test and the χ² test of homogeneity come from scipy.stats (exact, well tested),
imported (with numpy) when a test first runs, so other commands do not pay for loading them;
the interval arithmetic is short enough to read here.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass

from .estimators import smallest_total, wilson_interval_at
from .verdicts import FAIL, INCONCLUSIVE, PASS

ALPHA = 0.05
TOLERANCE = 0.05
MIN_EXPECTED = 5.0  # χ² needs every expected count >= 5; sparser categories are pooled
DRIFT_MIN_V = 0.1  # below this Cramér's V the shift is too small to call drift
POOLED = "(pooled)"
_MAX_PLANNED_RUNS = 10_000_000


def newcombe(x0: int, n0: int, x1: int, n1: int) -> tuple[float, float]:
    """95 % Newcombe (hybrid Wilson score) interval for d = p0 - p1 (positive is a drop).

    Both sides need runs (n > 0); the caller decides what a missing side means.
    """
    return _newcombe_at(x0 / n0, n0, x1 / n1, n1)


def _newcombe_at(p0: float, n0: int, p1: float, n1: int) -> tuple[float, float]:
    """The interval for observed rates over n runs (rates need not be k/n: planning)."""
    (l0, u0), (l1, u1) = wilson_interval_at(p0, n0), wilson_interval_at(p1, n1)
    d = p0 - p1
    return d - math.hypot(p0 - l0, u1 - p1), d + math.hypot(u0 - p0, p1 - l1)


def fisher_drop_p(x0: int, n0: int, x1: int, n1: int) -> float:
    """One-sided Fisher exact p for "current passes less often than baseline" (p1 < p0)."""
    import numpy as np
    from scipy.stats import fisher_exact

    table = np.array([[x0, n0 - x0], [x1, n1 - x1]])
    return float(fisher_exact(table, alternative="greater").pvalue)


def holm_factors(p_values: Mapping[str, float]) -> dict[str, int]:
    """Each name's Holm step multiplier (m for the smallest p, m - 1 for the next, ...): what its
    own p-value is multiplied by before the running maximum."""
    ordered = sorted(p_values.items(), key=lambda kv: (kv[1], kv[0]))
    return {name: len(ordered) - i for i, (name, _) in enumerate(ordered)}


def holm(p_values: Mapping[str, float]) -> dict[str, float]:
    """Holm step-down adjusted p-values: reject where adjusted < α keeps the family-wise error
    at α across every agent compared, without Bonferroni's loss of power."""
    ordered = sorted(p_values.items(), key=lambda kv: (kv[1], kv[0]))
    m = len(ordered)
    adjusted: dict[str, float] = {}
    running = 0.0
    for i, (name, p) in enumerate(ordered):
        running = max(running, min(1.0, (m - i) * p))
        adjusted[name] = running
    return adjusted


def cohens_h(p0: float, p1: float) -> float:
    """Cohen's h, signed like d: positive when the current pass rate is lower."""
    return 2.0 * math.asin(math.sqrt(p0)) - 2.0 * math.asin(math.sqrt(p1))


def _smallest(settles: Callable[[int], bool]) -> int | None:
    """The smallest run count per side for which `settles` holds (it holds for every larger
    one, as the observed rates' evidence grows with n); None past any practical plan."""
    return smallest_total(settles, 2, _MAX_PLANNED_RUNS)


def runs_needed(p0: float, p1: float, tolerance: float) -> int | None:
    """Runs per side after which, if the observed rates held, the Newcombe upper bound for d
    would fall below the tolerance (a PASS); None when the observed drop itself is not below it."""
    if p0 - p1 >= tolerance:
        return None
    return _smallest(lambda n: _newcombe_at(p0, n, p1, n)[1] < tolerance)


def runs_to_fail(p0: float, p1: float, alpha: float, holm_factor: int = 1) -> int | None:
    """Runs per side after which, if the observed rates held, the one-sided Fisher p (times the
    agent's Holm multiplier) would fall below α (a FAIL); None when no drop was observed."""
    if p0 <= p1:
        return None

    def fails(n: int) -> bool:
        x0, x1 = round(p0 * n), round(p1 * n)
        return x0 > x1 and holm_factor * fisher_drop_p(x0, n, x1, n) < alpha

    return _smallest(fails)


@dataclass(frozen=True)
class PassRateVerdict:
    """The §3c verdict on two pass rates and the numbers behind it."""

    verdict: str
    diff_ci95: tuple[float, float]
    p_value: float
    p_value_adjusted: float
    cohens_h: float
    runs_needed: int | None
    flags: tuple[str, ...]
    runs_to_fail: int | None = None


def pass_rate_verdict(
    x0: int, n0: int, x1: int, n1: int, p_adjusted: float | None = None, *,
    tolerance: float = TOLERANCE, alpha: float = ALPHA, holm_factor: int = 1,
) -> PassRateVerdict:
    """PASS when the interval rules out a drop of `tolerance` (flagged `degraded`/`improved`
    when it also excludes 0); else FAIL when the Fisher p (Holm-adjusted by the caller when
    several agents are compared) is below α; else INCONCLUSIVE with the runs per side that
    would settle it either way (`runs_needed` toward a PASS, `runs_to_fail` toward a FAIL at
    the agent's Holm multiplier), if the observed rates held. Never post-hoc power. Both sides
    need runs."""
    p_value = fisher_drop_p(x0, n0, x1, n1)
    p_adjusted = p_value if p_adjusted is None else p_adjusted
    lower, upper = newcombe(x0, n0, x1, n1)
    p0, p1 = x0 / n0, x1 / n1
    flags: tuple[str, ...] = ()
    needed: int | None = None
    to_fail: int | None = None
    if upper < tolerance:
        verdict = PASS
        flags = ("degraded",) if lower > 0 else ("improved",) if upper < 0 else ()
    elif p_adjusted < alpha:
        verdict = FAIL
    else:
        verdict = INCONCLUSIVE
        needed = runs_needed(p0, p1, tolerance)
        to_fail = runs_to_fail(p0, p1, alpha, holm_factor)
    return PassRateVerdict(
        verdict, (lower, upper), p_value, p_adjusted, cohens_h(p0, p1),
        needed, flags, to_fail,
    )


def pool_sparse(
    baseline: Mapping[str, int], current: Mapping[str, int], min_expected: float = MIN_EXPECTED
) -> dict[str, tuple[int, int]]:
    """Columns (category -> (baseline, current)) with every expected count >= `min_expected`:
    sparse categories are pooled into one, and a pool still too sparse joins the smallest rest."""
    columns = {
        k: (baseline.get(k, 0), current.get(k, 0)) for k in sorted({*baseline, *current})
    }
    r0, r1 = sum(b for b, _ in columns.values()), sum(c for _, c in columns.values())
    total = r0 + r1
    if total == 0:
        return {}

    def expected(col: tuple[int, int]) -> float:
        return sum(col) * min(r0, r1) / total

    pooled = {k: v for k, v in columns.items() if expected(v) >= min_expected}
    sparse = [v for k, v in columns.items() if k not in pooled]
    if sparse:
        pool = (sum(b for b, _ in sparse), sum(c for _, c in sparse))
        while expected(pool) < min_expected and pooled:
            smallest = min(pooled, key=lambda k: (sum(pooled[k]), k))
            b, c = pooled.pop(smallest)
            pool = (pool[0] + b, pool[1] + c)
        pooled[POOLED] = pool
    return pooled


@dataclass(frozen=True)
class Drift:
    """χ² homogeneity of per-tool call counts; None values when there is too little to test."""

    p_value: float | None
    cramers_v: float | None
    drift: bool
    categories: int


def tool_drift(
    baseline: Mapping[str, int], current: Mapping[str, int], alpha: float = ALPHA
) -> Drift:
    """DRIFT when p < α and Cramér's V >= 0.1 (significant and not negligible)."""
    columns = pool_sparse(baseline, current)
    table = [[b for b, _ in columns.values()], [c for _, c in columns.values()]]
    if len(columns) < 2 or 0 in (sum(table[0]), sum(table[1])):
        return Drift(None, None, False, len(columns))
    import numpy as np
    from scipy.stats import chi2_contingency

    result = chi2_contingency(np.array(table), correction=False)
    n = sum(table[0]) + sum(table[1])
    v = math.sqrt(float(result.statistic) / n)  # min(rows, cols) - 1 = 1 with two rows
    p = float(result.pvalue)
    return Drift(p, v, p < alpha and v >= DRIFT_MIN_V, len(columns))
