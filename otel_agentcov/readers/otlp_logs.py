"""OTLP log payloads (protobuf and OTLP/JSON) -> the decision, state and guardrail events they
carry; and the same events carried as span events in protobuf trace payloads, which the
compiled core decodes (`span_events_from_protobuf`).

Events are log records (docs/instrumentations.md#events). Of a record only the event name, the
trace and span ids, the time and the attributes `semconv.events` reads are looked at: never the
body or any other attribute, so a prompt in a log record is not even decoded into a string here.
Protobuf is read by the compiled core (docs/core.md): log records on the wire (the few fields
above, nothing else allocated), span events by the spans' decoder. The sniffing of a file's
first bytes (`is_logs_protobuf`) stays here.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from .. import compiled
from ..semconv.events import (
    EVENT_NAME_KEY,
    EVENT_NAMES,
    GUARDRAIL_KEYS,
    INVALID,
    INVALID_EVENT,
    KEY_COUNT_KEY,
    KEYS_KEY,
    MAX_STATE_KEYS,
    OUTCOME_KEY,
    STATE_KEYS,
    Event,
    InvalidEvent,
    event,
    service_agent,
    span_events,
)
from .errors import TraceFormatError
from .otlp import Keep, _get, _json_attributes, _json_id, _json_int, _list, _object
from .otlp_size import ElementCaps

# the attributes read from a log record; any other (content included) is skipped undecoded
_READ = frozenset({EVENT_NAME_KEY, OUTCOME_KEY, "gen_ai.tool.call.id", "gen_ai.tool.name",
                   *STATE_KEYS, *GUARDRAIL_KEYS})
_NAMES, _READ_KEYS = sorted(EVENT_NAMES), sorted(_READ)  # as the core takes them
_LEN = 2


LogItem = Event | InvalidEvent


def _item(found: Event | str | None, keep: Keep) -> LogItem | None:
    if found is None:
        return None
    if isinstance(found, str):
        return INVALID_EVENT if found == INVALID else None
    return found if keep is None or keep(found.trace_id) else None


# ---------------------------------------------------------------- protobuf


def events_from_protobuf(
    payload: bytes, where: str = "request", keep: Keep = None, caps: ElementCaps | None = None,
) -> list[LogItem]:
    """The decision and state events of ExportLogsServiceRequest (or LogsData) bytes, read by
    the compiled core (`compiled.otlp_log_events`); TraceFormatError naming `where` when they
    do not parse, TooLarge past `caps` (records, attributes).

    Read on the wire, not parsed whole: a parser allocates per element, so 8 MB of empty log
    records once took 513 MB before the caps were counted (80 MB, the service's limit: about
    5 GB). Only our events are allocated, and the caps stop the walk as they pass."""
    try:
        records = compiled.otlp_log_events(
            payload, _NAMES, _READ_KEYS, name_key=EVENT_NAME_KEY, count_key=KEY_COUNT_KEY,
            keys_key=KEYS_KEY, max_keys=MAX_STATE_KEYS,
            caps=None if caps is None else (caps.max_spans, caps.max_attributes))
    except TraceFormatError as exc:  # a panic of the core too (CoreFailed): refused alike
        raise TraceFormatError(f"{where}: {exc}") from None
    found: list[LogItem] = []
    for name, attributes, trace_id, span_id, time_ns, service in records:
        agent = service_agent(None if service is None else {"service.name": service})
        item = _item(event(name, attributes, trace_id, span_id, time_ns, agent), keep)
        if item is not None:
            found.append(item)
    return found


def span_events_from_protobuf(payload: bytes, where: str = "request", keep: Keep = None,
                              resource_spans: bool = False) -> list[Event]:
    """The decision, state and guardrail events that spans of an ExportTraceServiceRequest
    (or, with `resource_spans`, of one ResourceSpans message) carry as span events, recorded
    in their span (docs/semantics.md#decisions): the compiled core classifies protobuf spans
    without their events, so it reads them here too (`compiled.otlp_span_events`: a payload
    holding none of the event names is not decoded, and of an event only the attributes
    `semconv.events` reads cross). Unusable events are skipped, as a span event has no drop
    counter; TraceFormatError naming `where` on bytes that do not decode."""
    try:
        spans = compiled.otlp_span_events(
            payload, _NAMES, _READ_KEYS, "resource_spans" if resource_spans else "request")
    except TraceFormatError as exc:  # a panic of the core too (CoreFailed): refused alike
        raise TraceFormatError(f"{where}: {exc}") from None
    found: list[Event] = []
    for trace_id, span_id, end_ns, resource, events in spans:
        if keep is None or keep(trace_id):
            found += span_events(trace_id, span_id, events, end_ns, service_agent(resource))
    return found


def is_logs_protobuf(head: bytes) -> bool:
    """Whether protobuf bytes starting with `head` are an OTLP logs request rather than a
    traces one: both nest records three fields down, and a field number means one thing in a
    log record and another in a span. The first field of the first record whose wire type only
    one of them allows decides (a log record's time is fixed64 where a span's trace id is
    bytes); False when `head` holds none (read as traces, as before)."""
    pos, depth, end = 0, 0, len(head)
    while pos < end:
        tag, pos = _varint(head, pos)
        if tag is None:
            return False
        field_wire = (tag >> 3, tag & 7)
        if depth == 3:
            if field_wire in _LOG_ONLY or field_wire in _SPAN_ONLY:
                return field_wire in _LOG_ONLY
            pos = _skip(head, pos, tag & 7)
            continue
        if field_wire[1] != _LEN:
            return False
        size, pos = _varint(head, pos)
        if size is None:
            return False
        if (depth == 0 and field_wire[0] == 1) or (depth in (1, 2) and field_wire[0] == 2):
            depth += 1  # into resource_*, scope_*, then a record
            if depth == 3:
                end = min(end, pos + size)
        else:
            pos += size  # a resource, a scope, a schema url: skipped
    return False


# (field, wire type) that only a LogRecord / only a Span carries (opentelemetry-proto); fields
# both carry with one wire type (3, 5, 9: bytes in either) decide nothing
_LOG_ONLY = frozenset({(1, 1), (2, 0), (6, 2), (7, 0), (8, 5), (10, 2), (11, 1), (12, 2)})
_SPAN_ONLY = frozenset({(1, 2), (2, 2), (4, 2), (6, 0), (7, 1), (8, 1), (10, 0), (11, 2),
                        (12, 0), (13, 2), (14, 0), (15, 2), (16, 5)})


def _skip(data: bytes, pos: int, wire: int) -> int:
    """The position after a field's value (past the end when it is cut short or unknown)."""
    if wire == 0:
        return _varint(data, pos)[1] if pos < len(data) else len(data)
    if wire == 1:
        return pos + 8
    if wire == 5:
        return pos + 4
    if wire == _LEN:
        size, pos = _varint(data, pos)
        return len(data) if size is None else pos + size
    return len(data)


def _varint(data: bytes, pos: int) -> tuple[int | None, int]:
    result = shift = 0
    while pos < len(data) and shift < 64:
        byte = data[pos]
        pos += 1
        result |= (byte & 0x7F) << shift
        if byte < 0x80:
            return result, pos
        shift += 7
    return None, pos


# ---------------------------------------------------------------- OTLP/JSON


def is_logs_json(document: Any) -> bool:
    return isinstance(document, Mapping) and (
        "resourceLogs" in document or "resource_logs" in document)


def events_from_json(document: Any, where: str = "", keep: Keep = None) -> Iterator[LogItem]:
    """The decision and state events of an OTLP/JSON logs object (`{"resourceLogs": [...]}`)."""
    doc = _object(document, where or "document")
    prefix = f"{where}." if where else ""
    for r, rl in enumerate(_list(doc, "resourceLogs", "resource_logs", where)):
        rl_where = f"{prefix}resourceLogs[{r}]"
        rl = _object(rl, rl_where)
        resource = _json_attributes(_object(rl.get("resource") or {}, rl_where), rl_where)
        agent = service_agent(resource)
        for s, sl in enumerate(_list(rl, "scopeLogs", "scope_logs", rl_where)):
            sl_where = f"{rl_where}.scopeLogs[{s}]"
            for i, record in enumerate(_list(_object(sl, sl_where), "logRecords", "log_records",
                                             sl_where)):
                at = f"{sl_where}.logRecords[{i}]"
                record = _object(record, at)
                name = _get(record, "eventName", "event_name")
                attrs = {k: v for k, v in _json_attributes(record, at).items() if k in _READ}
                time_ns = _json_int(_get(record, "timeUnixNano", "time_unix_nano"),
                                    at + ".timeUnixNano") or _json_int(
                    _get(record, "observedTimeUnixNano", "observed_time_unix_nano"),
                    at + ".observedTimeUnixNano")
                item = _item(event(
                    name if isinstance(name, str) else None, attrs,
                    _json_id(_get(record, "traceId", "trace_id"), 16, at + ".traceId"),
                    _json_id(_get(record, "spanId", "span_id"), 8, at + ".spanId"),
                    time_ns, agent), keep)
                if item is not None:
                    yield item
