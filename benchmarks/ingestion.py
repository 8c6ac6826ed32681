"""Offline ingestion, end to end through the CLI (each run a child process: wall and CPU from
wait4, peak RSS its own VmHWM: children.py), over benchmarks/workload.py's path-diverse
traces generated once into build/bench/:

- 200 k spans: `agentcov coverage` against the decode-and-visit floor (the least any Python
  reader does), and `--jobs 2` against `--jobs 1` (speed-up and same report);
- 1 M spans (~100 k traces, ~100 k distinct paths): throughput and peak RSS.
"""

from __future__ import annotations

import json
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import workload
import yaml
from children import CACHE, Run, run
from harness import Row, Section

SPANS = 1_000_000
TRACES = CACHE / "traces-1m.pb"
FLOOR_SPANS = 200_000
FLOOR_TRACES = CACHE / "traces-200k.pb"
START_TRACES = CACHE / "traces-start.pb"  # one batch of 100 traces: start-up, mostly
SPEC = CACHE / "diverse.yaml"
REPORT = CACHE / "ingest-report.json"
# The floor for any Python reader: decode the file and visit every span's name, ids and
# attribute keys (what classification must at least look at), nothing else.
_FLOOR = (
    "import sys; from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import "
    "ExportTraceServiceRequest as R; r = R(); r.ParseFromString(open(sys.argv[1], 'rb').read())\n"
    "n = 0\n"
    "for rs in r.resource_spans:\n"
    "  for ss in rs.scope_spans:\n"
    "    for s in ss.spans:\n"
    "      s.name; s.trace_id; s.span_id; s.parent_span_id\n"
    "      for kv in s.attributes: kv.key\n"
    "      n += 1\n"
    "print(n)"
)


def _make(path: Path, spans: int) -> None:
    if not path.exists():
        print(f"  generating {path} (once)...", flush=True)
        tmp = path.with_suffix(".tmp")
        run([sys.executable, "benchmarks/make_trace_file.py", "--workload", "diverse",
             "--spans", str(spans), "--out", str(tmp)])
        tmp.rename(path)


def ensure_inputs() -> None:
    CACHE.mkdir(parents=True, exist_ok=True)
    SPEC.write_text(yaml.safe_dump(workload.spec()))
    _make(FLOOR_TRACES, FLOOR_SPANS)
    _make(START_TRACES, 1)
    _make(TRACES, SPANS)


def _coverage(path: Path, report: Path, *extra: str) -> Run:
    return run([sys.executable, "-m", "otel_agentcov.cli", "coverage", "--spec", str(SPEC),
                "--traces", str(path), "--format", "json", "--output", str(report), *extra])


def floor_section(rounds: int) -> Section:
    """200 k spans: agentcov against the decode-and-visit floor, and --jobs 2 against --jobs 1."""
    ensure_inputs()
    rounds = max(1, min(rounds, 3))
    floor: list[Run] = []
    one: list[Run] = []
    two: list[Run] = []
    start: list[Run] = []
    pair: list[list[Run]] = []
    reports = [CACHE / "floor-jobs1.json", CACHE / "floor-jobs2.json"]
    for _ in range(rounds):
        floor.append(run([sys.executable, "-c", _FLOOR, str(FLOOR_TRACES)]))
        one.append(_coverage(FLOOR_TRACES, reports[0]))
        two.append(_coverage(FLOOR_TRACES, reports[1], "--jobs", "2"))
        start.append(_coverage(START_TRACES, CACHE / "start-report.json"))
        with ThreadPoolExecutor(2) as pool:  # the same --jobs 1 run twice at once
            pair.append(list(pool.map(lambda n: _coverage(
                FLOOR_TRACES, CACHE / f"floor-pair{n}.json"), range(2))))
    spans = int(floor[-1].stdout)
    same = reports[0].read_bytes() == reports[1].read_bytes()
    rows = [
        Row("decode-and-visit floor: wall", [r.wall_s for r in floor], "s"),
        Row("agentcov coverage: wall", [r.wall_s for r in one], "s"),
        Row("agentcov coverage --jobs 2: wall", [r.wall_s for r in two], "s"),
        Row("agentcov coverage / floor (wall)", [o.wall_s / f.wall_s for o, f in
                                                 zip(one, floor, strict=True)], "ratio",
            "<= 1", lambda v: v <= 1),
        Row("agentcov coverage / floor (CPU)", [o.cpu_s / f.cpu_s for o, f in
                                                zip(one, floor, strict=True)], "ratio"),
        Row("--jobs 1 / --jobs 2 wall (speed-up)", [o.wall_s / t.wall_s for o, t in
                                                   zip(one, two, strict=True)], "ratio",
            ">= 1.8", lambda v: v >= 1.8),
        Row("--jobs 2 / --jobs 1 CPU, workers included (the cost of splitting)",
            [t.cpu_s / o.cpu_s for o, t in zip(one, two, strict=True)], "ratio"),
        Row("--jobs 2 report byte-identical to --jobs 1 (1 = yes)", [float(same)], "bool",
            "1", lambda v: v == 1),
        Row("two --jobs 1 runs at once / one run, CPU each (what running in parallel costs "
            "here, whatever runs)", [(a.cpu_s + b.cpu_s) / 2 / o.cpu_s for (a, b), o in
                                     zip(pair, one, strict=True)], "ratio"),
        Row("agentcov coverage over one batch (start-up and imports): CPU",
            [r.cpu_s for r in start], "s"),
        Row("--jobs 2 speed-up expected on 2 idle cores, from CPU times (see notes)",
            [o.cpu_s / (b.cpu_s + (t.cpu_s - b.cpu_s) / 2)
             for o, t, b in zip(one, two, start, strict=True)], "ratio"),
    ]
    notes = [
        f"{spans:,} spans ({FLOOR_TRACES.stat().st_size / 1e6:.0f} MB, benchmarks/workload.py's "
        "diverse traces, `granularity: tool`); the floor decodes the file in one C call and "
        "visits every span's name, ids and attribute keys in Python. Wall times are end to end "
        "(interpreter start-up and imports included) on 2 cores shared with other jobs.",
        "The --jobs speed-up needs an idle core: where the kernel shares CPU by session "
        "(sched_autogroup, as on the machine that wrote this file when other sessions are busy), "
        "two workers get the one share a single process would, and the wall ratio shows "
        "nothing. The CPU ratio is the load-independent part; it cannot fall below what two "
        "independent --jobs 1 runs side by side cost per run (shared caches and the host), "
        "measured in the same round. With both cores free, the "
        "expected speed-up is the --jobs 1 CPU over the --jobs 2 CPU with everything but "
        "start-up halved: start-up (interpreter and imports, the one-batch run) comes before "
        "the workers fork and is paid once, serially, in both modes.",
    ]
    return Section("Offline, 200 k-span protobuf: floor and --jobs", rows, notes)


def section(rounds: int) -> Section:
    ensure_inputs()
    rounds = max(1, min(rounds, 2))  # ~20-40 s a run on 2 shared cores
    ours: list[Run] = []
    for _ in range(rounds):
        ours.append(_coverage(TRACES, REPORT))
    report = json.loads(REPORT.read_text())
    spans = report["spans"]["processed"]
    paths = sum(a["paths"]["observed"] for a in report["agents"].values())
    runs = sum(a["runs"]["count"] for a in report["agents"].values())
    rows = [
        Row("agentcov coverage: spans/s end to end (wall)", [spans / r.wall_s for r in ours],
            "spans/s"),
        Row("agentcov coverage: spans/s per CPU second", [spans / r.cpu_s for r in ours],
            "spans/s"),
        Row("agentcov coverage: peak RSS", [r.peak_rss_mb for r in ours], "MB", "<= 100",
            lambda v: v <= 100),
    ]
    notes = [
        f"{spans:,} spans ({TRACES.stat().st_size / 1e6:.0f} MB, one ExportTraceServiceRequest "
        f"in 512-span batches) = {runs:,} agent runs of 5 agents with {paths:,} distinct paths "
        "in the state (benchmarks/workload.py: random tool sequences, `granularity: tool`); "
        "agentcov streams it one ResourceSpans at a time. Peak RSS is the child's own high-water "
        "mark (VmHWM, benchmarks/peak.py): until this round it was wait4's ru_maxrss, which "
        "Linux starts from the forking runner's own (about 129 MB by then), so every child "
        "showed the runner's size, whatever its own.",
    ]
    return Section("Offline ingestion (agentcov coverage, 1 M-span OTLP protobuf)", rows, notes)
