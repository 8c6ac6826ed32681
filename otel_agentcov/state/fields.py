"""Strict readers for the fields of a state file.

A state file is input like any other (`agentcov merge` takes files from many CI jobs): a wrong
type, a negative or absurd count, a malformed hash key must be refused when the file is read,
not coerced by `int()` (which takes "5", 5.9 and True) into a state that crashes a later
report. Each reader raises ValueError naming the field.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from typing import Any

MAX_COUNT = 2**63 - 1  # counters are int64 in every exposition format
_HEX_KEY = re.compile(r"[0-9a-f]{16}")


def count(value: Any, what: str) -> int:
    if type(value) is not int or not 0 <= value <= MAX_COUNT:
        raise ValueError(f"{what}: expected a count (0..2^63-1), got {str(value)[:40]!r}")
    return value


def integer(value: Any, what: str, bits: int = 128) -> int:
    """A non-negative id or timestamp that fits in `bits` bits."""
    if type(value) is not int or not 0 <= value < 1 << bits:
        raise ValueError(f"{what}: expected an integer id, got {str(value)[:40]!r}")
    return value


def number(value: Any, what: str) -> float:
    if type(value) not in (int, float) or not math.isfinite(value):
        raise ValueError(f"{what}: expected a finite number, got {str(value)[:40]!r}")
    return float(value)


def name(value: Any, what: str) -> str:
    if type(value) is not str:
        raise ValueError(f"{what}: expected a string, got {type(value).__name__}")
    return value


def table(value: Any, what: str) -> Mapping[str, Any]:
    if type(value) is not dict:
        raise ValueError(f"{what}: expected an object, got {type(value).__name__}")
    return value


def items(value: Any, what: str, size: int | None = None) -> list[Any]:
    if type(value) is not list or (size is not None and len(value) != size):
        shape = "a list" if size is None else f"a list of {size}"
        raise ValueError(f"{what}: expected {shape}, got {str(value)[:40]!r}")
    return value


def hash_key(value: str, what: str) -> int:
    """A path or state hash as written: 16 lowercase hex digits."""
    if not _HEX_KEY.fullmatch(value):
        raise ValueError(f"{what}: expected a 16-digit hex key, got {value[:40]!r}")
    return int(value, 16)


def counts(value: Any, what: str) -> dict[str, int]:
    """An object of name -> count."""
    return {name(k, what): count(v, f"{what}.{k}") for k, v in table(value, what).items()}


def hashed_counts(value: Any, what: str) -> dict[int, int]:
    return {hash_key(k, what): count(v, f"{what}.{k}") for k, v in table(value, what).items()}


def names(value: Any, what: str) -> tuple[str, ...]:
    return tuple(name(x, what) for x in items(value, what))


def triples(value: Any, what: str) -> dict[tuple[str, str], int]:
    """`[[a, b, n], ...]` (name pairs with a count) as {(a, b): n}."""
    out: dict[tuple[str, str], int] = {}
    for entry in items(value, what):
        a, b, n = items(entry, what, 3)
        out[name(a, what), name(b, what)] = count(n, what)
    return out
