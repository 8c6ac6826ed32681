"""One convention entry: which spans it matches, what kind they are, where their fields come from.

An entry is plain data (a mapping that JSON or YAML can hold), the same in the spec's
`conventions:` section and in the built-in tables, so any interpreter (this one, a compiled core)
reads the same thing. `ENTRY_SCHEMA` says what an entry may hold; `problems` finds what a schema
cannot (regexes that do not compile, a span-name pattern without exactly one group); `Rule` is an
entry compiled for the hot path. The grammar is documented in docs/conventions.md.
"""

from __future__ import annotations

import fnmatch
import json
import re
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ..records import SpanRecord
from .common import (
    PLACEHOLDER_AGENT_NAMES,
    as_int,
    build_step,
    clip,
    error_type,
    limit_signal,
    short_error_name,
)
from .step import AGENT, KINDS, LLM, OTHER, TOOL, Step

FIELDS = (
    "name", "tool", "model", "handoff_to", "handoff_from",
    "error", "tokens_in", "tokens_out", "finish_reason",
)  # fmt: skip
DECODINGS = ("json",)  # `json`: string values are JSON-quoted (`"\"AGENT\""`), unquote them

# --- the schema: one for both the spec section and the built-in tables ---

_TEXT = {"type": "string", "minLength": 1}
_TEXTS = {
    "anyOf": [_TEXT, {"type": "array", "items": _TEXT, "minItems": 1}],
    "description": "a string or an array of strings",
}
_SCALAR = {"type": ["string", "number", "boolean"]}
_CONDITION = {
    "anyOf": [
        _SCALAR,
        {"type": "array", "items": _SCALAR, "minItems": 1},
        {
            "type": "object",
            "properties": {
                "present": {"const": True},
                "absent": {"const": True},
                "equals": _SCALAR,
                "one_of": {"type": "array", "items": _SCALAR, "minItems": 1},
            },
            "additionalProperties": False,
            "minProperties": 1,
            "maxProperties": 1,
        },
    ],
    "description": "a value (equals), an array of values (one of), {present: true}, "
    "{absent: true}, {equals: v} or {one_of: [...]}",
}
_MATCH = {
    "type": "object",
    "properties": {
        "scope": _TEXTS,
        "scope_prefix": _TEXTS,
        "name": _TEXTS,
        "attributes": {
            "type": "object",
            "additionalProperties": _CONDITION,
            "description": "a mapping of attribute key to a condition",
        },
    },
    "additionalProperties": False,
    "minProperties": 1,
    "description": "a mapping with scope, scope_prefix, name and/or attributes",
}
_SOURCE = {
    "anyOf": [
        _TEXT,
        {
            "type": "object",
            "properties": {"attribute": _TEXTS, "json_key": _TEXT},
            "required": ["attribute"],
            "additionalProperties": False,
        },
        {
            "type": "object",
            "properties": {"span_name": _TEXT},
            "required": ["span_name"],
            "additionalProperties": False,
        },
        {
            "type": "object",
            "properties": {"value": {"type": ["string", "integer"]}},
            "required": ["value"],
            "additionalProperties": False,
        },
    ],
    "description": "an attribute key, {attribute: key(s), json_key: k}, "
    "{span_name: regex with one group} or {value: fixed}",
}
_SOURCES = {
    "anyOf": [_SOURCE, {"type": "array", "items": _SOURCE, "minItems": 1}],
    "description": "a field source or an array of them (the first that yields wins)",
}
ENTRY_PROPERTIES: dict[str, Any] = {
    "match": _MATCH,
    "unless": _MATCH,
    "kind": {"enum": list(KINDS)},
    "decode": {"enum": list(DECODINGS)},
    "note": {"type": "string"},
    **{name: _SOURCES for name in FIELDS},
}
ENTRY_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": ENTRY_PROPERTIES,
    "required": ["match", "kind"],
    "additionalProperties": False,
    "description": "a convention entry (match, kind, field sources)",
}

_PathPart = str | int


def problems(
    entry: Mapping[str, Any], path: Sequence[_PathPart]
) -> Iterator[tuple[list[_PathPart], str]]:
    """What a schema-valid entry still gets wrong: span-name patterns that are not regexes with
    exactly one capture group."""
    for name in FIELDS:
        sources = entry.get(name)
        listed = sources if isinstance(sources, list) else [sources]
        for i, source in enumerate(listed):
            if not isinstance(source, Mapping) or "span_name" not in source:
                continue
            where = [*path, name] + ([i] if isinstance(sources, list) else []) + ["span_name"]
            try:
                groups = re.compile(source["span_name"]).groups
            except re.error as bad:
                yield where, f"not a valid regular expression: {bad}"
                continue
            if groups != 1:
                yield where, f"expected exactly one capture group, got {groups}"


# --- compiled form ---


def _texts(value: str | Sequence[str] | None) -> tuple[str, ...]:
    if value is None:
        return ()
    return (value,) if isinstance(value, str) else tuple(value)


def _norm(value: Any) -> Any:
    """Strings compare case-insensitively (`AGENT` and `agent` are one span kind)."""
    return value.casefold() if isinstance(value, str) else value


def unquote(value: Any) -> Any:
    """A JSON-quoted string (`"\\"AGENT\\""`) as its text; anything else unchanged."""
    if isinstance(value, str) and value[:1] == '"':
        try:
            decoded = json.loads(value)
        except ValueError:
            return value
        return decoded if isinstance(decoded, str) else value
    return value


_PRESENT, _ABSENT, _ONE_OF = 0, 1, 2


@dataclass(frozen=True, slots=True)
class Condition:
    """One attribute test: present, absent, or (case-insensitively) one of some values."""

    key: str
    test: int
    values: frozenset[Any] = frozenset()

    @classmethod
    def parse(cls, key: str, raw: Any) -> Condition:
        if isinstance(raw, Mapping):
            if raw.get("present"):
                return cls(key, _PRESENT)
            if raw.get("absent"):
                return cls(key, _ABSENT)
            raw = raw["one_of"] if "one_of" in raw else [raw["equals"]]
        values = raw if isinstance(raw, list) else [raw]
        return cls(key, _ONE_OF, frozenset(_norm(v) for v in values))

    def holds(self, attrs: Mapping[str, Any], decode: bool) -> bool:
        if self.test == _ABSENT:
            return self.key not in attrs
        if self.key not in attrs:
            return False
        if self.test == _PRESENT:
            return True
        value = attrs[self.key]
        if decode:
            value = unquote(value)
        try:
            return _norm(value) in self.values
        except TypeError:  # an unhashable value (a list attribute) equals no scalar
            return False


@dataclass(frozen=True, slots=True)
class Match:
    """The scope, span-name and attribute tests of an entry (all must hold)."""

    scopes: frozenset[str] | None
    prefixes: tuple[str, ...] | None
    name: re.Pattern[str] | None
    conditions: tuple[Condition, ...]

    @classmethod
    def parse(cls, raw: Mapping[str, Any]) -> Match:
        scopes, prefixes, globs = (_texts(raw.get(k)) for k in ("scope", "scope_prefix", "name"))
        name = re.compile("|".join(fnmatch.translate(g) for g in globs)) if globs else None
        conditions = tuple(Condition.parse(k, v) for k, v in raw.get("attributes", {}).items())
        return cls(frozenset(scopes) or None, prefixes or None, name, conditions)

    def scope_holds(self, scope: str) -> bool:
        if self.scopes is not None and scope not in self.scopes:
            return False
        return self.prefixes is None or scope.startswith(self.prefixes)

    def span_holds(self, record: SpanRecord, decode: bool) -> bool:
        attrs = record.attributes
        for condition in self.conditions:
            if not condition.holds(attrs, decode):
                return False
        return self.name is None or self.name.match(record.name) is not None


@dataclass(frozen=True, slots=True)
class Source:
    """Where one field comes from: attribute keys (the first present), a span-name capture, or a
    fixed value."""

    keys: tuple[str, ...] = ()
    json_key: str | None = None
    pattern: re.Pattern[str] | None = None
    value: str | int | None = None

    @classmethod
    def parse(cls, raw: Any) -> Source:
        if isinstance(raw, str):
            return cls(keys=(raw,))
        if "attribute" in raw:
            return cls(keys=_texts(raw["attribute"]), json_key=raw.get("json_key"))
        if "span_name" in raw:
            return cls(pattern=re.compile(raw["span_name"]))
        return cls(value=raw["value"])

    def read(self, record: SpanRecord, decode: bool) -> Any:
        """The value, or None when this source yields nothing."""
        if self.pattern is not None:
            found = self.pattern.fullmatch(record.name)
            return found.group(1) if found is not None else None
        if self.value is not None:
            return self.value
        attrs = record.attributes
        for key in self.keys:
            value = attrs.get(key)
            if value is None:
                continue
            if self.json_key is not None:
                value = _member(value, self.json_key)
            elif decode:
                value = unquote(value)
            if value is not None and value != "":
                return value
        return None


def _member(value: Any, key: str) -> Any:
    """`key` of a JSON object attribute (MLflow's `{"input_tokens": 10, ...}`), else None."""
    if isinstance(value, str) and value[:1] == "{":
        try:
            value = json.loads(value)
        except (ValueError, RecursionError):
            return None
    return value.get(key) if isinstance(value, dict) else None


def _text(value: Any) -> str | None:
    if isinstance(value, str):
        return clip(value.strip()) or None
    if isinstance(value, int | float) and not isinstance(value, bool):
        return clip(str(value))
    return None


class Rule:
    """An entry compiled for the hot path: `matches` then `step`."""

    __slots__ = ("match", "unless", "kind", "decode", "sources", "gate", "family")

    def __init__(self, entry: Mapping[str, Any], family: str = "spec") -> None:
        self.match = Match.parse(entry["match"])
        self.unless = Match.parse(entry["unless"]) if "unless" in entry else None
        self.kind: str = entry["kind"]
        self.decode = entry.get("decode") == "json"
        self.sources: dict[str, tuple[Source, ...]] = {}
        for name in FIELDS:
            raw = entry.get(name)
            if raw is not None:
                listed = raw if isinstance(raw, list) else [raw]
                self.sources[name] = tuple(Source.parse(s) for s in listed)
        # an attribute the span must carry for the entry to match: a table skips every entry
        # gated on a key the span lacks with one dict lookup
        self.gate = next((c.key for c in self.match.conditions if c.test != _ABSENT), None)
        self.family = family

    def matches(self, record: SpanRecord) -> bool:
        if not self.match.span_holds(record, self.decode):
            return False
        unless = self.unless
        return unless is None or not (
            unless.scope_holds(record.scope_name) and unless.span_holds(record, self.decode)
        )

    def read(self, name: str, record: SpanRecord) -> Any:
        """The first value the field's sources yield, or None (also when it has none)."""
        for source in self.sources.get(name, ()):
            value = source.read(record, self.decode)
            if value is not None:
                return value
        return None

    def _name(self, field: str, record: SpanRecord) -> str | None:
        """An agent's or tool's name: its sources if the entry gives any, else the span name."""
        if field in self.sources:
            return _text(self.read(field, record))
        return clip(record.name.strip()) or None

    def step(self, record: SpanRecord, state_attributes: Sequence[str]) -> Step:
        kind, agent, tool = self.kind, None, None
        if kind == AGENT:
            agent = self._name("name", record)
            if agent in PLACEHOLDER_AGENT_NAMES:
                agent = None
        elif kind == TOOL:
            tool = self._name("tool", record)
            if tool is None:
                kind = OTHER
        step = build_step(record, kind, state_attributes, agent=agent, tool=tool)
        if len(self.sources) > ("name" in self.sources) + ("tool" in self.sources):
            self._fields(step, record)
        return step

    def _fields(self, step: Step, record: SpanRecord) -> None:
        """The entry's field sources over the defaults build_step read from GenAI keys."""
        model = _text(self.read("model", record))
        if model is not None:
            step.model = model
        finish = _text(self.read("finish_reason", record))
        if finish is not None:
            step.finish_reason = finish
        for name in ("tokens_in", "tokens_out"):
            raw = self.read(name, record)
            if raw is not None:
                setattr(step, "input_tokens" if name == "tokens_in" else "output_tokens",
                        as_int(raw))
        failure = self.read("error", record)
        if failure is not None and failure is not False:
            text = _text(failure)
            step.error = short_error_name(text) if text else error_type(record) or "_OTHER"
            step.limit = limit_signal(record, step.error)
        if "tokens_out" in self.sources and step.kind == LLM:
            step.empty = step.output_tokens == 0 and step.error is None
        source = _text(self.read("handoff_from", record))
        if source is not None:
            step.handoff_from = source
        target = _text(self.read("handoff_to", record))
        if target is not None:
            if step.kind == TOOL:
                step.handoff_tool, step.handoff_hint = True, target
            else:
                step.handoff_to = target
