"""The independent oracle for the compiled OTLP protobuf decoder: upb (the `protobuf` package)
parses the bytes and this walk converts the messages to SpanRecords, as the Python reader did
before the decoder moved into the core (docs/core.md). Tests only: the product has one decoder.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from typing import Any

from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest
from opentelemetry.proto.common.v1.common_pb2 import AnyValue, KeyValue
from opentelemetry.proto.trace.v1.trace_pb2 import Span as PbSpan

from otel_agentcov.readers.otlp import Keep, TraceFormatError
from otel_agentcov.records import SpanRecord

_HAS_IS_REMOTE, _IS_REMOTE = 0x100, 0x200


def _value(value: AnyValue) -> Any:
    which = value.WhichOneof("value")
    if which is None:
        return None
    if which == "array_value":
        return tuple(_value(v) for v in value.array_value.values)
    if which == "kvlist_value":
        return _attributes(value.kvlist_value.values)
    return getattr(value, which)


def _attributes(kvs: Iterable[KeyValue]) -> dict[str, Any]:
    return {kv.key: _value(kv.value) for kv in kvs}


def _id(raw: bytes, size: int, where: str) -> int:
    if len(raw) not in (0, size):
        raise TraceFormatError(f"{where}: expected a {size}-byte id, got {len(raw)} bytes")
    return int.from_bytes(raw, "big")


def decode_request(payload: bytes, where: str = "request") -> ExportTraceServiceRequest:
    request = ExportTraceServiceRequest()
    try:
        request.ParseFromString(payload)
    except Exception as exc:  # DecodeError, or upb's errors for invalid UTF-8 in strings
        raise TraceFormatError(f"{where}: not an OTLP ExportTraceServiceRequest ({exc})") from None
    return request


def _record(span: PbSpan, scope: str, resource: Mapping[str, Any], at: str) -> SpanRecord:
    trace_id = _id(span.trace_id, 16, at + ".traceId")
    span_id = _id(span.span_id, 8, at + ".spanId")
    parent_id = _id(span.parent_span_id, 8, at + ".parentSpanId")
    flags = span.flags
    return SpanRecord(
        trace_id, span_id, parent_id or None, span.name, max(span.kind - 1, 0),
        span.start_time_unix_nano, span.end_time_unix_nano, span.status.code,
        span.status.message or None, _attributes(span.attributes),
        tuple((e.name, _attributes(e.attributes)) for e in span.events), scope, resource,
        bool(flags & _HAS_IS_REMOTE and flags & _IS_REMOTE),
    )


def records_from_request(
    request: ExportTraceServiceRequest, keep: Keep = None
) -> Iterator[SpanRecord]:
    """Every span of a parsed request, in payload order; `keep` is asked before a span is
    converted, with the trace id its bytes spell."""
    for r, rs in enumerate(request.resource_spans):
        resource = _attributes(rs.resource.attributes)
        for s, ss in enumerate(rs.scope_spans):
            for i, span in enumerate(ss.spans):
                if keep is None or keep(int.from_bytes(span.trace_id, "big")):
                    at = f"resourceSpans[{r}].scopeSpans[{s}].spans[{i}]"
                    yield _record(span, ss.scope.name, resource, at)


def records(payload: bytes, where: str = "request", keep: Keep = None) -> list[SpanRecord]:
    """What the upb path made of protobuf bytes (TraceFormatError when it refused them), with
    its errors worded as the service words them."""
    request = decode_request(payload, where)
    try:
        return list(records_from_request(request, keep))
    except TraceFormatError as exc:
        raise TraceFormatError(f"{where}: {exc}") from None


def elements(request: ExportTraceServiceRequest) -> tuple[int, int]:
    """(spans, attributes) by walking the decoded message: every key-value at any level, every
    array entry, event and link."""
    def values(value: AnyValue) -> int:
        which = value.WhichOneof("value")
        if which == "array_value":
            return sum(1 + values(v) for v in value.array_value.values)
        if which == "kvlist_value":
            return kvs(value.kvlist_value.values)
        return 0

    def kvs(items: Iterable[KeyValue]) -> int:
        return sum(1 + values(kv.value) for kv in items)

    spans = attributes = 0
    for rs in request.resource_spans:
        attributes += kvs(rs.resource.attributes)
        for ss in rs.scope_spans:
            attributes += kvs(ss.scope.attributes)
            for span in ss.spans:
                spans += 1
                attributes += kvs(span.attributes) + len(span.events) + len(span.links)
                attributes += sum(kvs(e.attributes) for e in span.events)
                attributes += sum(kvs(link.attributes) for link in span.links)
    return spans, attributes
