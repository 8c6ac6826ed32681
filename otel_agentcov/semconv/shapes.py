"""The shapes of spans no convention entry matched: scope, span-name pattern, attribute keys.

What a user needs to write the `conventions:` entry that maps them (docs/conventions.md), and
nothing more: attribute *values* are never read here. Counted only by the offline commands (the
processor does not pay for it), in a bounded table: past MAX_SHAPES distinct shapes, spans are
counted as `overflow`.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import TypedDict

from ..records import SpanRecord
from .common import clip

MAX_SHAPES = 1024
REPORTED_SHAPES = 5  # in a report; `agentcov explain` lists more
EXPLAIN_SHARE = 0.9  # with agent runs found, a report lists shapes when this share matched nothing
MAX_KEYS = 32  # attribute keys kept per shape (sorted; the rest are counted, not named)
_NAME_CHARS = 120
_VARYING = re.compile(r"[0-9a-fA-F]{8,}(?:-[0-9a-fA-F]{4,})*|\d+")  # ids, uuids, numbers
_GLOB_CHARS = re.compile(r"[\[?*]")


class Shape(TypedDict):
    """One kind of span no entry matched, as a report lists it."""

    count: int
    scope: str
    name: str  # a glob: ids and numbers are `*`; `tool:a`, `tool:b` together are `tool:*`
    attributes: list[str]  # the keys seen on its spans, sorted


class Unclassified(TypedDict):
    """The report's `spans.unclassified`: spans no entry matched and their commonest shapes."""

    spans: int
    overflow: int  # of those, spans of shapes past MAX_SHAPES (not in `shapes`)
    shapes: list[Shape]


def name_pattern(name: str) -> str:
    """`GET /orders/1234` -> `GET /orders/*` (a glob: the name's own `*`, `?` and `[` are
    escaped); bounded, so a shape key stays small."""
    literal = _GLOB_CHARS.sub(lambda m: f"[{m.group()}]", name[: 4 * _NAME_CHARS])
    return clip(_VARYING.sub("*", literal))[:_NAME_CHARS]


class ShapeCounter:
    """Spans no entry matched, counted by (scope, name pattern, attribute keys)."""

    __slots__ = ("_counts", "overflow", "total")

    def __init__(self) -> None:
        self._counts: dict[tuple[str, str, tuple[str, ...]], int] = {}
        self.overflow = 0  # spans of shapes past MAX_SHAPES (counted in `total`, not named)
        self.total = 0

    def add(self, record: SpanRecord) -> None:
        self.total += 1
        keys = tuple(sorted(clip(str(k)) for k in record.attributes)[:MAX_KEYS])
        key = (clip(record.scope_name), name_pattern(record.name), keys)
        count = self._counts.get(key)
        if count is not None:
            self._counts[key] = count + 1
        elif len(self._counts) < MAX_SHAPES:
            self._counts[key] = 1
        else:
            self.overflow += 1

    def merge(self, other: ShapeCounter) -> None:
        """Add another counter's spans (a `--jobs` worker's): the same as having seen them."""
        self.total += other.total
        self.overflow += other.overflow
        for key, count in other._counts.items():
            if key in self._counts:
                self._counts[key] += count
            elif len(self._counts) < MAX_SHAPES:
                self._counts[key] = count
            else:
                self.overflow += count

    def top(self, n: int) -> list[Shape]:
        """The `n` most frequent shapes. Spans of one scope and name pattern are one shape (the
        attribute keys of them all); shapes of one scope and keys whose names share a prefix
        up to a separator (`tool:search`, `tool:refund`) are one `tool:*`."""
        by_name: dict[tuple[str, str], tuple[int, set[str]]] = {}
        for (scope, name, keys), count in self._counts.items():
            seen, union = by_name.get((scope, name), (0, set()))
            by_name[(scope, name)] = (seen + count, union | set(keys))
        groups: dict[tuple[str, tuple[str, ...]], list[tuple[str, int]]] = {}
        for (scope, name), (count, union) in by_name.items():
            keys = tuple(sorted(union)[:MAX_KEYS])
            groups.setdefault((scope, keys), []).append((name, count))
        shapes: list[Shape] = []
        for (scope, keys), names in groups.items():
            for glob, count in _merged(names):
                shapes.append({"count": count, "scope": scope, "name": glob,
                               "attributes": list(keys)})
        shapes.sort(key=lambda s: (-s["count"], s["scope"], s["name"]))
        return shapes[:n]


_SEPARATOR = re.compile(r"^[^:/ ]+[:/ ]")  # `tool:`, `GET `, `agents/`


def _merged(names: Sequence[tuple[str, int]]) -> list[tuple[str, int]]:
    """Names that share a first word and separator become `<word><sep>*`; others stay."""
    stems: dict[str, list[tuple[str, int]]] = {}
    alone: list[tuple[str, int]] = []
    for name, count in names:
        found = _SEPARATOR.match(name)
        if found is None:
            alone.append((name, count))
        else:
            stems.setdefault(found.group(), []).append((name, count))
    for stem, group in stems.items():
        if len(group) == 1:
            alone.append(group[0])
        else:
            alone.append((stem + "*", sum(c for _, c in group)))
    return alone
