"""`--jobs N` over plain protobuf files: each worker decodes its share of the bytes, a trace
crossing shares is read by one worker in file order, and the report is the single process's
(compared as rendered JSON text)."""

from __future__ import annotations

import gzip
import os
import random
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

import pytest
from _trace_files import batches, demo_spans, protobuf_bytes, write_spec
from google.protobuf.internal.encoder import _VarintBytes
from hypothesis import given
from hypothesis import strategies as st
from opentelemetry.proto.trace.v1.trace_pb2 import ResourceSpans, ScopeSpans, Span

from otel_agentcov import _core, jobs, offline
from otel_agentcov.engine import CoverageEngine
from otel_agentcov.readers.files import Unit, resource_spans_units
from otel_agentcov.reporting import render
from otel_agentcov.spec import CoverageSpec


def _report(spec: CoverageSpec, paths: list[str], jobs: int, **kw: object) -> str:
    engine = offline.load(spec, traces=paths, jobs=jobs, **kw)  # type: ignore[arg-type]
    return render(offline.report(engine), "json")


def _write(path: Path, parts: Iterable[bytes]) -> str:
    """Serialized requests one after the other: one request whose ResourceSpans are theirs."""
    path.write_bytes(b"".join(parts))
    return str(path)


def test_each_worker_decodes_its_share_once(tmp_path: Path,
                                            monkeypatch: pytest.MonkeyPatch) -> None:
    """Every ResourceSpans is decoded by the worker whose share holds it; another reads one
    again only for a trace first seen in an earlier share (here, one cut by an export batch)."""
    spans = demo_spans(runs=40, seed=11)
    path = _write(tmp_path / "traces.pb", (protobuf_bytes(b) for b in batches(spans, 40)))
    spec = CoverageSpec.from_yaml(str(write_spec(tmp_path / "spec.yaml")))
    shares = jobs._shares([path], 2)
    assert shares is not None and all(shares)
    log = tmp_path / "reads"
    log.mkdir()
    read_units = jobs.read_units

    def logged(units: list[Unit], *args: Any) -> Iterator[Any]:
        with (log / str(os.getpid())).open("a") as fh:
            fh.writelines(f"{u.index}\n" for u in units)
        return read_units(units, *args)

    monkeypatch.setattr(jobs, "read_units", logged)
    engine = CoverageEngine(spec)
    assert jobs.read_in_parallel(engine, [path], 2)
    reads = [[int(n) for n in f.read_text().split()] for f in log.iterdir()]
    assert len(reads) == 2
    first_pass = sorted(reads, key=min)
    for share, read in zip(shares, first_pass, strict=True):
        assert read[: len(share)] == [u.index for u in share]  # its own share, in order
    extra = sum(len(r) for r in reads) - sum(len(s) for s in shares)
    assert 0 <= extra <= len(shares[1])  # only units of later shares, and only a few
    assert render(offline.report(engine), "json") == _report(spec, [path], 1)


@pytest.mark.parametrize("n", [2, 3])
def test_traces_scattered_over_every_share(tmp_path: Path, n: int) -> None:
    """Spans shuffled into small batches: most traces cross shares, roots before or after
    their children; the owner still sees each trace's spans in file order."""
    spans = list(demo_spans(runs=30, seed=4))
    random.Random(n).shuffle(spans)
    path = _write(tmp_path / "scattered.pb", (protobuf_bytes(b) for b in batches(spans, 7)))
    spec = CoverageSpec.from_yaml(str(write_spec(tmp_path / "spec.yaml")))
    assert jobs._shares([path], n) is not None
    engine = CoverageEngine(spec)
    assert jobs.read_in_parallel(engine, [path], n)
    single = _report(spec, [path], 1)
    assert render(offline.report(engine), "json") == single
    assert _report(spec, [path, path], n) == _report(spec, [path, path], 1)  # across files


def test_a_bad_span_in_a_share_is_the_single_process_error(tmp_path: Path) -> None:
    spans = demo_spans(runs=20, seed=2)
    parts = [protobuf_bytes(b) for b in batches(spans, 30)]
    bad = ResourceSpans(scope_spans=[ScopeSpans(spans=[
        Span(trace_id=b"\x07" * 3, span_id=b"\x01" * 8, name="x")])]).SerializeToString()
    parts.insert(len(parts) * 2 // 3, b"\n" + bytes([len(bad)]) + bad)
    path = _write(tmp_path / "bad.pb", parts)
    assert jobs._shares([path], 2) is not None
    assert not jobs.read_in_parallel(CoverageEngine(), [path], 2)
    errors = []
    for n in (1, 2):
        with pytest.raises(offline.InputError) as exc:
            offline.load(CoverageSpec.empty(), traces=[path], jobs=n)
        errors.append(str(exc.value))
    assert errors[0] == errors[1] and "traceId" in errors[0]
    warned: list[list[str]] = [[], []]
    reports = [_report(CoverageSpec.empty(), [path], n, keep_going=True, warn=warned[i].append)
               for i, n in enumerate((1, 2))]
    assert reports[0] == reports[1] and warned[0] == warned[1] and len(warned[0]) == 1


def test_only_plain_protobuf_requests_are_split(tmp_path: Path) -> None:
    data = protobuf_bytes(demo_spans(runs=4, seed=1))
    plain = _write(tmp_path / "plain.pb", [data, data])
    units = resource_spans_units(plain)
    assert units is not None and len(units) == 2
    assert units[1].at == len(data) and units[1].index == 1
    assert units[1].start + units[1].size == len(data) * 2
    (tmp_path / "z.pb.gz").write_bytes(gzip.compress(data))
    (tmp_path / "d.pb").write_bytes(bytes([len(data) & 0x7F | 0x80, len(data) >> 7]) + data)
    (tmp_path / "j.json").write_text('\n{"resourceSpans": []}')
    (tmp_path / "cut.pb").write_bytes(data[:-1])
    for name in ("z.pb.gz", "d.pb", "j.json", "cut.pb"):
        assert resource_spans_units(str(tmp_path / name)) is None, name
    assert jobs._shares([plain], 3) is None  # two units cannot make three shares
    assert jobs._shares([plain, str(tmp_path / "j.json")], 2) is None


_ids = st.one_of(st.just(b""), st.binary(min_size=16, max_size=16), st.binary(max_size=16))


def _field(number: int, body: bytes) -> bytes:
    return _VarintBytes(number << 3 | 2) + _VarintBytes(len(body)) + body


@given(st.lists(st.lists(st.lists(_ids, max_size=2), max_size=5), max_size=4),
       st.binary(max_size=8))
def test_the_scan_holds_every_id_a_decoder_gives(scopes: list[list[list[bytes]]],
                                                tail: bytes) -> None:
    """Ids of any length up to 16 bytes (none is trace 0), a span whose id is sent twice (the
    decoder keeps the last), as `int.from_bytes` reads them; other bytes never crash it."""
    data = b"".join(_field(2, b"".join(
        _field(2, b"".join(Span(trace_id=t, name="s").SerializeToString() for t in ids))
        for ids in scope)) for scope in scopes)
    decoded = ResourceSpans()
    decoded.ParseFromString(data)
    want = {int.from_bytes(s.trace_id, "big") for ss in decoded.scope_spans for s in ss.spans}
    assert want <= _core.trace_ids(data)
    try:
        _core.trace_ids(data + tail)
    except ValueError:
        pass


@pytest.mark.parametrize("where", ["scan", "read", "panic", "exit"])
def test_a_worker_failing_anywhere_leaves_the_files_to_one_process(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capfd: pytest.CaptureFixture[str],
        where: str) -> None:
    """A share that cannot be scanned, a worker failing after the swap (a core panic too: a
    real one stands in for one, none being known), or one that dies: no worker
    waits for ever, none prints a traceback, and the caller's engine is left untouched."""
    spans = demo_spans(runs=20, seed=6)
    path = _write(tmp_path / "t.pb", (protobuf_bytes(b) for b in batches(spans, 30)))
    unit_bytes, read_units = jobs.unit_bytes, jobs.read_units

    def scanned(units: list[Unit]) -> Iterator[bytes]:
        for data, unit in zip(unit_bytes(units), units, strict=True):
            yield b"\x13" if unit.index > 0 else data  # a group never ended: not scannable

    def failing(units: list[Unit], *args: Any) -> Iterator[Any]:
        if units[0].index > 0:
            if where == "exit":
                os._exit(3)
            if where == "panic":
                _core._panic("index out of bounds")  # a real panic, behind the core's door
            raise OSError("gone")
        return read_units(units, *args)

    if where == "scan":
        monkeypatch.setattr(jobs, "unit_bytes", scanned)
    else:
        monkeypatch.setattr(jobs, "read_units", failing)
    engine = CoverageEngine()
    assert not jobs.read_in_parallel(engine, [path], 2)
    assert engine.span_stats()["processed"] == 0
    assert "Traceback" not in capfd.readouterr().err
