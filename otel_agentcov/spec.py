"""The coverage spec (``agentcov.yaml``, docs/spec.md).

It is validated once, up front, so that a bad file is refused with one line naming the file and the
place inside it; afterwards ``CoverageSpec.for_agent`` is a dict lookup on the processing path.
"""

from __future__ import annotations

import json
import os
import reprlib
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from functools import cached_property
from types import MappingProxyType
from typing import Any

from jsonschema import Draft202012Validator
from jsonschema.exceptions import SchemaError, ValidationError, best_match
from referencing import Registry
from referencing.exceptions import Unresolvable

from .contract_spec import (
    ENTRY_PROPERTIES,
    SELECTOR_DEF,
    build_contracts,
    text_schemas,
)
from .contract_spec import problems as contract_problems
from .judge import Checks
from .judge.arguments import ArgumentSpec
from .judge.contracts import SEVERITIES, Contract
from .judge.narrative import NarrativeSpec
from .judge.tool_lists import ToolList
from .judge.vocabulary import OTHER_LANGUAGES
from .semconv.convention import ENTRY_SCHEMA
from .semconv.convention import problems as convention_problems
from .user_regex import SchemaValidator, UserRegexError, compile_user_regex, schema_patterns

# the boundary conditions (docs/semantics.md#detection-rules), in report order; the first six are
# enabled unless `boundaries.conditions` says otherwise, `guardrail_blocked` once an agent declares
# the guardrail results that mean blocked (`boundaries.guardrail_blocked`)
CONDITIONS = ("max_steps", "timeout", "cost_limit", "empty_input", "error_path", "tool_failure",
              "guardrail_blocked")
DEFAULT_CONDITIONS = CONDITIONS[:6]
DEFAULT_GATE_TARGET = "edges.restricted_attempts"  # default expect: maximum 0
UNDECLARED_TARGET = "edges.undeclared_tools"  # with tool_edges.undeclared: fail, maximum 0
EXPECT_TARGETS = (
    "edges.allowed_pct",
    "edges.restricted_attempts",
    "edges.delegation_pct",
    "edges.gate_passed",
    "edges.undeclared_tools",
    "decisions.allow",
    "decisions.deny",
    "decisions.require_approval",
    *(f"coverage.{d}" for d in ("tool", "path", "state", "boundary", "model", "overall")),
    "coverage.contracts",
    "coverage.skill",
    "runs.count",
    "runs.pass_rate",
    "runs.pass_rate_lower",
    "runs.p95_duration_s",
    "runs.behavior_consistency",
    "cost.total",
    "contracts.violations",
    "contracts.violations_critical",
    "contracts.violations_at_or_above_fail_on",
    "contracts.pass_rate",
    "narrative.divergences",
    "narrative.claimed_not_called",
    "spec.unmatched_agents",
    # docs/faults.md
    "faults.runs",
    "faults.recovered_pct",
    "faults.failure_paths_pct",
    "boundary.provoked",
    "boundary.natural",
    "tools.errors_only",
    "tools.arguments_pct",
)
CONTRACTS_GATE_TARGET = "contracts.violations_at_or_above_fail_on"  # default expect: maximum 0
NARRATIVE_GATE_TARGET = "narrative.claimed_not_called"  # default expect with narrative: maximum 0
UNMATCHED_TARGET = "spec.unmatched_agents"  # agents seen that no spec entry (nor "*") matches

# Undeclared agent names come from telemetry, so the per-name cache must not grow without bound.
_CACHE_LIMIT = 4096
MAX_SPEC_BYTES = 1 << 20  # a spec is a few KiB; past this it is not one (docs/guarantees.md)
# Matcher schemas resolve `$ref` in this registry only: it holds nothing and retrieves nothing, so
# a gate never fetches a URL (jsonschema's default would, with a deprecation warning).
_NO_RETRIEVAL: Registry[Any] = Registry()

# Keywords a matcher schema may use at its top level: anything else is almost surely a typo
# (``maximun: 0``) that JSON Schema would silently ignore, turning the gate into a no-op.
_SCHEMA_KEYWORDS = frozenset(Draft202012Validator.VALIDATORS) | {
    "$schema", "$id", "$anchor", "$dynamicAnchor", "$vocabulary", "$comment", "$defs",
    "title", "description", "default", "examples", "deprecated", "readOnly", "writeOnly",
    "then", "else", "contentEncoding", "contentMediaType", "contentSchema",
}  # fmt: skip


class SpecError(ValueError):
    """A spec the user must fix; ``str()`` is one line: ``<source>: <path.inside>: <what>``."""


@dataclass(frozen=True)
class BoundarySpec:
    """Thresholds that decide when a run counts as hitting a boundary condition
    (docs/semantics.md#detection-rules)."""

    max_steps: int | None = 25
    timeout_s: float | None = 120.0
    cost_limit_tokens: int | None = 200_000
    cost_limit_usd: float | None = None
    cost_limit_amount: float | None = None  # a budget in `cost_limit_currency`
    cost_limit_currency: str = "USD"  # (gen_ai.usage.cost.currency, ISO 4217)
    min_input_chars: int = 1
    # provider-native guardrail results, `<gen_ai.guardrail.result.type>=<value>`, that mean the
    # guardrail blocked what it checked: the spec says so, the product never guesses a verdict
    guardrail_blocked: tuple[str, ...] = ()
    conditions: tuple[str, ...] = DEFAULT_CONDITIONS  # enabled conditions, in CONDITIONS order
    # A `boundaries:` mapping in the agent's entry or `defaults`: only then does boundary coverage
    # count in the overall (docs/semantics.md#overall): undeclared, a never-tried boundary would
    # zero every new project's score.
    declared: bool = False


@dataclass(frozen=True)
class ExpectItem:
    """One gate check: the value at ``target`` must validate against the JSON Schema ``schema``."""

    target: str
    schema: Mapping[str, Any] = field(hash=False)

    @cached_property
    def validator(self) -> Any:
        """The schema's validator, built once: a scrape checks every agent's gate."""
        return SchemaValidator(self.schema, registry=_NO_RETRIEVAL)


def _default_gate() -> tuple[ExpectItem, ...]:
    """A fresh default gate, so no two specs share (and could mutate) one schema dict."""
    return (ExpectItem(DEFAULT_GATE_TARGET, {"maximum": 0}),)


@dataclass(frozen=True)
class GateSpec:
    """The spec's `gate:` section: what the default gate checks beyond restricted attempts."""

    fail_on: str | None = None  # None: each contract's own `fail_on`
    narrative: str = "fail"  # fail | report: does a claimed-not-called action fail the gate
    unmatched_agents: str = "warn"  # fail | warn: agents seen that no spec entry matches


@dataclass(frozen=True)
class AgentSpec:
    """Everything the engine needs to know about one agent, with defaults already merged in."""

    name: str
    tools: tuple[str, ...] | None = None  # None = not declared
    skills: tuple[str, ...] | None = None  # None = not declared (docs/semantics.md#skills)
    models: tuple[str, ...] = ()
    allowed: tuple[str, ...] | None = None  # tool_edges.allowed; None = not declared
    restricted: tuple[str, ...] = ()  # tool_edges.restricted
    # (pattern, entry): a tool another spec entry restricts, restricted here too (docs/gate.md)
    inherited: tuple[tuple[str, str], ...] = ()
    delegation: tuple[tuple[str, str], ...] = ()  # tool_edges.delegation as (from, to)
    contracts: tuple[Contract, ...] = ()  # contracts:, with contract.must_call as the first
    expect: tuple[ExpectItem, ...] = field(default_factory=_default_gate)
    granularity: str = "action"  # paths.granularity: action | tool
    max_depth: int = 10  # paths.max_depth
    expected_paths: tuple[tuple[str, ...], ...] | None = None  # paths.expected
    state_attributes: tuple[str, ...] = ()
    boundaries: BoundarySpec = BoundarySpec()
    min_runs: int = 10
    consistency_window: int = 100
    narrative: NarrativeSpec | None = None  # None = not declared: no content is read for it
    arguments: ArgumentSpec | None = None  # None = argument coverage off: no arguments are read
    optional: bool = False  # a declared agent no run matched is not inconclusive
    fail_on: str | None = None  # the spec's `gate.fail_on`, over each contract's own for the gate
    aliases: tuple[tuple[str, tuple[str, ...]], ...] = ()  # aliases:, for the tool lists too

    @cached_property
    def restricted_tools(self) -> ToolList:
        """`restricted` and `inherited` compiled: names, globs and aliases, compared normalised
        (an inherited pattern comes already expanded by its own entry's aliases)."""
        return ToolList((*self.restricted, *(p for p, _ in self.inherited)), dict(self.aliases))

    def restricted_by(self, tool: str) -> str | None:
        """The other spec entry whose restriction covers `tool`, when this agent's own lists do
        not (None when its own do, or nothing does): what a failing gate line names."""
        if ToolList(self.restricted, dict(self.aliases)).matches(tool):
            return None
        return next((entry for pattern, entry in self.inherited
                     if ToolList((pattern,)).matches(tool)), None)

    @cached_property
    def allowed_tools(self) -> ToolList:
        return ToolList(self.allowed or (), dict(self.aliases))

    @property
    def needs_content(self) -> bool:
        """A declared check reads output, input or tool arguments (classify then captures them);
        argument coverage reads tool arguments and the schemas spans offer."""
        return (any(c.needs_content for c in self.contracts) or self.narrative is not None
                or self.arguments is not None)

    @cached_property
    def checks(self) -> Checks:
        """What the judge reads of this agent: its compiled contracts and narrative check."""
        return Checks(self.contracts, self.narrative, frozenset(
            (*(self.tools or ()), *(self.allowed or ()), *self.restricted)), self.arguments)


@dataclass(frozen=True)
class ExpectResult:
    """The outcome of one ExpectItem; ``reason`` says why it failed ("" when it passed)."""

    target: str
    value: float | int | None
    passed: bool
    reason: str


# --- JSON Schema of the spec file. ``description`` doubles as the "expected ..." wording. ---


def _object(props: Mapping[str, Any], required: Sequence[str] = ()) -> dict[str, Any]:
    return {
        "type": "object",
        "properties": dict(props),
        "required": list(required),
        "additionalProperties": False,
    }


_NAME = {"type": "string", "minLength": 1}
_STRINGS = {"type": "array", "items": _NAME, "description": "an array of strings"}
_POSITIVE_INT = {"type": "integer", "minimum": 1}
_POSITIVE_INT_OR_NULL = {"type": ["integer", "null"], "minimum": 1}
_POSITIVE_NUMBER_OR_NULL = {"type": ["number", "null"], "exclusiveMinimum": 0}
_PATH_TOKEN = {
    "type": "string",
    "pattern": "^(llm|tool|delegate|tool:.+|delegate:.+)$",
    "description": "a path token (llm, tool, delegate, tool:<name> or delegate:<agent>)",
}

_ENTRY_PROPERTIES: dict[str, Any] = {
    "tools": _STRINGS,
    "skills": _STRINGS,
    "models": _STRINGS,
    "tool_edges": _object(
        {
            "allowed": _STRINGS,
            "restricted": _STRINGS,
            "delegation": {
                "type": "array",
                "items": _object({"from": _NAME, "to": _NAME}, required=("from", "to")),
                "description": "an array of {from, to} mappings",
            },
            "undeclared": {"enum": ["report", "fail"]},
        }
    ),
    "contract": _object({"must_call": _STRINGS}),
    "expect": {
        "type": "array",
        "items": _object(
            {
                "target": {"enum": list(EXPECT_TARGETS)},
                "matcher": _object(
                    {"schema": {"type": "object", "description": "a JSON Schema mapping"}},
                    required=("schema",),
                ),
            },
            required=("target", "matcher"),
        ),
        "description": "an array of {target, matcher} mappings",
    },
    "paths": _object(
        {
            "granularity": {"enum": ["action", "tool"]},
            "max_depth": _POSITIVE_INT,
            "expected": {
                "type": "array",
                "items": {
                    "type": "array",
                    "items": _PATH_TOKEN,
                    "description": "an array of path tokens",
                },
                "description": "an array of paths (each an array of path tokens)",
            },
        }
    ),
    "state_attributes": _STRINGS,
    "boundaries": _object(
        {
            "max_steps": _POSITIVE_INT_OR_NULL,
            "timeout_s": _POSITIVE_NUMBER_OR_NULL,
            "cost_limit_tokens": _POSITIVE_INT_OR_NULL,
            "cost_limit_usd": _POSITIVE_NUMBER_OR_NULL,
            "cost_limit_amount": _POSITIVE_NUMBER_OR_NULL,
            "cost_limit_currency": {"type": "string", "minLength": 1, "maxLength": 16},
            "min_input_chars": _POSITIVE_INT,
            "guardrail_blocked": {
                "type": "array",
                "minItems": 1,
                "items": {"type": "string", "pattern": "^[^=]+=.+$", "maxLength": 513},
                "description": "an array of guardrail results, each `<result.type>=<value>`",
            },
            "conditions": {
                "type": "array",
                "items": {"enum": list(CONDITIONS)},
                "description": "an array of condition names",
            },
        }
    ),
    "min_runs": _POSITIVE_INT,
    "consistency_window": _POSITIVE_INT,
    "arguments": {
        **_object(
            {
                "schemas": {
                    "type": "object",
                    "additionalProperties": {"type": "object",
                                             "description": "a JSON Schema mapping"},
                    "description": "a mapping of tool name to its input JSON Schema",
                },
                "overall": {"type": "boolean"},
            }
        ),
        "description": "a mapping: see [report.md](report.md#argument-coverage)",
    },
    "narrative": _object(
        {
            "claims": {
                "type": "object",
                "additionalProperties": {
                    "type": "array",
                    "items": {"type": "string", "minLength": 1},
                    "description": "an array of regular expressions",
                },
                "description": "a mapping of tool name to an array of regular expressions",
            },
            "must_report": _STRINGS,
            "fail_run": {"type": "boolean"},
            "synonyms": {"type": "boolean"},
            "words": {
                "type": "object",
                "propertyNames": {"enum": list(OTHER_LANGUAGES)},
                "additionalProperties": {
                    "type": "object",
                    "additionalProperties": _STRINGS,
                    "description": "a mapping of a tool-name word to its words in the language",
                },
                "description": "a mapping of language code to words (agentcov docs narrative)",
            },
        }
    ),
    **ENTRY_PROPERTIES,
}

SPEC_SCHEMA: Mapping[str, Any] = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    **_object(
        {
            "version": {"const": 1},
            "defaults": _object(_ENTRY_PROPERTIES),
            "restricted": _STRINGS,
            "gate": _object(
                {
                    "fail_on": {"enum": list(SEVERITIES)},
                    "narrative": {"enum": ["fail", "report"]},
                    "unmatched_agents": {"enum": ["fail", "warn"]},
                }
            ),
            "agents": {
                "type": "array",
                "items": _object(
                    {"name": _NAME, "optional": {"type": "boolean"}, **_ENTRY_PROPERTIES},
                    required=("name",),
                ),
                "description": "an array of agent entries",
            },
            "conventions": {
                "type": "array",
                "items": ENTRY_SCHEMA,
                "description": "an array of convention entries",
            },
            # YAML reads a bare `off` as false: both spellings mean the same
            "inference": {"enum": ["on", "off", True, False],
                          "description": "on or off"},
        },
        required=("version",),
    ),
    "$defs": {"selector": SELECTOR_DEF},
    "description": "a spec mapping (version: 1, defaults, restricted, gate, agents, conventions, "
                   "inference)",
}
_SPEC_VALIDATOR = Draft202012Validator(SPEC_SCHEMA)

_TYPE_WORDS = {
    "object": "a mapping",
    "array": "an array",
    "string": "a string",
    "integer": "an integer",
    "number": "a number",
    "boolean": "a boolean",
    "null": "null",
}
_BOUND_WORDS = {
    "minimum": "is less than the minimum of",
    "maximum": "is greater than the maximum of",
    "exclusiveMinimum": "is less than or equal to the minimum of",
    "exclusiveMaximum": "is greater than or equal to the maximum of",
}
_repr = reprlib.Repr()
_repr.maxstring = 40
_repr.maxother = 40

_PathPart = str | int


def _show(value: Any) -> str:
    """Render a value the way the user wrote it in YAML (``null``, ``true``), kept short."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return str(value).lower()
    if isinstance(value, float):
        return repr(round(value, 4))
    return _repr.repr(value)


def _expected(schema: Mapping[str, Any]) -> str:
    if "description" in schema:
        return str(schema["description"])
    types = schema.get("type", ())
    names = [types] if isinstance(types, str) else types
    return " or ".join(_TYPE_WORDS.get(t, t) for t in names)


def _explain(err: ValidationError | SchemaError) -> tuple[list[_PathPart], str]:
    """Turn a jsonschema error into (path inside the document, what was expected), in user words."""
    path: list[_PathPart] = list(err.absolute_path)
    instance: Any = err.instance
    limit: Any = err.validator_value
    schema: Any = err.schema
    kind, got = err.validator, _show(instance)
    if kind == "required":
        return path + [next(k for k in limit if k not in instance)], "required key is missing"
    if kind == "additionalProperties":
        known = list(schema.get("properties", {}))
        extra = next(k for k in instance if k not in known)
        return path + [extra], f"unknown key; expected one of: {', '.join(known)}"
    if kind == "type" or kind == "pattern":
        return path, f"expected {_expected(schema)}, got {got}"
    if kind == "const":
        return path, f"expected {_show(limit)}, got {got}"
    if kind == "enum":
        return path, f"expected one of: {', '.join(map(str, limit))}; got {got}"
    if kind == "minLength":
        return path, f"expected a non-empty string, got {got}"
    if kind == "maxLength":
        return path, f"expected at most {limit} characters, got {len(instance)}"
    if kind in ("minimum", "exclusiveMinimum"):
        sign = ">=" if kind == "minimum" else ">"
        return path, f"expected a value {sign} {_show(limit)}, got {got}"
    if kind in ("anyOf", "oneOf", "minProperties", "maxProperties", "minItems"):
        if "description" in schema:
            return path, f"expected {schema['description']}, got {got}"
        return path, f"expected a valid value for this keyword, got {got}"
    return path, err.message


def _dotted(path: Sequence[_PathPart]) -> str:
    out = ""
    for part in path:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else str(part))
    return out or "(top level)"


def _error(source: str, path: Sequence[_PathPart], what: str) -> SpecError:
    line = f"{source}: {_dotted(path)}: {what}"
    return SpecError(" ".join(part.strip() for part in line.splitlines()))


def _entries(doc: Mapping[str, Any]) -> list[tuple[list[_PathPart], Mapping[str, Any]]]:
    """The defaults and every agent entry, each with its path."""
    entries: list[tuple[list[_PathPart], Mapping[str, Any]]] = [
        (["defaults"], doc.get("defaults", {}))
    ]
    entries += [(["agents", i], e) for i, e in enumerate(doc.get("agents", []))]
    return entries


def _matchers(doc: Mapping[str, Any]) -> Iterator[tuple[list[_PathPart], Mapping[str, Any]]]:
    """Every matcher schema in the document, with its path, defaults first."""
    for prefix, entry in _entries(doc):
        for j, item in enumerate(entry.get("expect", [])):
            yield [*prefix, "expect", j, "matcher", "schema"], item["matcher"]["schema"]


def _claim_patterns(doc: Mapping[str, Any]) -> Iterator[tuple[list[_PathPart], str]]:
    """Every `narrative.claims` regex in the document, with its path, defaults first."""
    entries: list[tuple[list[_PathPart], Mapping[str, Any]]] = [
        (["defaults"], doc.get("defaults", {}))
    ]
    entries += [(["agents", i], e) for i, e in enumerate(doc.get("agents", []))]
    for prefix, entry in entries:
        for tool, regexes in entry.get("narrative", {}).get("claims", {}).items():
            for j, regex in enumerate(regexes):
                yield [*prefix, "narrative", "claims", tool, j], regex


_TOO_DEEP = "nested too deeply to be a spec"


def _refs(schema: Any, path: list[_PathPart]) -> Iterator[tuple[list[_PathPart], str]]:
    """Every `$ref` / `$dynamicRef` string in a schema, with its path (iterative: any depth)."""
    stack: list[tuple[list[_PathPart], Any]] = [(path, schema)]
    while stack:
        where, node = stack.pop()
        if isinstance(node, dict):
            for key, value in node.items():
                if key in ("$ref", "$dynamicRef") and isinstance(value, str):
                    yield [*where, key], value
                else:
                    stack.append(([*where, key], value))
        elif isinstance(node, list):
            stack.extend(([*where, i], v) for i, v in enumerate(node))


def _local_refs_only(schema: Any, path: list[_PathPart], source: str) -> None:
    """A schema in the spec may only refer inside itself: nothing is ever fetched."""
    for ref_path, ref in _refs(schema, path):
        if not ref.startswith("#"):
            raise _error(source, ref_path, f"$ref {ref[:80]!r} is not local to the schema "
                         "(agentcov never fetches a schema; use $defs and '#/$defs/...')")


def _validate(doc: Any, source: str) -> None:
    """Raise SpecError for the most relevant problem in ``doc``; return if it is a usable spec."""
    err = best_match(_SPEC_VALIDATOR.iter_errors(doc))
    if err is not None:
        raise _error(source, *_explain(err))
    for path, schema in _matchers(doc):
        try:
            Draft202012Validator.check_schema(schema)
        except SchemaError as bad:
            inner, what = _explain(bad)
            raise _error(source, path + inner, what) from None
        for where, what in schema_patterns(schema, path):
            raise _error(source, where, what)
        unknown = next((k for k in schema if k not in _SCHEMA_KEYWORDS), None)
        if unknown is not None:
            raise _error(source, [*path, unknown], "unknown JSON Schema keyword")
        _local_refs_only(schema, path, source)
    for prefix, entry in _entries(doc):
        for where, what in contract_problems(entry, prefix):
            raise _error(source, where, what)
        for path, schema in text_schemas(entry, prefix):
            _local_refs_only(schema, path, source)
    for path, regex in _claim_patterns(doc):
        try:
            compile_user_regex(regex)
        except UserRegexError as bad:
            raise _error(source, path, f"not a valid regular expression: {bad}") from None
    for i, convention in enumerate(doc.get("conventions", [])):
        for where, what in convention_problems(convention, ["conventions", i]):
            raise _error(source, where, what)
    first: dict[str, int] = {}
    for i, entry in enumerate(doc.get("agents", [])):
        name = entry["name"]
        if name in first:
            what = f"duplicate agent name {name!r} (first at agents[{first[name]}])"
            raise _error(source, ["agents", i, "name"], what)
        first[name] = i


# --- Building AgentSpecs from validated (and merged) entries. ---


def _plain(value: Any) -> Any:
    """A deep copy made of dicts and lists, which is what jsonschema checks types against."""
    if isinstance(value, Mapping):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_plain(v) for v in value]
    return value


def _merge(base: Mapping[str, Any], over: Mapping[str, Any]) -> dict[str, Any]:
    """Deep-merge mappings (``over`` wins); lists are replaced whole, never concatenated."""
    out = dict(base)
    for key, value in over.items():
        below = out.get(key)
        both = isinstance(below, Mapping) and isinstance(value, Mapping)
        out[key] = _merge(below, value) if both else value  # type: ignore[arg-type]
    return out


def _int_or_none(value: float | None) -> int | None:
    return None if value is None else int(value)


def _float_or_none(value: float | None) -> float | None:
    return None if value is None else float(value)


def _conditions(names: Sequence[str]) -> tuple[str, ...]:
    return tuple(c for c in CONDITIONS if c in names)


def _paths(value: Sequence[Sequence[str]]) -> tuple[tuple[str, ...], ...]:
    return tuple(tuple(p) for p in value)


def _delegation(value: Sequence[Mapping[str, str]]) -> tuple[tuple[str, str], ...]:
    return tuple((d["from"], d["to"]) for d in value)


def _narrative(value: Mapping[str, Any]) -> NarrativeSpec:
    claims = tuple(
        (tool, tuple(compile_user_regex(r) for r in regexes))
        for tool, regexes in sorted(value.get("claims", {}).items())
    )
    return NarrativeSpec(
        claims,
        tuple(value.get("must_report", ())),
        value.get("fail_run", True),
        value.get("synonyms", True),
        tuple(sorted(
            (lang, word.lower(), tuple(w.lower() for w in words))
            for lang, table in value.get("words", {}).items()
            for word, words in table.items()
        )),
    )


def _expect(value: Sequence[Mapping[str, Any]]) -> tuple[ExpectItem, ...]:
    return tuple(ExpectItem(x["target"], x["matcher"]["schema"]) for x in value)


# (AgentSpec field, location in the entry, converter); absent keys keep the dataclass default.
_AGENT_FIELDS: tuple[tuple[str, tuple[str, ...], Callable[[Any], Any]], ...] = (
    ("tools", ("tools",), tuple),
    ("skills", ("skills",), tuple),
    ("models", ("models",), tuple),
    ("allowed", ("tool_edges", "allowed"), tuple),
    ("restricted", ("tool_edges", "restricted"), tuple),
    ("delegation", ("tool_edges", "delegation"), _delegation),
    ("expect", ("expect",), _expect),
    ("granularity", ("paths", "granularity"), str),
    ("max_depth", ("paths", "max_depth"), int),
    ("expected_paths", ("paths", "expected"), _paths),
    ("state_attributes", ("state_attributes",), tuple),
    ("min_runs", ("min_runs",), int),
    ("consistency_window", ("consistency_window",), int),
    ("narrative", ("narrative",), _narrative),
    ("arguments", ("arguments",), ArgumentSpec.from_entry),
    ("optional", ("optional",), bool),
    ("aliases", ("aliases",), lambda m: tuple((k, tuple(v)) for k, v in m.items())),
)
_BOUNDARY_CONVERTERS: dict[str, Callable[[Any], Any]] = {
    "max_steps": _int_or_none,
    "timeout_s": _float_or_none,
    "cost_limit_tokens": _int_or_none,
    "cost_limit_usd": _float_or_none,
    "cost_limit_amount": _float_or_none,
    "cost_limit_currency": str,
    "min_input_chars": int,
    "guardrail_blocked": tuple,
    "conditions": _conditions,
}


# Targets through which an expect list states its own threshold for a default-gate check: naming
# one of them replaces that check; naming none keeps it.
_RESTRICTED_TARGETS = frozenset({DEFAULT_GATE_TARGET, "edges.gate_passed"})
_CONTRACT_TARGETS = frozenset(
    {"contracts.violations", "contracts.violations_critical", CONTRACTS_GATE_TARGET}
)
_NARRATIVE_TARGETS = frozenset({"narrative.divergences", NARRATIVE_GATE_TARGET})


def _gate_expect(
    expect: tuple[ExpectItem, ...], contracts: bool, narrative: bool, gate: GateSpec
) -> tuple[ExpectItem, ...]:
    """The expect list with every declared check it does not state itself (declared means
    gated): restricted attempts always, contract violations at or above `fail_on` when contracts
    are declared, claimed-not-called actions when `narrative:` is (unless `gate.narrative` is
    `report`)."""
    named = {item.target for item in expect}
    wanted = [
        (True, _RESTRICTED_TARGETS, DEFAULT_GATE_TARGET),
        (contracts, _CONTRACT_TARGETS, CONTRACTS_GATE_TARGET),
        (narrative and gate.narrative == "fail", _NARRATIVE_TARGETS, NARRATIVE_GATE_TARGET),
    ]
    added = tuple(
        ExpectItem(target, {"maximum": 0})
        for on, family, target in wanted
        if on and not named & family
    )
    return (*expect, *added)


def _agent(
    name: str, entry: Mapping[str, Any], gate: GateSpec = GateSpec(),
    restricted: Sequence[str] = (),
) -> AgentSpec:
    """One AgentSpec from a merged entry; `restricted` are the tools every agent is denied."""
    kwargs: dict[str, Any] = {}
    for attr, where, convert in _AGENT_FIELDS:
        node: Any = entry
        for key in where:
            node = node.get(key) if isinstance(node, Mapping) else None
        if node is not None:
            kwargs[attr] = convert(node)
    kwargs["restricted"] = tuple(dict.fromkeys((*restricted, *kwargs.get("restricted", ()))))
    bounds = {k: _BOUNDARY_CONVERTERS[k](v) for k, v in entry.get("boundaries", {}).items()}
    bounds["declared"] = "boundaries" in entry
    if bounds.get("guardrail_blocked") and "conditions" not in bounds:
        bounds["conditions"] = (*DEFAULT_CONDITIONS, "guardrail_blocked")
    kwargs["contracts"] = build_contracts(entry)
    expect = _gate_expect(
        kwargs.get("expect", ()), bool(kwargs["contracts"]), "narrative" in kwargs, gate
    )
    if entry.get("tool_edges", {}).get("undeclared") == "fail" and all(
        item.target != UNDECLARED_TARGET for item in expect
    ):  # the undeclared-tool report becomes a gate check
        expect = (*expect, ExpectItem(UNDECLARED_TARGET, {"maximum": 0}))
    kwargs["expect"] = expect
    return AgentSpec(name=name, boundaries=BoundarySpec(**bounds), fail_on=gate.fail_on, **kwargs)


def _restricted_by_entry(
    defaults: Mapping[str, Any], entries: Sequence[Mapping[str, Any]]
) -> tuple[tuple[str, str, str], ...]:
    """(name as written, pattern, entry) for every tool an entry's own `tool_edges.restricted`
    lists, expanded by that entry's aliases: the tools restricted somewhere in the spec."""
    out = []
    for entry in entries:
        aliases = _merge(defaults, entry).get("aliases", {})
        for name in entry.get("tool_edges", {}).get("restricted", ()):
            out += [(name, pattern, entry["name"]) for pattern in aliases.get(name, (name,))]
    return tuple(dict.fromkeys(out))


def _inherit(
    spec: AgentSpec, elsewhere: Sequence[tuple[str, str, str]],
    entry: Mapping[str, Any] | None = None,
) -> AgentSpec:
    """`spec` with every tool another entry restricts restricted too, so a misspelt or
    unmatched entry cannot let its restricted tool run: only a named entry that lists the tool
    under its own `tool_edges.allowed` (not through `defaults` or `*`) is exempt."""
    own = set(spec.restricted)
    allowed = set() if entry is None or spec.name == "*" else set(
        entry.get("tool_edges", {}).get("allowed", ()))
    inherited = tuple(dict.fromkeys(
        (pattern, source) for name, pattern, source in elsewhere
        if source != spec.name and pattern not in own and name not in allowed
        and pattern not in allowed))
    return replace(spec, inherited=inherited) if inherited else spec


def _canonical(document: Mapping[str, Any]) -> str:
    """One text per document, whatever its key order (a YAML date, rare in a spec, as text)."""
    return json.dumps(document, sort_keys=True, separators=(",", ":"), default=str)


class CoverageSpec:
    """A validated spec: declared agent entries plus the fallback for agents it does not name."""

    source: str
    agents: Mapping[str, AgentSpec]
    gate: GateSpec

    def __init__(self, source: str, document: Mapping[str, Any]) -> None:
        """Build from an already validated plain document; use the classmethods to get one."""
        self.source = source
        self._document = document
        defaults = document.get("defaults", {})
        entries = document.get("agents", [])
        self.gate = GateSpec(**document.get("gate", {}))
        # tools denied to every agent: top-level `restricted` and `defaults.tool_edges.restricted`
        # (an entry's own list adds to them), so a renamed or unlisted agent still trips them
        restricted = (*document.get("restricted", ()),
                      *defaults.get("tool_edges", {}).get("restricted", ()))
        elsewhere = _restricted_by_entry(defaults, entries)
        # every tool some agent is denied, for what runs before the agent is known (the
        # conventions guard, semconv/guard.py)
        self.restricted_anywhere = ToolList((*restricted, *(p for _, p, _ in elsewhere)))
        self.agents = MappingProxyType({
            e["name"]: _inherit(_agent(e["name"], _merge(defaults, e), self.gate, restricted),
                                elsewhere, e)
            for e in entries
        })
        star = self.agents.get("*")
        self._fallback = _inherit(
            star if star is not None else _agent("*", defaults, self.gate, restricted), elsewhere)
        self._cache: dict[str, AgentSpec] = dict(self.agents)
        specs = (*self.agents.values(), self._fallback)
        self._state_attributes = tuple(dict.fromkeys(a for s in specs for a in s.state_attributes))
        self._needs_content = any(s.needs_content for s in specs)
        self.conventions: tuple[Mapping[str, Any], ...] = tuple(document.get("conventions", ()))
        # spans no convention entry claims get a kind by inference (docs/conventions.md)
        self.inference: bool = document.get("inference", True) not in (False, "off")

    @classmethod
    def from_yaml(cls, path: str | os.PathLike[str]) -> CoverageSpec:
        """Load ``agentcov.yaml``; any problem (unreadable, not YAML, invalid) is one SpecError."""
        source = os.fspath(path)
        try:
            with open(path, "rb") as fh:
                raw = fh.read(MAX_SPEC_BYTES + 1)
            if len(raw) > MAX_SPEC_BYTES:
                raise _error(source, [], f"larger than {MAX_SPEC_BYTES} bytes; not a spec")
            text = raw.decode("utf-8-sig")
        except UnicodeDecodeError as exc:
            raise SpecError(f"{source}: not UTF-8 text (bad byte at offset {exc.start})") from None
        except OSError as exc:
            raise SpecError(f"{source}: cannot read: {exc.strerror or exc}") from None
        import yaml  # PyYAML's import (~15 ms): only a spec file needs it, not every command

        from . import guarded_yaml

        try:
            data = guarded_yaml.load(text)
        except guarded_yaml.TooLarge as exc:
            raise _error(source, [], f"refused: {exc}") from None
        except yaml.MarkedYAMLError as exc:
            mark = exc.problem_mark or exc.context_mark
            where = f"line {mark.line + 1}, column {mark.column + 1}" if mark else "(top level)"
            raise _error(source, [where], f"not valid YAML: {exc.problem or exc.context}") from None
        except yaml.YAMLError as exc:
            raise _error(source, [], f"not valid YAML: {exc}") from None
        except RecursionError:  # PyYAML composes nested collections recursively
            raise _error(source, [], _TOO_DEEP) from None
        if data is None:
            raise _error(source, [], "the file is empty; expected a spec with version: 1")
        return cls.from_dict(data, source)

    @classmethod
    def from_dict(cls, data: Mapping[str, Any], source: str = "<dict>") -> CoverageSpec:
        """Validate ``data`` (already-parsed YAML/JSON) and build the spec; ``source`` names it."""
        try:
            document = _plain(data)
            _validate(document, source)
        except RecursionError:  # jsonschema checks a nested matcher schema recursively
            raise _error(source, [], _TOO_DEEP) from None
        return cls(source, document)

    @classmethod
    def empty(cls) -> CoverageSpec:
        """The spec used when none is given: defaults everywhere, default gate for every agent."""
        return cls.from_dict({"version": 1})

    def for_agent(self, name: str) -> AgentSpec:
        """The entry for ``name``; else the ``*`` entry renamed; else the defaults. Cached."""
        spec = self._cache.get(name)
        if spec is None:
            spec = replace(self._fallback, name=name)
            if len(self._cache) < _CACHE_LIMIT:
                self._cache[name] = spec
        return spec

    def with_inventory(
        self, tools: Sequence[str] | None, models: Sequence[str] | None
    ) -> CoverageSpec:
        """CLI ``--tools``/``--models`` act as defaults: entries declaring their own keep them."""
        defaults = dict(self._document.get("defaults", {}))
        if tools is not None:
            defaults["tools"] = list(tools)
        if models is not None:
            defaults["models"] = list(models)
        return type(self).from_dict({**self._document, "defaults": defaults}, self.source)

    def without_inference(self) -> CoverageSpec:
        """The same spec with `inference: off` (the CLI's `--no-inference`, pytest's
        `--agentcov-no-inference`)."""
        return type(self).from_dict({**self._document, "inference": "off"}, self.source)

    def record(self) -> dict[str, Any]:
        """What a data file keeps of the spec its runs were judged under: the source and the
        validated document, as JSON (docs/state-format.md)."""
        return {"source": self.source, "document": json.loads(_canonical(self._document))}

    def judges_as(self, document: Mapping[str, Any]) -> bool:
        """Is `document` (a data file's recorded spec) this spec's own document?"""
        return _canonical(document) == _canonical(self._document)

    @property
    def state_attribute_names(self) -> tuple[str, ...]:
        """Every span attribute any entry folds into states, so inputs know what to keep."""
        return self._state_attributes

    @property
    def needs_content(self) -> bool:
        """Some entry declares a check that reads content, so classify must capture it."""
        return self._needs_content


def _reason(err: ValidationError) -> str:
    """A short failure reason; numbers are rounded so ratios do not print 16 digits."""
    words = _BOUND_WORDS.get(str(err.validator))
    if words is not None:
        return f"{_show(err.instance)} {words} {_show(err.validator_value)}"
    return err.message


def evaluate_expect(
    items: Sequence[ExpectItem], values: Mapping[str, float | int | None]
) -> list[ExpectResult]:
    """Check each item against ``values``; a missing value or an unknown target never passes."""
    results = []
    for item in items:
        if item.target not in values:
            results.append(ExpectResult(item.target, None, False, "unknown target"))
            continue
        value = values[item.target]
        if value is None:
            results.append(ExpectResult(item.target, None, False, "n/a: no value"))
            continue
        try:
            err = best_match(item.validator.iter_errors(value))
        except Unresolvable as exc:  # a spec built around the loader's check: never a pass
            results.append(ExpectResult(item.target, value, False, f"unresolvable {exc}"))
            continue
        reason = "" if err is None else _reason(err)
        results.append(ExpectResult(item.target, value, err is None, reason))
    return results
