"""Argument coverage of one run (docs/report.md#argument-coverage): each tool call's captured
arguments reduced to the schema items they exercised, the arguments themselves dropped.

Only schema-named item keys leave this module (argschema.seen_items returns a subset of the
schema's items), so a free argument value cannot reach the state, a report or a metric.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import cached_property, lru_cache
from typing import Any

from ..argschema import ToolItems, seen_items, tool_items
from ..assembler import AgentRun
from ..semconv.step import TOOL


@dataclass(frozen=True, slots=True)
class ToolArguments:
    """What one run exercised of one tool's schema: item keys, never values."""

    tool: str
    items: ToolItems  # empty: no schema known for the tool
    seen: frozenset[str] = frozenset()
    calls: int = 0  # calls whose arguments were read against the schema
    unread: int = 0  # calls with no schema, or whose arguments were not captured


@dataclass(frozen=True)
class ArgumentSpec:
    """An agent's `arguments:` entry: schemas declared for tools (used over discovered ones) and
    whether argument coverage joins the overall geometric mean."""

    schemas: tuple[tuple[str, str], ...] = ()  # (tool, schema as canonical JSON)
    overall: bool = False

    @cached_property
    def declared(self) -> dict[str, str]:
        return dict(self.schemas)

    @classmethod
    def from_entry(cls, entry: Mapping[str, Any]) -> ArgumentSpec:
        schemas = entry.get("schemas", {})
        return cls(tuple((tool, json.dumps(schema, sort_keys=True))
                         for tool, schema in sorted(schemas.items())),
                   bool(entry.get("overall", False)))


@dataclass(slots=True)
class _Tally:
    seen: set[str] = field(default_factory=set)
    calls: int = 0
    unread: int = 0


@lru_cache(maxsize=1024)
def compiled(schema: str) -> tuple[Any, ToolItems]:
    """A canonical-JSON schema parsed and itemised once (runs offer the same schemas again)."""
    parsed = json.loads(schema)
    return parsed, tool_items(parsed)


def judge_arguments(run: AgentRun, spec: ArgumentSpec) -> tuple[ToolArguments, ...]:
    """Per tool offered with a schema or called in `run`: its items and the ones its calls hit.
    A call whose tool has no schema, or whose arguments were not captured, is counted unread."""
    content = run.content
    discovered = content.schemas if content is not None else {}
    args = content.tool_args if content is not None else {}
    schemas = {**discovered, **spec.declared}
    tallies: dict[str, _Tally] = {tool: _Tally() for tool in discovered}
    for step in run.steps:
        if step.kind != TOOL or step.tool is None or step.event:
            continue
        tally = tallies.setdefault(step.tool, _Tally())
        schema, called_with = schemas.get(step.tool), args.get(step.span_id)
        if schema is None or called_with is None:
            tally.unread += 1
            continue
        parsed, items = compiled(schema)
        tally.calls += 1
        tally.seen |= seen_items(parsed, called_with, items.keys)
    return tuple(
        ToolArguments(tool, compiled(schemas[tool])[1] if tool in schemas else ToolItems(()),
                      frozenset(t.seen), t.calls, t.unread)
        for tool, t in tallies.items()
    )
