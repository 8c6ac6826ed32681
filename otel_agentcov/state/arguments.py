"""Arguments: per tool, the items of its input schema and the ones calls exercised, one agent's
(docs/report.md#argument-coverage).

Item keys are written from schemas alone (argschema.py), so nothing here is an argument value.
Tools are capped like the inventory's (`max_tools`, then __overflow__), items per tool at
argschema.MAX_ITEMS; whatever a cap turns away is counted.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from ..argschema import MAX_ITEMS, Item
from ..judge import ToolArguments
from . import fields as f
from .caps import OVERFLOW, Caps

MAX_KEY = 512  # characters of an item key read back from a file (argschema writes far less)


@dataclass
class ToolArgs:
    """One tool's items (key -> required), the keys seen, and its calls."""

    items: dict[str, bool] = field(default_factory=dict)
    seen: set[str] = field(default_factory=set)
    overflow: int = 0  # schema items past MAX_ITEMS, never itemised
    calls: int = 0  # calls read against a schema
    unread: int = 0  # calls with no schema or no captured arguments
    # the items last folded: runs offer the same schema again, so they are folded once
    last: tuple[Item, ...] | None = field(default=None, compare=False, repr=False)

    def add(self, items: tuple[Item, ...], seen: Iterable[str], overflow: int, caps: Caps
            ) -> None:
        if items is not self.last:
            self._items(items, caps)
            self.last = items
        self.seen.update(k for k in seen if k in self.items)
        self.overflow = max(self.overflow, overflow)

    def _items(self, items: tuple[Item, ...], caps: Caps) -> None:
        for item in items:
            if item.key in self.items:
                self.items[item.key] = self.items[item.key] or item.required
            elif len(self.items) < MAX_ITEMS:
                self.items[item.key] = item.required
            else:
                caps.fold("argument_item")


@dataclass
class Arguments:
    tools: dict[str, ToolArgs] = field(default_factory=dict)

    def _tool(self, tool: str, caps: Caps) -> ToolArgs:
        key = caps.key(self.tools, tool, caps.limits.max_tools, "argument_tool", OVERFLOW)
        return self.tools.setdefault(key, ToolArgs())

    def add(self, verdicts: Iterable[ToolArguments], caps: Caps) -> None:
        for v in verdicts:
            entry = self._tool(v.tool, caps)
            entry.add(v.items.items, v.seen, v.items.overflow, caps)
            entry.calls += v.calls
            entry.unread += v.unread

    def merge(self, other: Arguments, caps: Caps) -> None:
        for tool, theirs in other.tools.items():
            entry = self._tool(tool, caps)
            entry.add(tuple(Item(k, r) for k, r in theirs.items.items()), theirs.seen,
                      theirs.overflow, caps)
            entry.calls += theirs.calls
            entry.unread += theirs.unread

    def to_dict(self) -> dict[str, Any]:
        """Absent while empty: state files without argument coverage stay as they were."""
        if not self.tools:
            return {}
        return {"arguments": {
            tool: {"items": [[k, r] for k, r in t.items.items()], "seen": sorted(t.seen),
                   "overflow": t.overflow, "calls": t.calls, "unread": t.unread}
            for tool, t in sorted(self.tools.items())}}

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> Arguments:
        tools: dict[str, ToolArgs] = {}
        for tool, entry in f.table(d.get("arguments", {}), "arguments").items():
            what = f"arguments.{tool[:40]}"
            entry = f.table(entry, what)
            rows = f.items(entry["items"], f"{what}.items")
            if len(rows) > MAX_ITEMS:
                raise ValueError(f"{what}.items: more than {MAX_ITEMS} items")
            items: dict[str, bool] = {}
            for row in rows:
                key, required = f.items(row, f"{what}.items", 2)
                if type(required) is not bool or len(f.name(key, what)) > MAX_KEY:
                    raise ValueError(f"{what}.items: expected [key, true|false]")
                items[key] = required
            seen = set(f.names(entry["seen"], f"{what}.seen"))
            if not seen <= set(items):
                raise ValueError(f"{what}.seen: names an item the tool does not have")
            tools[tool] = ToolArgs(items, seen, f.count(entry["overflow"], f"{what}.overflow"),
                                   f.count(entry["calls"], f"{what}.calls"),
                                   f.count(entry["unread"], f"{what}.unread"))
        return cls(tools)
