"""OTLP logs protobuf read by the compiled core (core/src/otlp_logs.rs,
`readers.otlp_logs.events_from_protobuf`) against the Python walk it replaced
(tests/_logs_oracle.py): the same events in the same order, the same refusals worded alike
(one line naming the request and the byte), the same caps, on real requests, random ones with
hostile values and corrupted bytes.
"""

from __future__ import annotations

from typing import Any

import _logs_oracle as oracle
import pytest
from _strategies import corrupted
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from opentelemetry.proto.collector.logs.v1.logs_service_pb2 import ExportLogsServiceRequest
from opentelemetry.proto.common.v1.common_pb2 import AnyValue, ArrayValue, KeyValue
from opentelemetry.proto.logs.v1.logs_pb2 import LogRecord, ResourceLogs, ScopeLogs
from opentelemetry.proto.resource.v1.resource_pb2 import Resource

from otel_agentcov.readers.otlp import TraceFormatError
from otel_agentcov.readers.otlp_logs import events_from_protobuf
from otel_agentcov.readers.otlp_size import ElementCaps, TooLarge
from otel_agentcov.semconv.events import (
    DECISION_EVENT,
    EVENT_NAME_KEY,
    GUARDRAIL_EVENT,
    KEY_COUNT_KEY,
    KEYS_KEY,
    OUTCOME_KEY,
    RESULT_TYPE_KEY,
    RESULT_VALUE_KEY,
    STATE_EVENT,
)

SLOW_DATA = [HealthCheck.too_slow, HealthCheck.data_too_large]


def outcome(read: Any, payload: bytes, **kwargs: Any) -> Any:
    try:
        return ("ok", read(payload, "http logs request", **kwargs))
    except TooLarge as exc:
        return ("too large", str(exc))
    except TraceFormatError as exc:
        assert "\n" not in str(exc)
        return ("refused", str(exc))


def both(payload: bytes, **kwargs: Any) -> tuple[Any, Any]:
    return (outcome(oracle.events_from_protobuf, payload, **kwargs),
            outcome(events_from_protobuf, payload, **kwargs))


names = st.sampled_from([DECISION_EVENT, STATE_EVENT, GUARDRAIL_EVENT, "other", ""])
keys = st.sampled_from([OUTCOME_KEY, "gen_ai.tool.call.id", "gen_ai.tool.name", KEY_COUNT_KEY,
                        KEYS_KEY, RESULT_TYPE_KEY, RESULT_VALUE_KEY, EVENT_NAME_KEY, "prompt"])
strings = st.sampled_from(["allow", "deny", "require_approval", "t", "", DECISION_EVENT,
                           STATE_EVENT, "é" * 300]) | st.text(max_size=8)
scalars = st.one_of(
    st.builds(AnyValue),
    st.builds(AnyValue, string_value=strings),
    st.builds(AnyValue, bool_value=st.booleans()),
    st.builds(AnyValue, int_value=st.integers(-(2**63), 2**63 - 1) | st.integers(0, 40)),
    st.builds(AnyValue, double_value=st.floats(allow_nan=False)),
)
values = scalars | st.builds(AnyValue, array_value=st.builds(ArrayValue, values=st.lists(
    scalars | st.builds(AnyValue, string_value=strings), max_size=34)))
attributes = st.lists(st.builds(KeyValue, key=keys, value=values) | st.sampled_from([
    KeyValue(key=OUTCOME_KEY, value=AnyValue(string_value="deny")),
    KeyValue(key=KEY_COUNT_KEY, value=AnyValue(int_value=2)),
    KeyValue(key=KEYS_KEY, value=AnyValue(array_value=ArrayValue(values=[
        AnyValue(string_value="plan"), AnyValue(string_value="todo")])))]), max_size=4)
ids16 = st.sampled_from([b"\x01" * 16, b"\x03" * 16, b""]) | st.binary(min_size=16, max_size=16) | (
    st.binary(max_size=17))  # a wrong length reads as no id
ids8 = st.sampled_from([b"\x02" * 8, b""]) | st.binary(max_size=9)
records = st.builds(
    LogRecord, event_name=names, attributes=attributes, trace_id=ids16, span_id=ids8,
    time_unix_nano=st.integers(0, 2**64 - 1) | st.just(0),
    observed_time_unix_nano=st.integers(0, 2**64 - 1),
    body=st.builds(AnyValue, string_value=st.just("CANARY-log-body")))
services = st.lists(st.builds(KeyValue, key=st.just("service.name"), value=scalars), max_size=2)
requests = st.builds(ExportLogsServiceRequest, resource_logs=st.lists(st.builds(
    ResourceLogs, resource=st.builds(Resource, attributes=services),
    scope_logs=st.lists(st.builds(ScopeLogs, log_records=st.lists(records, max_size=3)),
                        max_size=2)), max_size=2))


@settings(max_examples=150, deadline=None, suppress_health_check=SLOW_DATA)
@given(requests, st.sampled_from([None, 0, 1]), st.sampled_from([None, (2, 5), (50, 500)]))
def test_random_requests_read_as_the_oracle_reads_them(
        request: ExportLogsServiceRequest, part: int | None,
        caps: tuple[int, int] | None) -> None:
    keep = None if part is None else (lambda t: t % 2 == part)
    limits = None if caps is None else ElementCaps(*caps)
    expected, got = both(request.SerializeToString(), keep=keep, caps=limits)
    assert got == expected
    assert "CANARY" not in repr(got)


@settings(max_examples=200, deadline=None, suppress_health_check=SLOW_DATA)
@given(corrupted(requests.map(ExportLogsServiceRequest.SerializeToString)))
def test_corrupted_bytes_get_the_outcome_and_the_words_the_oracle_gives(payload: bytes) -> None:
    expected, got = both(payload)
    assert got == expected


@pytest.mark.parametrize("payload", [
    b"\x0b", b"\x0a\x05\x12", b"\x0a", b"\x08\xff", b"\x0a\x03\x12\x01\x62\x01",
    b"\xff" * 11, b"\x0a\x04\x12\x02\x12\x00\x0a\x00",
])
def test_hand_made_bad_bytes_are_refused_in_the_oracles_words(payload: bytes) -> None:
    expected, got = both(payload)
    assert got == expected
