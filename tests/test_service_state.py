"""Durable state of `agentcov serve`: restart restores exactly what was acknowledged.

A crash is simulated by opening a second store on the same files while the first is abandoned
(never closed or compacted): its journal writes are in the OS cache exactly as after kill -9.
The subprocess kill -9 case is in test_fleet.py.
"""

from __future__ import annotations

import dataclasses
import glob
import json
import os
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
from collections import defaultdict
from pathlib import Path
from typing import Any

import pytest
from _support import free_port
from _trace_files import demo_spans, protobuf_bytes
from opentelemetry.sdk.trace import ReadableSpan

from otel_agentcov import CoverageSpec, CoverageState
from otel_agentcov.assembler import Bounds
from otel_agentcov.demo import DEMO_SPEC
from otel_agentcov.readers import TraceFormatError
from otel_agentcov.semconv.step import Step
from otel_agentcov.service.steps import FIELDS
from otel_agentcov.service.store import JSON, PROTOBUF, CoverageStore, decode_records

SPEC = CoverageSpec.from_dict(DEMO_SPEC, source="<demo>")


def workload_spans(runs: int = 12) -> list[list[ReadableSpan]]:
    """The demo workload's spans grouped by trace, in end order."""
    by_trace: dict[int, list[ReadableSpan]] = defaultdict(list)
    for span in demo_spans(runs=runs, seed=5):
        assert span.context is not None
        by_trace[span.context.trace_id].append(span)
    return list(by_trace.values())


def submit(store: CoverageStore, spans: list[ReadableSpan]) -> None:
    payload = protobuf_bytes(spans)
    store.submit(decode_records(PROTOBUF, payload, "test"))


_OPEN: list[CoverageStore] = []


def crash_all() -> None:
    """What the kernel does when a service dies: its state-file lock is released (the store
    object is left as it was, like the files)."""
    while _OPEN:
        store = _OPEN.pop()
        if store._lock_fd is not None:
            os.close(store._lock_fd)
            store._lock_fd = None


def opened(path: Path, idle_ttl_s: float = 60.0) -> CoverageStore:
    """A store on `path` started as after a crash of every store opened before it."""
    crash_all()
    store = CoverageStore(SPEC, str(path), bounds=Bounds(idle_ttl_s=idle_ttl_s))
    store.open()
    _OPEN.append(store)
    return store


def report(store: CoverageStore) -> dict[str, Any]:
    return store.snapshot().to_dict()


def test_restart_restores_the_exact_snapshot_with_sweeps_and_open_traces(tmp_path: Path) -> None:
    traces = workload_spans()
    state = tmp_path / "state.json"
    first = opened(state, idle_ttl_s=0.05)
    # traces 0-3 arrive without their roots and are swept as idle; their roots come later
    for spans in traces[:4]:
        submit(first, spans[:-1])
    time.sleep(0.1)
    first.sweep()
    for spans in traces[:4]:
        submit(first, spans[-1:])
    for spans in traces[4:-1]:
        submit(first, spans)
    submit(first, traces[-1][:-1])  # the last trace stays open across the restart
    before = report(first)
    assert before["spans"]["traces_in_flight"] >= 1
    assert before["spans"]["flushed_early"]["idle_ttl"] == 4

    second = opened(state, idle_ttl_s=0.05)  # `first` is abandoned: a crash
    assert report(second) == before
    assert second.replayed_records == len(traces) + 4 + 1  # requests + one sweep
    third = opened(state, idle_ttl_s=0.05)  # second compacted at start: from the snapshot alone
    assert third.replayed_records == 0
    assert report(third) == before

    submit(first, traces[-1][-1:])
    submit(third, traces[-1][-1:])
    assert report(third) == report(first)
    # the state file is an ordinary CoverageState file too (agentcov merge reads it)
    third.compact()
    assert CoverageState.load(state).to_dict() == third.engine.state.to_dict()


def test_a_snapshot_from_before_the_newest_step_fields_restores(tmp_path: Path) -> None:
    """Open traces are stored as value lists in Step's field order; a snapshot written before
    the last fields were added (step_limit, turn) still restores, with their defaults."""
    traces = workload_spans(runs=3)
    state = tmp_path / "state.json"
    first = opened(state)
    submit(first, traces[-1][:-1])  # one trace left open
    first.compact()
    before = report(first)
    data = json.loads(state.read_text())
    open_traces = data["serve"]["open_traces"]
    assert open_traces
    # a row's place for each field (service/steps.py), the retired joins_caller's (False) too
    known = {f.name: f.default for f in dataclasses.fields(Step)}
    defaults = [known.get(name, False) for name in FIELDS]
    for _, _, steps in open_traces:
        for values in steps:
            # rows leave trailing defaults out; an old snapshot wrote every field it knew
            full = values + defaults[len(values):]
            values[:] = full[:-2]
    state.write_text(json.dumps(data))
    assert report(opened(state)) == before


def test_torn_last_record_is_dropped_not_the_journal(tmp_path: Path) -> None:
    traces = workload_spans(4)
    state = tmp_path / "state.json"
    first = opened(state)
    for spans in traces:
        submit(first, spans)
    before = report(first)
    journal = f"{state}.journal"
    with open(journal, "ab") as fh:
        fh.write(b"\x00\x00\x10\x00\xde\xad")  # a frame header cut short by kill -9
    second = opened(state)
    assert report(second) == before
    assert second.recoveries == {"journal_torn_tail": 1}
    assert not glob.glob(f"{journal}.corrupt-*")


def test_corrupt_journal_keeps_the_records_before_the_damage(tmp_path: Path) -> None:
    traces = workload_spans(4)
    state = tmp_path / "state.json"
    first = opened(state)
    submit(first, traces[0])
    one_trace = report(first)
    for spans in traces[1:]:
        submit(first, spans)
    journal = f"{state}.journal"
    data = bytearray(Path(journal).read_bytes())
    second_record = 16 + 8 + int.from_bytes(data[16:20], "big")
    data[second_record + 20] ^= 0xFF  # flip a byte inside the second record
    Path(journal).write_bytes(bytes(data))
    second = opened(state)
    assert second.recoveries == {"journal_corrupt": 1}
    assert report(second)["agents"] == one_trace["agents"]
    assert len(glob.glob(f"{journal}.corrupt-*")) == 1


@pytest.mark.parametrize(
    "damage",
    ['{"format": "otel_agentcov.state", "version": 1, "agents": {',
     "[" * 100_000 + "]" * 100_000],  # json.load raises RecursionError, not ValueError
)
def test_unreadable_snapshot_is_set_aside_and_the_service_starts_fresh(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], damage: str
) -> None:
    state = tmp_path / "state.json"
    first = opened(state)
    submit(first, workload_spans(2)[0])
    first.close()
    state.write_text(damage)
    second = opened(state)
    assert second.recoveries == {"snapshot_unreadable": 1}
    assert report(second)["agents"] == {}
    assert len(glob.glob(f"{state}.corrupt-*")) == 1
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "state.json" in err[0] and "moved to" in err[0]
    assert os.path.exists(state)  # a fresh snapshot was written: the next start is clean
    assert opened(state).recoveries == {}


def test_stale_journal_after_a_crash_mid_compaction_is_not_applied_twice(
    tmp_path: Path,
) -> None:
    state = tmp_path / "state.json"
    first = opened(state)
    for spans in workload_spans(3):
        submit(first, spans)
    before = report(first)
    journal = f"{state}.journal"
    shutil.copy(journal, tmp_path / "old-journal")
    first.compact()
    shutil.copy(tmp_path / "old-journal", journal)  # crash after the rename, before the reset
    second = opened(state)
    assert report(second) == before
    assert second.replayed_records == 0


@pytest.mark.slow
def test_cli_serve_sigterm_compacts_and_errors_are_one_line(tmp_path: Path) -> None:
    spec = tmp_path / "agentcov.yaml"
    spec.write_text("version: 1\n")
    metrics = free_port()
    state = tmp_path / "state.json"
    argv = [sys.executable, "-m", "otel_agentcov.cli", "serve", "--spec", str(spec),
            "--otlp-grpc", str(free_port()), "--otlp-http", str(free_port()),
            "--metrics", str(metrics), "--data-file", str(state)]
    proc = subprocess.Popen(argv, stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + 30
        while True:
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{metrics}/healthz") as resp:
                    assert resp.read() == b"ok\n"
                    break
            except OSError:
                assert time.monotonic() < deadline, "serve did not come up"
                time.sleep(0.1)
        busy = subprocess.run(argv[:-2] + ["--metrics", str(free_port())],
                              capture_output=True, text=True, timeout=60)
        assert busy.returncode == 2
        assert busy.stderr.count("\n") == 1 and "cannot listen on 127.0.0.1:" in busy.stderr
        proc.terminate()
        assert proc.wait(timeout=30) == 0
    finally:
        proc.kill()
    assert proc.stderr is not None and "stopped" in proc.stderr.read()
    assert CoverageState.load(state).agents == {}
    bad = subprocess.run(argv[:4] + ["--spec", str(tmp_path / "missing.yaml")],
                         capture_output=True, text=True, timeout=60)
    assert bad.returncode == 2 and bad.stderr.count("\n") == 1 and "missing.yaml" in bad.stderr


def test_cli_serve_state_file_in_a_missing_directory_is_one_line(tmp_path: Path) -> None:
    spec = tmp_path / "agentcov.yaml"
    spec.write_text("version: 1\n")
    state = tmp_path / "no-such-dir" / "state.json"
    bad = subprocess.run(
        [sys.executable, "-m", "otel_agentcov.cli", "serve", "--spec", str(spec),
         "--otlp-grpc", "0", "--otlp-http", "0", "--metrics", "0", "--data-file", str(state)],
        capture_output=True, text=True, timeout=60,
    )
    assert bad.returncode == 2
    assert bad.stderr == f"agentcov: {state}: No such file or directory\n"


def test_cli_serve_state_file_that_is_a_directory_is_refused_not_moved(tmp_path: Path) -> None:
    spec = tmp_path / "agentcov.yaml"
    spec.write_text("version: 1\n")
    state = tmp_path / "states"
    state.mkdir()
    bad = subprocess.run(
        [sys.executable, "-m", "otel_agentcov.cli", "serve", "--spec", str(spec),
         "--otlp-grpc", "0", "--otlp-http", "0", "--metrics", "0", "--data-file", str(state)],
        capture_output=True, text=True, timeout=60,
    )
    assert bad.returncode == 2
    assert bad.stderr == f"agentcov: {state}: Is a directory\n"
    assert state.is_dir() and not glob.glob(f"{state}.corrupt-*")


@pytest.mark.parametrize(
    "case", ["grpc_port_busy", "tls_not_pem", "tls_missing", "token_not_utf8"]
)
def test_cli_serve_config_errors_are_one_line_naming_the_culprit(
    tmp_path: Path, case: str
) -> None:
    spec = tmp_path / "agentcov.yaml"
    spec.write_text("version: 1\n")
    garbage = tmp_path / "garbage"
    garbage.write_bytes(b"\xff\xfe not text\n")
    missing = tmp_path / "missing.pem"
    argv = [sys.executable, "-m", "otel_agentcov.cli", "serve", "--spec", str(spec),
            "--otlp-grpc", "0", "--otlp-http", "0", "--metrics", "0"]
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        extra, culprit = {
            "grpc_port_busy": (["--otlp-grpc", str(port)], f"127.0.0.1:{port}"),
            "tls_not_pem": (["--tls-cert", str(garbage), "--tls-key", str(garbage)],
                            f"--tls-cert {garbage} / --tls-key {garbage}: cannot load"),
            "tls_missing": (["--tls-cert", str(missing), "--tls-key", str(missing)],
                            f"--tls-cert {missing} / --tls-key {missing}: cannot load"),
            "token_not_utf8": (["--token-file", str(garbage)], str(garbage)),
        }[case]
        bad = subprocess.run(argv + extra, capture_output=True, text=True, timeout=60)
    assert bad.returncode == 2
    assert bad.stderr.count("\n") == 1 and culprit in bad.stderr, bad.stderr


def test_deeply_nested_json_request_is_malformed_not_an_internal_error() -> None:
    """A RecursionError here used to drop the HTTP connection instead of answering 400."""
    with pytest.raises(TraceFormatError, match="^http request: not JSON"):
        decode_records(JSON, b"[" * 100_000 + b"]" * 100_000, "http request")
