"""Test spans (OTel test conventions, pytest-opentelemetry): wrappers that name a context.

A span standing for a test case is never an agent, tool or model call, whatever its name looks
like (`tests/test_chat.py::test_tool` must not match a GenAI span-name pattern); the runs under
it take its `test.case.name` as their context (DESIGN §3d).
"""

from __future__ import annotations

from collections.abc import Sequence

from ..records import SpanRecord
from .common import build_step, test_context
from .step import OTHER, Step

_GENAI_KEYS = frozenset({"gen_ai.operation.name", "openinference.span.kind", "traceloop.span.kind"})


def classify(record: SpanRecord, state_attributes: Sequence[str]) -> Step | None:
    if test_context(record) is None or not _GENAI_KEYS.isdisjoint(record.attributes):
        return None
    return build_step(record, OTHER, state_attributes)
