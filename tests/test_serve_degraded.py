"""`/healthz` reports a failing compaction (issue 29, low items). Before, it stayed 200 while
compaction failed, and worse: when the snapshot was written but the next journal could not be
started, later exports were acknowledged into the old journal, which a restart skips (its
generation is older than the snapshot's) — acknowledged data lost. Now `/healthz` answers 503
`degraded: ...`, nothing more is acknowledged (retryable 503), and a restart has everything
that was acknowledged. The failure is real: a directory planted where the journal's temporary
file goes makes `create_journal` fail (a full disk cannot be produced here)."""

from __future__ import annotations

import json
import resource
import sys
import time
from pathlib import Path

import pytest
import yaml
from _support import free_port
from _trace_files import demo_spans, protobuf_bytes
from test_serve_views import PROTOBUF, SPEC, request

from otel_agentcov.demo import DEMO_SPEC
from otel_agentcov.service import ServeConfig, Service

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "benchmarks"))

import fleet  # noqa: E402 - drives the real `agentcov serve` subprocess


def _runs(port: int) -> int:
    report = json.loads(request(port, "/report?format=json")[2])
    return sum(a["runs"]["count"] for a in report["agents"].values())


def _service(state: Path) -> Service:
    svc = Service(ServeConfig(spec=SPEC, otlp_grpc=0, otlp_http=free_port(), metrics=free_port(),
                              state_file=str(state), compact_bytes=1, sweep_interval_s=0.05))
    svc.start()
    return svc


def test_a_failing_compaction_is_degraded_and_acknowledges_nothing_more(tmp_path: Path) -> None:
    state = tmp_path / "state.json"
    svc = _service(state)
    planted = tmp_path / "state.json.journal.tmp"
    try:
        http, metrics = svc.config.otlp_http, svc.config.metrics
        assert request(metrics, "/healthz")[0] == 200
        planted.mkdir()
        body = protobuf_bytes(demo_spans(runs=4, seed=1))
        assert request(http, "/v1/traces", body, "POST", PROTOBUF)[0] == 200
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline and request(metrics, "/healthz")[0] == 200:
            time.sleep(0.05)
        status, _, text = request(metrics, "/healthz")
        assert status == 503 and text.startswith(b"degraded: "), text
        acknowledged = _runs(metrics)
        assert acknowledged > 0
        more = protobuf_bytes(demo_spans(runs=3, seed=2))
        assert request(http, "/v1/traces", more, "POST", PROTOBUF)[0] == 503
    finally:
        planted.rmdir()
        svc.stop()
    again = _service(state)
    try:
        assert _runs(again.config.metrics) == acknowledged
        assert request(again.config.metrics, "/healthz")[0] == 200
    finally:
        again.stop()


def test_a_restart_that_cannot_write_starts_read_only_and_recovers(tmp_path: Path) -> None:
    """Before, a restart while the disk was still full exited 2 (no report at all)."""
    state = tmp_path / "state.json"
    svc = _service(state)
    try:
        body = protobuf_bytes(demo_spans(runs=4, seed=1))
        assert request(svc.config.otlp_http, "/v1/traces", body, "POST", PROTOBUF)[0] == 200
        acknowledged = _runs(svc.config.metrics)
    finally:
        svc.stop()
    planted = tmp_path / "state.json.journal.tmp"
    planted.mkdir()  # the restart's compaction cannot start a journal
    svc = _service(state)
    try:
        http, metrics = svc.config.otlp_http, svc.config.metrics
        status, _, text = request(metrics, "/healthz")
        assert status == 503 and text.startswith(b"degraded: read-only: cannot write"), text
        assert _runs(metrics) == acknowledged  # what was recovered is served
        assert request(http, "/v1/traces", body, "POST", PROTOBUF)[0] == 503
        planted.rmdir()  # space again: the next maintenance compaction succeeds
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline and request(metrics, "/healthz")[0] != 200:
            time.sleep(0.05)
        assert request(metrics, "/healthz")[0] == 200
        assert request(http, "/v1/traces", body, "POST", PROTOBUF)[0] == 200
        assert _runs(metrics) == 2 * acknowledged
    finally:
        if planted.exists():
            planted.rmdir()
        svc.stop()


def _status_until(port: int, want: int, timeout_s: float = 30) -> tuple[int, bytes]:
    deadline = time.monotonic() + timeout_s
    status, _, text = request(port, "/healthz")
    while status != want and time.monotonic() < deadline:
        time.sleep(0.05)
        status, _, text = request(port, "/healthz")
    return status, text


@pytest.mark.slow
def test_a_journal_that_cannot_be_written_is_unhealthy_until_it_can(tmp_path: Path) -> None:
    """Issue 37: on a full disk every export got 503 while `/healthz` answered 200. The
    write failure is real: the running serve's file-size limit (RLIMIT_FSIZE, set with
    prlimit) is lowered below its journal, so every append and every snapshot fails with
    EFBIG as on a full disk; raising it again is the disk freed. (Its stderr goes to
    /dev/null, which no limit stops.)"""
    spec = tmp_path / "agentcov.yaml"
    spec.write_text(yaml.safe_dump(DEMO_SPEC))
    http, metrics = free_port(), free_port()
    server = fleet.ServeProcess(["--spec", str(spec), "--otlp-grpc", "0", "--otlp-http",
                                 str(http), "--metrics", str(metrics), "--data-file",
                                 str(tmp_path / "state.json")], metrics)
    spans = {n: demo_spans(runs=n, seed=n) for n in (4, 3, 2)}
    first, refused, last = (protobuf_bytes(spans[n]) for n in (4, 3, 2))
    server.start()
    try:
        assert server.proc is not None
        assert request(http, "/v1/traces", first, "POST", PROTOBUF)[0] == 200
        limit = resource.prlimit(server.proc.pid, resource.RLIMIT_FSIZE)
        resource.prlimit(server.proc.pid, resource.RLIMIT_FSIZE, (16, limit[1]))
        assert request(http, "/v1/traces", refused, "POST", PROTOBUF)[0] == 503
        status, text = _status_until(metrics, 503)
        assert status == 503 and text.startswith(b"degraded: journal write failed"), text
        time.sleep(2.5)  # two maintenance rounds: each compaction fails, it stays unhealthy
        assert request(metrics, "/healthz")[0] == 503
        assert request(http, "/v1/traces", last, "POST", PROTOBUF)[0] == 503
        resource.prlimit(server.proc.pid, resource.RLIMIT_FSIZE, limit)  # space again
        assert _status_until(metrics, 200)[0] == 200
        assert request(http, "/v1/traces", last, "POST", PROTOBUF)[0] == 200
        # the refused request was applied before its write failed, and the snapshot that
        # made the store healthy holds it (at-least-once: its client's retry would recount
        # it); the one refused while unhealthy was never applied
        processed = sum(v for k, v in server.scrape().items()
                        if k.startswith("agentcov_spans_processed_total{"))
        assert processed == sum(len(s) for s in spans.values())
    finally:
        server.stop()
