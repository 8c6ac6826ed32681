"""Trace files written by the real SDK encoders read back as the SpanRecords the in-process path
builds, whatever the container (protobuf, OTLP/JSON, Collector JSON Lines, gzip, length-delimited
stream), and every bad input is one TraceFormatError line naming the file and the place."""

from __future__ import annotations

import gzip
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest
from _trace_files import batches, demo_spans, json_text, ld, protobuf_bytes, write_jsonl
from google.protobuf.internal.encoder import _VarintBytes  # the varint protobuf itself writes

from otel_agentcov.readers import files
from otel_agentcov.readers.files import read_trace_file, trace_files
from otel_agentcov.readers.otlp import TraceFormatError
from otel_agentcov.records import SpanRecord, from_readable_span

SPANS = demo_spans(runs=12)


def _key(r: SpanRecord) -> tuple[Any, ...]:
    return (r.trace_id, r.span_id, r.parent_id, r.name, r.kind, r.start_ns, r.end_ns,
            r.status_code, r.status_description, dict(r.attributes),
            [(n, dict(a)) for n, a in r.events], r.scope_name, dict(r.resource_attributes))


EXPECTED = sorted(_key(from_readable_span(s)) for s in SPANS)


def _read(path: Path | str) -> list[tuple[Any, ...]]:
    return sorted(_key(r) for r in read_trace_file(str(path)))


def _files(tmp_path: Path) -> dict[str, Path]:
    pb = protobuf_bytes(SPANS)
    out = {
        "request.pb": pb,
        "request.json": json_text(SPANS).encode(),
        # length-delimited stream of requests (as writeDelimitedTo / the Collector's proto files)
        "stream.binpb": b"".join(
            _VarintBytes(len(b)) + b for b in (protobuf_bytes(x) for x in batches(SPANS))
        ),
        # concatenated serialized requests are one request (repeated fields append)
        "concatenated.pb": b"".join(protobuf_bytes(x) for x in batches(SPANS)),
    }
    paths = {name: tmp_path / name for name in out}
    for name, data in out.items():
        paths[name].write_bytes(data)
    paths["collector.jsonl"] = write_jsonl(tmp_path / "collector.jsonl", SPANS)
    for name in list(paths):
        gz = tmp_path / f"{name}.gz"
        gz.write_bytes(gzip.compress(paths[name].read_bytes()))
        paths[f"{name}.gz"] = gz
    # the extension lies: the content decides
    paths["misnamed.json"] = tmp_path / "misnamed.json"
    paths["misnamed.json"].write_bytes(gzip.compress(pb))
    return paths


def test_every_container_reads_back_the_sdk_spans(tmp_path: Path) -> None:
    for name, path in _files(tmp_path).items():
        assert _read(path) == EXPECTED, name


def test_pretty_printed_json_document_and_bom(tmp_path: Path) -> None:
    import json

    path = tmp_path / "pretty.json"
    doc = json.loads(json_text(SPANS))
    path.write_text("\ufeff\n\n" + json.dumps(doc, indent=2), encoding="utf-8")
    assert _read(path) == EXPECTED
    listed = tmp_path / "list.json"
    listed.write_text(json.dumps([json.loads(json_text(b)) for b in batches(SPANS)]))
    assert _read(listed) == EXPECTED


def test_huge_messages_are_walked_span_by_span(tmp_path: Path, monkeypatch: Any) -> None:
    """Above CHUNK_LIMIT a ResourceSpans / ScopeSpans is never decoded whole; same records."""
    monkeypatch.setattr(files, "CHUNK_LIMIT", 64)
    path = tmp_path / "big.pb"
    path.write_bytes(protobuf_bytes(SPANS))
    assert _read(path) == EXPECTED


def test_root_listed_before_children_still_closes_its_run(tmp_path: Path) -> None:
    """Within a batch, local roots are fed after every other span (each part in end order), so
    a root neither closes an empty run nor one missing a child that ends after it (the AI SDK
    stamps its own end times)."""
    roots_first = sorted(SPANS, key=lambda s: s.parent is not None)
    path = tmp_path / "roots-first.pb"
    path.write_bytes(protobuf_bytes(roots_first))
    records = list(read_trace_file(str(path)))
    roots = [r.parent_id is None or r.parent_remote for r in records]
    assert roots == sorted(roots) and any(roots) and not all(roots)
    for part in (False, True):
        ends = [r.end_ns for r, root in zip(records, roots, strict=True) if root is part]
        assert ends == sorted(ends)


def test_directories_are_walked_recursively_in_order_hidden_skipped(tmp_path: Path) -> None:
    (tmp_path / "b" / "c").mkdir(parents=True)
    (tmp_path / "a.pb").write_bytes(b"")
    (tmp_path / "b" / "c" / "d.json").write_bytes(b"")
    (tmp_path / ".hidden").write_bytes(b"")
    (tmp_path / "b" / ".git").mkdir()
    (tmp_path / "b" / ".git" / "x").write_bytes(b"")
    found = list(trace_files([str(tmp_path), "-"]))
    assert found == [str(tmp_path / "a.pb"), str(tmp_path / "b" / "c" / "d.json"), "-"]


def _error(tmp_path: Path, data: bytes, name: str = "bad") -> str:
    path = tmp_path / name
    path.write_bytes(data)
    with pytest.raises(TraceFormatError) as info:
        list(read_trace_file(str(path)))
    message = str(info.value)
    assert message.startswith(f"{path}: ") and "\n" not in message
    return message


def test_bad_inputs_name_the_file_and_the_place(tmp_path: Path) -> None:
    pb = protobuf_bytes(SPANS)
    jsonl = "".join(json_text(b) + "\n" for b in batches(SPANS)).encode()
    lines = jsonl.splitlines(keepends=True)
    cases: Sequence[tuple[bytes, Sequence[str]]] = [
        (b"", ("empty input", "expected OTLP/JSON")),
        (pb[: len(pb) // 2], ("byte ", "truncated", "ResourceSpans")),
        (gzip.compress(pb)[:-20], ("gzip",)),
        (b"\x05\x01\x02garbage", ("byte 0", "not OTLP traces")),
        (lines[0] + b'{"resourceSpans": [\n', ("line 2", "not valid JSON")),
        (lines[0] + b'{"resourceSpans": [{"scopeSpans": 3}]}\n',
         ("line 2", "resourceSpans[0].scopeSpans", "expected a list")),
        (lines[0] + b'{"resourceSpans": []}\xff\n', ("line 2", "not UTF-8")),
        (b'{"results": [{"trace": {"steps": []}}]}', ("expected an OTLP/JSON object",
                                                     "resourceSpans", "results")),
        (b'{\n  "resourceSpans": [\n', ("line 3", "not valid JSON")),
        (b"[1, 2]", ("[0]", "expected an OTLP/JSON object", "got int")),
    ]
    for data, words in cases:
        message = _error(tmp_path, data)
        for word in words:
            assert word in message, (word, message)


def test_bad_span_id_in_protobuf_names_the_byte_offset(tmp_path: Path, monkeypatch: Any) -> None:
    from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import (
        ExportTraceServiceRequest,
    )

    request = ExportTraceServiceRequest.FromString(protobuf_bytes(SPANS[:3]))
    request.resource_spans[0].scope_spans[0].spans[1].span_id = b"\x01\x02"
    data = request.SerializeToString()
    message = _error(tmp_path, data)
    assert "byte 0: resourceSpans[0].scopeSpans[0].spans[1].spanId" in message
    monkeypatch.setattr(files, "CHUNK_LIMIT", 16)  # walked: the offset is the span's own
    message = _error(tmp_path, data)
    assert "spans[1].spanId: expected a 8-byte id" in message
    assert "byte 0:" not in message


def test_missing_file(tmp_path: Path) -> None:
    with pytest.raises(TraceFormatError, match="nope.pb: cannot read: No such file"):
        list(read_trace_file(str(tmp_path / "nope.pb")))


def test_json_nested_too_deeply_is_one_line(tmp_path: Path) -> None:
    """json.loads raises RecursionError, not JSONDecodeError, on deep nesting."""
    deep = b"[" * 100_000 + b"]" * 100_000
    for data in (deep, deep + b"\n"):  # a whole document, a JSON Lines line
        assert "nested too deeply" in _error(tmp_path, data)


def _heads_last(request_bytes: bytes) -> bytes:
    """The same request with every ResourceSpans' resource after its ScopeSpans and every
    ScopeSpans' scope after its spans: fields in another order, the same message to protobuf."""
    from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import (
        ExportTraceServiceRequest,
    )

    request = ExportTraceServiceRequest.FromString(request_bytes)
    return b"".join(ld(1, b"".join(
        ld(2, b"".join(ld(2, s.SerializeToString()) for s in ss.spans)
            + ld(1, ss.scope.SerializeToString()))
        for ss in rs.scope_spans) + ld(1, rs.resource.SerializeToString()))
        for rs in request.resource_spans)


def test_a_walked_message_reads_its_scope_and_resource_wherever_they_sit(
    tmp_path: Path, monkeypatch: Any
) -> None:
    """Issue 37: a ScopeSpans past CHUNK_LIMIT whose scope came after its spans lost its scope
    (the same spans failed a gate at 1 KiB and passed at 9 MiB). A walked message is read in
    two passes, its resource or scope first: the same records at every size, from a plain
    file (read twice), a gzip one (copied to a temporary file) and past FILE_CAPS (in memory)."""
    data = _heads_last(protobuf_bytes(SPANS))
    plain, packed = tmp_path / "late.pb", tmp_path / "late.pb.gz"
    plain.write_bytes(data)
    packed.write_bytes(gzip.compress(data))
    assert _read(plain) == EXPECTED  # decoded whole
    monkeypatch.setattr(files, "CHUNK_LIMIT", 64)
    assert _read(plain) == EXPECTED
    assert _read(packed) == EXPECTED
    monkeypatch.setattr(files, "CHUNK_LIMIT", 8 << 20)
    monkeypatch.setattr(files, "FILE_CAPS", (2, 1_000_000))
    monkeypatch.setattr(files, "_BYTES_PER", (1 << 40, 1 << 40))  # the caps are FILE_CAPS
    assert _read(plain) == EXPECTED


def test_past_the_file_caps_a_message_is_walked_and_an_element_refused(
    tmp_path: Path, monkeypatch: Any
) -> None:
    """Issue 37: one call of the decoder decodes at most FILE_CAPS, or one span per 32 bytes
    (2 bytes of an empty span became ~1 KB: a 7 KiB .pb.gz grew a run to 3.4 GB). Past them a
    message is walked part by part, reading the same records; a single span past them is
    refused in one line."""
    path = tmp_path / "request.pb"
    path.write_bytes(protobuf_bytes(SPANS))
    monkeypatch.setattr(files, "FILE_CAPS", (3, 40))
    monkeypatch.setattr(files, "_BYTES_PER", (1 << 40, 1 << 40))
    assert _read(path) == EXPECTED
    wide = ld(1, ld(2, ld(2, ld(9, ld(1, b"k")) * 41)))
    message = _error(tmp_path, wide, "wide.pb")
    assert message.endswith("byte 6: more than 40 attributes in one element; not read")  # the span


def test_json_of_more_values_than_the_cap_is_refused_before_parsing(
    tmp_path: Path, monkeypatch: Any
) -> None:
    """Issue 37: 80 KB of gzip holding `[{},{},...]` was parsed into 2.15 GB of dicts before it
    was refused as not traces. Text of more than MAX_JSON_VALUES values is refused unparsed,
    as a document and as a JSON line."""
    monkeypatch.setattr(files, "MAX_JSON_VALUES", 1000)
    parsed: list[int] = []
    loads = files.json.loads
    monkeypatch.setattr(files.json, "loads", lambda text: parsed.append(len(text)) or loads(text))
    bomb = b"[" + b"{}," * 999 + b"{}]"
    for data, what in ((bomb, "line 1"), (b"\n" + bomb.replace(b",", b",\n"), "the document")):
        message = _error(tmp_path, gzip.compress(data), "bomb.json.gz")
        assert f"{what} is over 1,000 values of JSON" in message, message
    assert max(parsed) < 10  # the document's first lines, never the bomb
    small = b"[" + b"{}," * 498 + b"{}]"  # counted 998 (commas, braces, brackets): parsed
    assert "expected an OTLP/JSON object" in _error(tmp_path, small, "small.json")
    assert max(parsed) == len(small)


def test_a_number_past_the_digit_limit_is_one_line(tmp_path: Path) -> None:
    """json.loads raises a ValueError that is no JSONDecodeError past 4300 digits: a traceback."""
    number = b"1" * 4301
    for data in (b'{"resourceSpans": [], "n": ' + number + b"}\n",
                 b'{\n"resourceSpans": [], "n": ' + number + b"}"):
        assert "more digits than can be read (4300)" in _error(tmp_path, data)


@pytest.mark.parametrize("size", [91, 123, 9, 32])
def test_a_protobuf_request_is_told_from_json_by_its_structure(size: int, tmp_path: Path) -> None:
    """Issue 37: a request opens with a newline (field 1's tag), then its first ResourceSpans'
    length: 91 and 123 are `[` and `{` (9 and 32: whitespace), which read as JSON (exit 2)."""
    span = (ld(1, bytes(range(1, 17))) + ld(2, bytes(range(1, 9))) + ld(5, b"execute_tool t")
            + b"\x39" + (1).to_bytes(8, "little") + b"\x41" + (2).to_bytes(8, "little"))
    body = ld(2, ld(2, span)) if size > 40 else b""
    rs = body + ld(3, b"u" * (size - len(body) - 2))  # padded with a schema URL
    assert len(ld(1, rs)) == size + 2
    path = tmp_path / "exact.pb"
    path.write_bytes(ld(1, rs) + ld(1, rs))
    records = list(read_trace_file(str(path)))
    assert [r.name for r in records] == (["execute_tool t"] * 2 if size > 40 else [])
    assert files.resource_spans_units(str(path)) is not None


def test_logs_or_traces_is_told_by_a_field_only_one_of_them_carries() -> None:
    """A log record and a span share field numbers 3, 5 and 9 as bytes: those decide nothing.
    A span of attributes alone was once read as a logs request (its first field was not a trace
    id) and its error lost; a log record whose body comes first is logs by its fixed64 time."""
    from opentelemetry.proto.collector.logs.v1.logs_service_pb2 import ExportLogsServiceRequest
    from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest

    from otel_agentcov.readers.otlp_logs import is_logs_protobuf

    fixed64 = bytes([11 << 3 | 1]) + (7).to_bytes(8, "little")  # observed_time_unix_nano
    body = ld(5, ld(1, b"x"))  # AnyValue string_value
    log = ld(1, ld(2, ld(2, body + fixed64)))
    span = ld(1, ld(2, ld(2, ld(9, ld(1, b"k")) + bytes([7 << 3 | 1]) + bytes(8))))
    assert ExportLogsServiceRequest.FromString(log).resource_logs[0].scope_logs[0].log_records
    assert ExportTraceServiceRequest.FromString(span).resource_spans[0].scope_spans[0].spans
    assert is_logs_protobuf(log) and not is_logs_protobuf(span)
    assert not is_logs_protobuf(ld(1, ld(2, ld(2, body))))  # bytes only: read as traces
