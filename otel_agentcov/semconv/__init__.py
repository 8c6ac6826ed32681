"""classify: SpanRecord -> Step through a fixed cascade of convention adapters.

Adding a convention family is one new module and one entry: in BY_SCOPE when it reads only its
own scopes, else in ADAPTERS (most specific first: scope-keyed dialects before attribute-keyed
conventions before name patterns). Strands, Google ADK, AutoGen, python-contrib openai-v2 and
openai-agents-v2 emit GenAI shapes and need no dialect.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from ..records import SpanRecord
from . import (
    agent_framework,
    crewai,
    genai,
    llama_index,
    openinference,
    pydantic_ai,
    semantic_kernel,
    smolagents,
    testspans,
    traceloop,
)
from .common import build_step
from .content import step_content
from .step import KINDS, OTHER, Step

Adapter = Callable[[SpanRecord, Sequence[str]], "Step | None"]
# Dialects that only ever read their own scopes are looked up by scope, not tried in turn: one
# dict lookup instead of a call per dialect on every span (classify is the ingest hot path).
BY_SCOPE: dict[str, Adapter] = {
    smolagents.SCOPE: smolagents.classify,
    llama_index.SCOPE: llama_index.classify,
    agent_framework.SCOPE: agent_framework.classify,  # workflow spans; GenAI spans fall through
    **{scope: crewai.classify for scope in crewai.SCOPES},
}
ADAPTERS: tuple[Adapter, ...] = (
    testspans.classify,  # a test case's span is a context, never an agent
    pydantic_ai.classify,  # scope `pydantic-ai`, legacy names
    openinference.classify,  # scope `openinference.*`, else `openinference.span.kind`
    traceloop.classify,  # `traceloop.span.kind` (its scopes are shared with python-contrib)
    genai.classify,  # `gen_ai.operation.name`
    genai.classify_by_name,  # span names last
)

__all__ = ["ADAPTERS", "BY_SCOPE", "KINDS", "Step", "classify"]


def classify(
    record: SpanRecord, state_attributes: Sequence[str] = (), content: bool = False
) -> Step:
    """The span's scope dialect if it recognises the span, else the first adapter of the
    cascade that does; anything else is an `other` step.

    `content` (a declared check needs it) also reads the span's output, input and tool
    arguments onto the step; without it no content is parsed at all (the hot path)."""
    step = _classify(record, state_attributes)
    if content:
        step.content = step_content(record, step.kind)
    return step


def _classify(record: SpanRecord, state_attributes: Sequence[str]) -> Step:
    scope = record.scope_name
    scoped = BY_SCOPE.get(scope)
    if scoped is None and scope.startswith(semantic_kernel.SCOPE_PREFIX):
        scoped = semantic_kernel.classify  # one scope per Semantic Kernel module
    if scoped is not None:
        step = scoped(record, state_attributes)
        if step is not None:
            return step
    for adapter in ADAPTERS:
        step = adapter(record, state_attributes)
        if step is not None:
            return step
    return build_step(record, OTHER, state_attributes)
