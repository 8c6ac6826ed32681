"""`/healthz` reports a failing compaction (issue 29, low items). Before, it stayed 200 while
compaction failed, and worse: when the snapshot was written but the next journal could not be
started, later exports were acknowledged into the old journal, which a restart skips (its
generation is older than the snapshot's) — acknowledged data lost. Now `/healthz` answers 503
`degraded: ...`, nothing more is acknowledged (retryable 503), and a restart has everything
that was acknowledged. The failure is real: a directory planted where the journal's temporary
file goes makes `create_journal` fail (a full disk cannot be produced here)."""

from __future__ import annotations

import json
import time
from pathlib import Path

from _support import free_port
from _trace_files import demo_spans, protobuf_bytes
from test_serve_views import PROTOBUF, SPEC, request

from otel_agentcov.service import ServeConfig, Service


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
