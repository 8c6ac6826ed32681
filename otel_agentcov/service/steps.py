"""Steps as JSON rows: what the journal and a snapshot's open traces keep of a span.

A Step holds names, ids and counts, never content, so durable state cannot leak a prompt. A row
is the Step's fields in order, trailing defaults left out (most steps have no tool definitions,
scores or state attributes). Rows are read back strictly: a file on disk is input like any
other, and a wrong type must be reported as a corrupt file, not crash the service at its next
start. Every step of the journal goes through here, so both directions are kept cheap.
"""

from __future__ import annotations

import dataclasses
import operator
from typing import Any

from ..semconv.step import KINDS, Step

# every field but `content` (last, default None): captured content is never persisted, so a
# step read back has none and a content check on its run says unknown, never violated
_FIELDS = tuple(f for f in dataclasses.fields(Step) if f.name != "content")
# a retired field keeps its place in a row, written False and skipped when read, so rows
# journaled before it went and after read alike: `joins_caller`, after `turn` (a server's half
# is now decided by the core's root rule, docs/architecture.md#one-root-rule)
_RETIRED = [f.name for f in _FIELDS].index("turn") + 1
FIELDS = (*(f.name for f in _FIELDS[:_RETIRED]), "joins_caller",
          *(f.name for f in _FIELDS[_RETIRED:]))
_DEFAULTS = (*(f.default for f in _FIELDS[:_RETIRED]), False,
             *(f.default for f in _FIELDS[_RETIRED:]))
_REQUIRED = sum(f.default is dataclasses.MISSING for f in _FIELDS)
# per annotation: (types the JSON value may have, types of its items when it is a list)
_SHAPES: dict[str, tuple[tuple[type, ...], tuple[type, ...] | None]] = {
    "int": ((int,), None), "int | None": ((int, type(None)), None), "str": ((str,), None),
    "str | None": ((str, type(None)), None), "float": ((int, float), None), "bool": ((bool,), None),
    "tuple[str, ...]": ((list,), (str,)), "tuple[float, ...]": ((list,), (int, float)),
}
_TYPES = tuple(_SHAPES[str(f.type)][0] for f in _FIELDS)
_TYPES = (*_TYPES[:_RETIRED], (bool,), *_TYPES[_RETIRED:])
_ITEMS = tuple(_SHAPES[str(f.type)][1] for f in _FIELDS)
_ITEMS = (*_ITEMS[:_RETIRED], None, *_ITEMS[_RETIRED:])
_LISTS = frozenset(i for i, items in enumerate(_ITEMS) if items is not None)
_HEAD = operator.attrgetter(*(f.name for f in _FIELDS[:_RETIRED]))
_TAIL = operator.attrgetter(*(f.name for f in _FIELDS[_RETIRED:]))


def to_row(step: Step) -> tuple[Any, ...]:
    """The step's fields in FIELDS order without trailing defaults (JSON writes it as a list)."""
    row: tuple[Any, ...] = (*_HEAD(step), False, *_TAIL(step))
    n = len(row)
    while n > _REQUIRED and row[n - 1] == _DEFAULTS[n - 1]:
        n -= 1
    return row[:n]


def from_row(row: Any) -> Step:
    """The Step a row holds; ValueError naming the first field that is wrong."""
    if type(row) is not list or not _REQUIRED <= len(row) <= len(FIELDS):
        raise ValueError(f"a step is a list of {_REQUIRED} to {len(FIELDS)} fields")
    values = list(row)
    for i, value in enumerate(values):
        kind = type(value)
        if kind not in _TYPES[i] or (kind is int and not -(1 << 128) < value < 1 << 128):
            raise ValueError(f"step field {FIELDS[i]}: unexpected {str(value)[:40]!r}")
        if i in _LISTS:
            items = _ITEMS[i] or ()
            if any(type(x) not in items for x in value):
                raise ValueError(f"step field {FIELDS[i]}: unexpected item in {value!r:.40}")
            values[i] = tuple(value)
    step = Step(*values[:_RETIRED], *values[_RETIRED + 1:])
    if step.kind not in KINDS:
        raise ValueError(f"step kind {step.kind[:40]!r} is not one of {', '.join(KINDS)}")
    return step
