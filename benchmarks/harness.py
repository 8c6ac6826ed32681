"""Shared shapes for `benchmarks/run.py`: a section returns Rows, the runner prints and saves them.

Values are per-round samples; the table shows their median and min/max (machines here are noisy,
so targets compare ratios or medians measured in the same run, never absolute timings in tests).
"""

from __future__ import annotations

import statistics
from collections.abc import Callable, Sequence
from dataclasses import dataclass


@dataclass
class Row:
    """One measured quantity: samples over rounds, its unit, and an optional target."""

    name: str
    samples: Sequence[float]
    unit: str
    target: str = ""
    met: Callable[[float], bool] | None = None  # applied to the median

    @property
    def median(self) -> float:
        return statistics.median(self.samples)

    @property
    def status(self) -> str:
        if self.met is None:
            return ""
        return "met" if self.met(self.median) else "NOT MET"


@dataclass
class Section:
    title: str
    rows: list[Row]
    notes: list[str]


def fmt(value: float) -> str:
    if value == 0:
        return "0"
    if abs(value) >= 100:
        return f"{value:,.0f}"
    if abs(value) >= 10:
        return f"{value:.1f}"
    return f"{value:.2f}"
