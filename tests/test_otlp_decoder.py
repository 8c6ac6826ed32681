"""The compiled OTLP protobuf decoder (core/src/otlp_pb.rs) against upb, the independent oracle.

Payloads are built with the real `opentelemetry-proto` classes (from the recorded fixtures, and
at random with hostile values); both paths must give the same SpanRecords field for field (types
included: a bool is not the int 1), the same accept/reject outcome on truncated and corrupted
bytes, the same `--jobs` filtering, and the decoder's errors stay one line naming the place.
"""

from __future__ import annotations

import base64
import json
import math
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import _upb_oracle as oracle
import pytest
from _strategies import corrupted
from fixture_expectations import FIXTURES
from google.protobuf.json_format import ParseDict
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest
from opentelemetry.proto.common.v1.common_pb2 import (
    AnyValue,
    ArrayValue,
    EntityRef,
    InstrumentationScope,
    KeyValue,
    KeyValueList,
)
from opentelemetry.proto.resource.v1.resource_pb2 import Resource
from opentelemetry.proto.trace.v1.trace_pb2 import ResourceSpans, ScopeSpans, Span, Status

from otel_agentcov.readers.otlp import TraceFormatError, records_from_protobuf
from otel_agentcov.records import SpanRecord

HERE = Path(__file__).resolve().parent
SLOW_DATA = [HealthCheck.too_slow, HealthCheck.data_too_large]  # protobuf messages are big draws
_IDS = ("traceId", "spanId", "parentSpanId")


def exact(value: Any) -> Any:
    """A value with its type spelled out and NaN comparable, so equality means same value and
    same type all the way down (Python's `True == 1` and `nan != nan` would hide differences)."""
    if isinstance(value, SpanRecord):
        return ("SpanRecord", *(exact(getattr(value, f)) for f in value.__slots__))
    if isinstance(value, dict):
        return ("dict", [(exact(k), exact(v)) for k, v in value.items()])
    if isinstance(value, (tuple, list)):
        return (type(value).__name__, [exact(v) for v in value])
    if isinstance(value, float) and math.isnan(value):
        return ("float", "nan")
    return (type(value).__name__, value)


def outcome(decode: Any, payload: bytes, **kwargs: Any) -> Any:
    """('ok', records) or ('error', kind) where kind tells a parse refusal from an id error."""
    try:
        return "ok", exact(decode(payload, **kwargs))
    except TraceFormatError as exc:
        message = str(exc)
        assert "\n" not in message
        if "-byte id, got" in message:
            return "error", message.split(": ", 1)[1]  # the same words from both paths
        return "error", "malformed"


def both(payload: bytes, keep: Any = None) -> tuple[Any, Any]:
    return (outcome(oracle.records, payload, keep=keep),
            outcome(records_from_protobuf, payload, keep=keep))


def _b64_ids(node: Any) -> Any:
    """OTLP/JSON writes ids as hex; protobuf's JSON mapping (ParseDict) wants base64."""
    if isinstance(node, dict):
        return {k: (base64.b64encode(bytes.fromhex(v)).decode() if k in _IDS else _b64_ids(v))
                for k, v in node.items()}
    if isinstance(node, list):
        return [_b64_ids(v) for v in node]
    return node


def fixture_payloads() -> list[tuple[str, bytes]]:
    """Every recorded fixture, as the protobuf request the same SDK export would have sent."""
    out = []
    for path in sorted(FIXTURES.glob("*/*.json")):
        doc = json.loads(path.read_text(encoding="utf-8"))
        if path.name == "versions.json":  # the recorded library versions, not traces
            continue
        for n, item in enumerate(doc if isinstance(doc, list) else [doc]):
            request = ParseDict(_b64_ids(item), ExportTraceServiceRequest())
            out.append((f"{path.parent.name}/{path.stem}[{n}]", request.SerializeToString()))
    return out


FIXTURE_PAYLOADS = fixture_payloads()


def test_every_fixture_decodes_as_upb_does() -> None:
    spans = 0
    for name, payload in FIXTURE_PAYLOADS:
        expected, got = both(payload)
        assert expected[0] == "ok" and got == expected, name
        records = len(expected[1][1])
        # --jobs: each of two workers keeps its half of the traces, the same spans upb gives
        for part in (0, 1):
            expected, got = both(payload, keep=lambda t, part=part: t % 2 == part)
            assert got == expected, name
            records -= len(got[1][1])
        assert records == 0, name
        spans += len(expected[1][1])
    assert spans > 1000  # the corpus, not a handful


def test_keep_is_asked_once_per_span_with_its_trace_id() -> None:
    """`--jobs` counts its progress line in `keep`: every span asks it, as with upb."""
    for name, payload in FIXTURE_PAYLOADS:
        upb: list[int] = []
        core: list[int] = []
        oracle.records(payload, keep=lambda t, asked=upb: asked.append(t) is None)
        records_from_protobuf(payload, keep=lambda t, asked=core: asked.append(t) is None)
        assert core == upb and upb, name


def test_fixture_payloads_truncated_anywhere_are_refused_or_read_as_upb_reads_them() -> None:
    name, payload = max(FIXTURE_PAYLOADS, key=lambda item: len(item[1]))
    step = max(1, len(payload) // 400)
    for cut in range(0, len(payload), step):
        expected, got = both(payload[:cut])
        assert got == expected, (name, cut)


# ---------------------------------------------------------------- random requests

texts = st.text(st.characters(codec="utf-8"), max_size=12) | st.sampled_from(
    ["", "gen_ai.tool.name", "é", "日本", "\x00", "\U0001f600"])
keys = st.sampled_from(["a", "b", "gen_ai.system", "ü", ""]) | texts  # duplicates likely
scalars = st.one_of(
    st.builds(AnyValue),  # empty: None
    st.builds(AnyValue, string_value=texts),
    st.builds(AnyValue, bool_value=st.booleans()),
    st.builds(AnyValue, int_value=st.integers(-(2**63), 2**63 - 1)),
    st.builds(AnyValue, double_value=st.floats(allow_nan=True, allow_infinity=True)),
    st.builds(AnyValue, bytes_value=st.binary(max_size=8)),
    st.builds(AnyValue, string_value_strindex=st.integers(-(2**31), 2**31 - 1)),
)


def _key_values(values: st.SearchStrategy[AnyValue]) -> st.SearchStrategy[list[KeyValue]]:
    return st.lists(st.builds(KeyValue, key=keys, value=values) | st.builds(KeyValue, key=keys),
                    max_size=3)


any_values = st.recursive(
    scalars,
    lambda inner: st.builds(AnyValue, array_value=st.builds(
        ArrayValue, values=st.lists(inner, max_size=3))) | st.builds(
        AnyValue, kvlist_value=st.builds(KeyValueList, values=_key_values(inner))),
    max_leaves=6,
)
attributes = _key_values(any_values)
ids16 = st.sampled_from([b"", b"\x00" * 16, b"\x01" * 16, b"\xff" * 16]) | st.binary(
    min_size=16, max_size=16)
ids8 = st.sampled_from([b"", b"\x00" * 8, b"\xff" * 8]) | st.binary(min_size=8, max_size=8)
odd_ids = st.binary(max_size=20)  # mostly a wrong length: an id error, if the span is kept
int32 = st.integers(-(2**31), 2**31 - 1)
u64 = st.integers(0, 2**64 - 1)
spans = st.builds(
    Span,
    trace_id=st.one_of(ids16, ids16, odd_ids), span_id=ids8 | odd_ids, parent_span_id=ids8,
    trace_state=texts, name=texts, kind=int32, start_time_unix_nano=u64, end_time_unix_nano=u64,
    attributes=attributes, flags=st.integers(0, 2**32 - 1), dropped_attributes_count=st.integers(
        0, 2**32 - 1),
    events=st.lists(st.builds(Span.Event, name=texts, time_unix_nano=u64, attributes=attributes),
                    max_size=2),
    links=st.lists(st.builds(Span.Link, trace_id=odd_ids, trace_state=texts,
                             attributes=attributes), max_size=2),
    status=st.builds(Status, code=int32, message=texts) | st.none(),
)
requests = st.builds(
    ExportTraceServiceRequest,
    resource_spans=st.lists(st.builds(
        ResourceSpans,
        resource=st.builds(Resource, attributes=attributes, entity_refs=st.lists(
            st.builds(EntityRef, type=texts, id_keys=st.lists(texts, max_size=2)), max_size=1)),
        schema_url=texts,
        scope_spans=st.lists(st.builds(
            ScopeSpans, scope=st.builds(InstrumentationScope, name=texts, version=texts,
                                        attributes=attributes),
            spans=st.lists(spans, max_size=3)), max_size=2)), max_size=2),
)


@settings(max_examples=100, deadline=None, suppress_health_check=SLOW_DATA)
@given(requests, requests, st.sampled_from([None, 0, 1]))
def test_random_requests_decode_as_upb_does(
    first: ExportTraceServiceRequest, second: ExportTraceServiceRequest, part: int | None
) -> None:
    # two serialized messages back to back parse as their merge: repeated fields append, a
    # resource / scope / status / attribute value given twice merges, the last scalar wins
    payload = first.SerializeToString()
    merged = payload + second.SerializeToString()
    keep = None if part is None else (lambda t: t % 2 == part)
    for data in (payload, merged):
        expected, got = both(data, keep)
        assert got == expected


@settings(max_examples=150, deadline=None, suppress_health_check=SLOW_DATA)
@given(corrupted(requests.map(ExportTraceServiceRequest.SerializeToString)))
def test_corrupted_bytes_get_the_outcome_upb_gives(payload: bytes) -> None:
    expected, got = both(payload)
    assert got == expected


@pytest.mark.parametrize(
    ("payload", "place"),
    [
        # span 1 of scope 0's name is not UTF-8
        (ExportTraceServiceRequest(resource_spans=[ResourceSpans(scope_spans=[ScopeSpans(
            spans=[Span(name="ok"), Span(name="x")])])]).SerializeToString().replace(
            b"\x2a\x01x", b"\x2a\x01\xff"),
         "in resourceSpans[0].scopeSpans[0].spans[1]"),
        (b"\x0a\x05\x12\x03\x12\x01\xff", "in resourceSpans[0].scopeSpans[0].spans[0]"),
        (b"\x0a\x09\x12", "runs past its message at byte 1"),
    ],
)
def test_a_refusal_is_one_line_naming_the_byte_and_the_element(payload: bytes, place: str) -> None:
    with pytest.raises(TraceFormatError):
        oracle.records(payload)
    with pytest.raises(TraceFormatError) as caught:
        records_from_protobuf(payload, "http request")
    message = str(caught.value)
    assert message.startswith("http request: not an OTLP ExportTraceServiceRequest (")
    assert place in message and "\n" not in message


def _field(number: int, body: bytes) -> bytes:
    """One length-delimited protobuf field (lengths below 2**14 here: two varint bytes)."""
    n = len(body)
    size = bytes([n]) if n < 0x80 else bytes([n & 0x7F | 0x80, n >> 7])
    return bytes([number << 3 | 2]) + size + body


def test_nesting_is_refused_where_upb_refuses_it() -> None:
    def nested(depth: int) -> bytes:  # an attribute value: arrays in arrays, `depth` deep
        value = _field(1, b"leaf")
        for _ in range(depth):
            value = _field(5, _field(1, value))
        span = _field(9, _field(1, b"k") + _field(2, value))
        return _field(1, _field(2, _field(2, span)))

    outcomes = [both(nested(depth)) for depth in range(40, 60)]
    assert all(got == expected for expected, got in outcomes)
    assert {expected[0] for expected, _ in outcomes} == {"ok", "error"}  # both sides of the limit
    deep = b"\x0a\x02\x12\x00" + b"\xfb\x01" * 100_000  # groups, far past any stack
    assert both(deep)[1] == ("error", "malformed")


# ---------------------------------------------------------------- fuzzing


@pytest.mark.slow
def test_fuzzing_the_bytes_entry_point_finds_no_crash_and_no_disagreement(tmp_path: Path) -> None:
    """atheris (libFuzzer) mutates the fixture payloads and feeds them to the decoder (to
    SpanRecords and through the fused decode-and-classify entry) and to upb
    (tests/fuzz_otlp_decoder.py): a panic, an exception other than TraceFormatError or
    TooLarge, or an outcome they do not all share stops it with a non-zero exit. In a subprocess,
    because libFuzzer ends the process it runs in."""
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    for n, (_, payload) in enumerate(FIXTURE_PAYLOADS):
        if len(payload) <= 4096:
            (corpus / f"seed{n}").write_bytes(payload)
    # issue 37: a group (skipped by the decoder) in front of more spans than the harness's caps
    scope = b"\x7b\x08\x01\x7c" + b"\x12\x00" * 21
    resource_spans = b"\x12" + bytes([len(scope)]) + scope
    (corpus / "group").write_bytes(b"\x0a" + bytes([len(resource_spans)]) + resource_spans)
    run = subprocess.run(
        [sys.executable, str(HERE / "fuzz_otlp_decoder.py"), "-runs=4000", "-seed=26",
         "-max_len=4096", "-rss_limit_mb=1024", str(corpus)],
        capture_output=True, text=True, timeout=240, env={**os.environ, "PYTHONPATH": str(HERE)},
        cwd=tmp_path,
    )
    assert run.returncode == 0, run.stderr[-3000:]
    assert "Done 4000 runs" in run.stderr
