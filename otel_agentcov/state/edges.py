"""Edges: boundary conditions hit, delegation edges, restricted-tool attempts by outcome."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from ..spec import CONDITIONS
from . import fields as f
from .caps import OVERFLOW_EDGE, Caps, bump
from .facts import RunFacts

OUTCOMES = ("denied", "executed", "failed")  # of a restricted-tool attempt
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
        for (tool, outcome), n in facts.restricted.items():
            self.add_attempt(tool, outcome, facts.end_ns, facts.trace_id, n)

    def add_attempt(self, tool: str, outcome: str, end_ns: int, trace_id: int, n: int = 1
                    ) -> None:
        bump(self.restricted, (tool, outcome), n)
        self._remember(tool, [(end_ns, trace_id)])

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
        boundaries = f.counts(d["boundaries"], "boundaries")
        unknown = next((c for c in boundaries if c not in CONDITIONS), None)
        if unknown is not None:
            raise ValueError(f"boundaries: unknown condition {unknown[:40]!r}")
        restricted = f.triples(d["restricted"], "restricted")
        outcome = next((o for _, o in restricted if o not in OUTCOMES), None)
        if outcome is not None:
            raise ValueError(f"restricted: unknown outcome {outcome[:40]!r}")
        last_attempts = {  # absent from state files written before it existed
            tool: [
                (f.integer(e, "restricted_traces end"), f.integer(t, "restricted_traces trace"))
                for e, t in (f.items(a, f"restricted_traces.{tool}", 2)
                             for a in f.items(v, f"restricted_traces.{tool}"))
            ][-LAST_ATTEMPTS:]
            for tool, v in f.table(d.get("restricted_traces", {}), "restricted_traces").items()
        }
        return cls(boundaries=boundaries, delegations=f.triples(d["delegations"], "delegations"),
                   restricted=restricted, last_attempts=last_attempts)
