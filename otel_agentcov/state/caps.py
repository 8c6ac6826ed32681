"""Caps that keep every record's tables bounded whatever the input; each fold is counted.

Records share one `Caps` per CoverageState so every fold lands in the same overflow counter.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, TypeVar

OVERFLOW = "__overflow__"
OVERFLOW_EDGE = (OVERFLOW, OVERFLOW)
K = TypeVar("K")


@dataclass
class Limits:
    """Caps that keep memory bounded whatever the input; folds are counted."""

    max_agents: int = 1000
    max_tools: int = 1000
    max_models: int = 200
    max_paths: int = 100_000
    max_states: int = 100_000
    max_path_samples: int = 1000
    max_versions: int = 5  # per agent: the newest versions kept for version verdicts
    # agent x test tallies, all agents together (docs/semantics.md#test-contexts)
    max_contexts: int = 10_000
    max_context_items: int = 200_000  # tool/edge names held across all of them
    max_checks: int = 10_000  # contract × behaviour rows (spec names; merged files could add more)


def bump(counter: dict[Any, int], key: Any, n: int = 1) -> None:
    counter[key] = counter.get(key, 0) + n


@dataclass
class Caps:
    """The limits and the fold counter (`overflow`, per dimension) they feed."""

    limits: Limits = field(default_factory=Limits)
    overflow: dict[str, int] = field(default_factory=dict)
    # what the context budgets hold now, across agents (so the bound is global, not per agent)
    context_tallies: int = 0
    context_items: int = 0

    def fold(self, dimension: str, n: int = 1) -> None:
        bump(self.overflow, dimension, n)

    def key(
        self, table: Mapping[K, Any], key: K, cap: int, dimension: str, overflow: K, n: int = 1
    ) -> K:
        """`key` while the table has room (or holds it), else the overflow key, counting n folds.

        An overflow key arriving from a merged state was counted where it was folded.
        """
        if key in table or key == overflow or len(table) < cap:
            return key
        self.fold(dimension, n)
        return overflow

    def count(self, table: dict[int, int], key: int, cap: int, dimension: str, n: int) -> bool:
        """Count a path/state hash while there is room; otherwise only the fold is counted."""
        if key in table or len(table) < cap:
            bump(table, key, n)
            return True
        self.fold(dimension, n)
        return False

    def add_names(self, names: set[str], new: frozenset[str] | set[str], cap: int, dim: str
                  ) -> None:
        """Add names to a capped set, in a stable order, folding those past the cap."""
        for name in sorted(set(new) - names):
            if len(names) < cap:
                names.add(name)
            else:
                self.fold(dim)
