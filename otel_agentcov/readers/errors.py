"""The readers' one error type, apart from the decoders so naming it loads no protobuf."""

from __future__ import annotations


class TraceFormatError(ValueError):
    """A payload that is not OTLP traces; the message says where and what was expected."""
