"""Sustained spans/s into one `agentcov serve` (OTLP/HTTP protobuf and OTLP/gRPC), with and
without --data-file, and restart recovery time for a journal of N spans.

A small load generator: the demo workload's spans pre-encoded as ExportTraceServiceRequests of
512 spans, posted back to back by a few client threads on keep-alive connections. A run counts
only if every request was accepted (zero drops: no 503/UNAVAILABLE, no rejected spans).
Client and server share this machine's cores, so the numbers are a floor.

Run: `.venv/bin/python benchmarks/serve_throughput.py [--spans N] [--clients K]`.
"""

from __future__ import annotations

import argparse
import http.client
import sys
import tempfile
import threading
import time
from pathlib import Path

import grpc
import yaml
from opentelemetry.exporter.otlp.proto.common.trace_encoder import encode_spans
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceResponse
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from fleet import ServeProcess, free_port  # noqa: E402

from otel_agentcov.demo import DEMO_SPEC, run_workload  # noqa: E402
from otel_agentcov.service.grpc_receiver import SERVICE  # noqa: E402

BATCH = 512


def batches(spans_wanted: int) -> list[bytes]:
    provider = TracerProvider(shutdown_on_exit=False)
    memory = InMemorySpanExporter()
    provider.add_span_processor(SimpleSpanProcessor(memory))
    seed = 0
    while len(memory.get_finished_spans()) < spans_wanted:
        run_workload(provider, seed=seed, runs=200)
        seed += 1
    spans = list(memory.get_finished_spans())[:spans_wanted]
    return [encode_spans(spans[i : i + BATCH]).SerializeToString()
            for i in range(0, len(spans), BATCH)]


class Serve(ServeProcess):
    """One `agentcov serve` on free ports, in memory or with a state file in `workdir`."""

    def __init__(self, workdir: Path, state: bool) -> None:
        spec = workdir / "agentcov.yaml"
        spec.write_text(yaml.safe_dump(DEMO_SPEC))
        self.grpc, self.http, metrics = free_port(), free_port(), free_port()
        args = ["--spec", str(spec), "--otlp-grpc", str(self.grpc), "--otlp-http",
                str(self.http), "--metrics", str(metrics)]
        if state:
            args += ["--data-file", str(workdir / "state.json")]
        super().__init__(args, metrics)

    def start(self) -> float:
        """Start and wait for /healthz; returns the seconds that took."""
        started = time.monotonic()
        super().start()
        return time.monotonic() - started


def load(serve: Serve, payloads: list[bytes], transport: str, clients: int) -> tuple[float, int]:
    """Post every payload once across `clients` threads; returns (seconds, failed requests)."""
    failures = 0
    lock = threading.Lock()
    next_index = iter(range(len(payloads)))

    def http_client() -> None:
        nonlocal failures
        conn = http.client.HTTPConnection("127.0.0.1", serve.http, timeout=60)
        for i in next_index:
            conn.request("POST", "/v1/traces", body=payloads[i],
                         headers={"Content-Type": "application/x-protobuf"})
            resp = conn.getresponse()
            body = resp.read()
            rejected = ExportTraceServiceResponse.FromString(body).partial_success.rejected_spans \
                if resp.status == 200 else 1
            if resp.status != 200 or rejected:
                with lock:
                    failures += 1

    def grpc_client() -> None:
        nonlocal failures
        with grpc.insecure_channel(f"127.0.0.1:{serve.grpc}") as channel:
            export = channel.unary_unary(f"/{SERVICE}/Export")
            for i in next_index:
                try:
                    body = export(payloads[i], timeout=60)
                    if ExportTraceServiceResponse.FromString(body).partial_success.rejected_spans:
                        raise RuntimeError("rejected spans")
                except (grpc.RpcError, RuntimeError):
                    with lock:
                        failures += 1

    threads = [threading.Thread(target=http_client if transport == "http" else grpc_client)
               for _ in range(clients)]
    started = time.perf_counter()
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return time.perf_counter() - started, failures


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--spans", type=int, default=100_000)
    parser.add_argument("--clients", type=int, default=4)
    args = parser.parse_args()
    payloads = batches(args.spans)
    n_spans = args.spans
    print(f"{n_spans} spans in {len(payloads)} requests of {BATCH}, {args.clients} clients")
    for state in (False, True):
        for transport in ("http", "grpc"):
            with tempfile.TemporaryDirectory() as tmp:
                serve = Serve(Path(tmp), state)
                serve.start()
                load(serve, payloads[:4], transport, 1)  # warm up
                seconds, failed = load(serve, payloads, transport, args.clients)
                serve.stop()
            label = "with --data-file" if state else "in memory        "
            print(f"{transport:4} {label}: {n_spans / seconds:9,.0f} spans/s "
                  f"({seconds:.2f} s, failed requests: {failed})")
    with tempfile.TemporaryDirectory() as tmp:
        serve = Serve(Path(tmp), True)
        serve.start()
        load(serve, payloads, "http", args.clients)
        journal = Path(tmp) / "state.json.journal"
        size = journal.stat().st_size
        serve.kill9()  # no compaction: the restart replays the whole journal
        wall = serve.start()
        replay = serve.scrape()["agentcov_state_recovery_seconds{}"]
        serve.stop()
        print(f"restart after kill -9 with a {size / 1e6:.1f} MB journal of {n_spans} spans: "
              f"state restored in {replay:.2f} s (healthy {wall:.2f} s after exec)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
