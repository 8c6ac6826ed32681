"""Collector anchor: the same OTLP load through the real Collector (`make collector`) into
`agentcov serve`, and through the Collector's own spanmetrics connector (Go) into its prometheus
exporter, spans/s of each and their ratio.

Both runs send serve_throughput.py's pre-encoded 512-span requests over OTLP/gRPC from 4 client
threads to a Collector with only the otlp receiver in front. agentcov: the otlp_grpc exporter
(sending queue in memory, then on disk as collector-config/*.yaml ship it) forwards to one
in-memory `serve`; a run ends when serve has counted every span. spanmetrics: the connector
aggregates inside the receiver's call, so a run ends when the last request is acknowledged; its
calls counter must then add up to every span. Client, Collector and serve share the machine's
cores (load noted with the results).
"""

from __future__ import annotations

import os
import tempfile
import time
import urllib.request
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import collector
import serve_throughput as st
from fleet import free_port
from harness import Row, Section
from prometheus_client.parser import text_string_to_metric_families
from service import metric_sum

SPANS = 50_000
CLIENTS = 4


def base(pipelines: dict[str, Any], **sections: Any) -> dict[str, Any]:
    return {
        "extensions": {"health_check": {"endpoint": f"127.0.0.1:{free_port()}"}},
        "receivers": {"otlp": {"protocols": {"grpc": {
            "endpoint": f"127.0.0.1:{free_port()}"}}}},
        **sections,
        "service": {"extensions": ["health_check"], "pipelines": pipelines,
                    "telemetry": {"metrics": {"level": "none"}}},
    }


def to_agentcov(serve_grpc: int, queue_dir: Path | None = None) -> dict[str, Any]:
    """The otlp_grpc exporter to serve, its sending queue in memory or, with `queue_dir`, on
    disk as collector-config/*.yaml ship it (file_storage, fsync on every enqueue)."""
    queue: dict[str, Any] = {"enabled": True, "queue_size": 5000}
    exporter = {"endpoint": f"127.0.0.1:{serve_grpc}", "tls": {"insecure": True},
                "sending_queue": queue, "retry_on_failure": {"enabled": True}}
    config = base({"traces": {"receivers": ["otlp"], "exporters": ["otlp_grpc/agentcov"]}},
                  exporters={"otlp_grpc/agentcov": exporter})
    if queue_dir is not None:
        shipped = collector.load("single.yaml")
        storage = dict(shipped["extensions"]["file_storage/queue"], directory=str(queue_dir),
                       compaction={"on_start": True, "directory": str(queue_dir)})
        config["extensions"]["file_storage/queue"] = storage
        config["service"]["extensions"].append("file_storage/queue")
        queue.update(storage="file_storage/queue",
                     batch=shipped["exporters"]["otlp_grpc/agentcov"]["sending_queue"]["batch"])
    return config


def to_spanmetrics(prometheus_port: int) -> dict[str, Any]:
    return base(
        {"traces": {"receivers": ["otlp"], "exporters": ["span_metrics"]},
         "metrics": {"receivers": ["span_metrics"], "exporters": ["prometheus"]}},
        connectors={"span_metrics": {"metrics_flush_interval": "1s"}},
        exporters={"prometheus": {"endpoint": f"127.0.0.1:{prometheus_port}"}},
    )


def calls_counted(port: int) -> float:
    """Spans the spanmetrics connector counted, from the prometheus exporter's /metrics."""
    with urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=10) as resp:
        text = resp.read().decode()
    return sum(s.value for f in text_string_to_metric_families(text) for s in f.samples
               if s.name.startswith("traces_span_metrics_calls"))


def wait_for(check: Any, want: float, timeout_s: float = 120) -> float:
    deadline = time.monotonic() + timeout_s
    got = check()
    while got < want and time.monotonic() < deadline:
        time.sleep(0.02)
        got = check()
    return float(got)


def through_agentcov(payloads: list[bytes], workdir: Path,
                     durable: bool = False) -> tuple[float, float]:
    """(spans/s end to end, spans serve counted); `durable`: the queue on disk."""
    serve = st.Serve(workdir, state=False)
    serve.start()
    config = to_agentcov(serve.grpc, workdir / "queue" if durable else None)
    otelcol = collector.Collector(config, workdir, dict(os.environ))
    try:
        otelcol.start()
        target = SimpleNamespace(grpc=int(otelcol.grpc.rsplit(":", 1)[1]))
        warm = st.load(target, payloads[:4], "grpc", 1)  # type: ignore[arg-type]
        assert warm[1] == 0
        counted = lambda: metric_sum(serve, "agentcov_spans_processed_total")  # noqa: E731
        warmed = wait_for(counted, 4 * st.BATCH)
        started = time.perf_counter()
        _, failed = st.load(target, payloads, "grpc", CLIENTS)  # type: ignore[arg-type]
        total = wait_for(counted, warmed + SPANS)
        seconds = time.perf_counter() - started
        assert failed == 0
        return SPANS / seconds, total - warmed
    finally:
        otelcol.stop()
        serve.stop()


def through_spanmetrics(payloads: list[bytes], workdir: Path) -> tuple[float, float]:
    """(spans/s through the connector, spans its calls counter counted)."""
    port = free_port()
    otelcol = collector.Collector(to_spanmetrics(port), workdir, dict(os.environ))
    try:
        otelcol.start()
        target = SimpleNamespace(grpc=int(otelcol.grpc.rsplit(":", 1)[1]))
        st.load(target, payloads[:4], "grpc", 1)  # type: ignore[arg-type]
        warmed = wait_for(lambda: calls_counted(port), 4 * st.BATCH)
        seconds, failed = st.load(target, payloads, "grpc", CLIENTS)  # type: ignore[arg-type]
        assert failed == 0
        return SPANS / seconds, wait_for(lambda: calls_counted(port), warmed + SPANS) - warmed
    finally:
        otelcol.stop()


def section(rounds: int) -> Section:
    if not collector.binary().is_file():
        return Section("collector", [], ["skipped: the Collector is not built (make collector)"])
    rounds = max(1, min(rounds, 3))
    payloads = st.batches(SPANS)
    ours: list[float] = []
    durable: list[float] = []
    theirs: list[float] = []
    counts: list[str] = []
    loads: list[str] = []
    for _ in range(rounds):
        loads.append(f"{os.getloadavg()[0]:.2f}")
        with tempfile.TemporaryDirectory() as tmp:
            rate, counted = through_agentcov(payloads, Path(tmp))
            ours.append(rate)
        with tempfile.TemporaryDirectory() as tmp:
            rate_d, counted_d = through_agentcov(payloads, Path(tmp), durable=True)
            durable.append(rate_d)
        with tempfile.TemporaryDirectory() as tmp:
            rate_sm, counted_sm = through_spanmetrics(payloads, Path(tmp))
            theirs.append(rate_sm)
        counts.append(f"{counted:,.0f}/{counted_d:,.0f}/{counted_sm:,.0f}")
    rows = [
        Row("Collector -> agentcov serve: spans/s (every span counted)", ours, "spans/s"),
        Row("Collector (queue on disk, fsync) -> agentcov serve: spans/s", durable, "spans/s"),
        Row("queue on disk / queue in memory", [d / m for d, m in zip(durable, ours, strict=True)],
            "ratio"),
        Row("Collector spanmetrics -> prometheus exporter: spans/s (baseline)", theirs,
            "spans/s"),
        Row("agentcov serve / spanmetrics", [a / b for a, b in zip(ours, theirs, strict=True)],
            "ratio"),
    ]
    notes = [
        f"{SPANS:,} demo-workload spans in requests of {st.BATCH} over OTLP/gRPC, {CLIENTS} "
        f"client threads, Collector v{collector.version()} built by `make collector`; "
        "client, Collector and serve share the cores.",
        f"Spans counted (serve / serve behind the disk queue / spanmetrics calls) per round: "
        f"{', '.join(counts)}; "
        f"1-minute load average at each round's start: {', '.join(loads)}.",
        "spanmetrics only counts calls and durations per (service, span name, kind, status); "
        "agentcov serve assembles runs and computes coverage, so the ratio is what that costs.",
    ]
    return Section("collector", rows, notes)
