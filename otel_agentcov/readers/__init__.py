"""Readers: OTLP payloads and trace files -> SpanRecords (the offline and service front doors).

The OTLP names load their decoders on first use (PEP 562), so reading trials files never does.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .errors import TraceFormatError

if TYPE_CHECKING:
    from .otlp import records_from_json, records_from_protobuf

__all__ = ["TraceFormatError", "records_from_json", "records_from_protobuf"]


def __getattr__(name: str) -> Any:
    if name in ("records_from_json", "records_from_protobuf"):
        from . import otlp

        return getattr(otlp, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
