"""Edges: boundary conditions hit, delegation edges, restricted-tool attempts by outcome."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from .caps import OVERFLOW_EDGE, Caps, bump
from .facts import RunFacts


def _pairs(table: Mapping[tuple[str, str], int]) -> list[list[Any]]:
    return [[a, b, n] for (a, b), n in sorted(table.items())]


@dataclass
class Edges:
    boundaries: dict[str, int] = field(default_factory=dict)
    delegations: dict[tuple[str, str], int] = field(default_factory=dict)
    restricted: dict[tuple[str, str], int] = field(default_factory=dict)

    def _edge(self, edge: tuple[str, str], caps: Caps, n: int) -> tuple[str, str]:
        """Delegation edges are agent names: capped like agents, per agent."""
        return caps.key(self.delegations, edge, caps.limits.max_agents, "agent", OVERFLOW_EDGE, n)

    def add(self, facts: RunFacts, caps: Caps) -> None:
        for condition in facts.boundary_hits:
            bump(self.boundaries, condition)
        for edge in facts.delegations:
            bump(self.delegations, self._edge(edge, caps, 1))
        for key, n in facts.restricted.items():
            bump(self.restricted, key, n)

    def merge(self, other: Edges, caps: Caps) -> None:
        for edge, n in other.delegations.items():
            bump(self.delegations, self._edge(edge, caps, n), n)
        for table, theirs in (
            (self.boundaries, other.boundaries), (self.restricted, other.restricted)
        ):
            for k, v in theirs.items():
                bump(table, k, v)

    def to_dict(self) -> dict[str, Any]:
        return {
            "boundaries": dict(sorted(self.boundaries.items())),
            "delegations": _pairs(self.delegations),
            "restricted": _pairs(self.restricted),
        }

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> Edges:
        return cls(
            boundaries={str(k): int(v) for k, v in d["boundaries"].items()},
            delegations={(str(a), str(b)): int(c) for a, b, c in d["delegations"]},
            restricted={(str(a), str(b)): int(c) for a, b, c in d["restricted"]},
        )
