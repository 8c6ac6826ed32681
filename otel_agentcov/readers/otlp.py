"""OTLP trace payloads (protobuf bytes and OTLP/JSON objects) -> SpanRecords.

Protobuf is decoded by the compiled core (`compiled.otlp_spans`, docs/core.md), OTLP/JSON here,
lazily so callers can stream. Malformed input raises TraceFormatError naming the place inside the
payload (`resourceSpans[0].scopeSpans[1].spans[3]`).
"""

from __future__ import annotations

import base64
import binascii
from collections.abc import Callable, Iterable, Iterator, Mapping
from typing import Any, TypeVar

from .. import compiled
from ..records import SpanRecord
from ..semconv import Classified
from .errors import TraceFormatError as TraceFormatError  # still importable from here
from .otlp_size import ElementCaps

# SpanFlags: bit 8 says whether bit 9 (parent is remote) is known
_HAS_IS_REMOTE = 0x100
_IS_REMOTE = 0x200
_SPAN_KINDS = {
    "SPAN_KIND_UNSPECIFIED": 0, "SPAN_KIND_INTERNAL": 1, "SPAN_KIND_SERVER": 2,
    "SPAN_KIND_CLIENT": 3, "SPAN_KIND_PRODUCER": 4, "SPAN_KIND_CONSUMER": 5,
}
_STATUS_CODES = {"STATUS_CODE_UNSET": 0, "STATUS_CODE_OK": 1, "STATUS_CODE_ERROR": 2}
_EMPTY: Mapping[str, Any] = {}
# Which traces to read, by trace id (`--jobs`: each worker keeps its share); None keeps all.
# A span is tested before it is converted, so the others cost only their id.
Keep = Callable[[int], bool] | None
# The core's decode-and-classify entry for protobuf bytes (`CoverageEngine.steps`), and a span
# as a reader yields it: a SpanRecord, or what that entry made of it (engine.ingest takes both).
StepReader = Callable[..., list[Classified]]
Ingested = SpanRecord | Classified
_T = TypeVar("_T")


def in_end_order(records: Iterable[SpanRecord]) -> list[SpanRecord]:
    """One payload's spans with its local roots last, each part in end-time order: a payload
    groups spans by scope, so a root can come before a child from another scope (Semantic
    Kernel's tool spans, an OpenLIT workflow root before its `chat` spans) and would close its
    run too early; and some SDKs stamp a root's end before its children's (the AI SDK)."""
    batch = list(records)
    batch.sort(key=lambda r: (r.parent_id is None or r.parent_remote, r.end_ns))
    return batch


# ---------------------------------------------------------------- protobuf


def records_from_protobuf(
    payload: bytes, where: str = "request", keep: Keep = None, caps: ElementCaps | None = None
) -> list[SpanRecord]:
    """Every span of protobuf ExportTraceServiceRequest (or TracesData) bytes, in payload order,
    decoded by the compiled core with the GIL released (docs/core.md). With `caps`, a request
    holding more spans or attributes raises TooLarge before anything is decoded; bad bytes
    raise one TraceFormatError line starting with `where` and naming the byte and the element."""
    return _protobuf(compiled.otlp_spans, payload, where, keep, caps)


def classified_from_protobuf(
    payload: bytes, steps: StepReader, where: str = "request", caps: ElementCaps | None = None
) -> list[Classified]:
    """`records_from_protobuf` decoded and classified in one call of the core (`steps`, from
    `CoverageEngine.steps`): the spans as the engine folds them, already in end order."""
    return _protobuf(steps, payload, where, None, caps)


def _protobuf(
    decode: Callable[..., list[_T]], payload: bytes, where: str, keep: Keep,
    caps: ElementCaps | None,
) -> list[_T]:
    try:
        return decode(
            payload, keep=keep,
            caps=None if caps is None else (caps.max_spans, caps.max_attributes))
    except TraceFormatError as exc:  # a panic of the core too (CoreFailed): refused alike
        raise TraceFormatError(f"{where}: {exc}") from None


# ---------------------------------------------------------------- OTLP/JSON


def _get(obj: Mapping[str, Any], camel: str, snake: str) -> Any:
    value = obj.get(camel)
    return obj.get(snake) if value is None else value


def _list(obj: Mapping[str, Any], camel: str, snake: str, where: str) -> list[Any]:
    value = _get(obj, camel, snake)
    if value is None:
        return []
    if not isinstance(value, list):
        raise TraceFormatError(f"{where}.{camel}: expected a list, got {type(value).__name__}")
    return value


def _object(value: Any, where: str) -> Mapping[str, Any]:
    if not isinstance(value, Mapping):
        raise TraceFormatError(f"{where}: expected an object, got {type(value).__name__}")
    return value


def _json_id(value: Any, size: int, where: str) -> int:
    """Hex per the OTLP/JSON spec; base64 (protobuf's JSON mapping) is accepted too."""
    if value is None or value == "":
        return 0
    if not isinstance(value, str):
        raise TraceFormatError(f"{where}: expected a hex string, got {type(value).__name__}")
    try:
        # bytes.fromhex, not int(_, 16): that one takes signs, "0x" and "_" as part of an id
        if len(value) == 2 * size:
            raw = bytes.fromhex(value)
        else:
            raw = base64.b64decode(value, validate=True)
    except (ValueError, binascii.Error):
        raw = b""
    if len(raw) != size:
        raise TraceFormatError(f"{where}: expected {2 * size} hex digits, got {value[:40]!r}")
    return int.from_bytes(raw, "big")


def _json_str(value: Any) -> str:
    """Free text the format says is a string; anything else is absent, never trusted."""
    return value if isinstance(value, str) else ""


def _json_int(value: Any, where: str) -> int:
    if value is None:
        return 0
    if isinstance(value, bool):
        raise TraceFormatError(f"{where}: expected an integer, got a boolean")
    try:
        return int(value)  # uint64 fields are strings in OTLP/JSON
    except (TypeError, ValueError, OverflowError):  # OverflowError: 1e999 parses as infinity
        raise TraceFormatError(f"{where}: expected an integer, got {str(value)[:40]!r}") from None


def _json_enum(value: Any, names: Mapping[str, int], where: str) -> int:
    if isinstance(value, str) and value in names:
        return names[value]
    return _json_int(value, where)


def _json_value(value: Any, where: str) -> Any:
    if not isinstance(value, Mapping):
        raise TraceFormatError(f"{where}: expected an AnyValue object, got {type(value).__name__}")
    for key, raw in value.items():
        if key in ("stringValue", "string_value", "boolValue", "bool_value",
                   "doubleValue", "double_value"):
            return raw
        if key in ("intValue", "int_value"):
            return _json_int(raw, where)
        if key in ("arrayValue", "array_value"):
            values = _list(_object(raw, where), "values", "values", where)
            return tuple(_json_value(v, f"{where}[{n}]") for n, v in enumerate(values))
        if key in ("kvlistValue", "kvlist_value"):
            return _json_attributes(_object(raw, where), where, "values")
        if key in ("bytesValue", "bytes_value"):
            return raw
    return None


def _json_attributes(obj: Mapping[str, Any], where: str, key: str = "attributes") -> dict[str, Any]:
    out: dict[str, Any] = {}
    for n, kv in enumerate(_list(obj, key, key, where)):
        kv = _object(kv, f"{where}.{key}[{n}]")
        name = kv.get("key")
        if not isinstance(name, str):
            raise TraceFormatError(f"{where}.{key}[{n}].key: expected a string")
        value = kv.get("value")
        out[name] = None if value is None else _json_value(value, f"{where}.{key}[{n}]")
    return out


def records_from_json(document: Any, where: str = "", keep: Keep = None) -> Iterator[SpanRecord]:
    """Every span of an OTLP/JSON traces object (`{"resourceSpans": [...]}`)."""
    doc = _object(document, where or "document")
    prefix = f"{where}." if where else ""
    if "resourceSpans" not in doc and "resource_spans" not in doc:
        raise TraceFormatError(f"{where or 'document'}: expected an object with 'resourceSpans'")
    for r, rs in enumerate(_list(doc, "resourceSpans", "resource_spans", where)):
        rs_where = f"{prefix}resourceSpans[{r}]"
        rs = _object(rs, rs_where)
        resource = _json_attributes(_object(rs.get("resource") or {}, rs_where), rs_where)
        scopes = _list(rs, "scopeSpans", "scope_spans", rs_where) or _list(
            rs, "instrumentationLibrarySpans", "instrumentation_library_spans", rs_where
        )
        for s, ss in enumerate(scopes):
            ss_where = f"{rs_where}.scopeSpans[{s}]"
            ss = _object(ss, ss_where)
            scope = _object(ss.get("scope") or ss.get("instrumentationLibrary") or {}, ss_where)
            scope_name = scope.get("name") or ""
            for i, span in enumerate(_list(ss, "spans", "spans", ss_where)):
                span_where = f"{ss_where}.spans[{i}]"
                span = _object(span, span_where)
                if keep is None or keep(_json_id(_get(span, "traceId", "trace_id"), 16,
                                                 span_where + ".traceId")):
                    yield _json_record(span, str(scope_name), resource, span_where)


def _json_record(
    span: Mapping[str, Any], scope_name: str, resource: Mapping[str, Any], where: str
) -> SpanRecord:
    status = _object(span.get("status") or {}, where + ".status")
    flags = _json_int(span.get("flags"), where + ".flags")
    events = tuple(
        (str(_object(e, f"{where}.events[{n}]").get("name") or ""),
         _json_attributes(e, f"{where}.events[{n}]"))
        for n, e in enumerate(_list(span, "events", "events", where))
    )
    name = span.get("name")
    parent = _json_id(_get(span, "parentSpanId", "parent_span_id"), 8, where + ".parentSpanId")
    return SpanRecord(
        trace_id=_json_id(_get(span, "traceId", "trace_id"), 16, where + ".traceId"),
        span_id=_json_id(_get(span, "spanId", "span_id"), 8, where + ".spanId"),
        parent_id=parent or None,
        parent_remote=bool(flags & _HAS_IS_REMOTE and flags & _IS_REMOTE),
        name=name if isinstance(name, str) else "",
        kind=max(_json_enum(span.get("kind"), _SPAN_KINDS, where + ".kind") - 1, 0),
        start_ns=_json_int(_get(span, "startTimeUnixNano", "start_time_unix_nano"),
                           where + ".startTimeUnixNano"),
        end_ns=_json_int(_get(span, "endTimeUnixNano", "end_time_unix_nano"),
                         where + ".endTimeUnixNano"),
        status_code=_json_enum(status.get("code"), _STATUS_CODES, where + ".status.code"),
        status_description=_json_str(status.get("message")) or None,
        attributes=_json_attributes(span, where) if span.get("attributes") else _EMPTY,
        events=events,
        scope_name=scope_name,
        resource_attributes=resource,
    )
