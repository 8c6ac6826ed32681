"""Decisions: tool-call decisions (allow / deny / require_approval) per tool, one agent's.

A call's decision counts once however its event and its span arrive (assembler/events.py); a
`require_approval` no later decision answered is a pending approval (docs/semantics.md#decisions).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from ..semconv.events import OUTCOMES
from . import fields as f
from .caps import OVERFLOW, Caps
from .facts import RunFacts


@dataclass
class Decisions:
    by_tool: dict[str, list[int]] = field(default_factory=dict)  # tool -> counts in OUTCOMES order

    def _bump(self, tool: str, outcome: str, n: int, caps: Caps) -> None:
        key = caps.key(self.by_tool, tool, caps.limits.max_tools, "tool", OVERFLOW, n)
        self.by_tool.setdefault(key, [0] * len(OUTCOMES))[OUTCOMES.index(outcome)] += n

    def add(self, facts: RunFacts, caps: Caps) -> None:
        for (tool, outcome), n in facts.decisions.items():
            self._bump(tool, outcome, n, caps)

    def add_late(self, tool: str, outcome: str, replaces: str | None, caps: Caps) -> None:
        """One decision joined after its run was folded; `replaces`: the call's earlier
        decision it replaces (an approval that run left pending, an allow a deny overrides),
        no longer counted, so the call counts once."""
        self._bump(tool, outcome, 1, caps)
        counts = self.by_tool.get(tool)
        if replaces in OUTCOMES and counts is not None and counts[OUTCOMES.index(replaces)] > 0:
            counts[OUTCOMES.index(replaces)] -= 1

    def merge(self, other: Decisions, caps: Caps) -> None:
        for tool, counts in other.by_tool.items():
            for outcome, n in zip(OUTCOMES, counts, strict=True):
                if n:
                    self._bump(tool, outcome, n, caps)

    def to_dict(self) -> dict[str, Any]:
        """Absent while empty: state files of runs without decisions stay as they were."""
        if not self.by_tool:
            return {}
        return {"decisions": {t: dict(zip(OUTCOMES, c, strict=True))
                              for t, c in sorted(self.by_tool.items())}}

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> Decisions:
        by_tool = {}
        for tool, counts in f.table(d.get("decisions", {}), "decisions").items():
            table = f.counts(counts, f"decisions.{tool}")
            unknown = next((o for o in table if o not in OUTCOMES), None)
            if unknown is not None:
                raise ValueError(f"decisions.{tool}: unknown outcome {unknown[:40]!r}")
            by_tool[tool] = [table.get(o, 0) for o in OUTCOMES]
        return cls(by_tool)
