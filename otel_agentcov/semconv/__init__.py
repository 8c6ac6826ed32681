"""classify: SpanRecord -> Step through a fixed cascade of convention adapters.

Adding a convention family is one new module and one entry in ADAPTERS (most specific first:
scope-keyed dialects before attribute-keyed conventions before name patterns). Strands, Google
ADK, python-contrib openai-v2 and openai-agents-v2 emit GenAI shapes and need no dialect.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from ..records import SpanRecord
from . import genai, openinference, pydantic_ai, testspans, traceloop
from .common import build_step
from .content import step_content
from .step import KINDS, OTHER, Step

Adapter = Callable[[SpanRecord, Sequence[str]], "Step | None"]
ADAPTERS: tuple[Adapter, ...] = (
    testspans.classify,  # a test case's span is a context, never an agent
    pydantic_ai.classify,  # scope `pydantic-ai`, legacy names
    openinference.classify,  # scope `openinference.*`, else `openinference.span.kind`
    traceloop.classify,  # `traceloop.span.kind` (its scopes are shared with python-contrib)
    genai.classify,  # `gen_ai.operation.name`
    genai.classify_by_name,  # span names last
)

__all__ = ["ADAPTERS", "KINDS", "Step", "classify"]


def classify(
    record: SpanRecord, state_attributes: Sequence[str] = (), content: bool = False
) -> Step:
    """The first adapter that recognises the span wins; anything else is an `other` step.

    `content` (a declared check needs it) also reads the span's output, input and tool
    arguments onto the step; without it no content is parsed at all (the hot path)."""
    for adapter in ADAPTERS:
        step = adapter(record, state_attributes)
        if step is not None:
            break
    else:
        step = build_step(record, OTHER, state_attributes)
    if content:
        step.content = step_content(record, step.kind)
    return step
