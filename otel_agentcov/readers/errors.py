"""The readers' one error type, apart from the decoders so naming it loads no protobuf."""

from __future__ import annotations


class TraceFormatError(ValueError):
    """A payload that is not OTLP traces; the message says where and what was expected."""


# The one line a panic of the compiled core on an input is reported as: the input is refused
# whole, as bad input is. The panic's own message is left out: Rust quotes the string it failed
# to slice in it, which may be span content.
CORE_FAILED = "the compiled core failed on this input (a bug: please report it)"
