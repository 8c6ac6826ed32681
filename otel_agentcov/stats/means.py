"""A rise in a per-run mean (cost per run), judged like a pass-rate drop (docs/compare.md).

Welch's t interval and one-sided test from each side's count, sum and sum of squares: the state
keeps no run's own value. scipy's t distribution is imported when a test first runs.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from .verdicts import FAIL, INCONCLUSIVE, PASS


@dataclass(frozen=True)
class Sample:
    """n values by their sum and sum of squares."""

    n: int
    total: float
    squares: float

    @property
    def mean(self) -> float:
        return self.total / self.n

    @property
    def variance(self) -> float:
        """The sample variance (n - 1), never below 0 (rounding of sum - n·mean²)."""
        return max(self.squares - self.n * self.mean**2, 0.0) / (self.n - 1)


@dataclass(frozen=True)
class RiseVerdict:
    verdict: str
    rise_ci95: tuple[float, float] | None  # current mean − baseline mean
    p_value: float | None  # one-sided Welch p for "current is higher"
    reason: str | None  # why no test ran (INCONCLUSIVE)
    flags: tuple[str, ...] = ()


def mean_rise_verdict(baseline: Sample, current: Sample, *, tolerance: float, alpha: float
                      ) -> RiseVerdict:
    """PASS when the 95 % Welch interval rules out a rise of `tolerance` × the baseline mean
    (flagged `costlier`/`cheaper` when it also excludes 0); else FAIL when the one-sided Welch p
    is below α; else INCONCLUSIVE. Fewer than 2 values a side, or no spread on either side
    (the interval would be a point), decide nothing."""
    if baseline.n < 2 or current.n < 2:
        return RiseVerdict(INCONCLUSIVE, None, None, "fewer_than_2_runs")
    a, b = baseline.variance / baseline.n, current.variance / current.n
    se = math.sqrt(a + b)
    if se == 0.0:
        return RiseVerdict(INCONCLUSIVE, None, None, "no_spread")
    from scipy.stats import t

    df = (a + b) ** 2 / (a * a / (baseline.n - 1) + b * b / (current.n - 1))
    rise = current.mean - baseline.mean
    half = float(t.ppf(0.975, df)) * se
    lower, upper = rise - half, rise + half
    p_value = float(t.sf(rise / se, df))
    if upper < tolerance * baseline.mean:
        flags = ("costlier",) if lower > 0 else ("cheaper",) if upper < 0 else ()
        return RiseVerdict(PASS, (lower, upper), p_value, None, flags)
    verdict = FAIL if p_value < alpha else INCONCLUSIVE
    return RiseVerdict(verdict, (lower, upper), p_value, None)
