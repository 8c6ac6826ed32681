"""OTLP log payloads (protobuf and OTLP/JSON) -> the decision events they carry.

Events are log records (docs/instrumentations.md#events). Of a record only the event name, the
trace and span ids, the time and the attributes `semconv.events` reads are looked at: never the
body or any other attribute, so a prompt in a log record is not even decoded into a string here.
Protobuf is parsed with `opentelemetry-proto` (a dependency of the OTLP exporter): log records are
few beside spans, and the compiled core's decoder stays the spans' (docs/core.md).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from google.protobuf.message import DecodeError
from opentelemetry.proto.collector.logs.v1.logs_service_pb2 import ExportLogsServiceRequest
from opentelemetry.proto.common.v1.common_pb2 import KeyValue

from ..semconv.events import (
    EVENT_NAME_KEY,
    INVALID,
    INVALID_EVENT,
    OUTCOME_KEY,
    InvalidEvent,
    ToolDecision,
    decision,
    service_agent,
)
from .errors import TraceFormatError
from .otlp import Keep, _get, _json_attributes, _json_id, _json_int, _list, _object
from .otlp_size import ElementCaps, TooLarge

# the attributes read from a log record; any other (content included) is skipped undecoded
_READ = frozenset({EVENT_NAME_KEY, OUTCOME_KEY, "gen_ai.tool.call.id", "gen_ai.tool.name"})
_LEN = 2


LogItem = ToolDecision | InvalidEvent


def _item(found: ToolDecision | str | None, keep: Keep) -> LogItem | None:
    if found is None:
        return None
    if isinstance(found, str):
        return INVALID_EVENT if found == INVALID else None
    return found if keep is None or keep(found.trace_id) else None


# ---------------------------------------------------------------- protobuf


def _strings(attributes: Any) -> dict[str, Any]:
    """The read attributes of a protobuf KeyValue list (string values only)."""
    out: dict[str, Any] = {}
    kv: KeyValue
    for kv in attributes:
        if kv.key in _READ and kv.value.WhichOneof("value") == "string_value":
            out[kv.key] = kv.value.string_value
    return out


def events_from_protobuf(
    payload: bytes, where: str = "request", keep: Keep = None, caps: ElementCaps | None = None,
) -> list[LogItem]:
    """The decision events of ExportLogsServiceRequest (or LogsData) bytes; TraceFormatError
    naming `where` when they do not parse, TooLarge past `caps` (records, attributes)."""
    request = ExportLogsServiceRequest()
    try:
        request.ParseFromString(payload)
    except (DecodeError, RecursionError) as exc:
        raise TraceFormatError(f"{where}: not an OTLP logs request ({exc})") from None
    if caps is not None:
        records = attributes = 0
        for rl in request.resource_logs:
            for sl in rl.scope_logs:
                records += len(sl.log_records)
                attributes += sum(len(r.attributes) for r in sl.log_records)
        if records > caps.max_spans or attributes > caps.max_attributes:
            raise TooLarge(f"{records} log records, {attributes} attributes: past the caps "
                           f"({caps.max_spans}, {caps.max_attributes})")
    found: list[LogItem] = []
    for rl in request.resource_logs:
        agent = service_agent(_strings_of(rl.resource.attributes))
        for sl in rl.scope_logs:
            for r in sl.log_records:
                attrs = _strings(r.attributes)
                item = _item(decision(
                    r.event_name, attrs, int.from_bytes(r.trace_id, "big") if len(
                        r.trace_id) == 16 else 0, int.from_bytes(r.span_id, "big") if len(
                        r.span_id) == 8 else 0, r.time_unix_nano or r.observed_time_unix_nano,
                    agent), keep)
                if item is not None:
                    found.append(item)
    return found


def _strings_of(attributes: Any) -> dict[str, Any]:
    """`service.name` of a resource (the agent an event with no span names)."""
    return {kv.key: kv.value.string_value for kv in attributes if kv.key == "service.name"}


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
    """The decision events of an OTLP/JSON logs object (`{"resourceLogs": [...]}`)."""
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
                item = _item(decision(
                    name if isinstance(name, str) else None, attrs,
                    _json_id(_get(record, "traceId", "trace_id"), 16, at + ".traceId"),
                    _json_id(_get(record, "spanId", "span_id"), 8, at + ".spanId"),
                    time_ns, agent), keep)
                if item is not None:
                    yield item
