"""Service: sustained OTLP/HTTP protobuf spans/s into one `agentcov serve` replica, zero drops.

Reuses benchmarks/serve_throughput.py (a fresh in-memory `serve` per round, 512-span requests on
keep-alive connections from 4 client threads). Baseline, same round: the same requests decoded (by
the same decoder as the service's) and ingested in this process by one CoverageEngine (no HTTP,
no threads), so the ratio is what the service path costs on top of decoding and coverage.
"""

from __future__ import annotations

import tempfile
import time
from pathlib import Path

import serve_throughput as st
from harness import Row, Section

from otel_agentcov.demo import DEMO_SPEC
from otel_agentcov.engine import CoverageEngine
from otel_agentcov.readers.otlp import records_from_protobuf
from otel_agentcov.spec import CoverageSpec

SPANS = 100_000
CLIENTS = 4


def metric_sum(serve: st.Serve, name: str) -> float:
    """Sum of one metric over its label sets, from the replica's /metrics."""
    return sum(v for k, v in serve.scrape().items() if k.startswith(name + "{"))


def in_process(payloads: list[bytes]) -> float:
    engine = CoverageEngine(CoverageSpec.from_dict(DEMO_SPEC))
    started = time.perf_counter()
    for payload in payloads:
        for record in records_from_protobuf(payload):
            engine.ingest(record)
    return time.perf_counter() - started


def section(rounds: int) -> Section:
    rounds = max(1, min(rounds, 5))
    payloads = st.batches(SPANS)
    served: list[float] = []
    baseline: list[float] = []
    failed: list[float] = []
    processed: list[float] = []
    dropped: list[float] = []
    for _ in range(rounds):
        baseline.append(SPANS / in_process(payloads))
        with tempfile.TemporaryDirectory() as tmp:
            serve = st.Serve(Path(tmp), state=False)
            serve.start()
            st.load(serve, payloads[:4], "http", 1)  # warm up (not counted)
            seconds, failures = st.load(serve, payloads, "http", CLIENTS)
            processed.append(metric_sum(serve, "agentcov_spans_processed_total"))
            dropped.append(metric_sum(serve, "agentcov_spans_dropped_total"))
            serve.stop()
        served.append(SPANS / seconds)
        failed.append(failures)
    rows = [
        Row("serve: OTLP/HTTP protobuf spans/s, zero drops", served, "spans/s", ">= 120,000",
            lambda v: v >= 120_000),
        Row("serve: failed or partially rejected requests", failed, "requests", "0",
            lambda v: v == 0),
        Row("serve: spans dropped (agentcov_spans_dropped_total)", dropped, "spans", "0",
            lambda v: v == 0),
        Row("in-process decode + ingest (baseline)", baseline, "spans/s"),
        Row("serve / in-process", [s / b for s, b in zip(served, baseline, strict=True)],
            "ratio"),
    ]
    notes = [
        f"{SPANS:,} demo-workload spans in {len(payloads)} requests of {st.BATCH}, {CLIENTS} "
        "client threads on keep-alive connections; client and server share the 2 cores.",
        "Gap to 100 k spans/s: protobuf bodies are decoded and classified by the compiled core in "
        "one call; what bounds the replica is the per-span Python work after it (run assembly, "
        "run facts, state update: decode + engine in process come to ~56 k spans per CPU "
        "second), then HTTP handling and the 4 load-generating client threads on the same 2 "
        "cores (ratio).",
        f"Spans the replica counted per round (incl. {4 * st.BATCH} warm-up): "
        f"{', '.join(f'{p:,.0f}' for p in processed)}.",
    ]
    return Section("Service (agentcov serve, one replica)", rows, notes)
