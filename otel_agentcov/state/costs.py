"""Costs: `gen_ai.usage.cost.amount` summed per currency, one agent's (docs/semantics.md#cost).

Currencies come from telemetry, so they are capped (MAX_CURRENCIES, then __overflow__, counted):
a label of the cost metric stays bounded whatever a producer writes.
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
class Costs:
    by_currency: dict[str, list[float]] = field(default_factory=dict)  # -> [total, runs]

    def _add(self, currency: str, total: float, runs: int, caps: Caps) -> None:
        key = caps.key(self.by_currency, currency, MAX_CURRENCIES, "currency", OVERFLOW, runs)
        entry = self.by_currency.setdefault(key, [0.0, 0])
        entry[0] += total
        entry[1] += runs

    def add(self, facts: RunFacts, caps: Caps) -> None:
        for currency, total in facts.costs.items():
            self._add(currency, total, 1, caps)

    def merge(self, other: Costs, caps: Caps) -> None:
        for currency, (total, runs) in other.by_currency.items():
            self._add(currency, total, int(runs), caps)

    def to_dict(self) -> dict[str, Any]:
        """Absent while empty: state files of runs without costs stay as they were."""
        if not self.by_currency:
            return {}
        return {"costs": {c: [t, int(n)] for c, (t, n) in sorted(self.by_currency.items())}}

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> Costs:
        by_currency: dict[str, list[float]] = {}
        for currency, entry in f.table(d.get("costs", {}), "costs").items():
            total, runs = f.items(entry, f"costs.{currency}", 2)
            by_currency[currency] = [f.number(total, f"costs.{currency}"),
                                     f.count(runs, f"costs.{currency}")]
        return cls(by_currency)
