"""Versions: per agent version, the counts a version-to-version verdict needs (docs/compare.md).

Runs carry `gen_ai.agent.version` (else the resource's `service.version`); runs without one are
not counted here. Only the newest `max_versions` versions (by when each was first seen) are
kept; the runs of an older one that falls out are counted as `version` folds.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from . import fields
from .caps import OVERFLOW, Caps, bump
from .facts import RunFacts


@dataclass
class VersionCounts:
    first_ns: int  # end of the first run seen: versions are ordered by it
    runs: int = 0
    passed: int = 0
    tools: dict[str, int] = field(default_factory=dict)  # executed calls per tool

    def to_list(self) -> list[Any]:
        return [self.first_ns, self.runs, self.passed, dict(sorted(self.tools.items()))]

    @classmethod
    def from_list(cls, d: Any, what: str) -> VersionCounts:
        """Read strictly (fields.py): a damaged entry is a ValueError naming it."""
        first_ns, runs, passed, tools = fields.items(d, what, 4)
        entry = cls(fields.integer(first_ns, f"{what}.first_ns", 64), fields.count(runs, what),
                    fields.count(passed, what), fields.counts(tools, f"{what}.tools"))
        if entry.passed > entry.runs:
            raise ValueError(f"{what}: more runs passed than ran")
        return entry


@dataclass
class Versions:
    counts: dict[str, VersionCounts] = field(default_factory=dict)

    def ordered(self) -> list[tuple[str, VersionCounts]]:
        """Oldest first: each version is compared with the one before it."""
        return sorted(self.counts.items(), key=lambda kv: (kv[1].first_ns, kv[0]))

    def _entry(self, version: str, first_ns: int) -> VersionCounts:
        entry = self.counts.get(version)
        if entry is None:
            entry = self.counts[version] = VersionCounts(first_ns)
        entry.first_ns = min(entry.first_ns, first_ns)
        return entry

    def _add_tools(self, entry: VersionCounts, tools: Mapping[str, int], caps: Caps) -> None:
        for tool, n in tools.items():
            bump(entry.tools, caps.key(entry.tools, tool, caps.limits.max_tools, "tool",
                                       OVERFLOW, n), n)

    def _trim(self, caps: Caps) -> None:
        """Keep the newest `max_versions`; an older version's runs are counted as folds."""
        for version, entry in self.ordered()[: max(len(self.counts) - caps.limits.max_versions, 0)]:
            caps.fold("version", entry.runs)
            del self.counts[version]

    def add(self, version: str | None, facts: RunFacts, caps: Caps) -> None:
        if version is None:
            return
        entry = self._entry(version, facts.end_ns)
        entry.runs += 1
        entry.passed += facts.passed
        tools: dict[str, int] = {}
        for (tool, _), n in facts.tool_calls.items():
            bump(tools, tool, n)
        self._add_tools(entry, tools, caps)
        self._trim(caps)

    def merge(self, other: Versions, caps: Caps) -> None:
        for version, theirs in other.counts.items():
            entry = self._entry(version, theirs.first_ns)
            entry.runs += theirs.runs
            entry.passed += theirs.passed
            self._add_tools(entry, theirs.tools, caps)
        self._trim(caps)

    def to_dict(self) -> dict[str, Any]:
        return {"versions": {v: c.to_list() for v, c in sorted(self.counts.items())}}

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> Versions:
        """State files written before versions were kept have no `versions` key: none kept."""
        table = fields.table(d.get("versions", {}), "versions")
        return cls({fields.name(v, "versions"): VersionCounts.from_list(c, f"versions.{v[:80]}")
                    for v, c in table.items()})
