"""Write a large OTLP protobuf trace file of realistic GenAI agent traces, for `agentcov coverage`.

The spans come from the demo's multi-agent workload (real SDK tracer, seeded), encoded by the SDK's
own `encode_spans` in export-sized batches. `--workload diverse` uses benchmarks/workload.py's
random tool sequences instead (about one new path per trace). Serialized requests are
concatenated: protobuf merges repeated fields, so the file is one ExportTraceServiceRequest (as
a single big export would be); `--delimited` writes a length-delimited stream of requests instead.

    python benchmarks/make_trace_file.py --spans 1000000 --out /tmp/traces-1m.pb
    /usr/bin/time -v agentcov coverage --traces /tmp/traces-1m.pb --format json --output /dev/null
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from google.protobuf.internal.encoder import _VarintBytes
from opentelemetry.exporter.otlp.proto.common.trace_encoder import encode_spans
from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

sys.path.insert(0, str(Path(__file__).resolve().parent))

import workload  # noqa: E402

from otel_agentcov.demo import run_workload  # noqa: E402

BATCH = 512  # BatchSpanProcessor's default max_export_batch_size


def write(out: Path, spans: int, seed: int, delimited: bool, diverse: bool = False) -> int:
    exporter = InMemorySpanExporter()
    provider = TracerProvider(resource=Resource.create({"service.name": "agentcov-bench"}))
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    written = 0
    tracer = provider.get_tracer("agentcov.bench")
    stream = workload.plans(seed)
    now = 1_735_689_600 * 10**9
    with out.open("wb") as fh:
        while written < spans:
            if diverse:
                for _ in range(100):
                    now = workload.emit(tracer, next(stream), now)
            else:
                run_workload(provider, seed=seed, runs=100)
                seed += 1
            finished = exporter.get_finished_spans()
            if not diverse:  # diverse traces stay whole (the count may overshoot by a batch)
                finished = finished[: spans - written]
            exporter.clear()
            for i in range(0, len(finished), BATCH):
                data = encode_spans(finished[i : i + BATCH]).SerializeToString()
                fh.write(_VarintBytes(len(data)) + data if delimited else data)
            written += len(finished)
    provider.shutdown()
    return written


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--spans", type=int, default=1_000_000)
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--delimited", action="store_true",
                        help="length-delimited stream of requests instead of one request")
    parser.add_argument("--workload", choices=("demo", "diverse"), default="demo")
    args = parser.parse_args()
    n = write(args.out, args.spans, args.seed, args.delimited, args.workload == "diverse")
    print(f"{n} spans, {args.out.stat().st_size} bytes -> {args.out}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
