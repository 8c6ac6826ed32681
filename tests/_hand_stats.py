"""Statistics by hand, for tests: the closed formulas and exact enumeration, written
independently of otel_agentcov (no code shared with the implementation under test)."""

from __future__ import annotations

import math
from fractions import Fraction

Z = 1.959963984540054


def wilson_hand(x: int, n: int) -> tuple[float, float]:
    p = x / n
    centre = (p + Z * Z / (2 * n)) / (1 + Z * Z / n)
    half = Z / (1 + Z * Z / n) * math.sqrt(p * (1 - p) / n + Z * Z / (4 * n * n))
    return max(0.0, centre - half), min(1.0, centre + half)


def newcombe_hand(x0: int, n0: int, x1: int, n1: int) -> tuple[float, float]:
    """Newcombe's method 10: d = p0 - p1 with the two Wilson intervals' half-widths."""
    p0, p1 = x0 / n0, x1 / n1
    (l0, u0), (l1, u1) = wilson_hand(x0, n0), wilson_hand(x1, n1)
    d = p0 - p1
    return (d - math.sqrt((p0 - l0) ** 2 + (u1 - p1) ** 2),
            d + math.sqrt((u0 - p0) ** 2 + (p1 - l1) ** 2))


def fisher_hand(x0: int, n0: int, x1: int, n1: int) -> float:
    """P(baseline passes >= x0 | both margins): the hypergeometric tail, enumerated exactly."""
    s, n = x0 + x1, n0 + n1
    total = math.comb(n, s)
    tail = sum(
        Fraction(math.comb(n0, k) * math.comb(n1, s - k), total)
        for k in range(x0, min(n0, s) + 1) if 0 <= s - k <= n1
    )
    return float(tail)
