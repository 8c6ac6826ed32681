"""Types of the compiled core (core/src/lib.rs; docs/core.md)."""

from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any, Literal

from opentelemetry.sdk.trace import ReadableSpan

from .records import SpanRecord
from .semconv.step import Step

__version__: str

CORE_FAILED: str

class TraceFormatError(ValueError):
    """Bad input: a payload that is not what it claims to be (core/src/door.rs)."""

class TooLarge(ValueError):
    """The payload holds more spans or attributes than allowed."""

class CoreFailed(TraceFormatError):
    """A panic of the core on an input, turned into bad input at its door."""

def bind_record_type(record: type[SpanRecord]) -> None: ...

def otlp_spans(
    data: bytes,
    level: Literal["request", "resource_spans", "scope_spans", "span"] = "request",
    *,
    offset: int = 0,
    resource_index: int = 0,
    scope_index: int = 0,
    span_index: int = 0,
    keep: Callable[[int], bool] | None = None,
    caps: tuple[int, int] | None = None,
    resource: dict[str, Any] | None = None,
    scope_name: str | None = None,
) -> list[SpanRecord]: ...
def otlp_resource(
    data: bytes, *, offset: int = 0, caps: tuple[int, int] | None = None
) -> dict[str, Any]: ...
def otlp_scope_name(
    data: bytes, *, offset: int = 0, caps: tuple[int, int] | None = None
) -> str: ...

class Classifier:
    """The convention tables, interpreted by the core (docs/conventions.md)."""

    def __init__(
        self, entries: Iterable[Mapping[str, Any]], builtin: bool, step: type[Step]
    ) -> None: ...
    def before(self, conventions: Iterable[Mapping[str, Any]]) -> Classifier: ...
    def declaring(self, names: list[str]) -> Classifier: ...
    def build(
        self, record: SpanRecord, kind: str, state_attributes: list[str],
        agent: str | None = None, tool: str | None = None,
    ) -> Step:
        """The Step an entry of `kind` gives the record (core/src/classify/py.rs)."""
    def classify(
        self, record: SpanRecord, state_attributes: Sequence[str]
    ) -> tuple[Step, bool]: ...
    def otlp_steps(
        self,
        data: bytes,
        level: Literal["request", "resource_spans"] = "request",
        *,
        offset: int = 0,
        resource_index: int = 0,
        keep: Callable[[int], bool] | None = None,
        caps: tuple[int, int] | None = None,
        state_attributes: list[str] = ...,
        shapes: bool = False,
    ) -> list[str | tuple[Step, bool] | tuple[Step, bool, SpanRecord]]: ...

def otlp_span_events(
    data: bytes, names: list[str], keys: list[str], level: str = "request", *, offset: int = 0,
    resource_index: int = 0,
) -> list[tuple[int, int, int, dict[str, Any], list[tuple[str, dict[str, Any]]]]]:
    """The span events named in `names` (core/src/otlp_events.rs)."""

def otlp_log_events(
    data: bytes, names: list[str], keys: list[str], *, name_key: str, count_key: str,
    keys_key: str, max_keys: int, caps: tuple[int, int] | None = None,
) -> list[tuple[str | None, dict[str, Any], int, int, int, str | None]]:
    """The log records holding an event named in `names` (core/src/otlp_logs.rs)."""

def handoff(name: str) -> tuple[bool, str | None]:
    """Whether a tool's call hands control over, and to whom (core/src/classify/py.rs)."""

def outcome(record: SpanRecord, flag: str | None = None) -> tuple[str | None, str | None, bool]:
    """(error, its limit, the status or error.type failed it) of a span inference read
    (core/src/classify/py.rs)."""

def local_root(has_parent: bool, parent_remote: bool, span_kind: int, step_kind: str) -> bool:
    """Whether a span starts a local subtree (core/src/classify/root.rs)."""

def sdk_step(
    classifier: Classifier, span: ReadableSpan, state_attributes: list[str],
    unmatched: bool = False,
) -> str | tuple[Step, bool] | tuple[Step, bool, SpanRecord]: ...

class TrialFile:
    """A trials file read by `parse_trials` (core/src/trials)."""

    def __len__(self) -> int: ...
    def agents(self) -> list[str]: ...
    def doc_shape(self) -> tuple[list[str] | None, str | None, bool]: ...
    def tools(self) -> list[str]: ...
    def other_steps(self) -> list[tuple[str | None, str | None]]: ...
    def unknown_keys(self) -> list[tuple[str, str]]: ...
    def kinds(self) -> list[tuple[str, int]]: ...
    def fold(
        self,
        params: Mapping[
            str, tuple[bool, int, list[str], int | None, float | None, bool, list[str], int]
        ],
        trace_base: int,
    ) -> dict[str, dict[str, Any]]: ...

def parse_trials(
    data: bytes, state_attributes: Sequence[str], max_spans: int
) -> TrialFile | None: ...

def trace_ids(resource_spans: bytes) -> frozenset[int]: ...

# inference's readers of one string (core/src/inference.rs)
def bind_inference_words(vocabulary: Mapping[str, Any]) -> None: ...
def words(text: str) -> tuple[str, ...]: ...
def norm(text: str) -> str: ...
def kind_key(key: str) -> tuple[str, ...] | None: ...
def tag_key(key: str) -> tuple[str, ...] | None: ...
def kind_word(value: object) -> str | None: ...
def tag_kind(value: object) -> tuple[str, str] | None: ...
def affix_kind(word: str) -> str | None: ...
def usage_key(key: str) -> bool: ...
def provider(value: object) -> bool: ...
def name_affix(name: str) -> tuple[str, str, tuple[str, str]] | None: ...
def span_affix(name: str, http: bool = False) -> tuple[str, str, tuple[str, str]] | None: ...
def lifecycle_stem(name: str) -> str | None: ...
def go_function(name: str) -> str | None: ...
def tool_prefixed(name: str) -> str | None: ...
def agent_name_ok(name: str | None) -> bool: ...
def last_crumb(name: str) -> str: ...
def code_path(name: str) -> bool: ...
def glob_literal(text: str) -> str: ...
