"""The oracle's compiled convention entry: the Python reading of one entry of a table, which the
compiled core is held equal to (tests/_table.py, tests/test_core_classifier.py). The package
keeps the entries' grammar (`otel_agentcov.semconv.convention`: schema and problems) and
classifies with the core alone (docs/core.md).
"""

from __future__ import annotations

import fnmatch
import json
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from _errors import error_type, exception_error, limit_signal
from _fields import as_int, build_step

from otel_agentcov.records import SpanRecord
from otel_agentcov.semconv.common import (
    PLACEHOLDER_AGENT_NAMES,
    PLACEHOLDER_MODELS,
    PLACEHOLDER_TOOLS,
    clip,
    short_error_name,
)
from otel_agentcov.semconv.convention import FIELDS, NAME_FIELDS, _UserPattern, unquote
from otel_agentcov.semconv.step import AGENT, LLM, OTHER, TOOL, Step

# What a table cannot say, in code named after its family: a built-in entry's `code` names one.
# It gets the step the entry built and returns it (changed or not), or None: no match after all.
Hook = Callable[[SpanRecord, Step, Sequence[str]], "Step | None"]

# the order `Rule` applies the fields other than the names in (an error before the token counts)
_FIELD_ORDER = ("model", "finish_reason", "error", "tokens_in", "tokens_out", "handoff_from",
                "handoff_to")


class _FullMatcher(Protocol):
    def fullmatch(self, text: str) -> Any: ...


def _texts(value: str | Sequence[str] | None) -> tuple[str, ...]:
    if value is None:
        return ()
    return (value,) if isinstance(value, str) else tuple(value)


def norm(value: Any) -> Any:
    """Strings compare case-insensitively (`AGENT` and `agent` are one span kind)."""
    return value.casefold() if isinstance(value, str) else value


def _globs(patterns: Sequence[str], fold: bool = False) -> re.Pattern[str]:
    return re.compile("|".join(fnmatch.translate(norm(g) if fold else g) for g in patterns))




PRESENT, ABSENT, ONE_OF, GLOB, CONTAINS = 0, 1, 2, 3, 4


def _held(item: Any, values: frozenset[Any]) -> bool:
    """Whether an array's item equals one of `values` (a nested list equals none)."""
    try:
        return norm(item) in values
    except TypeError:
        return False


@dataclass(frozen=True, slots=True)
class Condition:
    """One attribute test: present, absent, (case-insensitively) one of some values, a glob, or
    an array holding one of some values (a list of tags)."""

    key: str
    test: int
    values: frozenset[Any] = frozenset()
    pattern: re.Pattern[str] | None = None

    @classmethod
    def parse(cls, key: str, raw: Any) -> Condition:
        if isinstance(raw, Mapping):
            if raw.get("present"):
                return cls(key, PRESENT)
            if raw.get("absent"):
                return cls(key, ABSENT)
            if "glob" in raw:
                return cls(key, GLOB, pattern=_globs(_texts(raw["glob"]), fold=True))
            if "contains" in raw:
                held = raw["contains"] if isinstance(raw["contains"], list) else [raw["contains"]]
                return cls(key, CONTAINS, frozenset(norm(v) for v in held))
            raw = raw["one_of"] if "one_of" in raw else [raw["equals"]]
        values = raw if isinstance(raw, list) else [raw]
        return cls(key, ONE_OF, frozenset(norm(v) for v in values))

    def holds(self, attrs: Mapping[str, Any], decode: bool) -> bool:
        if self.test == ABSENT:
            return self.key not in attrs
        if self.key not in attrs:
            return False
        if self.test == PRESENT:
            return True
        value = attrs[self.key]
        if decode:
            value = unquote(value)
        if self.pattern is not None:
            return isinstance(value, str) and self.pattern.match(value.casefold()) is not None
        if self.test == CONTAINS:
            return isinstance(value, (tuple, list)) and any(
                _held(item, self.values) for item in value)
        try:
            return norm(value) in self.values
        except TypeError:  # an unhashable value (a list attribute) equals no scalar
            return False


@dataclass(frozen=True, slots=True)
class Match:
    """The scope, span-name and attribute tests of an entry (all must hold), and the exception
    `unless` makes (a Match of its own)."""

    scopes: frozenset[str] | None
    prefixes: tuple[str, ...] | None
    name: re.Pattern[str] | None
    conditions: tuple[Condition, ...]
    unless: Match | None = None

    @classmethod
    def parse(cls, raw: Mapping[str, Any], unless: Mapping[str, Any] | None = None) -> Match:
        scopes, prefixes, globs = (_texts(raw.get(k)) for k in ("scope", "scope_prefix", "name"))
        conditions = tuple(Condition.parse(k, v) for k, v in raw.get("attributes", {}).items())
        name = _globs(globs) if globs else None
        unless = unless if unless is not None else raw.get("unless")
        return cls(frozenset(scopes) or None, prefixes or None, name, conditions,
                   cls.parse(unless) if unless is not None else None)

    def scope_holds(self, scope: str) -> bool:
        if self.scopes is not None and scope not in self.scopes:
            return False
        return self.prefixes is None or scope.startswith(self.prefixes)

    def for_scope(self, scope: str) -> Match | None:
        """This match with every scope test decided for spans of `scope` (its own and its
        exceptions'), or None when it holds for no span there."""
        if not self.scope_holds(scope):
            return None
        unless = self.unless.for_scope(scope) if self.unless is not None else None
        if unless is not None and not unless.conditions and not unless.name and not unless.unless:
            return None  # the exception holds for every span of the scope
        return Match(None, None, self.name, self.conditions, unless)

    @property
    def trivial(self) -> bool:
        """Holds for every span its scope tests let through (no tests of its own left)."""
        return not self.conditions and self.name is None and self.unless is None

    def without(self, condition: Condition) -> Match:
        """This match less one condition (that a table has already tested)."""
        rest = tuple(c for c in self.conditions if c is not condition)
        return Match(self.scopes, self.prefixes, self.name, rest, self.unless)

    def span_holds(self, record: SpanRecord, decode: bool) -> bool:
        """Every test but the scopes' (`for_scope` has decided those)."""
        attrs = record.attributes
        for condition in self.conditions:
            if not condition.holds(attrs, decode):
                return False
        if self.name is not None and self.name.match(record.name) is None:
            return False
        return self.unless is None or not self.unless.span_holds(record, decode)


def _member(value: Any, key: str) -> Any:
    """`key` of a JSON object attribute (MLflow's `{"input_tokens": 10, ...}`), else None."""
    if isinstance(value, str) and value[:1] == "{":
        try:
            value = json.loads(value)
        except (ValueError, RecursionError):
            return None
    return value.get(key) if isinstance(value, dict) else None


@dataclass(frozen=True, slots=True)
class Source:
    """Where one field comes from: attribute keys (the first present), a span-name capture, a
    fixed value, or (an error) an exception event."""

    keys: tuple[str, ...] = ()
    json_key: str | None = None
    pattern: _FullMatcher | None = None
    value: str | int | None = None
    exception: bool = False

    @classmethod
    def parse(cls, raw: Any, user: bool) -> Source:
        """`user`: a spec's entry, whose pattern runs on RE2; the built-in tables' on `re`."""
        if isinstance(raw, str):
            return cls(keys=(raw,))
        if "attribute" in raw:
            return cls(keys=_texts(raw["attribute"]), json_key=raw.get("json_key"))
        if "span_name" in raw:
            pattern = raw["span_name"]
            return cls(pattern=_UserPattern(pattern) if user else re.compile(pattern, re.S))
        if "exception" in raw:
            return cls(exception=True)
        return cls(value=raw["value"])

    def read(self, record: SpanRecord, decode: bool, text: bool) -> Any:
        """The value, or None when this source yields nothing; with `text`, only a non-empty
        string yields (a span-name capture is stripped of surrounding blanks)."""
        if self.pattern is not None:
            found = self.pattern.fullmatch(record.name)
            return ((found.group(1) or "").strip() or None) if found is not None else None
        if self.value is not None:
            return self.value if not text or self.value != "" else None
        if self.exception:
            return exception_error(record)
        attrs = record.attributes
        for key in self.keys:
            value = attrs.get(key)
            if value is None:
                continue
            if self.json_key is not None:
                value = _member(value, self.json_key)
            elif decode:
                value = unquote(value)
            if text:
                if isinstance(value, str) and value:
                    return value
            elif value is not None and value != "":
                return value
        return None


_NONE: frozenset[str] = frozenset()
# names that are no name, per field: a source yielding one is passed over for the next
_PLACEHOLDERS: dict[str, frozenset[str]] = {
    "name": PLACEHOLDER_AGENT_NAMES, "model": PLACEHOLDER_MODELS, "tool": PLACEHOLDER_TOOLS,
}


class Rule:
    """An entry compiled for the hot path: `matches`, then `step`."""

    __slots__ = ("match", "kind", "decode", "sources", "require", "handoff_tool",
                 "hook", "gate", "_more", "_read")

    def __init__(self, entry: Mapping[str, Any], hooks: Mapping[str, Hook] | None = None) -> None:
        """`hooks`: the built-in families' code, for a built-in entry; None for a spec's."""
        self.match = Match.parse(entry["match"], entry.get("unless"))
        self.kind: str = entry["kind"]
        self.decode = entry.get("decode") == "json"
        self.sources: dict[str, tuple[Source, ...]] = {}
        for name in FIELDS:
            raw = entry.get(name)
            if raw is not None:
                listed = raw if isinstance(raw, list) else [raw]
                self.sources[name] = tuple(Source.parse(s, hooks is None) for s in listed)
        # per field: its sources, whether it names something, the names that are no name
        self._read = {name: (sources, name in NAME_FIELDS, _PLACEHOLDERS.get(name, _NONE))
                      for name, sources in self.sources.items()}
        self.require: tuple[str, ...] = tuple(entry.get("require", ()))
        self.handoff_tool: bool = entry.get("handoff_tool", False)
        self.hook = (hooks or {})[entry["code"]] if "code" in entry else None
        # the test of an attribute the span must carry: a table skips every entry gated on a
        # key the span lacks with one dict lookup, and picks among them by the key's value
        self.gate = next((c for c in self.match.conditions if c.test != ABSENT), None)
        self._more = tuple(f for f in _FIELD_ORDER if f in self.sources)

    def read(self, name: str, record: SpanRecord) -> Any:
        """The first value the field's sources yield, or None (also when it has none); a name
        field yields only a string that is not a placeholder, clipped."""
        found = self._read.get(name)
        if found is None:
            return None
        sources, text, placeholders = found
        for source in sources:
            value = source.read(record, self.decode, text)
            if value is None:
                continue
            if not text:
                return value
            value = clip(str(value))
            if value not in placeholders:
                return value
        return None

    def _name(self, field: str, record: SpanRecord) -> str | None:
        """An agent's or tool's name: its sources if the entry gives any, else the span name."""
        if field in self.sources:
            return self.read(field, record)  # type: ignore[no-any-return]
        name = clip(record.name.strip()) or None
        return None if name in _PLACEHOLDERS[field] else name

    def step(self, record: SpanRecord, state_attributes: Sequence[str]) -> Step | None:
        """The span's Step, or None when a required field yields nothing (or the family's code
        says the entry does not apply after all)."""
        for name in self.require:
            if self.read(name, record) is None:
                return None
        kind, agent, tool = self.kind, None, None
        if kind == AGENT:
            agent = self._name("name", record)
        elif kind == TOOL:
            tool = self._name("tool", record)
            if tool is None:
                kind = OTHER
        step = build_step(record, kind, state_attributes, agent=agent, tool=tool)
        if self._more:
            self._fields(step, record)
        if self.handoff_tool and step.kind == TOOL:
            step.handoff_tool = True
        return step if self.hook is None else self.hook(record, step, state_attributes)

    def _fields(self, step: Step, record: SpanRecord) -> None:
        """The entry's field sources over the defaults build_step read from GenAI keys."""
        for name in self._more:  # in FIELDS order: `error` before the token counts
            value = self.read(name, record)
            if value is None:
                continue
            if name == "model":
                step.model = value
            elif name == "finish_reason":
                step.finish_reason = value
            elif name == "error":
                if value is not False:
                    named = isinstance(value, str | int) and not isinstance(value, bool)
                    text = clip(str(value)) if named else None
                    step.error = short_error_name(text) if text else error_type(record) or "_OTHER"
                    step.limit = limit_signal(record, step.error)
            elif name == "tokens_in":
                step.input_tokens = as_int(value)
            elif name == "tokens_out":
                step.output_tokens = as_int(value)
                if step.kind == LLM:
                    step.empty = step.output_tokens == 0 and step.error is None
            elif name == "handoff_from":
                step.handoff_from = value
            elif step.kind == TOOL:  # handoff_to
                step.handoff_tool, step.handoff_hint = True, value
            else:
                step.handoff_to = value
