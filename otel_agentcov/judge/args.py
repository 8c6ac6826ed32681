"""Argument matching for `{tool: SEL, args: {...}, args_mode: M}` selectors (docs/contracts.md).

Keys are paths into the call's (nested) argument object; a listed value is a regex (mode
`regex`), or a JSON literal or `{regex: r}` (the other modes). The modes differ only in which
keys must be present and which the call may add:

| mode | every listed key | keys of the call not listed |
|---|---|---|
| `regex`, `subset` | present and matching | allowed |
| `exact` | present and matching | not allowed |
| `superset` | matching when present | not allowed |
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from ..semconv.content import MAX_TEXT
from ..user_regex import UserRegex

ARGS_MODES = ("regex", "exact", "subset", "superset")
Path = tuple[str, ...]
_MISSING = object()


def parse_path(key: str) -> Path:
    """`/time/start` (a JSON Pointer, RFC 6901) or `time.start` (dots) -> ("time", "start")."""
    if key.startswith("/"):
        return tuple(p.replace("~1", "/").replace("~0", "~") for p in key[1:].split("/"))
    return tuple(key.split("."))


def pointer_problem(key: str) -> str | None:
    """Why a key is not a valid JSON Pointer (`~` must be `~0` or `~1`), or None."""
    if key.startswith("/") and re.search(r"~(?![01])", key):
        return f"invalid JSON Pointer {key!r}: '~' must be followed by 0 or 1"
    return None


def _at(value: Any, path: Path) -> Any:
    """The value at `path`, or _MISSING; a segment indexes an object by key, an array by
    position (`items.0`)."""
    for part in path:
        if isinstance(value, Mapping):
            value = value.get(part, _MISSING)
        elif isinstance(value, list) and part.isdigit() and int(part) < len(value):
            value = value[int(part)]
        else:
            return _MISSING
        if value is _MISSING:
            return _MISSING
    return value


def _leaves(value: Any, prefix: Path = ()) -> list[Path]:
    """Paths of the call's arguments: an object is walked into, anything else (an array
    included) is one argument."""
    if isinstance(value, Mapping) and (value or not prefix):
        return [p for k, v in value.items() for p in _leaves(v, (*prefix, str(k)))]
    return [prefix]


def json_equal(a: Any, b: Any) -> bool:
    """JSON equality: numbers by value (1 == 1.0) but never a boolean, objects key by key."""
    if isinstance(a, bool) or isinstance(b, bool):
        return type(a) is type(b) and a == b
    if isinstance(a, int | float) and isinstance(b, int | float):
        return a == b
    if isinstance(a, Mapping) and isinstance(b, Mapping):
        return a.keys() == b.keys() and all(json_equal(a[k], b[k]) for k in a)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(json_equal(x, y) for x, y in zip(a, b, strict=True))
    return type(a) is type(b) and a == b


def _text(value: Any) -> str:
    """What a regex reads: a string as is, anything else as its JSON text (`5000` -> "5000")."""
    text = value if isinstance(value, str) else json.dumps(value, sort_keys=True)
    return text[:MAX_TEXT]


@dataclass(frozen=True)
class ArgValue:
    """One listed value: a compiled regex, or a JSON literal (hashed by its JSON text: the judge
    keys its per-run cache by selector)."""

    regex: UserRegex | None = None
    literal: Any = field(default=None, compare=False)
    _literal_key: str = field(init=False, repr=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "_literal_key", json.dumps(self.literal, sort_keys=True))

    def matches(self, value: Any) -> bool:
        if self.regex is not None:
            return self.regex.search(_text(value)) is not None
        return json_equal(self.literal, value)


@dataclass(frozen=True)
class ArgsMatch:
    """The listed paths and values of one selector, under one mode."""

    entries: tuple[tuple[Path, ArgValue], ...]
    mode: str = "regex"

    def matches(self, args: Mapping[str, Any]) -> bool:
        for path, expected in self.entries:
            value = _at(args, path)
            if value is _MISSING:
                if self.mode != "superset":
                    return False  # a missing argument fails the match
            elif not expected.matches(value):
                return False
        if self.mode in ("exact", "superset"):
            listed = [path for path, _ in self.entries]
            return all(any(leaf[: len(p)] == p for p in listed) for leaf in _leaves(args))
        return True
