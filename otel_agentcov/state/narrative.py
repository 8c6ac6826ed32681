"""Narrative: runs whose story was consistent / divergent / unverifiable, divergences by tool.

Only the verdicts of the narrative check (docs/narrative.md) are kept: counts and tool names, no
text.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from ..judge.narrative import KINDS, RESULTS, NarrativeVerdict
from . import fields as f
from .caps import OVERFLOW, Caps, bump


@dataclass
class Narrative:
    runs: dict[str, int] = field(default_factory=dict)  # result -> runs
    divergences: dict[tuple[str, str], int] = field(default_factory=dict)  # (tool, kind) -> runs
    not_english: int = 0  # unverifiable runs whose answer was in a language not read
    too_long: int = 0  # unverifiable runs whose answer was past the size cap (not read)

    def _key(self, tool: str, kind: str, caps: Caps, n: int) -> tuple[str, str]:
        """Divergent tools are capped like tools (they may come from discovered definitions)."""
        limit = caps.limits.max_tools
        return caps.key(self.divergences, (tool, kind), limit, "tool", (OVERFLOW, kind), n)

    def add(self, verdict: NarrativeVerdict | None, caps: Caps) -> None:
        if verdict is None:
            return
        bump(self.runs, verdict.result)
        self.not_english += verdict.not_english
        self.too_long += verdict.too_long
        for tool, kind in verdict.divergences:
            bump(self.divergences, self._key(tool, kind, caps, 1))

    def merge(self, other: Narrative, caps: Caps) -> None:
        for result, n in other.runs.items():
            bump(self.runs, result, n)
        self.not_english += other.not_english
        self.too_long += other.too_long
        for (tool, kind), n in other.divergences.items():
            bump(self.divergences, self._key(tool, kind, caps, n), n)

    def to_dict(self) -> dict[str, Any]:
        record: dict[str, Any] = {
            "runs": {r: self.runs[r] for r in RESULTS if r in self.runs},
            "divergences": [[t, k, n] for (t, k), n in sorted(self.divergences.items())],
        }
        if self.not_english:  # absent when zero: older readers and files stay as they were
            record["not_english"] = self.not_english
        if self.too_long:
            record["too_long"] = self.too_long
        return {"narrative": record}

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> Narrative:
        """Read strictly (ValueError naming the field); a state written before the narrative
        check existed has no `narrative` key."""
        data = f.table(d.get("narrative", {}), "narrative")
        runs = f.counts(data.get("runs", {}), "narrative.runs")
        result = next((r for r in runs if r not in RESULTS), None)
        if result is not None:
            raise ValueError(f"narrative.runs: unknown result {result[:40]!r}")
        divergences = f.triples(data.get("divergences", []), "narrative.divergences")
        kind = next((k for _, k in divergences if k not in KINDS), None)
        if kind is not None:
            raise ValueError(f"narrative.divergences: unknown kind {kind[:40]!r}")
        not_english = f.count(data.get("not_english", 0), "narrative.not_english")
        too_long = f.count(data.get("too_long", 0), "narrative.too_long")
        return cls(runs=runs, divergences=divergences, not_english=not_english,
                   too_long=too_long)
