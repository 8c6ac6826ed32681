"""Classification cost per span: the convention-table interpreter against the hand-written
adapter cascade it replaced (the package as of BASELINE, taken from git), same run, same spans.

Two span mixes: every span of the fixtures both can read (the corpus of tests/golden/reports.json,
recorded before the tables: GenAI, OpenInference, Traceloop and every framework dialect; stacks
mapped since would cost the adapters nothing, as they made them `other`), and spans a host emits
that no convention reads (HTTP and DB client spans: most of a real host's traffic goes through
classify only to become `other`).
Each round runs both packages in child processes, in alternating order; a child times its best of
several passes over each mix. Ratios are this checkout over the baseline, per round.
"""

from __future__ import annotations

import io
import json
import pickle
import subprocess
import sys
import tarfile
from pathlib import Path

from children import CACHE
from harness import Row, Section

from otel_agentcov.readers.otlp import records_from_json
from otel_agentcov.records import SpanRecord

BASELINE = "758b38bf0eccdb3d418b7c8c1dec82eeb340e0b0"  # the last commit with the adapter cascade
ROOT = Path(__file__).resolve().parents[1]
SPANS = CACHE / "classify-spans.pkl"
TARGET = 1.25  # the interpreter may cost at most a quarter more per span than the adapters
# A child: `python -P -c CHILD <package root> <spans>` imports classify from that root only.
CHILD = """
import pickle, sys, time
sys.path.insert(0, sys.argv[1])
try:  # the tables alone: inference has a section of its own (benchmarks/inference.py)
    from otel_agentcov.semconv import Classifier
    classify = Classifier(inference=False).classify
except (ImportError, TypeError):  # the baseline, from before inference
    from otel_agentcov.semconv import classify
mixes = pickle.load(open(sys.argv[2], "rb"))
out = {}
for name, records in mixes.items():
    for r in records:
        classify(r)
    best = float("inf")
    for _ in range(5):
        start = time.perf_counter()
        for r in records:
            classify(r)
        best = min(best, time.perf_counter() - start)
    out[name] = best / len(records) * 1e6
print(out)
"""


def _host_spans(n: int) -> list[SpanRecord]:
    """HTTP and DB client spans as the python-contrib instrumentations name them."""
    spans = []
    for i in range(n):
        if i % 2:
            spans.append(SpanRecord(1, i + 1, None, "GET /api/orders/{id}", kind=3,
                                    scope_name="opentelemetry.instrumentation.requests",
                                    attributes={"http.request.method": "GET",
                                                "url.full": f"http://shop/api/orders/{i}",
                                                "server.address": "shop",
                                                "http.response.status_code": 200}))
        else:
            spans.append(SpanRecord(1, i + 1, None, "SELECT orders", kind=3,
                                    scope_name="opentelemetry.instrumentation.sqlalchemy",
                                    attributes={"db.system": "postgresql", "db.name": "shop",
                                                "db.statement": "SELECT * FROM orders"}))
    return spans


def _fixture_spans() -> list[SpanRecord]:
    corpus = json.loads((ROOT / "tests" / "golden" / "reports.json").read_text())
    records: list[SpanRecord] = []
    for name in sorted(n for n in corpus if not n.startswith("<")):  # `<trials>`: no spans
        path = ROOT / "tests" / "fixtures" / name
        records.extend(records_from_json(json.loads(path.read_text()), str(path)))
    return records


def _baseline() -> Path | None:
    """The baseline package, extracted once from git; None without the history."""
    root = CACHE / f"classify-baseline-{BASELINE[:12]}"
    if (root / "otel_agentcov").is_dir():
        return root
    archive = subprocess.run(["git", "-C", str(ROOT), "archive", BASELINE, "otel_agentcov"],
                             capture_output=True, check=False)
    if archive.returncode != 0:
        return None
    with tarfile.open(fileobj=io.BytesIO(archive.stdout)) as tar:
        tar.extractall(root, filter="data")
    return root


def _child(root: Path) -> dict[str, float]:
    proc = subprocess.run([sys.executable, "-P", "-c", CHILD, str(root), str(SPANS)],
                          capture_output=True, text=True, check=True, timeout=600)
    result: dict[str, float] = eval(proc.stdout)  # our own child's dict literal
    return result


def section(rounds: int) -> Section:
    title = "classify (tables vs adapters)"
    baseline = _baseline()
    if baseline is None:
        return Section(title, [], [f"baseline commit {BASELINE[:12]} not in this clone's "
                                   "history: not measured"])
    CACHE.mkdir(parents=True, exist_ok=True)
    mixes = {"fixtures": _fixture_spans(), "host": _host_spans(2000)}
    SPANS.write_bytes(pickle.dumps(mixes))
    samples: dict[str, list[float]] = {f"{w} {m}": [] for w in ("new", "old") for m in mixes}
    for i in range(rounds):
        order = [("new", ROOT), ("old", baseline)]
        for which, root in order if i % 2 == 0 else order[::-1]:
            for mix, us in _child(root).items():
                samples[f"{which} {mix}"].append(us)
    rows = []
    for mix in mixes:
        new, old = samples[f"new {mix}"], samples[f"old {mix}"]
        rows += [
            Row(f"tables, {mix} spans", new, "µs/span"),
            Row(f"adapters, {mix} spans", old, "µs/span"),
            Row(f"tables / adapters, {mix} spans", [a / b for a, b in zip(new, old, strict=True)],
                "ratio", f"<= {TARGET}", lambda v: v <= TARGET),
        ]
    notes = [f"{len(mixes['fixtures'])} fixture spans, {len(mixes['host'])} host spans; baseline "
             f"= the package at {BASELINE[:12]}, the last commit with the adapter cascade"]
    return Section(title, rows, notes)
