"""The Python interpreter of the convention tables, the oracle the compiled core is held equal to
(tests/test_core_classifier.py); the package classifies with the core alone (docs/core.md).

A convention table: ordered rules, the first whose match holds classifies the span.

Lookups are shaped for the ingest hot path: the rules whose scope test a scope passes are worked
out once per scope name (scopes are few); consecutive rules that need the same attribute form a
segment, skipped with one dict lookup when a span lacks it (most spans in a host are HTTP, DB...)
and otherwise narrowed by the attribute's value (`gen_ai.operation.name: chat` goes straight to
the entries that name `chat`, in table order); consecutive rules that test only span names are
tried with one regular expression first.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any, NamedTuple

from _rule import ONE_OF, Match, Rule, norm

from otel_agentcov.records import SpanRecord
from otel_agentcov.semconv.step import Step

_SCOPE_CACHE_LIMIT = 4096  # scope names come from telemetry: the cache must stay bounded
# ... in bytes too: a longer name (no instrumentation's is) is worked out each time, not kept
_SCOPE_KEY_CHARS = 256
# each rule with the part of its match left to test (None: nothing left)
_Checks = tuple[tuple[Match | None, Rule], ...]


class _Segment(NamedTuple):
    key: str | None  # the attribute every rule here needs (None: no such attribute)
    names: re.Pattern[str] | None  # a span name any rule here can match (None: any name)
    checks: _Checks  # in table order
    by_value: Mapping[Any, _Checks] | None  # the rules a value of `key` may match
    other_values: _Checks  # ... for a value no rule names


def _indexed(rule: Rule) -> bool:
    return rule.gate is not None and rule.gate.test == ONE_OF and not rule.decode


def _left(match: Match) -> Match | None:
    return None if match.trivial else match


def _for_value(checks: Sequence[tuple[Match, Rule]], value: Any) -> _Checks:
    """The rules a span whose gate attribute holds `value` may match (the gate test done)."""
    return tuple(
        (_left(match.without(rule.gate)), rule) if _indexed(rule) else (_left(match), rule)  # type: ignore[arg-type]
        for match, rule in checks
        if not _indexed(rule) or value in rule.gate.values  # type: ignore[union-attr]
    )


def _segment(key: str | None, checks: Sequence[tuple[Match, Rule]]) -> _Segment:
    names = None
    if key is None and all(m.name is not None for m, _ in checks):
        names = re.compile("|".join(m.name.pattern for m, _ in checks))  # type: ignore[union-attr]
    plain = tuple((_left(m), r) for m, r in checks)
    if key is None or not any(_indexed(r) for _, r in checks):
        return _Segment(key, names, plain, None, plain)
    values = {v for _, r in checks if _indexed(r) for v in r.gate.values}  # type: ignore[union-attr]
    by_value = {v: _for_value(checks, v) for v in values}
    return _Segment(key, None, plain, by_value, tuple(c for c in plain if not _indexed(c[1])))


def _segments(rules: Sequence[Rule], scope: str) -> tuple[_Segment, ...]:
    """The rules that can match spans of `scope`, their scope tests decided, in runs of
    consecutive rules gated on the same attribute key (or on none)."""
    runs: list[tuple[str | None, list[tuple[Match, Rule]]]] = []
    for rule in rules:
        match = rule.match.for_scope(scope)
        if match is None:
            continue
        key = rule.gate.key if rule.gate is not None else None
        if runs and runs[-1][0] == key:
            runs[-1][1].append((match, rule))
        else:
            runs.append((key, [(match, rule)]))
    return tuple(_segment(key, group) for key, group in runs)


class Table:
    """Rules in order, most specific first."""

    __slots__ = ("rules", "_by_scope")

    def __init__(self, rules: Sequence[Rule]) -> None:
        self.rules = tuple(rules)
        self._by_scope: dict[str, tuple[_Segment, ...]] = {}

    def _candidates(self, scope: str) -> tuple[_Segment, ...]:
        found = self._by_scope.get(scope)
        if found is None:
            found = _segments(self.rules, scope)
            if len(scope) <= _SCOPE_KEY_CHARS and len(self._by_scope) < _SCOPE_CACHE_LIMIT:
                self._by_scope[scope] = found
        return found

    def classify(self, record: SpanRecord, state_attributes: Sequence[str]) -> Step | None:
        """The Step of the first rule that matches `record` and yields one, or None."""
        attrs = record.attributes
        for key, names, checks, by_value, other_values in self._candidates(record.scope_name):
            if key is not None:
                if key not in attrs:
                    continue
                if by_value is not None:
                    value = attrs[key]
                    try:  # norm(), inlined: this runs for every span of a convention
                        checks = by_value.get(
                            value.casefold() if type(value) is str else norm(value), other_values)
                    except TypeError:  # an unhashable value (a list) equals no value
                        checks = other_values
            elif names is not None and names.match(record.name) is None:
                continue
            for match, rule in checks:
                if match is None or match.span_holds(record, rule.decode):
                    step = rule.step(record, state_attributes)
                    if step is not None:
                        return step
        return None
