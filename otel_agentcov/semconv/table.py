"""A convention table: ordered rules, the first whose match holds classifies the span.

Lookups are shaped for the ingest hot path: the rules whose scope test a scope passes are worked
out once per scope name (scopes are few), and consecutive rules that need the same attribute are
skipped together with one dict lookup when a span lacks it (most spans in a host are HTTP, DB...).
"""

from __future__ import annotations

from collections.abc import Sequence

from ..records import SpanRecord
from .convention import Rule

_Segment = tuple[str | None, tuple[Rule, ...]]
_SCOPE_CACHE_LIMIT = 4096  # scope names come from telemetry: the cache must stay bounded


def _segments(rules: Sequence[Rule]) -> tuple[_Segment, ...]:
    """Runs of consecutive rules gated on the same attribute key (None: no gate)."""
    out: list[tuple[str | None, list[Rule]]] = []
    for rule in rules:
        if out and out[-1][0] == rule.gate:
            out[-1][1].append(rule)
        else:
            out.append((rule.gate, [rule]))
    return tuple((gate, tuple(group)) for gate, group in out)


class Table:
    """Rules in order, most specific first."""

    __slots__ = ("rules", "_by_scope")

    def __init__(self, rules: Sequence[Rule]) -> None:
        self.rules = tuple(rules)
        self._by_scope: dict[str, tuple[_Segment, ...]] = {}

    def _candidates(self, scope: str) -> tuple[_Segment, ...]:
        found = self._by_scope.get(scope)
        if found is None:
            found = _segments([r for r in self.rules if r.match.scope_holds(scope)])
            if len(self._by_scope) < _SCOPE_CACHE_LIMIT:
                self._by_scope[scope] = found
        return found

    def first(self, record: SpanRecord) -> Rule | None:
        """The first rule that matches `record`, or None."""
        attrs = record.attributes
        for gate, rules in self._candidates(record.scope_name):
            if gate is not None and gate not in attrs:
                continue
            for rule in rules:
                if rule.matches(record):
                    return rule
        return None
