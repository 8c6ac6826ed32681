"""The `arguments` section (docs/report.md#argument-coverage): per tool, the share of its input
schema's items calls exercised and the items never exercised, by name; the agent's share over
every tool with a schema, and the `tools.arguments_pct` target. Present only when the spec
enables argument coverage for the agent."""

from __future__ import annotations

from typing import Literal

from ..argschema import ToolItems
from ..judge.arguments import compiled
from ..state.arguments import ToolArgs
from .schema import ArgumentsReport, ToolArgumentRow
from .view import AgentView

MAX_NEVER = 20  # never-exercised items a tool names; the rest are counted


def arguments_section(v: AgentView) -> None:
    spec = v.spec.arguments
    if spec is None:
        return
    restricted = v.spec.restricted_tools.matches
    held = v.st.arguments.tools
    tools = dict.fromkeys([*v.report["tools"]["known"], *spec.declared, *held])
    rows: dict[str, ToolArgumentRow] = {}
    for tool in tools:
        if restricted(tool):
            continue
        entry = held.get(tool, ToolArgs())
        declared = spec.declared.get(tool)
        items = compiled(declared)[1] if declared is not None else None
        rows[tool] = _row(entry, items)
    counted = [r for r in rows.values() if r["items"]]
    total = sum(r["items"] for r in counted)
    pct = 100.0 * sum(r["seen"] for r in counted) / total if total else None
    report: ArgumentsReport = {"pct": pct, "overall": spec.overall, "tools": rows}
    v.report["arguments"] = report
    v.targets["tools.arguments_pct"] = pct


def _row(entry: ToolArgs, declared: ToolItems | None) -> ToolArgumentRow:
    """A declared schema's items replace whatever the state holds for the tool."""
    schema: Literal["declared", "discovered", "none"]
    if declared is not None:
        items = {i.key: i.required for i in declared.items}
        overflow, schema = declared.overflow, "declared"
    else:
        items, overflow = entry.items, entry.overflow
        schema = "discovered" if items else "none"
    seen = [k for k in items if k in entry.seen]
    never = [k for k in items if k not in entry.seen]
    return {
        "schema": schema,
        "items": len(items),
        "seen": len(seen),
        "pct": 100.0 * len(seen) / len(items) if items else None,
        "calls": entry.calls,
        "unread": entry.unread,
        "never": never[:MAX_NEVER],
        "never_more": max(len(never) - MAX_NEVER, 0),
        "required_never": [k for k in never if items[k]][:MAX_NEVER],
        "overflow": overflow,
    }


def next_argument(row: ToolArgumentRow) -> str | None:
    """The item to try next: a required parameter never passed first, else the first item never
    exercised in schema order; None when every item was."""
    return row["required_never"][0] if row["required_never"] else next(iter(row["never"]), None)


def how_to_exercise(item: str) -> str:
    """What a call must pass to exercise `item` (its key grammar: argschema.py)."""
    path, sep, value = item.partition("=")
    if sep and ":" not in path:
        return f"pass `{path}` = {value}"
    path, _, facet = item.rpartition(":") if ":" in item else ("", "", item)
    if not path:
        return f"pass `{item}`"
    if facet in ("empty", "non-empty"):
        return f"pass `{path}` as {'an empty' if facet == 'empty' else 'a non-empty'} array"
    if facet in ("minimum", "maximum"):
        return f"pass `{path}` at its {facet}"
    return f"pass `{path}` matching its {facet.replace('[', ' branch ').rstrip(']')}"
