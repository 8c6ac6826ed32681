"""Contexts: per test (docs/semantics.md#test-contexts), the runs it made pass or fail and what
they exercised.

Who-tests-what is then a query over this record (as coverage.py stores contexts as data): the
tests of a tool, what a test exercised, what no test or only one test exercises.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from ..judge.contracts import SATISFIED, VIOLATED
from . import fields as f
from .caps import OVERFLOW, Caps, bump
from .facts import RunFacts


@dataclass
class ContextTally:
    """One agent's runs under one test: enough to say what the test exercised, no more."""

    runs: int = 0
    passed: int = 0
    tools: dict[str, int] = field(default_factory=dict)  # successful or failed calls per tool
    delegations: dict[tuple[str, str], int] = field(default_factory=dict)
    restricted: dict[str, int] = field(default_factory=dict)  # attempts per restricted tool
    # (contract, behavior) -> runs that decided it (satisfied or violated; unknown did not)
    behaviors: dict[tuple[str, str], int] = field(default_factory=dict)

    @property
    def items(self) -> int:
        return len(self.tools) + len(self.delegations) + len(self.restricted) + len(self.behaviors)

    def to_dict(self) -> dict[str, Any]:
        return {
            "runs": self.runs,
            "passed": self.passed,
            "tools": dict(sorted(self.tools.items())),
            "delegations": [[a, b, n] for (a, b), n in sorted(self.delegations.items())],
            "restricted": dict(sorted(self.restricted.items())),
            "behaviors": [[c, b, n] for (c, b), n in sorted(self.behaviors.items())],
        }

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> ContextTally:
        tally = cls(
            runs=f.count(d["runs"], "contexts runs"),
            passed=f.count(d["passed"], "contexts passed"),
            tools=f.counts(d["tools"], "contexts tools"),
            delegations=f.triples(d["delegations"], "contexts delegations"),
            restricted=f.counts(d["restricted"], "contexts restricted"),
            behaviors=f.triples(d.get("behaviors", []), "contexts behaviors"),
        )
        if tally.passed > tally.runs:
            raise ValueError(f"contexts: passed {tally.passed} exceeds runs {tally.runs}")
        return tally


@dataclass
class Contexts:
    """Bounded twice, across all agents (Caps counts): `max_contexts` agent x test tallies and
    `max_context_items` names in them; a test past the first folds into `__overflow__`."""

    by_test: dict[str, ContextTally] = field(default_factory=dict)

    def _tally(self, context: str, caps: Caps, runs: int) -> ContextTally:
        tally = self.by_test.get(context)
        if tally is None:
            if context != OVERFLOW and caps.context_tallies >= caps.limits.max_contexts:
                caps.fold("context", runs)
                return self._tally(OVERFLOW, caps, runs)
            tally = self.by_test[context] = ContextTally()
            caps.context_tallies += 1
        return tally

    def _put(self, table: dict[Any, int], key: Any, n: int, caps: Caps) -> None:
        """Count under the item budget; a new name past it is folded and counted."""
        if key not in table:
            if caps.context_items >= caps.limits.max_context_items:
                caps.fold("context_item", n)
                return
            caps.context_items += 1
        bump(table, key, n)

    def _fold_in(self, tally: ContextTally, other: ContextTally, caps: Caps) -> None:
        tally.runs += other.runs
        tally.passed += other.passed
        for tool, n in other.tools.items():
            self._put(tally.tools, tool, n, caps)
        for edge, n in other.delegations.items():
            self._put(tally.delegations, edge, n, caps)
        for tool, n in other.restricted.items():
            self._put(tally.restricted, tool, n, caps)
        for key, n in other.behaviors.items():
            self._put(tally.behaviors, key, n, caps)

    def add(self, facts: RunFacts, called: Mapping[str, int], caps: Caps) -> None:
        """Fold one run under its test; `called` are its capped tool names with call counts."""
        if facts.context is None:
            return
        restricted: dict[str, int] = {}
        for (tool, _), n in facts.restricted.items():
            bump(restricted, tool, n)
        delegations: dict[tuple[str, str], int] = {}
        for edge in facts.delegations:
            bump(delegations, edge)
        behaviors = {(c.contract, c.behavior): 1 for c in facts.checks
                     if c.result in (SATISFIED, VIOLATED)}  # decided, not vacuously
        run = ContextTally(1, int(facts.passed), dict(called), delegations, restricted, behaviors)
        self._fold_in(self._tally(facts.context, caps, 1), run, caps)

    def merge(self, other: Contexts, caps: Caps) -> None:
        for context, theirs in other.by_test.items():
            self._fold_in(self._tally(context, caps, theirs.runs), theirs, caps)

    def to_dict(self) -> dict[str, Any]:
        return {"contexts": {k: t.to_dict() for k, t in sorted(self.by_test.items())}}

    def held(self) -> tuple[int, int]:
        """(tallies, names) this record holds: what a loaded state adds to the budgets."""
        return len(self.by_test), sum(t.items for t in self.by_test.values())

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> Contexts:
        """State files written before contexts existed have none."""
        by_test = {
            k: ContextTally.from_dict(f.table(v, f"contexts.{k[:80]}"))
            for k, v in f.table(d.get("contexts", {}), "contexts").items()
        }
        return cls(by_test)
