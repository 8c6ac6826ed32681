"""Costs: `gen_ai.usage.cost.amount` summed per currency, one agent's (docs/semantics.md#cost).

Currencies come from telemetry, so they are capped (MAX_CURRENCIES, then __overflow__, counted):
a label of the cost metric stays bounded whatever a producer writes. Each currency also keeps
the sum of its runs' squared costs, so `agentcov compare` can test the cost per run
(docs/compare.md#cost-per-run) without keeping any run's cost.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from . import fields as f
from .caps import OVERFLOW, Caps
from .facts import RunFacts

MAX_CURRENCIES = 16


@dataclass
class CurrencyCost:
    """One currency's runs: their total, how many recorded a cost in it, and the sum of each
    such run's squared cost (None in a state written before it was kept: spread unknown)."""

    total: float = 0.0
    runs: int = 0
    squares: float | None = 0.0

    def add(self, total: float, runs: int, squares: float | None) -> None:
        self.total += total
        self.runs += runs
        self.squares = None if self.squares is None or squares is None else (
            self.squares + squares)


@dataclass
class Costs:
    by_currency: dict[str, CurrencyCost] = field(default_factory=dict)

    def _add(self, currency: str, total: float, runs: int, squares: float | None,
             caps: Caps) -> None:
        key = caps.key(self.by_currency, currency, MAX_CURRENCIES, "currency", OVERFLOW, runs)
        self.by_currency.setdefault(key, CurrencyCost()).add(total, runs, squares)

    def add(self, facts: RunFacts, caps: Caps) -> None:
        for currency, total in facts.costs.items():
            self._add(currency, total, 1, total * total, caps)

    def merge(self, other: Costs, caps: Caps) -> None:
        for currency, entry in other.by_currency.items():
            self._add(currency, entry.total, entry.runs, entry.squares, caps)

    def to_dict(self) -> dict[str, Any]:
        """Absent while empty: state files of runs without costs stay as they were."""
        if not self.by_currency:
            return {}
        return {"costs": {c: [e.total, e.runs, e.squares]
                          for c, e in sorted(self.by_currency.items())}}

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> Costs:
        """Entries are [total, runs, squares]; an older [total, runs] has no known spread."""
        by_currency: dict[str, CurrencyCost] = {}
        for currency, entry in f.table(d.get("costs", {}), "costs").items():
            what = f"costs.{currency}"
            values = f.items(entry, what)
            if len(values) not in (2, 3):
                raise ValueError(f"{what}: expected a list of 2 or 3, got {str(entry)[:40]!r}")
            squares = values[2] if len(values) == 3 else None
            by_currency[currency] = CurrencyCost(
                f.number(values[0], what), f.count(values[1], what),
                None if squares is None else f.number(squares, what))
        return cls(by_currency)
