"""Memory under the inputs that once exhausted it (issue 14, items 5-8), one process per case so
each peak RSS is its own. The rows of docs/guarantees.md quote these; the "before" figures are this
script run against the commit before the fixes (`PYTHONPATH=<that checkout>`, no budget flags).

- queue: one host thread ending spans that carry a distinct 100 KB prompt each, faster than the
  worker parses them: peak RSS and drops, default and a 64 MiB `max_queue_bytes`;
- bomb: one gzip request of N empty spans (2 bytes each on the wire) into `agentcov serve`:
  status, time and the server's peak RSS;
- buffered: 1 M spans in 1 000 traces whose roots never end: RSS growth, per buffered span;
- series: one /metrics render of 1 000 agents x 200 tools: samples and bytes.

Run: `.venv/bin/python benchmarks/memory_bounds.py [--only CASE]` (about a minute).
"""

from __future__ import annotations

import argparse
import gzip
import http.client
import json
import resource
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent


def _peak_rss_mib() -> int:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss // 1024


def queue(spans: int = 8000, budget: int | None = None) -> dict[str, Any]:
    from opentelemetry.sdk.trace import TracerProvider

    from otel_agentcov import AgentCoverageProcessor
    from otel_agentcov.assembler import Bounds

    bounds = Bounds() if budget is None else Bounds(max_queue_bytes=budget)
    processor = AgentCoverageProcessor(bounds=bounds)
    provider = TracerProvider()
    provider.add_span_processor(processor)
    tracer = provider.get_tracer("bench")
    head = '[{"role": "user", "parts": [{"type": "text", "content": "'
    tail = "x" * 100_000 + '"}]}]'
    started = time.perf_counter()
    for i in range(spans):
        prompt = head + str(i) + tail  # distinct, as captured prompts are
        with tracer.start_as_current_span("chat", attributes={
                "gen_ai.operation.name": "chat", "gen_ai.input.messages": prompt}):
            pass
    host_s = time.perf_counter() - started
    provider.shutdown()
    return {"spans": spans, "max_queue_bytes": budget, "host_s": round(host_s, 1),
            "peak_rss_mib": _peak_rss_mib(), "dropped": processor.span_stats()["dropped"]}


def _ld(field: int, body: bytes) -> bytes:
    out, n = bytearray([field << 3 | 2]), len(body)
    while True:
        out.append(n & 0x7F | (0x80 if n > 0x7F else 0))
        n >>= 7
        if not n:
            return bytes(out) + body


def _port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


def _status_kib(pid: int, key: str) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith(key + ":"):
            return int(line.split()[1])
    raise RuntimeError(key)


def bomb(spans: int = 1_000_000) -> dict[str, Any]:
    payload = _ld(1, _ld(2, _ld(2, b"") * spans))
    body = gzip.compress(payload, 9)
    http_port, metrics = _port(), _port()
    with tempfile.TemporaryDirectory() as tmp:
        spec = Path(tmp) / "agentcov.yaml"
        spec.write_text("version: 1\n")
        proc = subprocess.Popen(
            [sys.executable, "-m", "otel_agentcov.cli", "serve", "--spec", str(spec),
             "--otlp-grpc", "0", "--otlp-http", str(http_port), "--metrics", str(metrics)],
            cwd=ROOT, stderr=subprocess.DEVNULL)  # fmt: skip
        try:
            for _ in range(300):
                try:
                    urllib.request.urlopen(f"http://127.0.0.1:{metrics}/healthz", timeout=1)
                    break
                except OSError:
                    time.sleep(0.1)
            before = _status_kib(proc.pid, "VmRSS")
            conn = http.client.HTTPConnection("127.0.0.1", http_port, timeout=600)
            started = time.perf_counter()
            conn.request("POST", "/v1/traces", body=body, headers={
                "Content-Type": "application/x-protobuf", "Content-Encoding": "gzip"})
            status = conn.getresponse().status
            seconds = time.perf_counter() - started
            peak = _status_kib(proc.pid, "VmHWM")
        finally:
            proc.terminate()
            proc.wait(timeout=30)
    return {"empty_spans": spans, "gzip_bytes": len(body), "inflated_bytes": len(payload),
            "status": status, "seconds": round(seconds, 1), "rss_before_mib": before // 1024,
            "peak_rss_mib": peak // 1024}


def buffered(spans: int = 1_000_000, budget: int | None = None) -> dict[str, Any]:
    from otel_agentcov.assembler import Bounds
    from otel_agentcov.engine import CoverageEngine
    from otel_agentcov.records import SpanRecord

    kw: dict[str, Any] = {} if budget is None else {"max_buffered_spans": budget}
    engine = CoverageEngine(bounds=Bounds(idle_ttl_s=3600.0, **kw))
    before = _peak_rss_mib()
    for i in range(spans):
        engine.ingest(SpanRecord(1000 + i // 1000, 2 + i % 1000, 1, "execute_tool", start_ns=1,
                                 end_ns=2, attributes={"gen_ai.operation.name": "execute_tool",
                                                       "gen_ai.tool.name": f"t{i % 50}"}))
    grown = _peak_rss_mib() - before
    held = getattr(engine.assembler, "buffered_spans", spans)  # (absent before the budget)
    return {"spans": spans, "max_buffered_spans": budget, "rss_growth_mib": grown,
            "bytes_per_buffered_span": grown * 2**20 // held,
            "flushed_early": engine.span_stats()["flushed_early"]}


def many_labels(agents: int, tools: int) -> Any:
    """An engine holding `agents` runs of `tools` distinct tools each: label cardinality that
    multiplies (the series budget's case; tests/test_memory_bounds.py uses it too)."""
    from otel_agentcov.assembler import Bounds
    from otel_agentcov.engine import CoverageEngine
    from otel_agentcov.records import SpanRecord

    engine = CoverageEngine(bounds=Bounds(idle_ttl_s=3600.0))
    for a in range(agents):
        trace = 10_000 + a
        for t in range(tools):
            engine.ingest(SpanRecord(trace, 2 + t, 1, "execute_tool", start_ns=1, end_ns=2,
                                     attributes={"gen_ai.operation.name": "execute_tool",
                                                 "gen_ai.tool.name": f"tool-{t}"}))
        engine.ingest(SpanRecord(trace, 1, None, "invoke_agent", start_ns=0, end_ns=3,
                                 attributes={"gen_ai.operation.name": "invoke_agent",
                                             "gen_ai.agent.name": f"agent-{a}"}))
    return engine


def series(agents: int = 1000, tools: int = 200) -> dict[str, Any]:
    from otel_agentcov.exporters.prometheus import render

    text = render(many_labels(agents, tools))
    samples = sum(1 for line in text.splitlines() if line and not line.startswith(b"#"))
    return {"agents": agents, "tools": tools, "samples": samples, "bytes": len(text)}


CASES: dict[str, list[dict[str, Any]]] = {
    "queue": [{}, {"budget": 64 << 20}],
    "bomb": [{"spans": 1_000_000}, {"spans": 30_000_000}],
    "buffered": [{}, {"budget": 200_000}],
    "series": [{}],
}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", choices=sorted(CASES))
    parser.add_argument("--case", help=argparse.SUPPRESS)  # internal: one case, this process
    parser.add_argument("--kwargs", default="{}", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.case:
        print(json.dumps({args.case: globals()[args.case](**json.loads(args.kwargs))}))
        return 0
    for case in [args.only] if args.only else CASES:
        for kwargs in CASES[case]:
            subprocess.run([sys.executable, __file__, "--case", case, "--kwargs",
                            json.dumps(kwargs)], cwd=ROOT, check=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
