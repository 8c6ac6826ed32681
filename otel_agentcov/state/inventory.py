"""Inventory: tools called (ok/error), tools offered to the model, models used."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from . import fields as f
from .caps import OVERFLOW, Caps, bump
from .facts import RunFacts


@dataclass
class Inventory:
    tools: dict[str, list[int]] = field(default_factory=dict)  # tool -> [ok, error]
    tool_definitions: set[str] = field(default_factory=set)
    models: dict[str, int] = field(default_factory=dict)
    handoff_tools: set[str] = field(default_factory=set)  # hand-offs, not actions on the world

    def add(self, facts: RunFacts, caps: Caps) -> dict[str, int]:
        """Fold one run; returns its calls per (capped) tool name, which is what runs keep."""
        lim = caps.limits
        called: dict[str, int] = {}
        for (name, failed), n in facts.tool_calls.items():
            key = caps.key(self.tools, name, lim.max_tools, "tool", OVERFLOW, n)
            bump(called, key, n)
            self.tools.setdefault(key, [0, 0])[1 if failed else 0] += n
        for model, n in facts.models.items():
            bump(self.models, caps.key(self.models, model, lim.max_models, "model", OVERFLOW, n), n)
        caps.add_names(self.tool_definitions, facts.tool_definitions, lim.max_tools, "tool")
        caps.add_names(self.handoff_tools, facts.handoff_tools, lim.max_tools, "tool")
        return called

    def merge(self, other: Inventory, caps: Caps) -> None:
        lim = caps.limits
        for tool, (ok, err) in other.tools.items():
            key = caps.key(self.tools, tool, lim.max_tools, "tool", OVERFLOW, ok + err)
            counts = self.tools.setdefault(key, [0, 0])
            counts[0] += ok
            counts[1] += err
        caps.add_names(self.tool_definitions, other.tool_definitions, lim.max_tools, "tool")
        caps.add_names(self.handoff_tools, other.handoff_tools, lim.max_tools, "tool")
        for model, n in other.models.items():
            bump(self.models, caps.key(self.models, model, lim.max_models, "model", OVERFLOW, n), n)

    def to_dict(self) -> dict[str, Any]:
        return {
            "tools": {k: list(v) for k, v in sorted(self.tools.items())},
            "tool_definitions": sorted(self.tool_definitions),
            "models": dict(sorted(self.models.items())),
            "handoff_tools": sorted(self.handoff_tools),
        }

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> Inventory:
        tools = {}
        for tool, outcomes in f.table(d["tools"], "tools").items():
            ok, err = f.items(outcomes, f"tools.{tool}", 2)
            tools[tool] = [f.count(ok, f"tools.{tool}"), f.count(err, f"tools.{tool}")]
        return cls(
            tools=tools,
            tool_definitions=set(f.names(d["tool_definitions"], "tool_definitions")),
            models=f.counts(d["models"], "models"),
            handoff_tools=set(f.names(d.get("handoff_tools", []), "handoff_tools")),
        )
