"""from_readable_span: the fast path over the SDK's own fields equals the public-property path."""

from __future__ import annotations

from dataclasses import astuple

from _builders import renamed_sdk_span
from opentelemetry import trace
from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import ReadableSpan, TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from opentelemetry.trace import (
    NonRecordingSpan,
    SpanContext,
    SpanKind,
    Status,
    StatusCode,
    TraceFlags,
)

from otel_agentcov.records import _from_properties, _from_sdk_fields, from_readable_span


def _real_spans() -> list[ReadableSpan]:
    exporter = InMemorySpanExporter()
    provider = TracerProvider(resource=Resource.create({"service.name": "svc"}))
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    tracer = provider.get_tracer("scope-x", "1.0")
    remote = SpanContext(0xA1, 0xB2, is_remote=True, trace_flags=TraceFlags(1))
    with tracer.start_as_current_span(
        "invoke_agent a", context=trace.set_span_in_context(NonRecordingSpan(remote)),
        kind=SpanKind.SERVER, attributes={"gen_ai.operation.name": "invoke_agent"},
    ):  # fmt: skip
        with tracer.start_as_current_span("chat m") as chat:
            chat.set_attribute("gen_ai.response.finish_reasons", ["stop"])
            chat.add_event("gen_ai.evaluation.result", {"gen_ai.evaluation.score.value": 0.5})
            chat.add_event("exception", {"exception.type": "ValueError"})
            chat.set_status(Status(StatusCode.ERROR, "bad"))
        with tracer.start_as_current_span("bare"):
            pass
    spans = list(exporter.get_finished_spans())
    provider.shutdown()
    return spans


def test_sdk_field_path_equals_property_path_on_real_spans() -> None:
    spans = _real_spans()
    assert len(spans) == 3 and all(type(s) is ReadableSpan for s in spans)
    for span in spans:
        fast, slow = _from_sdk_fields(span), _from_properties(span)
        assert astuple(fast) == astuple(slow)
        assert from_readable_span(span) == slow
    chat = next(s for s in spans if s.name == "chat m")
    record = from_readable_span(chat)
    assert record.status_code == 2 and record.status_description == "bad"
    assert [name for name, _ in record.events] == ["gen_ai.evaluation.result", "exception"]
    agent = from_readable_span(next(s for s in spans if s.name == "invoke_agent a"))
    assert agent.parent_id == 0xB2 and agent.parent_remote and agent.scope_name == "scope-x"


def test_subclasses_overriding_properties_are_read_through_them() -> None:
    span = renamed_sdk_span()
    assert from_readable_span(span).name == "execute_tool renamed"
