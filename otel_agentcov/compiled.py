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
    bind_inference_words,
    code_path,
    glob_literal,
    go_function,
    handoff,
    kind_key,
    kind_word,
    last_crumb,
    lifecycle_stem,
    local_root,
    name_affix,
    norm,
    otlp_log_events,
    otlp_resource,
    otlp_scope_name,
    otlp_span_events,
    otlp_spans,
    outcome,
    parse_trials,
    provider,
    sdk_step,
    span_affix,
    tag_key,
    tag_kind,
    tool_prefixed,
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
    "bind_inference_words",
    "code_path",
    "glob_literal",
    "go_function",
    "handoff",
    "kind_key",
    "kind_word",
    "last_crumb",
    "lifecycle_stem",
    "local_root",
    "name_affix",
    "norm",
    "otlp_log_events",
    "otlp_resource",
    "otlp_scope_name",
    "otlp_span_events",
    "otlp_spans",
    "outcome",
    "parse_trials",
    "provider",
    "sdk_step",
    "span_affix",
    "tag_key",
    "tag_kind",
    "tool_prefixed",
    "trace_ids",
    "usage_key",
    "words",
]

_core.bind_record_type(SpanRecord)
