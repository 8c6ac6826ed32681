"""Faults: what injected faults did to an agent's runs, kept apart from what happened anyway.

Counted per run (docs/faults.md): per family, the runs it was injected in, those that hit a
condition it provokes, and those that recovered or failed; per condition, the hits a matching
fault provoked (the rest of `Edges.boundaries` are natural); per tool, the runs it failed in and
how many of them still recovered. Names and counts only, so states merge by summing.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from ..fault_families import FAMILIES
from ..spec import CONDITIONS
from . import fields as f
from .caps import OVERFLOW, Caps, bump
from .facts import RunFacts

INJECTED, HIT, RECOVERED, FAILED = range(4)  # a family's row


@dataclass
class Faults:
    runs: int = 0  # runs with at least one injected fault
    recovered: int = 0  # ... that ended without error
    families: dict[str, list[int]] = field(default_factory=dict)  # [injected, hit, rec., failed]
    provoked: dict[str, int] = field(default_factory=dict)  # condition -> provoked hits
    tools: dict[str, list[int]] = field(default_factory=dict)  # tool -> [failed in, recovered]

    def _tool(self, tool: str, caps: Caps, n: int) -> list[int]:
        key = caps.key(self.tools, tool, caps.limits.max_tools, "tool", OVERFLOW, n)
        return self.tools.setdefault(key, [0, 0])

    def add(self, facts: RunFacts, caps: Caps) -> None:
        recovered = not facts.errored
        for tool in facts.failed_tools:
            row = self._tool(tool, caps, 1)
            row[0] += 1
            row[1] += recovered
        if not facts.faults:
            return
        self.runs += 1
        self.recovered += recovered
        hits = set(facts.boundary_hits)
        for family in facts.faults:
            row = self.families.setdefault(family, [0, 0, 0, 0])
            row[INJECTED] += 1
            row[HIT] += not hits.isdisjoint(FAMILIES[family][1])
            row[RECOVERED if recovered else FAILED] += 1
        for condition in facts.provoked:
            bump(self.provoked, condition)

    def merge(self, other: Faults, caps: Caps) -> None:
        self.runs += other.runs
        self.recovered += other.recovered
        for family, theirs in other.families.items():
            row = self.families.setdefault(family, [0, 0, 0, 0])
            for i, n in enumerate(theirs):
                row[i] += n
        for condition, n in other.provoked.items():
            bump(self.provoked, condition, n)
        for tool, (failed, recovered) in other.tools.items():
            row = self._tool(tool, caps, failed)
            row[0] += failed
            row[1] += recovered

    def to_dict(self) -> dict[str, Any]:
        return {"faults": {
            "runs": self.runs,
            "recovered": self.recovered,
            "families": {k: list(v) for k, v in sorted(self.families.items())},
            "provoked": dict(sorted(self.provoked.items())),
            "tools": {k: list(v) for k, v in sorted(self.tools.items())},
        }}

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> Faults:
        if "faults" not in d:  # a state written before faults were counted
            return cls()
        t = f.table(d["faults"], "faults")
        out = cls(
            runs=f.count(t["runs"], "faults.runs"),
            recovered=f.count(t["recovered"], "faults.recovered"),
            families={k: _row(v, 4, f"faults.families.{k[:40]}")
                      for k, v in f.table(t["families"], "faults.families").items()},
            provoked=f.counts(t["provoked"], "faults.provoked"),
            tools={f.name(k, "faults.tools"): _row(v, 2, "faults.tools")
                   for k, v in f.table(t["tools"], "faults.tools").items()},
        )
        unknown = next((k for k in out.families if k not in FAMILIES), None)
        if unknown is not None:
            raise ValueError(f"faults.families: unknown family {unknown[:40]!r}")
        unknown = next((c for c in out.provoked if c not in CONDITIONS), None)
        if unknown is not None:
            raise ValueError(f"faults.provoked: unknown condition {unknown[:40]!r}")
        if out.recovered > out.runs or any(
            r[HIT] > r[INJECTED] or r[RECOVERED] + r[FAILED] != r[INJECTED]
            or r[INJECTED] > out.runs for r in out.families.values()
        ) or any(rec > failed for failed, rec in out.tools.values()):
            raise ValueError("faults: counts that contradict each other")
        return out


def _row(value: Any, size: int, what: str) -> list[int]:
    return [f.count(n, what) for n in f.items(value, what, size)]
