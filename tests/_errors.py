"""The tests' oracle of how a span failed: the Python reading of the core's errors.rs
(`error_type`, `exception_error`, `limit_signal`), which the package reads through the core
(`compiled.outcome`); tests/_fields.py and tests/_rule.py read spans with it, and
tests/test_core_fields.py checks the core against it."""

from __future__ import annotations

from otel_agentcov.records import STATUS_ERROR, SpanRecord
from otel_agentcov.semconv.common import error_limit, short_error_name


def error_type(record: SpanRecord) -> str | None:
    """error.type, else the first exception event's type, else `_OTHER` for an ERROR status;
    an error.type that names no type (Mastra's `unknown`, a message) defers to the event."""
    attrs = record.attributes
    raw = attrs.get("error.type")
    if isinstance(raw, str) and raw:
        name = short_error_name(raw)
        if name != "_OTHER" and name.lower() != "unknown":
            return name
        return _exception_type(record) or "_OTHER"
    failed = record.status_code == STATUS_ERROR or attrs.get("gen_ai.tool.status") == "error"
    if not failed:
        return None
    return _exception_type(record) or "_OTHER"


def _exception_type(record: SpanRecord) -> str | None:
    for name, event_attrs in record.events:
        if name == "exception":
            etype = event_attrs.get("exception.type")
            if isinstance(etype, str) and etype:
                return short_error_name(etype)
    return None


def exception_error(record: SpanRecord) -> str | bool | None:
    """The failure an `exception` event says a span ended in, whatever its status (where
    nothing else said it failed: inference, and an entry's `{exception: true}` source): its
    error type as `error_type` reads it, `True` where nothing names one; None without such an
    event. Instrumentations record only an exception left unhandled, and one that marks every
    span OK (LangSmith's JavaScript SDK) says nothing by it: doubt fails the span."""
    if all(name != "exception" for name, _ in record.events):
        return None
    return error_type(record) or _exception_type(record) or True


def limit_signal(record: SpanRecord, error: str | None) -> str | None:
    """Which boundary a failure signals; status text and the exception's message (LangSmith
    records every exception as `Exception`, the class and its text only in the message) are read
    here only, never used as a label."""
    if error is None:
        return None
    return error_limit(error, (record.status_description, _exception_message(record)))


def _exception_message(record: SpanRecord) -> str | None:
    for name, event_attrs in record.events:
        if name == "exception":
            message = event_attrs.get("exception.message")
            return message if isinstance(message, str) else None
    return None


def outcome(record: SpanRecord, flag: str | None = None) -> tuple[str | None, str | None, bool]:
    """The core's `outcome`: `flag`, else what an exception event says (`_OTHER` where it
    names no type), the limit that failure signals, and whether `error_type` failed the span."""
    thrown = exception_error(record)
    error = flag if flag is not None else (
        None if thrown is None else thrown if isinstance(thrown, str) else "_OTHER")
    return error, limit_signal(record, error), error_type(record) is not None
