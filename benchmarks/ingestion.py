"""Offline ingestion: `agentcov coverage` over a 1 M-span OTLP protobuf file, end to end.

The file (benchmarks/workload.py's path-diverse traces: ~100 k traces, ~100 k distinct paths) is
generated once into build/bench/ and reused. Each round runs the CLI as a child process (wall,
CPU, peak RSS from wait4) and, as the baseline, a child that only decodes the same file with
protobuf's ExportTraceServiceRequest.ParseFromString, so the ratio shows how much time is ours.
"""

from __future__ import annotations

import json
import sys

import workload
import yaml
from children import CACHE, Run, run
from harness import Row, Section

SPANS = 1_000_000
TRACES = CACHE / "traces-1m.pb"
SPEC = CACHE / "diverse.yaml"
REPORT = CACHE / "ingest-report.json"
_PARSE_ONLY = (
    "import sys; from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import "
    "ExportTraceServiceRequest as R; r = R(); r.ParseFromString(open(sys.argv[1], 'rb').read()); "
    "print(sum(len(s.spans) for rs in r.resource_spans for s in rs.scope_spans))"
)


def ensure_inputs() -> None:
    CACHE.mkdir(parents=True, exist_ok=True)
    SPEC.write_text(yaml.safe_dump(workload.spec()))
    if not TRACES.exists():
        print(f"  generating {TRACES} (once)...", flush=True)
        tmp = TRACES.with_suffix(".tmp")
        run([sys.executable, "benchmarks/make_trace_file.py", "--workload", "diverse",
             "--spans", str(SPANS), "--out", str(tmp)])
        tmp.rename(TRACES)


def section(rounds: int) -> Section:
    ensure_inputs()
    rounds = max(1, min(rounds, 3))  # ~20-40 s a run on 2 shared cores
    ours: list[Run] = []
    parse: list[Run] = []
    spans = 0
    for _ in range(rounds):
        parse.append(p := run([sys.executable, "-c", _PARSE_ONLY, str(TRACES)]))
        spans = int(p.stdout)
        ours.append(run([sys.executable, "-m", "otel_agentcov.cli", "coverage", "--spec",
                         str(SPEC), "--traces", str(TRACES), "--format", "json",
                         "--output", str(REPORT)]))
    report = json.loads(REPORT.read_text())
    paths = sum(a["paths"]["observed"] for a in report["agents"].values())
    runs = sum(a["runs"]["count"] for a in report["agents"].values())
    assert report["spans"]["processed"] == spans, "every span must be counted"
    rows = [
        Row("agentcov coverage: spans/s end to end (wall)", [spans / r.wall_s for r in ours],
            "spans/s", ">= 200,000", lambda v: v >= 200_000),
        Row("agentcov coverage: spans/s per CPU second", [spans / r.cpu_s for r in ours],
            "spans/s"),
        Row("agentcov coverage: peak RSS", [r.peak_rss_mb for r in ours], "MB", "<= 500",
            lambda v: v <= 500),
        Row("baseline, protobuf decode only: spans/s (wall)", [spans / r.wall_s for r in parse],
            "spans/s"),
        Row("baseline, protobuf decode only: peak RSS", [r.peak_rss_mb for r in parse], "MB"),
        Row("agentcov wall / decode-only wall", [o.wall_s / p.wall_s for o, p in
                                                zip(ours, parse, strict=True)], "ratio"),
    ]
    notes = [
        f"{spans:,} spans ({TRACES.stat().st_size / 1e6:.0f} MB, one ExportTraceServiceRequest "
        f"in 512-span batches) = {runs:,} agent runs of 5 agents with {paths:,} distinct paths "
        "in the state (benchmarks/workload.py: random tool sequences, `granularity: tool`).",
        "The decode-only baseline parses the whole file in one C call (its RSS is the whole "
        "decoded message); agentcov streams it one ResourceSpans at a time.",
        "Where the time goes (CPU, 200 k spans of this file, stage by stage): protobuf decode "
        "0.16 s (~0.8 us/span), protobuf -> SpanRecord 1.7 s (~8.5 us: upb returns a new "
        "wrapper object for every KeyValue/AnyValue, ~1 us per attribute, 5 attributes a "
        "span), classify 1.2 s (~6 us), assembler + state 0.7 s (~3.5 us): ~19 us/span, "
        "~54 k spans/s per CPU (was ~37 k before this issue's changes). 200 k spans/s means "
        "5 us/span for all of it, under what the attribute reads alone cost in CPython + upb; "
        "closing the gap needs native code or several processes (a 2-way split by trace id "
        "with a state merge was not built: on 2 cores shared by other jobs it could give "
        "2x at most).",
    ]
    return Section("Offline ingestion (agentcov coverage, 1 M-span OTLP protobuf)", rows, notes)
