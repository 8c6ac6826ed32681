"""Skills: the skills an agent was offered and those it loaded, beside its tools.

Names only (`gen_ai.skill.definitions` names, `gen_ai.skill.name` of a load), never a
description or a resource's name; capped like tools (docs/semantics.md#skills).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from . import fields as f
from .caps import OVERFLOW, Caps
from .facts import RunFacts


@dataclass
class Skills:
    definitions: set[str] = field(default_factory=set)  # skills offered to the agent
    loads: dict[str, list[int]] = field(default_factory=dict)  # skill -> [loads, resource reads]

    def _bump(self, skill: str, counts: tuple[int, int], caps: Caps) -> None:
        key = caps.key(self.loads, skill, caps.limits.max_tools, "skill", OVERFLOW, sum(counts))
        row = self.loads.setdefault(key, [0, 0])
        row[0] += counts[0]
        row[1] += counts[1]

    def add(self, facts: RunFacts, caps: Caps) -> None:
        caps.add_names(self.definitions, facts.skill_definitions, caps.limits.max_tools, "skill")
        for (skill, resource), n in facts.skill_loads.items():
            self._bump(skill, (0, n) if resource else (n, 0), caps)

    def merge(self, other: Skills, caps: Caps) -> None:
        caps.add_names(self.definitions, other.definitions, caps.limits.max_tools, "skill")
        for skill, (loads, resources) in other.loads.items():
            self._bump(skill, (loads, resources), caps)

    def to_dict(self) -> dict[str, Any]:
        """Absent while empty: state files of agents without skills stay as they were."""
        if not self.definitions and not self.loads:
            return {}
        return {"skills": {"definitions": sorted(self.definitions),
                           "loads": {k: list(v) for k, v in sorted(self.loads.items())}}}

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> Skills:
        skills = f.table(d.get("skills", {}), "skills")
        loads = {}
        for skill, row in f.table(skills.get("loads", {}), "skills.loads").items():
            n, resources = f.items(row, f"skills.loads.{skill}", 2)
            loads[skill] = [f.count(n, f"skills.loads.{skill}"),
                            f.count(resources, f"skills.loads.{skill}")]
        return cls(set(f.names(skills.get("definitions", []), "skills.definitions")), loads)
