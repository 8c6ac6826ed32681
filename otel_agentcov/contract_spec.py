"""The `contracts:` and `aliases:` keys of the spec (docs/contracts.md): their schema, the checks
the schema cannot express, and building the judge's Contract objects.

Everything that can be wrong is found at load time (`problems`), with the path inside the file,
so building afterwards (`build_contracts`) cannot fail and the judge never compiles a regex.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from typing import Any

from jsonschema import Draft202012Validator
from jsonschema.exceptions import SchemaError

from .judge.args import ARGS_MODES, ArgsMatch, ArgValue, parse_path, pointer_problem
from .judge.contracts import (
    EVERY_RUN_MODES,
    MODES,
    MUST,
    MUST_NOT,
    SEVERITIES,
    After,
    AllowedOnly,
    Before,
    Behaviour,
    Called,
    Calls,
    CallSequence,
    Contract,
    Delegated,
    Detector,
    Eventually,
    Selector,
    Text,
    Trajectory,
)
from .semconv.common import MAX_NAME_CHARS
from .user_regex import SchemaValidator, UserRegexError, compile_user_regex, schema_patterns

DETECTORS = (
    "called", "calls", "eventually", "before", "after", "sequence", "trajectory", "allowed_only",
    "delegated", "output", "input",
)  # fmt: skip
DEFAULT_SEVERITY = "high"

_NAME = {"type": "string", "minLength": 1}
# contract and behaviour names become metric label values: bounded like every other label
_LABEL = {"type": "string", "minLength": 1, "maxLength": MAX_NAME_CHARS}
_COUNT = {"type": "integer", "minimum": 0}
_WITHIN = {"type": "integer", "minimum": 1}
SELECTOR_DEF: Mapping[str, Any] = {
    "anyOf": [
        _NAME,
        {
            "type": "object",
            "properties": {
                "tool": {"$ref": "#/$defs/selector"},
                "args": {
                    "type": "object",
                    "description": "a mapping of argument path (name, dotted path or JSON "
                                   "Pointer) to a regex, a JSON literal or {regex: ...}",
                },
                "args_mode": {"enum": list(ARGS_MODES)},
            },
            "required": ["tool"],
            "additionalProperties": False,
        },
    ],
    "description": "a tool selector (a name, a glob, an alias, or {tool: ..., args: {...}})",
}
_SEL = {"$ref": "#/$defs/selector"}
_SELS = {"type": "array", "items": _SEL, "minItems": 1, "description": "a non-empty array of "
         "tool selectors"}


def _object(props: Mapping[str, Any], required: Sequence[str] = (), **extra: Any) -> dict[str, Any]:
    return {"type": "object", "properties": dict(props), "required": list(required),
            "additionalProperties": False, **extra}


_TEXT = _object(
    {"contains": {"type": "string"}, "regex": {"type": "string"},
     "schema": {"type": "object", "description": "a JSON Schema mapping"}},
    minProperties=1, maxProperties=1,
    description="a mapping with exactly one of: contains, regex, schema",
)
_DETECTOR_SCHEMAS: dict[str, Any] = {
    "called": _SEL,
    "calls": _object({"tool": _SEL, "min": _COUNT, "max": _COUNT}, ("tool",)),
    "eventually": _object({"tool": _SEL, "within": _WITHIN}, ("tool",)),
    "before": _object({"first": _SEL, "then": _SEL}, ("first", "then")),
    "after": _object({"trigger": _SEL, "then": _SEL, "within": _WITHIN}, ("trigger", "then")),
    "sequence": _object({"tools": _SELS, "strict": {"type": "boolean"}}, ("tools",)),
    # `tools: []` is a run with no tool call at all
    # a nested array is one model response's calls (a turn); `tools: []`, no tool call at all
    "trajectory": _object({"tools": {
        "type": "array", "items": {"anyOf": [_SEL, _SELS]}, "description": "an array of tool "
        "selectors, or of arrays of them (one per model response)"},
        "mode": {"enum": list(MODES)}}, ("tools",)),
    "allowed_only": _SELS,
    "delegated": _NAME,
    "output": _TEXT,
    "input": _TEXT,
}
_BEHAVIOUR = _object(
    {"behavior": _LABEL, "severity": {"enum": list(SEVERITIES)}, **_DETECTOR_SCHEMAS},
    ("behavior",),
)
_BEHAVIOURS = {"type": "array", "items": _BEHAVIOUR, "description": "an array of behaviours"}
ENTRY_PROPERTIES: Mapping[str, Any] = {
    "aliases": {
        "type": "object",
        "additionalProperties": {"type": "array", "items": _NAME, "minItems": 1,
                                 "description": "a non-empty array of tool names or globs"},
        "description": "a mapping of alias to tool names",
    },
    "contracts": {
        "type": "array",
        "items": _object(
            {
                "name": _LABEL,
                "when": _object(_DETECTOR_SCHEMAS, minProperties=1,
                                description="a mapping of one or more detectors"),
                "fail_on": {"enum": list(SEVERITIES)},
                "must": _BEHAVIOURS,
                "must_not": _BEHAVIOURS,
            },
            ("name",),
        ),
        "description": "an array of contracts",
    },
}

Where = list[str | int]  # a place inside the spec document


def problems(entry: Mapping[str, Any], prefix: Sequence[str | int]) -> Iterator[tuple[Where, str]]:
    """What the schema cannot say about an entry's contracts: one detector per behaviour,
    regexes and schemas that compile, min <= max, names unique. Yields (path, what)."""
    seen: dict[str, int] = {}
    for i, contract in enumerate(entry.get("contracts", [])):
        here: Where = [*prefix, "contracts", i]
        name = contract["name"]
        if name in seen:
            what = f"duplicate contract name {name!r} (first at contracts[{seen[name]}])"
            yield [*here, "name"], what
        seen.setdefault(name, i)
        if "when" in contract:
            yield from _detector_problems(contract["when"], [*here, "when"])
        behaviours: dict[str, str] = {}
        for kind in (MUST, MUST_NOT):
            for j, b in enumerate(contract.get(kind, [])):
                at: Where = [*here, kind, j]
                if b["behavior"] in behaviours:
                    yield [*at, "behavior"], (f"duplicate behavior name {b['behavior']!r} "
                                              f"(first at {behaviours[b['behavior']]})")
                behaviours.setdefault(b["behavior"], f"{kind}[{j}]")
                found = [k for k in DETECTORS if k in b]
                if len(found) != 1:
                    got = ", ".join(found) if found else "none"
                    yield at, f"expected exactly one detector ({', '.join(DETECTORS)}); got {got}"
                    continue
                yield from _detector_problems({found[0]: b[found[0]]}, at)


def _detector_problems(detectors: Mapping[str, Any], at: Where) -> Iterator[tuple[Where, str]]:
    for key, value in detectors.items():
        where: Where = [*at, key]
        for path, sel in _selectors(value, where):
            if isinstance(sel, Mapping):
                yield from _args_problems(sel, path)
        if key in ("output", "input"):
            if "regex" in value:
                yield from _regex_problem(value["regex"], [*where, "regex"])
            if "schema" in value:
                try:
                    Draft202012Validator.check_schema(value["schema"])
                except SchemaError as bad:
                    yield [*where, "schema"], f"invalid JSON Schema: {bad.message}"
                yield from schema_patterns(value["schema"], [*where, "schema"])
        if key == "calls" and value.get("max", value.get("min", 0)) < value.get("min", 0):
            yield [*where, "max"], f"expected max >= min ({value['min']}), got {value['max']}"
        if key == "calls" and "min" not in value and "max" not in value:
            yield where, "expected at least one of: min, max"
        if key == "trajectory" and not value["tools"] and value.get("mode") in EVERY_RUN_MODES:
            yield [*where, "tools"], (f"an empty trajectory in mode {value['mode']} holds for "
                                      "every run; for 'no tool calls' use mode exact")


def text_schemas(entry: Mapping[str, Any], prefix: Sequence[str | int]
                 ) -> Iterator[tuple[list[str | int], Any]]:
    """Every `output` / `input` JSON Schema of the entry's contracts, with its path."""
    for i, contract in enumerate(entry.get("contracts", [])):
        places: list[tuple[list[str | int], Any]] = [(["when"], contract.get("when", {}))]
        places += [([kind, j], b) for kind in (MUST, MUST_NOT)
                   for j, b in enumerate(contract.get(kind, []))]
        for at, detectors in places:
            for key in ("output", "input"):
                if "schema" in detectors.get(key, {}):
                    yield [*prefix, "contracts", i, *at, key, "schema"], detectors[key]["schema"]


def _regex_problem(regex: str, at: Where) -> Iterator[tuple[Where, str]]:
    try:
        compile_user_regex(regex)
    except UserRegexError as bad:
        yield at, f"invalid regex: {bad}"


def _regex_value(value: Any) -> str | None:
    """The regex of a `{regex: r}` value (the literal modes' way to write one), else None."""
    if isinstance(value, Mapping) and list(value) == ["regex"] and isinstance(value["regex"], str):
        return value["regex"]
    return None


def _args_problems(sel: Mapping[str, Any], at: Where) -> Iterator[tuple[Where, str]]:
    """Regex mode: every value a regex string; the other modes: literals or `{regex: r}`.
    Every key a valid path."""
    regex_mode = sel.get("args_mode", "regex") == "regex"
    for key, value in sel.get("args", {}).items():
        where: Where = [*at, "args", key]
        bad_pointer = pointer_problem(key)
        if bad_pointer is not None:
            yield where, bad_pointer
        if regex_mode and not isinstance(value, str):
            yield where, ("expected a regex string (args_mode regex); for a literal value set "
                          "args_mode: subset, exact or superset")
            continue
        regex = value if regex_mode else _regex_value(value)
        if regex is not None:
            yield from _regex_problem(regex, where)


def _selectors(value: Any, at: Where) -> Iterator[tuple[Where, Any]]:
    """Every selector inside a detector's value, with its path (nested `tool:` included)."""
    if isinstance(value, str):
        yield at, value
    elif isinstance(value, list):
        for i, v in enumerate(value):
            yield from _selectors(v, [*at, i])
    elif isinstance(value, Mapping):
        if "args" in value:
            yield at, value
        for key in ("tool", "first", "then", "trigger", "tools"):
            if key in value:
                yield from _selectors(value[key], [*at, key])


# --- building (the entry is valid: nothing below can fail) ---


def _selector(value: Any, aliases: Mapping[str, Sequence[str]]) -> Selector:
    if isinstance(value, str):
        return Selector(tuple(aliases.get(value, (value,))))
    inner = _selector(value["tool"], aliases)
    if "args" not in value:
        return inner
    mode = value.get("args_mode", "regex")
    entries = []
    for key, v in sorted(value["args"].items()):
        regex = v if mode == "regex" else _regex_value(v)
        arg = ArgValue(compile_user_regex(regex)) if regex is not None else ArgValue(literal=v)
        entries.append((parse_path(key), arg))
    return Selector(inner.patterns, (*inner.args, ArgsMatch(tuple(entries), mode)))


def _detector(key: str, value: Any, aliases: Mapping[str, Sequence[str]]) -> Detector:
    def sel(v: Any) -> Selector:
        return _selector(v, aliases)

    if key == "called":
        return Called(sel(value))
    if key == "calls":
        return Calls(sel(value["tool"]), value.get("min", 0), value.get("max"))
    if key == "eventually":
        return Eventually(sel(value["tool"]), value.get("within"))
    if key == "before":
        return Before(sel(value["first"]), sel(value["then"]))
    if key == "after":
        return After(sel(value["trigger"]), sel(value["then"]), value.get("within"))
    if key == "sequence":
        return CallSequence(tuple(map(sel, value["tools"])), bool(value.get("strict", False)))
    if key == "trajectory":
        groups = [e if isinstance(e, list) else [e] for e in value["tools"]]
        flat = [t for group in groups for t in group]
        turns = None
        if any(isinstance(e, list) for e in value["tools"]):  # the spec wrote its turns
            starts = [sum(map(len, groups[:i])) for i in range(len(groups))]
            turns = tuple(range(a, a + len(g)) for a, g in zip(starts, groups, strict=True))
        return Trajectory(tuple(map(sel, flat)), value.get("mode", "exact"), turns)
    if key == "allowed_only":
        return AllowedOnly(tuple(map(sel, value)))
    if key == "delegated":
        return Delegated(value)
    regex, schema = value.get("regex"), value.get("schema")
    return Text(
        key,
        contains=value.get("contains"),
        regex=compile_user_regex(regex) if regex is not None else None,
        schema=SchemaValidator(schema) if schema is not None else None,
    )


def build_contracts(entry: Mapping[str, Any]) -> tuple[Contract, ...]:
    """The entry's contracts, the `contract: {must_call}` shorthand first (as `must` `called`)."""
    aliases: Mapping[str, Sequence[str]] = entry.get("aliases", {})
    out: list[Contract] = []
    must_call = entry.get("contract", {}).get("must_call")
    if must_call:
        out.append(Contract("must_call", tuple(
            Behaviour(f"called:{t}", MUST, DEFAULT_SEVERITY, Called(Selector((t,))))
            for t in must_call
        )))
    for c in entry.get("contracts", []):
        behaviours = tuple(
            Behaviour(
                b["behavior"], kind, b.get("severity", DEFAULT_SEVERITY),
                next(_detector(k, b[k], aliases) for k in DETECTORS if k in b),
            )
            for kind in (MUST, MUST_NOT)
            for b in c.get(kind, [])
        )
        when = tuple(_detector(k, v, aliases) for k, v in c.get("when", {}).items())
        out.append(Contract(c["name"], behaviours, when, c.get("fail_on", DEFAULT_SEVERITY)))
    return tuple(out)
