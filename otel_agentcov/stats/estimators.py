"""The estimators of docs/semantics.md, as pure functions, so each formula is tested against
hand values."""

from __future__ import annotations

import math
import re
from bisect import bisect_right
from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from functools import lru_cache
from itertools import accumulate, combinations, repeat
from operator import truediv
from typing import Any

Z95 = 1.959963984540054


def frequency_counts(counts: Iterable[int]) -> tuple[int, int, int, int]:
    """(S_obs, f1, f2, n): distinct items, seen once, seen twice, total observations."""
    s_obs = f1 = f2 = n = 0
    for c in counts:
        if c <= 0:
            continue
        s_obs += 1
        n += c
        if c == 1:
            f1 += 1
        elif c == 2:
            f2 += 1
    return s_obs, f1, f2, n


def chao1(s_obs: int, f1: int, f2: int) -> float:
    """Bias-corrected Chao1 richness estimate: S_obs + f1(f1-1) / (2(f2+1))."""
    return s_obs + f1 * (f1 - 1) / (2 * (f2 + 1))


def good_turing(f1: int, n: int) -> float | None:
    """Sample coverage 1 - f1/n: the chance the next observation is an already-seen item."""
    return None if n == 0 else 1.0 - f1 / n


def wilson(successes: int, n: int, z: float = Z95) -> tuple[float, float] | None:
    """Wilson score interval; well-behaved at 0 and n, unlike the normal approximation."""
    if n <= 0:
        return None
    return wilson_interval_at(successes / n, n, z)


def extrapolated_coverage(f1: int, f2: int, n: int, m: int) -> float:
    """Chao–Jost sample coverage after m more observations:
    1 − (f1/n)·[(n−1)f1 / ((n−1)f1 + 2f2)]^(m+1); with f2 = 0 the bias-corrected ratio
    (n−1)(f1−1) / ((n−1)(f1−1) + 2) (Chao & Jost 2012), which stays below 1."""
    if n == 0 or f1 == 0:
        return 1.0 if n else 0.0
    if f2 > 0:
        ratio = (n - 1) * f1 / ((n - 1) * f1 + 2 * f2)
    else:
        ratio = (n - 1) * (f1 - 1) / ((n - 1) * (f1 - 1) + 2)
    return 1.0 - (f1 / n) * ratio ** (m + 1)


def runs_for_coverage(f1: int, f2: int, n: int, target: float = 0.95) -> int | None:
    """Fewest further observations m with extrapolated coverage ≥ target (None without data)."""
    if n == 0:
        return None
    if extrapolated_coverage(f1, f2, n, 0) >= target:
        return 0
    low, high = 0, 1
    while extrapolated_coverage(f1, f2, n, high) < target:
        low, high = high, high * 2
    while high - low > 1:  # coverage grows with m: bisect for the first m that reaches target
        mid = (low + high) // 2
        low, high = (mid, high) if extrapolated_coverage(f1, f2, n, mid) < target else (low, mid)
    return high


def runs_for_interval(passed: int, n: int, half_width: float = 0.05) -> int:
    """Further runs until the Wilson interval is ±half_width at the observed pass rate (0.5
    when there are no runs yet, the widest case)."""
    p = passed / n if n else 0.5

    def narrow(total: int) -> bool:
        lo, hi = wilson_interval_at(p, total)
        return (hi - lo) / 2 <= half_width

    total = smallest_total(narrow, max(n, 1))
    assert total is not None  # the half width shrinks to 0: some total is narrow enough
    return max(total - n, 0)


def runs_to_settle(passed: int, n: int, target: float, limit: int = 10**7) -> int | None:
    """Total runs after which, if the observed pass rate held, the Wilson interval would leave
    `target` (lower bound at or above it, or upper bound below it): what an INCONCLUSIVE
    verdict needs. None at a rate equal to the target, or past `limit` runs."""
    p = passed / n if n else 0.5
    if p == target:
        return None

    def settles(total: int) -> bool:
        lo, hi = wilson_interval_at(p, total)
        return lo >= target or hi < target

    return smallest_total(settles, max(n, 1), limit)


def smallest_total(holds: Callable[[int], bool], start: int, limit: int | None = None
                   ) -> int | None:
    """The smallest total >= 1 for which `holds` (monotone: once true, true for every larger
    total), searched by doubling from `start` then bisecting; None past `limit`."""
    low, high = 0, start
    while not holds(high):
        if limit is not None and high > limit:
            return None
        low, high = high, high * 2
    while high - low > 1:
        mid = (low + high) // 2
        low, high = (low, mid) if holds(mid) else (mid, high)
    return high


def wilson_interval_at(p: float, n: int, z: float = Z95) -> tuple[float, float]:
    """The Wilson interval for an observed proportion p over n trials (p need not be k/n)."""
    z2 = z * z
    denom = 1.0 + z2 / n
    centre = (p + z2 / (2 * n)) / denom
    spread = z * math.sqrt(p * (1 - p) / n + z2 / (4 * n * n)) / denom
    # exact at the ends (rounding would put 400/400's upper bound a hair below 1)
    lower = 0.0 if p <= 0.0 else max(0.0, centre - spread)
    upper = 1.0 if p >= 1.0 else min(1.0, centre + spread)
    return lower, upper


def geometric_mean(values: Sequence[float]) -> float | None:
    """Geometric mean; 0 if any value is 0 (one unexercised dimension sinks the score)."""
    if not values:
        return None
    if any(v <= 0.0 for v in values):
        return 0.0
    return math.exp(sum(math.log(v) for v in values) / len(values))


def jaccard(a: frozenset[str], b: frozenset[str]) -> float:
    """Jaccard similarity; two empty sets are identical behaviour."""
    union = len(a | b)
    return 1.0 if union == 0 else len(a & b) / union


def mean_pairwise_jaccard(sets: Sequence[Iterable[str]]) -> float | None:
    """Behaviour consistency: mean Jaccard over all pairs; needs two runs to mean anything.

    A window of 100 runs is 4 950 pairs, so each set is a bit mask (a bit per name) and a
    pair two integer operations; the terms are `jaccard`'s, in the same order."""
    if len(sets) < 2:
        return None
    bits: dict[str, int] = {}
    masks = []
    for names in sets:
        mask = 0
        for name in names:
            bit = bits.get(name)
            if bit is None:
                bit = bits[name] = 1 << len(bits)
            mask |= bit
        masks.append(mask)
    # the terms summed by sum(), as before: its float rounding differs across Python versions
    terms = [1.0 if (union := (a | b).bit_count()) == 0 else (a & b).bit_count() / union
             for a, b in combinations(masks, 2)]
    return sum(terms) / len(terms)


_BUCKET_KEY = re.compile(r"-?[0-9]{1,6}")


class LogHistogram:
    """Mergeable quantile sketch with 1 % relative error (DDSketch-style log buckets).

    Exact count/sum/min/max; bounded memory; merging is a sum of bucket counts, so it is
    associative and commutative like the rest of CoverageState. The sum is kept exactly (a
    whole number of 2**-1074, the smallest float step), so it does not depend on the order
    values arrive in: states merged from several processes (`--jobs`) report the same mean.
    """

    __slots__ = ("buckets", "count", "_sum", "zeros", "low", "high")
    GAMMA = 1.02
    _LOG_GAMMA = math.log(GAMMA)
    _SCALE = 1074  # every finite float is a whole multiple of 2**-1074

    def __init__(self) -> None:
        self.buckets: dict[int, int] = {}
        self.count = 0
        self._sum = 0  # in units of 2**-1074
        self.zeros = 0
        # exact extremes of the positive values (None: none seen); quantiles are clamped to
        # them, so one run's p95 is its value, never the midpoint of a bucket below it
        self.low: float | None = None
        self.high: float | None = None

    @classmethod
    def _units(cls, value: float) -> int:
        num, den = value.as_integer_ratio()  # den is a power of two
        return num << (cls._SCALE - den.bit_length() + 1)

    @property
    def total(self) -> float:
        """The exact sum, rounded once (int / int division is correctly rounded)."""
        try:
            return self._sum / (1 << self._SCALE)
        except OverflowError:  # past the largest float, as float addition would have gone
            return math.inf

    def add(self, value: float) -> None:
        """One value (a run the engine folds): zero unless positive and finite, else its
        exact units, its bucket (`ceil(log(value) / log(GAMMA))`) and the extremes. Apart from
        `add_all`, whose loops cost more than they save on one value (a run's fold)."""
        self.count += 1
        if not 0.0 < value < math.inf:  # not NaN either
            self.zeros += 1
            return
        self._sum += self._units(value)
        key = math.ceil(math.log(value) / self._LOG_GAMMA)
        self.buckets[key] = self.buckets.get(key, 0) + 1
        self.low = _pick(min, self.low, value)
        self.high = _pick(max, self.high, value)

    def add_all(self, values: Iterable[float]) -> None:
        """`add` each value in turn (a trial file's runs at once) with C loops (`map`, `sum`,
        `Counter`, `min`, `max`), not a Python step per value: 20 k trials' durations took
        ~12 ms so, ~6 now. The same sum, buckets (new keys in first-seen order) and extremes as
        one `add` after another (tests/test_stats.py)."""
        values = values if isinstance(values, list) else list(values)
        positive = [value for value in values if 0.0 < value < math.inf]  # not NaN either
        self.count += len(values)
        self.zeros += len(values) - len(positive)
        if not positive:
            return
        low, high = min(positive), max(positive)
        self._sum += self._units_of(positive, low, high)
        buckets = self.buckets
        keys = map(math.ceil, map(truediv, map(math.log, positive), repeat(self._LOG_GAMMA)))
        for key, n in Counter(keys).items():
            buckets[key] = buckets.get(key, 0) + n
        self.low = _pick(min, self.low, low)
        self.high = _pick(max, self.high, high)

    @classmethod
    def _units_of(cls, positive: list[float], low: float, high: float) -> int:
        """The exact sum of `positive` (from `low` to `high`) in units of 2**-1074. Scaled by
        2**k, the least of them has no fraction left, nor then has any larger one: each is a
        whole float `int` converts exactly, and the sum of those small ints, shifted, is the
        units' (unless 2**k puts the largest past the floats: then value by value)."""
        k = min(53 - math.frexp(low)[1], cls._SCALE)
        if math.frexp(high)[1] + k > 1024:
            return sum(map(cls._units, positive))
        return sum(map(int, map(math.ldexp, positive, repeat(k)))) << (cls._SCALE - k)

    def merge(self, other: LogHistogram) -> None:
        self.count += other.count
        self._sum += other._sum
        self.zeros += other.zeros
        for k, c in other.buckets.items():
            self.buckets[k] = self.buckets.get(k, 0) + c
        self.low = _pick(min, self.low, other.low)
        self.high = _pick(max, self.high, other.high)

    def mean(self) -> float | None:
        return None if self.count == 0 else self.total / self.count

    def quantile(self, q: float) -> float | None:
        """Nearest-rank quantile, reported as the bucket's midpoint."""
        if self.count == 0:
            return None
        rank = max(1, math.ceil(q * self.count))
        if rank <= self.zeros:
            return 0.0
        seen = self.zeros
        for key in sorted(self.buckets):
            seen += self.buckets[key]
            if seen >= rank:
                estimate = 2.0 * self.GAMMA**key / (self.GAMMA + 1.0)
                if self.low is not None and self.high is not None:
                    estimate = min(max(estimate, self.low), self.high)
                return estimate
        return None  # unreachable: counts add up

    def cumulative(self, bounds: Sequence[float]) -> list[int]:
        """Counts <= each bound (Prometheus `le` buckets), exact to the sketch's 1 % resolution."""
        keys = sorted(self.buckets)
        below = list(accumulate((self.buckets[k] for k in keys), initial=0))  # below[i]: keys[:i]
        zeros = self.zeros
        return [zeros if limit is None else zeros + below[bisect_right(keys, limit)]
                for limit in _last_keys(tuple(bounds))]

    def to_dict(self) -> dict[str, Any]:
        return {
            "count": self.count,
            "sum": self.total,
            "zeros": self.zeros,
            "buckets": {str(k): v for k, v in sorted(self.buckets.items())},
            "min": self.low,
            "max": self.high,
        }

    # keys of positive finite doubles: log(5e-324) / log(1.02) > -37_600; log(1.8e308) < 35_900
    MIN_KEY, MAX_KEY = -37_600, 35_900

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> LogHistogram:
        """Strict: a state file is input; ValueError unless the sketch is one `add` could make
        (bucket keys of finite values, counts that add up), so no quantile can overflow."""
        h = cls()
        count, total, zeros, buckets = (data[k] for k in ("count", "sum", "zeros", "buckets"))
        if type(count) is not int or type(zeros) is not int or not 0 <= zeros <= count:
            raise ValueError(f"histogram count {str(count)[:20]} / zeros {str(zeros)[:20]}")
        if type(total) not in (int, float) or not 0.0 <= total < math.inf:
            raise ValueError(f"histogram sum {str(total)[:20]!r}")
        if type(buckets) is not dict:
            raise ValueError("histogram buckets: expected an object")
        for key, n in buckets.items():
            k = int(key) if _BUCKET_KEY.fullmatch(key) else None
            if k is None or not cls.MIN_KEY <= k <= cls.MAX_KEY or type(n) is not int or n < 1:
                raise ValueError(f"histogram bucket {str(key)[:20]!r}: {str(n)[:20]!r}")
            h.buckets[k] = n
        if zeros + sum(h.buckets.values()) != count:
            raise ValueError(f"histogram buckets add up to {zeros + sum(h.buckets.values())}, "
                             f"count is {count}")
        h.count, h._sum, h.zeros = count, h._units(float(total)), zeros
        if h.buckets:  # extremes: exact when written, else the outermost bucket bounds
            h.low = _extreme(data.get("min"), cls.GAMMA ** (min(h.buckets) - 1))
            h.high = _extreme(data.get("max"), cls.GAMMA ** max(h.buckets))
        return h


def _extreme(value: Any, fallback: float) -> float:
    """A stored min/max: a positive finite number (ValueError otherwise), or the fallback."""
    if value is None:
        return fallback
    if type(value) not in (int, float) or not 0.0 < value < math.inf:
        raise ValueError(f"histogram extreme {str(value)[:20]!r}")
    return float(value)


@lru_cache(maxsize=16)
def _last_keys(bounds: tuple[float, ...]) -> tuple[int | None, ...]:
    """Each bound's last bucket key (None: a bound not above 0 holds the zeros alone), worked
    out once per bounds: a scrape asks every agent's duration histogram for the same ones."""
    return tuple(math.floor(math.log(bound) / LogHistogram._LOG_GAMMA + 1e-9) if bound > 0.0
                 else None for bound in bounds)


def _pick(
    choose: Callable[[float, float], float], a: float | None, b: float | None
) -> float | None:
    """min or max of whichever values are known."""
    if a is None or b is None:
        return a if b is None else b
    return choose(a, b)
