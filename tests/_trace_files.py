"""Trace files written by the real OpenTelemetry SDK encoders, for the offline tests.

Protobuf comes from `opentelemetry-exporter-otlp-proto-common` (`encode_spans`), OTLP/JSON from
the SDK's official `opentelemetry-exporter-otlp-json-common` (hex ids, enums as numbers, 64-bit
integers as strings: the layout the Collector's file exporter writes, one request per line).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from opentelemetry.exporter.otlp.json.common.trace_encoder import encode_spans as encode_json
from opentelemetry.exporter.otlp.proto.common.trace_encoder import encode_spans as encode_pb
from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import ReadableSpan, TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

from otel_agentcov.demo import DEMO_SPEC, run_workload


def demo_spans(runs: int = 40, seed: int = 7) -> Sequence[ReadableSpan]:
    """The demo's multi-agent workload, as finished SDK spans."""
    exporter = InMemorySpanExporter()
    provider = TracerProvider(resource=Resource.create({"service.name": "agentcov-demo"}))
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    run_workload(provider, seed=seed, runs=runs)
    provider.shutdown()
    return exporter.get_finished_spans()


def batches(spans: Sequence[ReadableSpan], size: int = 64) -> list[Sequence[ReadableSpan]]:
    """Export batches in end order, as a BatchSpanProcessor hands them to an exporter."""
    return [spans[i : i + size] for i in range(0, len(spans), size)]


def protobuf_bytes(spans: Sequence[ReadableSpan]) -> bytes:
    data: bytes = encode_pb(spans).SerializeToString()
    return data


def ld(field: int, body: bytes) -> bytes:
    """One length-delimited protobuf field, for payloads written by hand (hostile ones)."""
    out, n = bytearray([field << 3 | 2]), len(body)
    while True:
        out.append(n & 0x7F | (0x80 if n > 0x7F else 0))
        n >>= 7
        if not n:
            return bytes(out) + body


def json_text(spans: Sequence[ReadableSpan]) -> str:
    text: str = encode_json(spans).to_json()
    return text


def write_jsonl(path: Path, spans: Sequence[ReadableSpan]) -> Path:
    """The Collector file exporter's layout: one ExportTraceServiceRequest object per line."""
    path.write_text("".join(json_text(b) + "\n" for b in batches(spans)), encoding="utf-8")
    return path


def write_spec(path: Path, spec: dict[str, Any] | None = None) -> Path:
    path.write_text(json.dumps(spec or DEMO_SPEC), encoding="utf-8")  # JSON is YAML
    return path
