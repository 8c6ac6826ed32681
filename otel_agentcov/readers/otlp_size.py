"""How much a payload would cost to decode, measured before decoding it.

Decoding allocates per element, not per byte: 2 bytes of protobuf (an empty span) become a
decoded span and a Python record, so a 10 KiB gzip body of empty spans once grew the service past
1.7 GB. The caps are counted before decoding: on the protobuf wire by the compiled decoder itself
(`records_from_protobuf(..., caps=)`, core/src/otlp_caps.rs), and here, from the text, for
OTLP/JSON; both stop as soon as a cap is passed, so refusing a hostile payload costs no more than
accepting a legal one.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..compiled import TooLarge  # the core's own: a cap passed in protobuf or JSON, alike

__all__ = ["ElementCaps", "TooLarge", "json_elements"]


@dataclass(frozen=True)
class ElementCaps:
    """Per-request caps on what decoding would allocate (defaults: `RequestLimits`)."""

    max_spans: int
    max_attributes: int


def json_elements(data: bytes, caps: ElementCaps) -> int:
    """An upper bound of the values an OTLP/JSON body decodes into (every value but the last in
    a container is followed by a comma); raises TooLarge past the attribute cap, which for JSON
    bounds spans too. Bytes inside strings are counted as well: the bound errs on refusing."""
    bound = data.count(b",") + data.count(b"{") + data.count(b"[") + 1
    if bound > caps.max_attributes:
        raise TooLarge(f"more than {caps.max_attributes} JSON values")
    return bound
