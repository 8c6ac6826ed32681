"""OTLP protobuf and OTLP/JSON payloads, encoded by the real SDK encoder, decode to the same
SpanRecords the in-process path builds from the SDK's spans."""

from __future__ import annotations

import base64
import json
from typing import Any

import pytest
from google.protobuf.json_format import MessageToDict
from opentelemetry.exporter.otlp.proto.common.trace_encoder import encode_spans
from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from opentelemetry.trace import SpanKind, Status, StatusCode

from otel_agentcov.readers import TraceFormatError, records_from_json, records_from_protobuf
from otel_agentcov.records import from_readable_span


def _spans() -> Any:
    exporter = InMemorySpanExporter()
    provider = TracerProvider(resource=Resource.create({"service.name": "svc"}))
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    tracer = provider.get_tracer("scope.one")
    with tracer.start_as_current_span("invoke_agent a", kind=SpanKind.CLIENT) as agent:
        agent.set_attribute("gen_ai.agent.name", "a")
        with tracer.start_as_current_span("execute_tool t") as tool:
            tool.set_attributes({"gen_ai.tool.name": "t", "n": 3, "f": 0.5, "b": True,
                                 "list": ["x", "y"]})
            tool.add_event("exception", {"exception.type": "ValueError"})
            tool.set_status(Status(StatusCode.ERROR, "boom"))
    provider.shutdown()
    return exporter.get_finished_spans()


def _hex_ids(node: Any) -> Any:
    """The OTLP/JSON spec writes ids as hex, where protobuf's JSON mapping writes base64."""
    if isinstance(node, dict):
        return {k: (base64.b64decode(v).hex() if k in ("traceId", "spanId", "parentSpanId")
                    else _hex_ids(v)) for k, v in node.items()}
    if isinstance(node, list):
        return [_hex_ids(v) for v in node]
    return node


def _comparable(record: Any) -> tuple[Any, ...]:
    return (record.trace_id, record.span_id, record.parent_id, record.name, record.kind,
            record.start_ns, record.end_ns, record.status_code, record.status_description,
            dict(record.attributes), [(n, dict(a)) for n, a in record.events],
            record.scope_name, dict(record.resource_attributes))


def test_protobuf_and_json_decode_like_the_sdk_path() -> None:
    spans = _spans()
    expected = sorted(_comparable(from_readable_span(s)) for s in spans)
    # the SDK keeps sequence attributes as tuples; OTLP arrays decode to tuples as well
    payload = encode_spans(spans).SerializeToString()
    from_pb = sorted(_comparable(r) for r in records_from_protobuf(payload))
    assert from_pb == expected
    doc = _hex_ids(MessageToDict(encode_spans(spans)))
    assert sorted(_comparable(r) for r in records_from_json(doc)) == expected
    # protobuf's own JSON mapping (base64 ids, enum names) reads the same
    doc64 = MessageToDict(encode_spans(spans))
    assert sorted(_comparable(r) for r in records_from_json(doc64)) == expected


def test_json_enum_names_and_numbers_and_string_ints() -> None:
    doc = {"resourceSpans": [{"scopeSpans": [{"scope": {"name": "s"}, "spans": [
        {"traceId": "0" * 31 + "1", "spanId": "0" * 15 + "2", "name": "x",
         "kind": "SPAN_KIND_CLIENT", "startTimeUnixNano": "10", "endTimeUnixNano": 20,
         "status": {"code": "STATUS_CODE_ERROR"}, "flags": 0x300,
         "parentSpanId": "0" * 15 + "3",
         "attributes": [{"key": "k", "value": {"intValue": "7"}}]},
        {"traceId": "0" * 31 + "1", "spanId": "0" * 15 + "3", "name": "y", "kind": 3,
         "status": {"code": 2}}]}]}]}
    first, second = records_from_json(doc)
    assert (first.kind, first.status_code, first.start_ns, first.end_ns) == (2, 2, 10, 20)
    assert first.parent_remote and first.attributes == {"k": 7} and first.scope_name == "s"
    assert (second.kind, second.status_code, second.parent_id) == (2, 2, None)


@pytest.mark.parametrize(
    ("doc", "message"),
    [
        ([], "document: expected an object, got list"),
        ({"spans": []}, "expected an object with 'resourceSpans'"),
        ({"resourceSpans": {}}, "resourceSpans: expected a list"),
        ({"resourceSpans": [{"scopeSpans": [{"spans": [{"traceId": "zz"}]}]}]},
         "resourceSpans[0].scopeSpans[0].spans[0].traceId: expected 32 hex digits"),
        ({"resourceSpans": [{"scopeSpans": [{"spans": [{"startTimeUnixNano": "soon"}]}]}]},
         "spans[0].startTimeUnixNano: expected an integer"),
    ],
)
def test_malformed_json_names_the_place(doc: Any, message: str) -> None:
    with pytest.raises(TraceFormatError, match=message.replace("[", r"\[").replace("]", r"\]")):
        list(records_from_json(doc))


def test_malformed_protobuf_is_one_line() -> None:
    with pytest.raises(TraceFormatError, match=r"^upload.bin: not an OTLP Export"):
        records_from_protobuf(b"\xff\xff\xff garbage", "upload.bin")


def test_a_payload_is_fed_in_end_order_whatever_its_scope_grouping() -> None:
    """OTLP groups a payload's spans by scope: a root listed before a child from another scope
    must still come after it (Semantic Kernel's tool spans are listed after their agent's)."""
    from otel_agentcov.readers.otlp import in_end_order
    from otel_agentcov.service.store import JSON, decode_records

    exporter = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    agents, tools = provider.get_tracer("agents"), provider.get_tracer("tools")
    with agents.start_as_current_span("root"):
        with agents.start_as_current_span("setup"):
            pass
        with tools.start_as_current_span("tool"):
            pass
    document = _hex_ids(MessageToDict(encode_spans(exporter.get_finished_spans())))
    assert [r.name for r in records_from_json(document)] == ["setup", "root", "tool"]
    assert [r.name for r in in_end_order(records_from_json(document))] == [
        "setup", "tool", "root"]
    payload = json.dumps(document).encode()
    assert [r.name for r in decode_records(JSON, payload, "req")] == ["setup", "tool", "root"]
