"""Property tests: the OTLP readers on random and mutated payloads (readers/otlp.py).

Any bytes, any JSON document: decoding either succeeds or raises TraceFormatError (one line
naming the place), and what it yields the engine ingests without raising or losing count.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from _strategies import corrupted
from hypothesis import example, given
from hypothesis import strategies as st
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest
from opentelemetry.proto.common.v1.common_pb2 import AnyValue, KeyValue
from opentelemetry.proto.trace.v1.trace_pb2 import ResourceSpans, ScopeSpans, Span

from otel_agentcov.engine import CoverageEngine
from otel_agentcov.readers.otlp import TraceFormatError, records_from_json, records_from_protobuf


def _valid_request() -> bytes:
    attrs = [
        KeyValue(key="gen_ai.operation.name", value=AnyValue(string_value="execute_tool")),
        KeyValue(key="gen_ai.tool.name", value=AnyValue(string_value="lookup")),
        KeyValue(key="gen_ai.usage.input_tokens", value=AnyValue(int_value=12)),
    ]
    span = Span(trace_id=b"\x01" * 16, span_id=b"\x02" * 8, parent_span_id=b"\x03" * 8,
                name="execute_tool lookup", start_time_unix_nano=1, end_time_unix_nano=2,
                attributes=attrs)
    root = Span(trace_id=b"\x01" * 16, span_id=b"\x03" * 8, name="invoke_agent a",
                start_time_unix_nano=0, end_time_unix_nano=3)
    request = ExportTraceServiceRequest(resource_spans=[
        ResourceSpans(scope_spans=[ScopeSpans(spans=[span, root])])])
    return request.SerializeToString()


VALID = _valid_request()


def _ingest_all(records: Any) -> None:
    engine = CoverageEngine()
    n = 0
    for record in records:
        engine.ingest(record)
        n += 1
    engine.flush_all()
    assert engine.span_stats()["processed"] == n


@given(st.one_of(st.binary(max_size=300), corrupted(st.just(VALID))))
@example(b"\x0a\x05\x12\x03\x12\x01\xff")  # a string field holding invalid UTF-8
def test_protobuf_bytes_decode_or_raise_trace_format_error(payload: bytes) -> None:
    try:
        records = records_from_protobuf(payload, "body")
    except TraceFormatError as exc:
        assert "\n" not in str(exc) and str(exc).startswith("body: ")
        return
    _ingest_all(records)


def _id(n: int, size: int) -> str:
    return f"{n:0{2 * size}x}"


json_scalars = st.one_of(
    st.none(), st.booleans(), st.integers(), st.integers(10**30, 10**40),
    st.floats(allow_nan=True, allow_infinity=True), st.text(st.characters(codec=None), max_size=20),
    st.sampled_from([_id(1, 16), _id(2, 8), "-" + "f" * 31, "0x" + "1" * 30, "1_" * 16, "AQID"]),
)  # fmt: skip
json_any = st.recursive(
    json_scalars,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=12), inner,
                                                               max_size=3),
    max_leaves=8,
)
SPAN_FIELDS = ("traceId", "spanId", "parentSpanId", "name", "kind", "startTimeUnixNano",
               "endTimeUnixNano", "status", "attributes", "events", "flags", "trace_id")
ANY_VALUE_KEYS = ("stringValue", "intValue", "doubleValue", "boolValue", "arrayValue",
                  "kvlistValue", "bytesValue")


@st.composite
def otlp_json(draw: st.DrawFn) -> Any:
    """OTLP/JSON-shaped documents whose every field may hold the wrong thing."""
    def attr() -> Any:
        return {"key": draw(st.text(max_size=8) | json_scalars),
                "value": draw(st.fixed_dictionaries({}, optional={
                    k: json_any for k in ANY_VALUE_KEYS}) | json_any)}

    def span() -> Any:
        fields: dict[str, Any] = {
            "traceId": _id(draw(st.integers(1, 3)), 16), "spanId": _id(draw(st.integers(1, 9)), 8),
        }
        for key in draw(st.lists(st.sampled_from(SPAN_FIELDS), max_size=5)):
            fields[key] = draw(json_any)
        if draw(st.booleans()):
            fields["attributes"] = [attr() for _ in range(draw(st.integers(0, 3)))]
        if draw(st.booleans()):
            fields["status"] = {"code": draw(json_any), "message": draw(json_any)}
        return fields

    spans = [span() for _ in range(draw(st.integers(0, 4)))]
    doc: Any = {"resourceSpans": [{"resource": {"attributes": [attr()]},
                                   "scopeSpans": [{"scope": {"name": draw(json_any)},
                                                   "spans": spans}]}]}
    if draw(st.booleans()):
        doc = draw(json_any)  # not a traces document at all
    return doc


@given(otlp_json())
@example({"resourceSpans": [{"scopeSpans": [{"spans": [{
    "traceId": _id(1, 16), "spanId": _id(1, 8), "startTimeUnixNano": float("inf")}]}]}]})
@example({"resourceSpans": [{"scopeSpans": [{"spans": [{
    "traceId": _id(1, 16), "spanId": _id(1, 8), "status": {"code": 2, "message": [1]}}]}]}]})
def test_json_documents_decode_or_raise_trace_format_error(doc: Any) -> None:
    try:
        records = list(records_from_json(doc, "file.json"))
    except TraceFormatError as exc:
        assert "\n" not in str(exc)
        return
    _ingest_all(records)


@pytest.mark.parametrize("bad", ["-" + "f" * 31, "0x" + "1" * 30, "1_" * 16, " " * 32, "+" * 32])
def test_a_json_trace_id_is_hex_digits_only(bad: str) -> None:
    doc = {"resourceSpans": [{"scopeSpans": [{"spans": [{"traceId": bad, "spanId": _id(1, 8)}]}]}]}
    with pytest.raises(TraceFormatError, match=r"traceId: expected 32 hex digits"):
        list(records_from_json(doc))


def test_non_utf8_json_bytes_are_a_decode_error_before_the_reader() -> None:
    """The reader takes parsed JSON; undecodable bytes fail in json.loads as a ValueError."""
    with pytest.raises(ValueError):
        json.loads(b'{"resourceSpans": "\xff\xfe"}')
