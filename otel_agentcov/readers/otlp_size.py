"""How much a payload would cost to decode, measured before decoding it.

Decoding allocates per element, not per byte: 2 bytes of protobuf (an empty span) become ~175
bytes of upb message and a Python record, so a 10 KiB gzip body of empty spans once grew the
service past 1.7 GB. These walks count spans and attributes on the wire (protobuf) or bound them
from the text (JSON) and stop as soon as a cap is passed, so refusing a hostile payload costs no
more than accepting a legal one.
"""

from __future__ import annotations

from dataclasses import dataclass

# the message fields that decode into objects, per OTLP message type: field number -> type
_REQUEST, _RESOURCE_SPANS, _RESOURCE, _SCOPE_SPANS, _SCOPE = range(5)
_SPAN, _EVENT, _LINK, _KEY_VALUE, _ANY_VALUE, _ARRAY, _KV_LIST = range(5, 12)
_CHILDREN: dict[int, dict[int, int]] = {
    _REQUEST: {1: _RESOURCE_SPANS},
    _RESOURCE_SPANS: {1: _RESOURCE, 2: _SCOPE_SPANS},
    _RESOURCE: {1: _KEY_VALUE},
    _SCOPE_SPANS: {1: _SCOPE, 2: _SPAN},
    _SCOPE: {3: _KEY_VALUE},
    _SPAN: {9: _KEY_VALUE, 11: _EVENT, 13: _LINK},
    _EVENT: {3: _KEY_VALUE},
    _LINK: {4: _KEY_VALUE},
    _KEY_VALUE: {2: _ANY_VALUE},
    _ANY_VALUE: {5: _ARRAY, 6: _KV_LIST},
    _ARRAY: {1: _ANY_VALUE},
    _KV_LIST: {1: _KEY_VALUE},
}
# elements counted against the attribute cap: every key-value and array entry, event and link
_COUNTED = frozenset({_KEY_VALUE, _EVENT, _LINK})


class TooLarge(ValueError):
    """The payload holds more spans or attributes than allowed; the message says which."""


@dataclass(frozen=True)
class ElementCaps:
    """Per-request caps on what decoding would allocate (defaults: `RequestLimits`)."""

    max_spans: int
    max_attributes: int


def _varint(data: bytes, pos: int, end: int) -> tuple[int, int]:
    """A multi-byte varint; a truncated one reads as a length that ends the message."""
    result = shift = 0
    while True:
        if pos >= end or shift > 63:
            return end, end
        byte = data[pos]
        pos += 1
        result |= (byte & 0x7F) << shift
        if byte < 0x80:
            return result, pos
        shift += 7


def protobuf_elements(data: bytes, caps: ElementCaps) -> None:
    """Raise TooLarge if an ExportTraceServiceRequest holds more spans or attributes than the
    caps allow, walking the wire. Every field takes at least 2 bytes, so a payload of up to
    twice a cap cannot pass it: spans are walked past 2 x max_spans bytes (one step per span),
    their insides only past 2 x max_attributes. Malformed framing is left for the decoder."""
    deep = len(data) > 2 * caps.max_attributes
    if not deep and len(data) <= 2 * caps.max_spans:
        return
    spans = attributes = 0
    stack = [(_REQUEST, 0, len(data))]
    while stack:
        message, pos, end = stack.pop()
        children = _CHILDREN[message]
        counted = message == _ARRAY
        while pos < end:
            key = data[pos]  # one byte for every field number below 16: inline the common case
            pos += 1
            if key >= 0x80:
                key, pos = _varint(data, pos - 1, end)
            wire = key & 7
            if wire == 2:
                length = data[pos] if pos < end else 0
                pos += 1
                if length >= 0x80:
                    length, pos = _varint(data, pos - 1, end)
                child = children.get(key >> 3)
                if child is not None:
                    if child == _SPAN:
                        spans += 1
                        if spans > caps.max_spans:
                            raise TooLarge(f"more than {caps.max_spans} spans")
                        if not deep:
                            pos += length
                            continue
                    elif counted or child in _COUNTED:
                        attributes += 1
                        if attributes > caps.max_attributes:
                            raise TooLarge(f"more than {caps.max_attributes} attributes")
                    stack.append((child, pos, min(pos + length, end)))
                pos += length
            elif wire == 0:
                while pos < end and data[pos] >= 0x80:
                    pos += 1
                pos += 1
            elif wire == 1:
                pos += 8
            elif wire == 5:
                pos += 4
            else:
                break  # groups and bad wire types: the decoder will say what is wrong


def json_elements(data: bytes, caps: ElementCaps) -> int:
    """An upper bound of the values an OTLP/JSON body decodes into (every value but the last in
    a container is followed by a comma); raises TooLarge past the attribute cap, which for JSON
    bounds spans too. Bytes inside strings are counted as well: the bound errs on refusing."""
    bound = data.count(b",") + data.count(b"{") + data.count(b"[") + 1
    if bound > caps.max_attributes:
        raise TooLarge(f"more than {caps.max_attributes} JSON values")
    return bound
