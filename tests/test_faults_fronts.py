"""Provoked, natural and recovered stay exact through every front door (docs/faults.md): the
spans of real pydantic-ai runs under the `boundaries` plan give the same `faults` section in
process, offline with `--jobs 1` and `--jobs 2`, from merged state files, and through the
service's store across a crash, with a trace left open in its snapshot."""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest
from _fault_agents import SPEC, run_all, support_agent
from _trace_files import batches, protobuf_bytes
from opentelemetry.sdk.trace import ReadableSpan

from otel_agentcov import faults, offline
from otel_agentcov.engine import CoverageEngine
from otel_agentcov.jobs import read_in_parallel
from otel_agentcov.service.store import PROTOBUF, CoverageStore, decode_records
from otel_agentcov.spec import CoverageSpec
from otel_agentcov.state import CoverageState


@pytest.fixture(scope="module")
def recorded() -> tuple[list[ReadableSpan], dict[str, Any]]:
    """The spans of 8 runs (6 under `boundaries:7`, 2 clean) and the in-process report."""
    agent, processor, exporter = support_agent()
    faults.enable("boundaries:7")
    try:
        run_all(agent, 6)
    finally:
        faults.disable()
    assert run_all(agent, 2) == ["ok", "ok"]
    processor.force_flush()
    report = processor.snapshot().to_dict()["agents"]["support"]
    processor.shutdown()
    assert report["faults"]["runs"] == 5  # what the other fronts must reproduce
    return list(exporter.get_finished_spans()), report


def write_parts(tmp_path: Path, spans: Sequence[ReadableSpan], size: int) -> list[str]:
    """Files of `size` spans each, in the order they ended (as an exporter writes them), so
    traces run across files."""
    paths = []
    for n, part in enumerate(batches(spans, size)):
        path = tmp_path / f"part{n}.pb"
        path.write_bytes(protobuf_bytes(part))
        paths.append(str(path))
    return paths


def test_offline_and_with_jobs(recorded: Any, tmp_path: Path) -> None:
    spans, expected = recorded
    paths = write_parts(tmp_path, spans, 7)
    single = offline.report(offline.load(CoverageSpec.from_dict(SPEC), traces=paths))
    engine = CoverageEngine(CoverageSpec.from_dict(SPEC))
    assert read_in_parallel(engine, paths, 2)  # the workers did read it (no fallback)
    for report in (single["agents"]["support"], offline.report(engine)["agents"]["support"]):
        assert report["faults"] == expected["faults"]
        assert report["boundary_hits"] == expected["boundary_hits"]


def test_merged_state_files(recorded: Any, tmp_path: Path) -> None:
    spans, expected = recorded
    by_trace: dict[int, list[ReadableSpan]] = {}
    for span in spans:
        assert span.context is not None
        by_trace.setdefault(span.context.trace_id, []).append(span)
    traces = list(by_trace.values())
    files = []
    for n, half in enumerate((traces[::2], traces[1::2])):
        path = tmp_path / f"half{n}.pb"
        path.write_bytes(protobuf_bytes([s for t in half for s in t]))
        state = tmp_path / f"half{n}.agentcov"
        offline.load(CoverageSpec.from_dict(SPEC), traces=[str(path)]).state.save(state)
        files.append(str(state))
    merged = offline.load(CoverageSpec.from_dict(SPEC), states=files)
    assert offline.report(merged)["agents"]["support"]["faults"] == expected["faults"]


def test_the_service_store_across_a_crash(recorded: Any, tmp_path: Path) -> None:
    spans, expected = recorded
    spec = CoverageSpec.from_dict(SPEC)
    state = tmp_path / "state.json"
    first = CoverageStore(spec, str(state))
    first.open()
    half = len(spans) // 2  # mid-trace: an open trace's steps go into the snapshot as rows
    first.submit(decode_records(PROTOBUF, protobuf_bytes(spans[:half]), "test"))
    first.compact()
    assert first.snapshot().to_dict()["spans"]["traces_in_flight"] >= 1
    if first._lock_fd is not None:  # a crash: the lock goes with the process
        os.close(first._lock_fd)
        first._lock_fd = None
    second = CoverageStore(spec, str(state))
    second.open()
    second.submit(decode_records(PROTOBUF, protobuf_bytes(spans[half:]), "test"))
    report = second.snapshot().to_dict()["agents"]["support"]
    assert report["faults"] == expected["faults"]
    second.compact()
    assert CoverageState.load(state).agents["support"].faults.runs == 5
    second.close()
