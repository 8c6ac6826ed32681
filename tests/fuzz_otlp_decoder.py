"""atheris harness for the compiled OTLP protobuf decoder (run by tests/test_otlp_decoder.py).

Every input goes to the decoder as the readers call it (SpanRecords, with and without the element
caps and a `--jobs` filter; and decoded and classified in one call, as `serve` and `agentcov
coverage` read protobuf) and to upb: the only exceptions allowed are TraceFormatError and
TooLarge, and decoder, fused entry and upb must all accept or all refuse; the caps refuse all
that upb decodes into more spans or attributes than they allow. Anything else ends the
run with a crash report, a core panic too (which the readers refuse as `CORE_FAILED`).
Usage: python tests/fuzz_otlp_decoder.py [libFuzzer flags] [corpus dirs].
"""

from __future__ import annotations

import sys

import atheris

with atheris.instrument_imports():
    import _upb_oracle as oracle

    from otel_agentcov.compiled import CORE_FAILED
    from otel_agentcov.demo import DEMO_SPEC
    from otel_agentcov.engine import CoverageEngine
    from otel_agentcov.readers.otlp import (
        TraceFormatError,
        classified_from_protobuf,
        records_from_protobuf,
    )
    from otel_agentcov.readers.otlp_size import ElementCaps, TooLarge
    from otel_agentcov.spec import CoverageSpec

CAPS = ElementCaps(max_spans=20, max_attributes=200)
STEPS = CoverageEngine(CoverageSpec.from_dict(DEMO_SPEC)).steps()


def _accepts(decode: object, data: bytes) -> bool:
    try:
        decode(data)  # type: ignore[operator]
    except TraceFormatError as exc:
        assert "\n" not in str(exc) and CORE_FAILED not in str(exc), str(exc)
        return False
    return True


def one_input(data: bytes) -> None:
    decoded = _accepts(lambda d: records_from_protobuf(d, "fuzz"), data)
    if decoded != _accepts(oracle.records, data):
        raise AssertionError(f"decoder {'accepts' if decoded else 'refuses'}, upb does not")
    assert STEPS is not None
    if decoded != _accepts(lambda d: classified_from_protobuf(d, STEPS, "fuzz"), data):
        raise AssertionError(f"decoder {'accepts' if decoded else 'refuses'}, fused entry not")
    try:
        records_from_protobuf(data, "fuzz", keep=lambda t: t % 3 == 0, caps=CAPS)
    except TooLarge:
        pass
    except TraceFormatError as exc:
        assert CORE_FAILED not in str(exc), str(exc)
    _capped_as_upb_counts(data, decoded)


def _capped_as_upb_counts(data: bytes, decoded: bool) -> None:
    """The caps refuse every payload whose decoded message (upb's) holds more spans or
    attributes than they allow: a group or any field the decoder skips cannot hide one. (They
    may refuse a little more: an element decoded, then replaced by a later oneof member, counts.)"""
    try:
        records_from_protobuf(data, "fuzz", caps=CAPS)
        capped = False
    except TooLarge:
        capped = True
    except TraceFormatError:
        assert not decoded
        return
    if decoded:
        spans, attributes = oracle.elements(oracle.decode_request(data))
        if not capped and (spans > CAPS.max_spans or attributes > CAPS.max_attributes):
            raise AssertionError(f"caps accept {spans} spans, {attributes} attributes")


if __name__ == "__main__":
    atheris.Setup(sys.argv, one_input)
    atheris.Fuzz()
