"""Test spans (OTel test conventions, pytest-opentelemetry): wrappers that name a context.

A span standing for a test case is never an agent, tool or model call, whatever its name looks
like (`tests/test_chat.py::test_tool` must not match a GenAI span-name pattern); the runs under
it take its `test.case.name` as their context (docs/semantics.md#test-contexts). build_step
already reads the context onto every step, so the check runs after classification and costs
nothing on other spans.
"""

from __future__ import annotations

from collections.abc import Sequence

from _fields import build_step

from otel_agentcov.records import SpanRecord
from otel_agentcov.semconv.step import OTHER, Step

_GENAI_KEYS = frozenset({"gen_ai.operation.name", "openinference.span.kind", "traceloop.span.kind"})


def as_test_span(record: SpanRecord, step: Step, state_attributes: Sequence[str]) -> Step:
    """`step`, or an `other` step when the span is a test case's that a name pattern took for
    a GenAI span (a span with GenAI attributes that also names a test stays what it is)."""
    if step.context is None or step.kind == OTHER or not _GENAI_KEYS.isdisjoint(record.attributes):
        return step
    return build_step(record, OTHER, state_attributes)
