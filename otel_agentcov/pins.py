"""The `conventions:` entries that pin what inference read (`agentcov explain --write F`).

One entry per vocabulary: per kind attribute and kind (its kind words as a list), per
span-name affix, per GenAI key; then one per name the trace structure made an agent or a tool
(docs/conventions.md#inference). Entries are written in inference's own order of precedence,
so loading them reads every span as inference did.
"""

from __future__ import annotations

from typing import Any

from .semconv.inference import (
    BY_ATTRIBUTE,
    BY_GENAI,
    BY_NAME,
    MODEL_IN_NAME,
    MODEL_IN_NAME_REGEX,
    glob_literal,
)
from .semconv.inferred_log import Group, InferredLog
from .semconv.shapes import name_pattern

_ORDER = {BY_ATTRIBUTE: 0, BY_NAME: 1, BY_GENAI: 2}
_NAME_FIELD = {"agent": "name", "tool": "tool"}


def _names(group: Group) -> dict[str, Any]:
    field = _NAME_FIELD.get(group.kind)
    if field is None:
        return {}
    if group.name_key is not None:
        return {field: group.name_key}
    if group.regex is not None:
        return {field: {"span_name": group.regex}}
    return {}  # omitted: the span name


def _fields(group: Group) -> dict[str, Any]:
    fields = _names(group)
    for name, key in group.sources.items():
        fields[name] = {"span_name": MODEL_IN_NAME_REGEX} if key == MODEL_IN_NAME else key
    return fields


def _comment(group: Group) -> str:
    if group.evidence == BY_ATTRIBUTE:
        said = f"{group.key} = {', '.join(group.values)}"
    elif group.evidence == BY_NAME:
        said = f"span name {group.glob}"
    else:
        said = f"GenAI key {group.key}"
    return (f"{group.count} × scope {group.scope or '(none)'} · {said} → {group.kind}"
            f" (inferred from {group.evidence})")


def _entry(group: Group) -> dict[str, Any] | None:
    match: dict[str, Any] = {}
    if group.scope:
        match["scope"] = group.scope
    if group.evidence == BY_ATTRIBUTE and group.key is not None:
        values = list(group.values)
        match["attributes"] = {group.key: values[0] if len(values) == 1 else values}
    elif group.evidence == BY_NAME and group.glob is not None:
        match["name"] = group.glob
    elif group.evidence == BY_GENAI and group.key is not None:
        match["attributes"] = {group.key: {"present": True}}
    else:
        return None  # an event or a `<provider>/<model>` name: inference reads it as it is
    return {"match": match, "kind": group.kind, **_fields(group)}


def pinned(log: InferredLog) -> list[tuple[str, dict[str, Any]]]:
    """(comment, entry) pairs, in the order inference applies its evidence."""
    out: list[tuple[str, dict[str, Any]]] = []
    for group in sorted(log.groups.values(), key=lambda g: (_ORDER[g.evidence], -g.count)):
        entry = _entry(group)
        if entry is not None:
            out.append((_comment(group), entry))
    for (kind, name), count in sorted(log.structure.items(), key=lambda p: (p[0][0], -p[1])):
        candidate = log.candidates.get(name)
        if candidate is None:
            continue
        # the exact name: a glob of ids (`*`) could claim spans inference read otherwise
        match: dict[str, Any] = {"name": glob_literal(candidate.span_name)}
        if candidate.scope:
            match = {"scope": candidate.scope, **match}
        entry = {"match": match, "kind": kind}
        field = _NAME_FIELD[kind]
        if candidate.name_key is not None:
            entry[field] = candidate.name_key
        elif candidate.regex is not None:
            entry[field] = {"span_name": candidate.regex}
        elif name != candidate.span_name.strip():
            entry[field] = {"value": name}
        span = name_pattern(candidate.span_name)
        out.append((f"{count} × scope {candidate.scope or '(none)'} · span {span} → {kind} "
                    f"{name} (inferred from the trace's structure)", entry))
    return out
