"""Readers: OTLP payloads and trace files -> SpanRecords (the offline and service front doors).

The OTLP names load protobuf on first use (PEP 562), so reading trials files never imports it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .errors import TraceFormatError

if TYPE_CHECKING:
    from .otlp import decode_request, records_from_json, records_from_request

__all__ = ["TraceFormatError", "decode_request", "records_from_json", "records_from_request"]


def __getattr__(name: str) -> Any:
    if name in ("decode_request", "records_from_json", "records_from_request"):
        from . import otlp

        return getattr(otlp, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
