"""The oracle for the compiled core's reader of OTLP logs protobuf (core/src/otlp_logs.rs): the
Python walk the package used before the reader moved into the core, kept as it was, so
tests/test_log_events_core.py can pit the core against it on any bytes. Tests only: the
product has one reader.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from otel_agentcov.readers.errors import TraceFormatError
from otel_agentcov.readers.otlp import Keep
from otel_agentcov.readers.otlp_logs import _READ, LogItem, _item, _varint
from otel_agentcov.readers.otlp_size import ElementCaps, TooLarge
from otel_agentcov.semconv.events import (
    KEY_COUNT_KEY,
    KEYS_KEY,
    MAX_STATE_KEYS,
    Event,
    event,
    service_agent,
)

_LEN = 2

_VARINT, _I64, _I32 = 0, 1, 5


def _fields(data: bytes, pos: int, end: int, where: str) -> Iterator[tuple[int, int, int, int]]:
    """(field, wire type, start, end) of each field of the message in `data[pos:end]` (for a
    varint: (field, 0, value, end)); TraceFormatError on a truncated field or a group."""
    while pos < end:
        tag, pos = _varint(data, pos)
        wire = -1 if tag is None else tag & 7
        if tag is None or wire not in (_VARINT, _I64, _LEN, _I32):
            raise TraceFormatError(f"{where}: not an OTLP logs request (field at byte {pos})")
        if wire == _VARINT:
            value, after = _varint(data, pos)
            if value is None:
                raise TraceFormatError(f"{where}: not an OTLP logs request (byte {pos})")
            yield tag >> 3, wire, value, after
            pos = after
            continue
        if wire == _LEN:
            size, pos = _varint(data, pos)
            size = -1 if size is None else size
        else:
            size = 8 if wire == _I64 else 4
        if size < 0 or pos + size > end:
            raise TraceFormatError(f"{where}: not an OTLP logs request (truncated at byte {pos})")
        yield tag >> 3, wire, pos, pos + size
        pos += size


def _text(data: bytes, start: int, end: int, where: str) -> str:
    try:
        return data[start:end].decode("utf-8")
    except UnicodeDecodeError:
        raise TraceFormatError(f"{where}: not an OTLP logs request (a string that is not "
                               f"UTF-8 at byte {start})") from None


def _strings(data: bytes, start: int, end: int, where: str) -> list[str] | None:
    """The string values of an ArrayValue, None when one is no string or there are more than
    a state event's key names may be (`events.state_change` then reads none of them)."""
    found: list[str] = []
    for field, wire, a, b in _fields(data, start, end, where):
        if field != 1 or wire != _LEN or len(found) >= MAX_STATE_KEYS:
            return None
        text = None
        for f, w, va, vb in _fields(data, a, b, where):
            text = (va, vb) if f == 1 and w == _LEN else None
        if text is None:
            return None
        found.append(_text(data, text[0], text[1], where))
    return found


def _read_attribute(data: bytes, start: int, end: int, where: str) -> tuple[str, Any] | None:
    """(key, value) of a KeyValue whose key is read: a string value, and for a state event's
    attributes an int (the key count) or an array of strings (the key names); else None. The
    key is read first: the value of an attribute not read is never decoded."""
    key: str | None = None
    value: tuple[int, int, int] | None = None  # (AnyValue field, start, end)
    for field, wire, a, b in _fields(data, start, end, where):
        if field == 1 and wire == _LEN:
            key = _text(data, a, b, where)
        elif field == 2 and wire == _LEN:  # AnyValue: string (1), int (3) or array (5)
            value = None
            for f, w, va, vb in _fields(data, a, b, where):
                value = (f, va, vb) if (f, w) in ((1, _LEN), (3, _VARINT), (5, _LEN)) else None
    if key is None or key not in _READ or value is None:
        return None
    kind, a, b = value
    if kind == 1:
        return key, _text(data, a, b, where)
    if kind == 3 and key == KEY_COUNT_KEY:
        return key, a  # a varint field's start is its value (`_fields`)
    if kind == 5 and key == KEYS_KEY:
        return key, _strings(data, a, b, where)
    return None


def _log_record(data: bytes, start: int, end: int, agent: str, where: str
                ) -> tuple[Event | str | None, int]:
    """The decision or state change a LogRecord holds, and how many attributes it has. Its
    body and every attribute not read are skipped on the wire: never decoded, never
    allocated."""
    attrs: dict[str, Any] = {}
    name: str | None = None
    trace_id = span_id = time_ns = observed_ns = n_attributes = 0
    for field, wire, a, b in _fields(data, start, end, where):
        if field == 6 and wire == _LEN:
            n_attributes += 1
            found = _read_attribute(data, a, b, where)
            if found is not None:
                attrs[found[0]] = found[1]
        elif field == 12 and wire == _LEN:
            name = _text(data, a, b, where)
        elif field in (9, 10) and wire == _LEN:
            ident = int.from_bytes(data[a:b], "big") if b - a == (16 if field == 9 else 8) else 0
            trace_id, span_id = (ident, span_id) if field == 9 else (trace_id, ident)
        elif field in (1, 11) and wire == _I64:
            stamp = int.from_bytes(data[a:b], "little")
            time_ns, observed_ns = (stamp, observed_ns) if field == 1 else (time_ns, stamp)
    return event(name, attrs, trace_id, span_id, time_ns or observed_ns, agent), n_attributes


def _service(data: bytes, start: int, end: int, where: str) -> str:
    """The agent a Resource's `service.name` names (as `service_agent`)."""
    found: dict[str, Any] = {}
    for field, wire, a, b in _fields(data, start, end, where):
        if field == 1 and wire == _LEN:
            key: str | None = None
            for f, w, ka, kb in _fields(data, a, b, where):
                if f == 1 and w == _LEN:
                    key = _text(data, ka, kb, where)
            if key == "service.name":
                attribute = _read_service_name(data, a, b, where)
                if attribute is not None:
                    found["service.name"] = attribute
    return service_agent(found)


def _read_service_name(data: bytes, start: int, end: int, where: str) -> str | None:
    value: str | None = None
    for field, wire, a, b in _fields(data, start, end, where):
        if field == 2 and wire == _LEN:
            value = None
            for f, w, va, vb in _fields(data, a, b, where):
                value = _text(data, va, vb, where) if f == 1 and w == _LEN else None
    return value


def events_from_protobuf(
    payload: bytes, where: str = "request", keep: Keep = None, caps: ElementCaps | None = None,
) -> list[LogItem]:
    """The decision and state events of ExportLogsServiceRequest (or LogsData) bytes;
    TraceFormatError naming `where` when they do not parse, TooLarge past `caps` (records,
    attributes).

    Read on the wire, not parsed whole: a parser allocates per element, so 8 MB of empty log
    records once took 513 MB before the caps were counted (80 MB, the service's limit: about
    5 GB). Here only our events are allocated, and the caps stop the walk as they pass."""
    found: list[LogItem] = []
    records = attributes = 0
    for field, wire, a, b in _fields(payload, 0, len(payload), where):
        if field != 1 or wire != _LEN:
            continue
        agent = service_agent(None)
        scopes: list[tuple[int, int]] = []
        for f, w, ra, rb in _fields(payload, a, b, where):  # the resource may come last
            if f == 1 and w == _LEN:
                agent = _service(payload, ra, rb, where)
            elif f == 2 and w == _LEN:
                scopes.append((ra, rb))
        for sa, sb in scopes:
            for f, w, la, lb in _fields(payload, sa, sb, where):
                if f != 2 or w != _LEN:
                    continue
                records += 1
                result, n_attributes = _log_record(payload, la, lb, agent, where)
                attributes += n_attributes
                if caps is not None and (records > caps.max_spans
                                         or attributes > caps.max_attributes):
                    raise TooLarge(f"more than {records - 1} log records or "
                                   f"{attributes - n_attributes} attributes: past the caps "
                                   f"({caps.max_spans}, {caps.max_attributes})")
                item = _item(result, keep)
                if item is not None:
                    found.append(item)
    return found
