"""Steps as JSON rows: what the journal and a snapshot's open traces keep of a span.

A Step holds names, ids and counts, never content, so durable state cannot leak a prompt. Rows
are read back strictly: a file on disk is input like any other, and a wrong type must be
reported as a corrupt file, not crash the service at its next start.
"""

from __future__ import annotations

import dataclasses
import operator
from collections.abc import Callable
from typing import Any

from ..semconv.step import KINDS, Step

_Check = Callable[[Any], bool]


def _int(v: Any) -> bool:
    return type(v) is int and -(1 << 128) < v < 1 << 128


def _str(v: Any) -> bool:
    return type(v) is str


def _number(v: Any) -> bool:
    return type(v) in (int, float)


def _optional(check: _Check) -> _Check:
    return lambda v: v is None or check(v)


def _each(check: _Check) -> _Check:
    return lambda v: type(v) is list and all(check(x) for x in v)


_BY_TYPE: dict[str, _Check] = {
    "int": _int, "int | None": _optional(_int), "str": _str, "str | None": _optional(_str),
    "float": _number, "bool": lambda v: type(v) is bool, "tuple[str, ...]": _each(_str),
    "tuple[float, ...]": _each(_number),
}
FIELDS = tuple(f.name for f in dataclasses.fields(Step))
_CHECKS = tuple(_BY_TYPE[str(f.type)] for f in dataclasses.fields(Step))


_ROW = operator.attrgetter(*FIELDS)  # one C call per step: the journal writes every step


def to_row(step: Step) -> tuple[Any, ...]:
    """The step's fields in FIELDS order (JSON writes the tuple as a list)."""
    row: tuple[Any, ...] = _ROW(step)
    return row


def from_row(row: Any) -> Step:
    """The Step a row holds; ValueError naming the first field that is wrong."""
    if type(row) is not list or len(row) != len(FIELDS):
        raise ValueError(f"a step is a list of {len(FIELDS)} fields")
    for name, check, value in zip(FIELDS, _CHECKS, row, strict=True):
        if not check(value):
            raise ValueError(f"step field {name}: unexpected {str(value)[:40]!r}")
    values: list[Any] = [tuple(v) if type(v) is list else v for v in row]
    step = Step(*values)
    if step.kind not in KINDS:
        raise ValueError(f"step kind {step.kind[:40]!r} is not one of {', '.join(KINDS)}")
    return step
