"""SpanRecord: the one normalized view every input (SDK, OTLP, trial files) is converted to.

Converting is the only input-specific code; everything downstream reads SpanRecords only.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from functools import cache
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from opentelemetry.sdk.trace import ReadableSpan

STATUS_UNSET, STATUS_OK, STATUS_ERROR = 0, 1, 2
SPAN_KIND_SERVER = 1  # SpanRecord.kind follows the SDK's SpanKind values
_EMPTY: Mapping[str, Any] = {}


@dataclass(slots=True)
class SpanRecord:
    """Just what classification needs; attribute values are read, never stored past classify."""

    trace_id: int
    span_id: int
    parent_id: int | None
    name: str
    kind: int = 0
    start_ns: int = 0
    end_ns: int = 0
    status_code: int = STATUS_UNSET
    status_description: str | None = None
    attributes: Mapping[str, Any] = field(default_factory=dict)
    events: Sequence[tuple[str, Mapping[str, Any]]] = ()
    scope_name: str = ""
    resource_attributes: Mapping[str, Any] = field(default_factory=dict)
    parent_remote: bool = False


def valid_id(value: object, bits: int, least: int = 1) -> bool:
    """An int id (not zero, unless `least` says so) that fits its OTLP width. The API takes any
    value for one (a float trace id once made `snapshot()` raise printing it)."""
    return type(value) is int and least <= value < 1 << bits


@cache
def _sdk_span_type() -> type:
    """The SDK's ReadableSpan, imported on first use: the offline commands never need the SDK."""
    from opentelemetry.sdk.trace import ReadableSpan

    return ReadableSpan


def from_readable_span(span: ReadableSpan) -> SpanRecord:
    """Convert an SDK span; runs off the host's hot path (in the processor's worker)."""
    if type(span) is _sdk_span_type():  # subclasses may override properties: honour them
        try:
            return _from_sdk_fields(span)
        except AttributeError:  # another SDK version's layout: the public properties it is
            pass
    return _from_properties(span)


def _from_sdk_fields(span: Any) -> SpanRecord:
    """The SDK ReadableSpan's own fields, read without its properties' per-call copies.

    `span.attributes` wraps the frozen attribute dict in a proxy that `dict()` copies key by key,
    and `span.events` copies the event list; the ended span never changes, so read them in place.
    Equivalence with `_from_properties` is tested on real SDK spans.
    """
    ctx = span._context
    parent = span._parent
    status = span._status
    scope = span._instrumentation_scope
    resource = span._resource
    raw = span._attributes
    attributes = raw._dict if raw and raw._immutable else dict(raw) if raw else _EMPTY
    events = span._events
    return SpanRecord(
        ctx.trace_id if ctx is not None else 0,
        ctx.span_id if ctx is not None else 0,
        parent.span_id if parent is not None else None,
        span._name or "",
        span._kind.value,
        span._start_time or 0,
        span._end_time or 0,
        status.status_code.value,
        status.description,
        attributes,
        tuple((e.name, e.attributes or _EMPTY) for e in events) if events else (),
        scope.name if scope is not None else "",
        resource.attributes if resource is not None else _EMPTY,
        bool(parent.is_remote) if parent is not None else False,
    )


def _from_properties(span: ReadableSpan) -> SpanRecord:
    ctx = span.context
    parent = span.parent
    status = span.status
    scope = span.instrumentation_scope
    resource = span.resource
    return SpanRecord(
        trace_id=ctx.trace_id if ctx is not None else 0,
        span_id=ctx.span_id if ctx is not None else 0,
        parent_id=parent.span_id if parent is not None else None,
        parent_remote=bool(parent.is_remote) if parent is not None else False,
        name=span.name or "",
        kind=span.kind.value,
        start_ns=span.start_time or 0,
        end_ns=span.end_time or 0,
        status_code=status.status_code.value,
        status_description=status.description,
        # one copy into a plain dict: the SDK's mapping costs two Python calls per lookup
        attributes=dict(span.attributes) if span.attributes else _EMPTY,
        events=tuple((e.name, e.attributes or _EMPTY) for e in span.events),
        scope_name=scope.name if scope is not None else "",
        resource_attributes=resource.attributes if resource is not None else _EMPTY,
    )
