"""The one place a regular expression written by a user (spec contracts, `args`, narrative
claims, JSON Schema `pattern`) is compiled: on RE2 (google-re2), whose matching time is linear
in the text, so no pattern can make a model's answer freeze the judge (docs/guarantees.md).

RE2 runs neither backreferences nor lookaround; a pattern using them is refused at spec load
in one line. Unlike Python's `re`, its `\\w`, `\\d`, `\\s` and `\\b` are ASCII: write `\\pL`,
`\\pN` or `[[:alpha:]]` for letters and digits of every script (docs/contracts.md).
"""

from __future__ import annotations

import functools
from collections.abc import Iterator, Mapping
from typing import Any, Protocol

import re2
from jsonschema import Draft202012Validator, ValidationError, validators


class UserRegexError(ValueError):
    """A pattern RE2 cannot compile; the message says why in one line."""


class UserRegex(Protocol):
    """What the judge calls on a compiled user regex."""

    def search(self, text: str) -> object | None: ...

    @property
    def groups(self) -> int: ...


_OPTIONS = re2.Options()
_OPTIONS.log_errors = False  # the refusal is our one line, not a C++ log record on stderr


@functools.lru_cache(maxsize=4096)
def compile_user_regex(pattern: str) -> UserRegex:
    """Compile a spec's regex; raises UserRegexError (checked at spec load, never while judging)."""
    try:
        compiled: UserRegex = re2.compile(pattern, options=_OPTIONS)
    except re2.error as exc:
        reason = exc.args[0] if exc.args else exc
        text = reason.decode("utf-8", "replace") if isinstance(reason, bytes) else str(reason)
        if "perl operator" in text or "escape sequence" in text:
            text += " (RE2 runs no backreference or lookaround)"
        raise UserRegexError(text) from None
    return compiled


_NOT_SCHEMAS = frozenset({"const", "enum", "default", "examples"})  # values, not subschemas


def schema_patterns(schema: Any, path: list[Any]) -> Iterator[tuple[list[Any], str]]:
    """(path, problem) for each `pattern` RE2 cannot run and each `patternProperties`
    (jsonschema matches those with Python `re`, which can backtrack without end)."""
    if isinstance(schema, list):
        for i, item in enumerate(schema):
            yield from schema_patterns(item, [*path, i])
    if not isinstance(schema, Mapping):
        return
    for key, value in schema.items():
        if key == "pattern" and isinstance(value, str):
            try:
                compile_user_regex(value)
            except UserRegexError as bad:
                yield [*path, key], f"invalid regex: {bad}"
        elif key == "patternProperties":
            yield [*path, key], "patternProperties is not supported (use propertyNames)"
        elif key not in _NOT_SCHEMAS:
            yield from schema_patterns(value, [*path, key])


def _pattern(validator: Any, pattern: str, instance: Any, schema: Any) -> Iterator[Any]:
    if validator.is_type(instance, "string") and compile_user_regex(pattern).search(
            instance) is None:
        yield ValidationError(f"{instance!r:.80} does not match {pattern!r:.80}")


# Draft 2020-12 with `pattern` on RE2: what validates a model's answer or a report value
SchemaValidator: Any = validators.extend(  # type: ignore[no-untyped-call]
    Draft202012Validator, {"pattern": _pattern})
