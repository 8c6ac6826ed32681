"""The one door to the compiled core (`_core`, the Rust crate in core/: docs/core.md).

No other package module imports `_core` (docs/architecture.md#the-seam): the core's functions
and its errors are named here. The errors are the core's own, ValueErrors: `TraceFormatError`
(bad input), `TooLarge` (past the element caps) and `CoreFailed`, a TraceFormatError that a panic
of the core becomes at its door, so a caller refuses it as it refuses bad input and no caller
handles a panic. The core imports nothing from the package: the types it builds are handed in,
the SpanRecord type here, the Step class by its owner (`semconv`) to each Classifier, the
inference vocabulary by its owner (`semconv/inference.py`, `bind_inference_words`).
"""

from __future__ import annotations

from dataclasses import dataclass

from . import _core
from ._core import (
    CORE_FAILED,
    Classifier,
    CoreFailed,
    TooLarge,
    TraceFormatError,
    TrialFile,
    affix_kind,
    agent_name_ok,
    bare_name,
    bind_inference_words,
    caller_source,
    code_path,
    failure_source,
    glob_literal,
    go_function,
    handoff,
    handoff_source,
    kind_key,
    kind_word,
    kind_words,
    last_crumb,
    lifecycle_stem,
    local_root,
    model_in_name,
    model_in_parameters,
    model_key_rank,
    model_source,
    name_affix,
    name_key,
    norm,
    otlp_log_events,
    otlp_resource,
    otlp_scope_name,
    otlp_span_events,
    otlp_spans,
    outcome,
    parse_trials,
    provider,
    requested_in_keys,
    sdk_step,
    span_affix,
    tag_key,
    tag_kind,
    tokens_source,
    tool_names,
    tool_prefixed,
    tool_readings,
    trace_ids,
    usage_key,
    words,
)
from .records import SpanRecord

__all__ = [
    "CORE_FAILED",
    "Classifier",
    "CoreFailed",
    "TooLarge",
    "TraceFormatError",
    "TrialFile",
    "affix_kind",
    "agent_name_ok",
    "bare_name",
    "bind_inference_words",
    "caller_source",
    "code_path",
    "failure_source",
    "glob_literal",
    "go_function",
    "handoff",
    "handoff_source",
    "Inferred",
    "infer",
    "kind_key",
    "kind_words",
    "kind_word",
    "last_crumb",
    "lifecycle_stem",
    "local_root",
    "model_in_parameters",
    "model_key_rank",
    "model_in_name",
    "model_source",
    "name_affix",
    "name_key",
    "norm",
    "otlp_log_events",
    "otlp_resource",
    "otlp_scope_name",
    "otlp_span_events",
    "otlp_spans",
    "outcome",
    "parse_trials",
    "provider",
    "requested_in_keys",
    "sdk_step",
    "span_affix",
    "tag_key",
    "tag_kind",
    "tokens_source",
    "tool_names",
    "tool_prefixed",
    "tool_readings",
    "trace_ids",
    "usage_key",
    "words",
]

_core.bind_record_type(SpanRecord)


@dataclass(frozen=True, slots=True)
class Inferred:
    """What inference read of one span (semconv/inference.py, the core's `infer`): its kind
    (`other` when no evidence or a conflict), how it was found, the attribute or name pattern
    that said so, and where its name came from."""

    kind: str
    evidence: str | None  # BY_ATTRIBUTE, BY_NAME, BY_GENAI; CANDIDATE for no evidence; None
    key: str | None = None  # the kind attribute (BY_ATTRIBUTE) or the GenAI key (BY_GENAI)
    value: str | None = None  # its kind word, as written (never content: a vocabulary word)
    affix: tuple[str, str] | None = None  # the span name's (glob, regex with the name as (.+))
    name: str | None = None  # the agent or tool name (or a candidate's)
    name_key: str | None = None  # the attribute the name came from (None: the span name)
    conflict: str | None = None  # why kinds that disagree left it unclassified


def infer(record: SpanRecord) -> Inferred:
    """The kind the span's own evidence gives (docs/conventions.md#inference): the core's
    reading, its fields made the package's `Inferred` here, the one place it crosses."""
    return Inferred(*_core.infer(record))
