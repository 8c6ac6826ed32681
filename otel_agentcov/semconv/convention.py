"""One convention entry: which spans it matches, what kind they are, where their fields come from.

An entry is plain data (a mapping that JSON or YAML can hold), the same in the spec's
`conventions:` section and in the built-in tables, so any interpreter (this one, a compiled core)
reads the same thing. `ENTRY_SCHEMA` says what an entry may hold; `problems` finds what a schema
cannot (regexes that do not compile, a span-name pattern without exactly one group, or one the
core cannot run). The compiled core interprets the entries (docs/core.md); a Python reading of
them is the tests' oracle (tests/_rule.py). The grammar is documented in docs/conventions.md.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping, Sequence
from typing import Any

from .. import compiled
from ..user_regex import UserRegexError, compile_user_regex
from .step import KINDS, Step

NAME_FIELDS = ("name", "tool", "model", "handoff_to", "handoff_from", "finish_reason")
FIELDS = (*NAME_FIELDS, "error", "tokens_in", "tokens_out")
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
                "glob": _TEXTS,
                "contains": {"anyOf": [_SCALAR, {"type": "array", "items": _SCALAR,
                                                  "minItems": 1}]},
            },
            "additionalProperties": False,
            "minProperties": 1,
            "maxProperties": 1,
        },
    ],
    "description": "a value (equals), an array of values (one of), {present: true}, "
    "{absent: true}, {equals: v}, {one_of: [...]}, {glob: pattern(s)} or {contains: v(s)}",
}
_MATCH_PROPERTIES: dict[str, Any] = {
    "scope": _TEXTS,
    "scope_prefix": _TEXTS,
    "name": _TEXTS,
    "attributes": {
        "type": "object",
        "additionalProperties": _CONDITION,
        "description": "a mapping of attribute key to a condition",
    },
}
_MATCH = {
    "type": "object",
    "properties": _MATCH_PROPERTIES,
    "additionalProperties": False,
    "minProperties": 1,
    "description": "a mapping with scope, scope_prefix, name and/or attributes",
}
# `unless` takes the same tests, and may make an exception of its own (one level deep)
_UNLESS = {**_MATCH, "properties": {**_MATCH_PROPERTIES, "unless": _MATCH}}
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
# `error` may also read an exception event: `{exception: true}`
_ERROR_SOURCE = {
    "anyOf": [
        *_SOURCE["anyOf"],
        {"type": "object", "properties": {"exception": {"const": True}},
         "required": ["exception"], "additionalProperties": False},
    ],
    "description": f"{_SOURCE['description']} or {{exception: true}}",
}
_ERROR_SOURCES = {
    "anyOf": [_ERROR_SOURCE, {"type": "array", "items": _ERROR_SOURCE, "minItems": 1}],
    "description": "an error source or an array of them (the first that yields wins)",
}
ENTRY_PROPERTIES: dict[str, Any] = {
    "match": _MATCH,
    "unless": _UNLESS,
    "kind": {"enum": list(KINDS)},
    "decode": {"enum": list(DECODINGS)},
    "require": {
        "type": "array",
        "items": {"enum": list(FIELDS)},
        "description": "an array of field names",
    },
    "handoff_tool": {"type": "boolean"},
    "note": {"type": "string"},
    **{name: _SOURCES for name in FIELDS},
    "error": _ERROR_SOURCES,
}
ENTRY_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": ENTRY_PROPERTIES,
    "required": ["match", "kind"],
    "additionalProperties": False,
    "description": "a convention entry (match, kind, field sources)",
}
# A built-in entry may also name its family's code (`"code": "openinference.chain"`).
BUILTIN_ENTRY_SCHEMA: dict[str, Any] = {
    **ENTRY_SCHEMA,
    "properties": {**ENTRY_PROPERTIES, "code": _TEXT},
}

_PathPart = str | int


def problems(
    entry: Mapping[str, Any], path: Sequence[_PathPart]
) -> Iterator[tuple[list[_PathPart], str]]:
    """What a schema-valid entry still gets wrong: span-name patterns that are not RE2 regexes
    with exactly one capture group, or that the core's `regex` crate cannot run."""
    for name in FIELDS:
        sources = entry.get(name)
        listed = sources if isinstance(sources, list) else [sources]
        for i, source in enumerate(listed):
            if not isinstance(source, Mapping) or "span_name" not in source:
                continue
            where = [*path, name] + ([i] if isinstance(sources, list) else []) + ["span_name"]
            try:  # RE2's syntax, as it runs (Python's `re` refuses `\pL`, `\z`, `\Q...\E`)
                groups = _UserPattern(source["span_name"]).groups
            except UserRegexError as bad:
                yield where, f"not a valid regular expression: {bad}"
                continue
            if groups != 1:
                yield where, f"expected exactly one capture group, got {groups}"
                continue
            try:  # the core runs it on the `regex` crate: what RE2 reads that it cannot, refused
                compiled.Classifier(
                    [{"match": {"name": "*"}, "kind": "other", name: source}], False, Step)
            except ValueError as bad:
                why = str(bad).rsplit("span_name: ", 1)[-1]
                yield where, f"not a regular expression the core can run: {why}"


class _UserPattern:
    """A spec's span-name pattern on RE2 (linear time: no span name can stall classify),
    matched against the whole name."""

    __slots__ = ("_regex",)

    def __init__(self, pattern: str) -> None:
        self._regex = compile_user_regex(f"(?s)\\A(?:{pattern})\\z")

    def fullmatch(self, text: str) -> Any:
        return self._regex.search(text)

    @property
    def groups(self) -> int:
        return self._regex.groups


def unquote(value: Any) -> Any:
    """A JSON-quoted string (`"\\"AGENT\\""`) as its text; anything else unchanged."""
    if isinstance(value, str) and value[:1] == '"':
        try:
            decoded = json.loads(value)
        except ValueError:
            return value
        return decoded if isinstance(decoded, str) else value
    return value
