"""Span events of protobuf trace payloads, read by the compiled core (core/src/otlp_events.rs,
`readers.otlp_logs.span_events_from_protobuf`), against an independent oracle: upb parses the
bytes (tests/_upb_oracle.py) and the SpanRecord path reads the events (`record_events`), as
OTLP/JSON spans are read. Both must give the same decisions, state changes and guardrail
results, in the same order, on the fixtures and on random requests with hostile values; bad
bytes are refused as upb refuses them, in one line naming the request.
"""

from __future__ import annotations

from typing import Any

import _upb_oracle as oracle
import pytest
from _strategies import corrupted
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest
from opentelemetry.proto.common.v1.common_pb2 import AnyValue, ArrayValue, KeyValue
from opentelemetry.proto.resource.v1.resource_pb2 import Resource
from opentelemetry.proto.trace.v1.trace_pb2 import ResourceSpans, ScopeSpans, Span
from test_otlp_decoder import FIXTURE_PAYLOADS

from otel_agentcov.readers.otlp import TraceFormatError
from otel_agentcov.readers.otlp_logs import span_events_from_protobuf
from otel_agentcov.semconv.events import (
    DECISION_EVENT,
    GUARDRAIL_EVENT,
    KEY_COUNT_KEY,
    KEYS_KEY,
    OUTCOME_KEY,
    RESULT_TYPE_KEY,
    RESULT_VALUE_KEY,
    STATE_EVENT,
    record_events,
)

SLOW_DATA = [HealthCheck.too_slow, HealthCheck.data_too_large]


def expected(payload: bytes, keep: Any = None) -> Any:
    """('ok', events) as upb and the SpanRecord path read them, or ('error',)."""
    try:
        records = oracle.records(payload)
    except TraceFormatError:
        return ("error",)
    return ("ok", [e for r in records for e in record_events(r)
                   if keep is None or keep(e.trace_id)])


def got(payload: bytes, keep: Any = None) -> Any:
    try:
        return ("ok", span_events_from_protobuf(payload, "http request", keep))
    except TraceFormatError as exc:
        message = str(exc)
        assert message.startswith("http request: not an OTLP ExportTraceServiceRequest (")
        assert "\n" not in message
        return ("error",)


names = st.sampled_from([DECISION_EVENT, STATE_EVENT, GUARDRAIL_EVENT, "exception", "x", ""])
keys = st.sampled_from([OUTCOME_KEY, "gen_ai.tool.call.id", "gen_ai.tool.name", KEY_COUNT_KEY,
                        KEYS_KEY, RESULT_TYPE_KEY, RESULT_VALUE_KEY, "event.name", "prompt"])
strings = st.sampled_from(["allow", "deny", "require_approval", "t", "", "é" * 300]) | st.text(
    max_size=8)
scalars = st.one_of(
    st.builds(AnyValue),
    st.builds(AnyValue, string_value=strings),
    st.builds(AnyValue, bool_value=st.booleans()),
    st.builds(AnyValue, int_value=st.integers(-(2**63), 2**63 - 1) | st.integers(0, 40)),
    st.builds(AnyValue, double_value=st.floats(allow_nan=False)),
)
values = scalars | st.builds(AnyValue, array_value=st.builds(
    ArrayValue, values=st.lists(scalars | st.builds(AnyValue, string_value=strings),
                                max_size=34)))
attributes = st.lists(st.builds(KeyValue, key=keys, value=values), max_size=4)
ids16 = st.sampled_from([b"", b"\x01" * 16]) | st.binary(min_size=16, max_size=16)
ids8 = st.sampled_from([b"", b"\x02" * 8]) | st.binary(min_size=8, max_size=8)
spans = st.builds(
    Span, trace_id=ids16, span_id=ids8, name=st.just("s"),
    end_time_unix_nano=st.integers(0, 2**64 - 1),
    events=st.lists(st.builds(Span.Event, name=names, attributes=attributes), max_size=3))
services = st.lists(st.builds(KeyValue, key=st.just("service.name"), value=scalars), max_size=2)
requests = st.builds(ExportTraceServiceRequest, resource_spans=st.lists(st.builds(
    ResourceSpans, resource=st.builds(Resource, attributes=services),
    scope_spans=st.lists(st.builds(ScopeSpans, spans=st.lists(spans, max_size=3)),
                         max_size=2)), max_size=2))


def test_every_fixture_gives_the_events_the_oracle_gives() -> None:
    for name, payload in FIXTURE_PAYLOADS:
        assert got(payload) == expected(payload), name


@settings(max_examples=150, deadline=None, suppress_health_check=SLOW_DATA)
@given(requests, st.sampled_from([None, 0, 1]))
def test_random_requests_give_the_events_the_oracle_gives(
        request: ExportTraceServiceRequest, part: int | None) -> None:
    keep = None if part is None else (lambda t: t % 2 == part)
    payload = request.SerializeToString()
    assert got(payload, keep) == expected(payload, keep)


@settings(max_examples=150, deadline=None, suppress_health_check=SLOW_DATA)
@given(corrupted(requests.map(ExportTraceServiceRequest.SerializeToString)))
def test_corrupted_bytes_are_refused_as_upb_refuses_them(payload: bytes) -> None:
    """Bytes holding no event name are not decoded at all (no events); the others decode, or
    are refused, as upb decodes or refuses them."""
    mentions = any(n.encode() in payload for n in (DECISION_EVENT, STATE_EVENT, GUARDRAIL_EVENT))
    assert got(payload) == (expected(payload) if mentions else ("ok", []))


def test_one_resource_spans_reads_alone_and_a_bad_one_names_the_request() -> None:
    span = Span(trace_id=b"\x01" * 16, span_id=b"\x02" * 8, end_time_unix_nano=9, events=[
        Span.Event(name=DECISION_EVENT, attributes=[
            KeyValue(key=OUTCOME_KEY, value=AnyValue(string_value="deny")),
            KeyValue(key="prompt", value=AnyValue(string_value="CANARY-ev-31"))])])
    resource = ResourceSpans(resource=Resource(attributes=[KeyValue(
        key="service.name", value=AnyValue(string_value="svc"))]),
        scope_spans=[ScopeSpans(spans=[span])])
    [decision] = span_events_from_protobuf(resource.SerializeToString(), resource_spans=True)
    assert (decision.outcome, decision.fallback_agent, decision.time_ns) == ("deny", "svc", 9)
    assert "CANARY" not in repr(decision)
    bad = ExportTraceServiceRequest(resource_spans=[resource]).SerializeToString() + b"\x0a"
    with pytest.raises(TraceFormatError, match=r"^file\.pb: not an OTLP .* at byte"):
        span_events_from_protobuf(bad, "file.pb")
