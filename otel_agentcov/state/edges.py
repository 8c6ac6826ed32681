"""Edges: boundary conditions hit, delegation edges, restricted-tool attempts by outcome."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from .caps import OVERFLOW_EDGE, Caps, bump
from .facts import RunFacts

LAST_ATTEMPTS = 5


def _pairs(table: Mapping[tuple[str, str], int]) -> list[list[Any]]:
    return [[a, b, n] for (a, b), n in sorted(table.items())]


@dataclass
class Edges:
    boundaries: dict[str, int] = field(default_factory=dict)
    delegations: dict[tuple[str, str], int] = field(default_factory=dict)
    restricted: dict[tuple[str, str], int] = field(default_factory=dict)
    # per restricted tool the newest attempts' (end_ns, trace_id): where to look in a trace UI
    last_attempts: dict[str, list[tuple[int, int]]] = field(default_factory=dict)

    def _remember(self, tool: str, attempts: list[tuple[int, int]]) -> None:
        kept = self.last_attempts.get(tool, [])
        self.last_attempts[tool] = sorted(set(kept) | set(attempts))[-LAST_ATTEMPTS:]

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
            self._remember(key[0], [(facts.end_ns, facts.trace_id)])

    def merge(self, other: Edges, caps: Caps) -> None:
        for edge, n in other.delegations.items():
            bump(self.delegations, self._edge(edge, caps, n), n)
        for table, theirs in (
            (self.boundaries, other.boundaries), (self.restricted, other.restricted)
        ):
            for k, v in theirs.items():
                bump(table, k, v)
        for tool, attempts in other.last_attempts.items():
            self._remember(tool, attempts)

    def to_dict(self) -> dict[str, Any]:
        return {
            "boundaries": dict(sorted(self.boundaries.items())),
            "delegations": _pairs(self.delegations),
            "restricted": _pairs(self.restricted),
            "restricted_traces": {
                t: [list(a) for a in v] for t, v in sorted(self.last_attempts.items())
            },
        }

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> Edges:
        return cls(
            boundaries={str(k): int(v) for k, v in d["boundaries"].items()},
            delegations={(str(a), str(b)): int(c) for a, b, c in d["delegations"]},
            restricted={(str(a), str(b)): int(c) for a, b, c in d["restricted"]},
            last_attempts={  # absent from state files written before it existed
                str(t): [(int(e), int(i)) for e, i in v][-LAST_ATTEMPTS:]
                for t, v in d.get("restricted_traces", {}).items()
            },
        )
