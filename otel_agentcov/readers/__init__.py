"""Readers: OTLP payloads and trace files -> SpanRecords (the offline and service front doors)."""

from .otlp import TraceFormatError, decode_request, records_from_json, records_from_request

__all__ = ["TraceFormatError", "decode_request", "records_from_json", "records_from_request"]
