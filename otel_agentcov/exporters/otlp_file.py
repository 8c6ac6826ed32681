"""`OTLPFileSpanExporter`: write spans to a file every `agentcov` command reads, from Python.

Each export appends one serialized ExportTraceServiceRequest; protobuf merges repeated fields,
so the whole file is one request (what `agentcov coverage FILE` and other OTLP tools read).
"""

from __future__ import annotations

import os
import threading
from collections.abc import Sequence

from opentelemetry.exporter.otlp.proto.common.trace_encoder import encode_spans
from opentelemetry.sdk.trace import ReadableSpan
from opentelemetry.sdk.trace.export import SpanExporter, SpanExportResult


class OTLPFileSpanExporter(SpanExporter):
    """A SpanExporter writing OTLP protobuf to `path` (created, or emptied, when constructed).

    Put it behind a BatchSpanProcessor like any exporter; a failed write is reported as a
    FAILURE to the SDK, never raised into the application."""

    def __init__(self, path: str | os.PathLike[str]) -> None:
        self._lock = threading.Lock()
        self._fh = open(path, "wb")  # noqa: SIM115 - held until shutdown, as an exporter must

    def export(self, spans: Sequence[ReadableSpan]) -> SpanExportResult:
        data = encode_spans(spans).SerializeToString()
        with self._lock:
            if self._fh.closed:
                return SpanExportResult.FAILURE
            try:
                self._fh.write(data)
                self._fh.flush()
            except OSError:
                return SpanExportResult.FAILURE
        return SpanExportResult.SUCCESS

    def force_flush(self, timeout_millis: int = 30_000) -> bool:
        return True  # every export is flushed as it is written

    def shutdown(self) -> None:
        with self._lock:
            self._fh.close()
