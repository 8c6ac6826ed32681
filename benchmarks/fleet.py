"""Fleet proof: three `agentcov serve` replicas + a real Prometheus with the union rules.

1. Three services run the demo workload through the real OTel SDK. Their spans reach the
   replicas through the real OTLP exporters (replicas 0 and 2 over gRPC, replica 1 over
   HTTP), split the way the Collector's loadbalancing exporter would: first by service
   (`routing_key: service`), then by trace id (`routing_key: traceID`). One in-process
   AgentCoverageProcessor sees every span: the single-process reference.
2. Prometheus scrapes the three replicas with dashboards/prometheus/agentcov-rules.yaml: the
   fleet-wide tool/model/boundary/delegation coverage from the recording rules must equal the
   reference, while the replicas' own ratios differ (what the union rules fix).
3. Replica 1 is `kill -9`ed while a sender streams batches into it, restarted from its state
   file, and the sender finishes: every span it acknowledged is still counted.

Run: `.venv/bin/python benchmarks/fleet.py` (needs Debian's `prometheus` on PATH). Prints what
it compares; exit 0 when everything matched. tests/test_fleet.py runs the same code.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
import urllib.parse
import urllib.request
import zlib
from collections.abc import Callable, Sequence
from contextlib import nullcontext
from pathlib import Path
from typing import Any

import yaml
from opentelemetry.exporter.otlp.proto.grpc.trace_exporter import OTLPSpanExporter as GrpcExporter
from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter as HttpExporter
from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import ReadableSpan, TracerProvider
from opentelemetry.sdk.trace.export import (
    SimpleSpanProcessor,
    SpanExporter,
    SpanExportResult,
)
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from prometheus_client.parser import text_string_to_metric_families

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from otel_agentcov import AgentCoverageProcessor, CoverageSpec  # noqa: E402
from otel_agentcov.demo import DEMO_SPEC, run_workload  # noqa: E402

SERVICES = ("support-eu", "support-us", "support-apac")
REPLICAS = 3
RULES = ROOT / "dashboards" / "prometheus" / "agentcov-rules.yaml"
# model coverage is left out: the rules match model names exactly while the report also counts a
# dated snapshot ("gpt-4o-2024-08-06") for its declared name; agentcov-rules.yaml documents this
RATIOS = ("tool", "boundary")
RUNS_PER_SERVICE = 4  # few runs, so each replica alone sees only part of each agent's tools


def stop_process(proc: subprocess.Popen[Any], timeout_s: float) -> None:
    """SIGTERM, and SIGKILL if it has not exited within `timeout_s` (a graceful stop lets
    exporters flush; the kill keeps a wedged process from outliving its test)."""
    if proc.poll() is None:
        proc.terminate()
        try:
            proc.wait(timeout=timeout_s)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(timeout=30)


_HANDED_OUT: set[int] = set()


def free_port() -> int:
    """A port free now and never handed out before by this process: the kernel may offer a
    released port again at once, and two replicas given one metrics port once made the second
    exit while the first answered its /healthz."""
    import socket

    while True:
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            port: int = s.getsockname()[1]
        if port not in _HANDED_OUT:
            _HANDED_OUT.add(port)
            return port


class ServeProcess:
    """One `agentcov serve` subprocess: started and waited for until /healthz answers, then
    `kill -9`ed or stopped (tests/test_reliability_service.py drives its server with it too)."""

    def __init__(self, args: Sequence[str], metrics: int, stderr: Path | None = None) -> None:
        self.argv = [sys.executable, "-m", "otel_agentcov.cli", "serve", *args]
        self.metrics = metrics
        self.stderr = stderr  # appended to across restarts; None discards it
        self.proc: subprocess.Popen[bytes] | None = None

    def start(self) -> None:
        with open(self.stderr, "ab") if self.stderr else nullcontext(subprocess.DEVNULL) as err:
            self.proc = subprocess.Popen(self.argv, cwd=ROOT, stderr=err)
        deadline = time.monotonic() + 30
        while not self.healthy() or self.proc.poll() is not None:  # its own /healthz
            if time.monotonic() > deadline or self.proc.poll() is not None:
                raise RuntimeError(f"agentcov serve (metrics :{self.metrics}) did not start")
            time.sleep(0.02)  # serve_throughput.py reports the time to healthy

    def healthy(self) -> bool:
        try:
            url = f"http://127.0.0.1:{self.metrics}/healthz"
            with urllib.request.urlopen(url, timeout=10) as resp:
                return bool(resp.status == 200)
        except OSError:
            return False

    def scrape(self) -> dict[str, float]:
        """Sample name + sorted labels -> value, from this server's /metrics."""
        url = f"http://127.0.0.1:{self.metrics}/metrics"
        with urllib.request.urlopen(url, timeout=10) as resp:
            text = resp.read().decode()
        return {
            f"{s.name}{json.dumps(dict(sorted(s.labels.items())))}": s.value
            for family in text_string_to_metric_families(text) for s in family.samples
        }

    def kill9(self) -> None:
        assert self.proc is not None
        os.kill(self.proc.pid, signal.SIGKILL)
        self.proc.wait(timeout=30)

    def stop(self) -> None:
        if self.proc is not None:
            stop_process(self.proc, 30)


def state_server(workdir: Path, spec: dict[str, Any]) -> tuple[ServeProcess, int, Path]:
    """A `serve` of `spec` (written to workdir/agentcov.yaml) over OTLP/HTTP with the data file
    workdir/state.json, no idle sweep, its log in workdir/serve.stderr: (server, HTTP port,
    data file), not yet started (the kill -9 tests drive it)."""
    spec_file = workdir / "agentcov.yaml"
    spec_file.write_text(yaml.safe_dump(spec))
    http, metrics = free_port(), free_port()
    state = workdir / "state.json"
    server = ServeProcess([
        "--spec", str(spec_file), "--otlp-grpc", "0", "--otlp-http", str(http),
        "--metrics", str(metrics), "--data-file", str(state), "--idle-ttl", "3600",
    ], metrics, stderr=workdir / "serve.stderr")  # fmt: skip
    return server, http, state


class Replica(ServeProcess):
    """One fleet replica: its ports, state file and the exporter that reaches it."""

    def __init__(self, index: int, workdir: Path, spec: Path, extra: Sequence[str] = ()) -> None:
        self.index = index
        self.grpc, self.http, metrics = free_port(), free_port(), free_port()
        self.state = workdir / f"replica{index}.state.json"
        super().__init__(["--spec", str(spec), "--otlp-grpc", str(self.grpc),
                          "--otlp-http", str(self.http), "--metrics", str(metrics),
                          "--data-file", str(self.state), *extra], metrics,
                         stderr=workdir / f"replica{index}.log")

    def exporter(self) -> SpanExporter:
        if self.index % 2:
            return HttpExporter(endpoint=f"http://127.0.0.1:{self.http}/v1/traces")
        return GrpcExporter(endpoint=f"127.0.0.1:{self.grpc}", insecure=True)

    def spans_counted(self) -> int:
        scraped = self.scrape()
        return int(sum(v for k, v in scraped.items()
                       if k.startswith(("agentcov_spans_processed_total{",
                                        "agentcov_spans_dropped_total{"))))


class Router(SpanExporter):
    """What the loadbalancing exporter does: each span to the replica its routing key hashes to
    (crc32 mod N here, instead of the exporter's consistent-hash ring)."""

    def __init__(self, exporters: Sequence[SpanExporter], key: Callable[[ReadableSpan], bytes]):
        self._exporters = exporters
        self._key = key

    def export(self, spans: Sequence[ReadableSpan]) -> SpanExportResult:
        groups: dict[int, list[ReadableSpan]] = {}
        for span in spans:
            groups.setdefault(zlib.crc32(self._key(span)) % len(self._exporters), []).append(span)
        ok = all(self._exporters[i].export(group) == SpanExportResult.SUCCESS
                 for i, group in groups.items())
        return SpanExportResult.SUCCESS if ok else SpanExportResult.FAILURE

    def shutdown(self) -> None:
        for exporter in self._exporters:
            exporter.shutdown()


def by_service(span: ReadableSpan) -> bytes:
    return str(span.resource.attributes.get("service.name", "")).encode()


def by_trace(span: ReadableSpan) -> bytes:
    assert span.context is not None
    return span.context.trace_id.to_bytes(16, "big")


def send_workload(replicas: Sequence[Replica], reference: AgentCoverageProcessor) -> None:
    """Every service's workload, first routed by service then by trace id."""
    for key, seed0 in ((by_service, 100), (by_trace, 200)):
        for n, service in enumerate(SERVICES):
            provider = TracerProvider(resource=Resource.create({"service.name": service}),
                                      shutdown_on_exit=False)
            provider.add_span_processor(reference)
            router = Router([r.exporter() for r in replicas], key)
            provider.add_span_processor(SimpleSpanProcessor(router))
            run_workload(provider, seed=seed0 + n, runs=RUNS_PER_SERVICE)
            router.shutdown()
    reference.force_flush()


def start_prometheus(prometheus: str, replicas: Sequence[Replica], workdir: Path) -> tuple[
        subprocess.Popen[bytes], str]:
    rules = yaml.safe_load(RULES.read_text())
    for group in rules["groups"]:
        group["interval"] = "1s"  # same expressions, evaluated every second instead of 1m
    (workdir / "rules.yaml").write_text(yaml.safe_dump(rules))
    targets = ", ".join(f"'127.0.0.1:{r.metrics}'" for r in replicas)
    (workdir / "prometheus.yml").write_text(
        "global: {scrape_interval: 1s, evaluation_interval: 1s}\n"
        f"rule_files: ['{workdir / 'rules.yaml'}']\n"
        f"scrape_configs:\n  - job_name: agentcov\n    static_configs: [{{targets: [{targets}]}}]\n"
    )
    port = free_port()
    proc = subprocess.Popen(
        [prometheus, f"--config.file={workdir / 'prometheus.yml'}",
         f"--storage.tsdb.path={workdir / 'tsdb'}", f"--web.listen-address=127.0.0.1:{port}"],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )
    return proc, f"http://127.0.0.1:{port}/api/v1"


def query(api: str, promql: str) -> dict[str, float]:
    url = f"{api}/query?query={urllib.parse.quote(promql)}"
    with urllib.request.urlopen(url, timeout=5) as resp:
        result = json.loads(resp.read())["data"]["result"]
    return {r["metric"].get("agent", ""): float(r["value"][1]) for r in result}


def expected_coverage(reference: AgentCoverageProcessor) -> dict[str, dict[str, float]]:
    """Reference ratios for the dimensions the union rules compute."""
    agents = reference.snapshot().to_dict()["agents"]
    out: dict[str, dict[str, float]] = {}
    for dim in RATIOS:
        out[dim] = {a: d["coverage"][dim] for a, d in agents.items()
                    if d["coverage"].get(dim) is not None}
    out["delegation"] = {a: d["edges"]["delegation_pct"] / 100 for a, d in agents.items()
                         if d["edges"].get("delegation_pct") is not None}
    return out


def fleet_matches(api: str, expected: dict[str, dict[str, float]], timeout_s: float = 60) -> dict[
        str, dict[str, float]]:
    """Poll the recording rules until they equal the reference (or time out); returns them."""
    deadline = time.monotonic() + timeout_s
    while True:
        got: dict[str, dict[str, float]] = {}
        try:
            for dim in expected:
                got[dim] = query(api, f"agentcov:{dim}_coverage:ratio")
        except OSError:
            pass
        if all(pytest_approx(got.get(dim, {})) == pytest_approx(want)
               for dim, want in expected.items()):
            return got
        if time.monotonic() > deadline:
            return got
        time.sleep(1)


def pytest_approx(want: dict[str, float]) -> dict[str, float]:
    """Round to 9 decimals so float noise from PromQL division does not matter."""
    return {k: round(v, 9) for k, v in want.items()}


def kill_mid_stream(replica: Replica, batches: list[list[ReadableSpan]]) -> dict[str, int]:
    """Stream batches into `replica`, kill -9 it after a third, restart it; count acks."""
    exporter = HttpExporter(endpoint=f"http://127.0.0.1:{replica.http}/v1/traces", timeout=30)
    acked = sent = 0
    lock = threading.Lock()
    done = threading.Event()

    def stream() -> None:
        nonlocal acked, sent
        for batch in batches:
            result = exporter.export(batch)  # retries with backoff while the replica is down
            with lock:
                sent += len(batch)
                acked += len(batch) if result == SpanExportResult.SUCCESS else 0
        done.set()

    before = replica.spans_counted()
    sender = threading.Thread(target=stream)
    sender.start()
    while True:
        with lock:
            if sent >= len(batches) // 3 * len(batches[0]):
                acked_at_kill = acked
                break
        time.sleep(0.001)
    replica.kill9()
    replica.start()
    recovered = replica.spans_counted() - before
    sender.join()
    exporter.shutdown()
    return {"acked_at_kill": acked_at_kill, "counted_after_restart": recovered,
            "acked_total": acked, "sent_total": sent,
            "counted_final": replica.spans_counted() - before}


def kill_batches() -> list[list[ReadableSpan]]:
    provider = TracerProvider(resource=Resource.create({"service.name": SERVICES[1]}),
                              shutdown_on_exit=False)
    memory = InMemorySpanExporter()
    provider.add_span_processor(SimpleSpanProcessor(memory))
    run_workload(provider, seed=999, runs=120)
    spans = list(memory.get_finished_spans())
    return [spans[i : i + 64] for i in range(0, len(spans), 64)]


def run(workdir: Path, prometheus: str, log: Callable[[str], None] = print) -> dict[str, Any]:
    spec = workdir / "agentcov.yaml"
    spec.write_text(yaml.safe_dump(DEMO_SPEC))
    replicas = [Replica(i, workdir, spec) for i in range(REPLICAS)]
    prom: subprocess.Popen[bytes] | None = None
    try:
        for r in replicas:
            r.start()
        log(f"replicas: metrics ports {[r.metrics for r in replicas]}")
        reference = AgentCoverageProcessor(CoverageSpec.from_dict(DEMO_SPEC, source="<demo>"))
        send_workload(replicas, reference)
        expected = expected_coverage(reference)
        per_replica = {
            r.index: {k: v for k, v in r.scrape().items()
                      if k.startswith('agentcov_coverage_ratio{') and '"tool"' in k}
            for r in replicas
        }
        prom, api = start_prometheus(prometheus, replicas, workdir)
        got = fleet_matches(api, expected)
        log(f"fleet (union rules)  : {json.dumps(got, sort_keys=True)}")
        log(f"one process, all spans: {json.dumps(expected, sort_keys=True)}")
        log(f"replica-local tool ratios differ: {json.dumps(per_replica, sort_keys=True)}")
        spans = [r.spans_counted() for r in replicas]
        log(f"spans per replica: {spans}; reference saw "
            f"{reference.snapshot().to_dict()['spans']['processed']}")
        kill = kill_mid_stream(replicas[1], kill_batches())
        log(f"kill -9 mid-stream: {kill}")
        return {"expected": expected, "fleet": got, "per_replica": per_replica,
                "spans": spans, "reference_spans":
                reference.snapshot().to_dict()["spans"]["processed"], "kill": kill}
    finally:
        if prom is not None:
            prom.terminate()
            prom.wait(timeout=30)
        for r in replicas:
            r.stop()


def main() -> int:
    prometheus = shutil.which("prometheus")
    if prometheus is None:
        print("fleet.py: needs Debian's `prometheus` on PATH (make prometheus-tools)")
        return 2
    with tempfile.TemporaryDirectory(prefix="agentcov-fleet-") as tmp:
        result = run(Path(tmp), prometheus)
    expected = {d: pytest_approx(v) for d, v in result["expected"].items()}
    fleet = {d: pytest_approx(v) for d, v in result["fleet"].items()}
    kill = result["kill"]
    ok = (fleet == expected and sum(result["spans"]) == result["reference_spans"]
          and kill["counted_after_restart"] >= kill["acked_at_kill"]
          and kill["counted_final"] >= kill["acked_total"])
    print("OK: fleet coverage equals one process; nothing acknowledged was lost" if ok
          else "MISMATCH")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
