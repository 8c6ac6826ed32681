"""Trace files written by the real SDK encoders read back as the SpanRecords the in-process path
builds, whatever the container (protobuf, OTLP/JSON, Collector JSON Lines, gzip, length-delimited
stream), and every bad input is one TraceFormatError line naming the file and the place."""

from __future__ import annotations

import gzip
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest
from _trace_files import batches, demo_spans, json_text, protobuf_bytes, write_jsonl
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
