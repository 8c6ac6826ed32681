"""classify: SpanRecord -> Step through a fixed cascade of convention adapters.

Adding a convention family is one new module and one entry: in BY_SCOPE (or BY_PREFIX) when
it reads only its own scopes, else in ADAPTERS (most specific first: scope-keyed dialects before
attribute-keyed conventions before name patterns). Strands, Google ADK, AutoGen, Mastra,
python-contrib openai-v2 and openai-agents-v2 emit GenAI shapes and need no dialect.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from ..records import SpanRecord
from . import (
    agent_framework,
    crewai,
    genai,
    llama_index,
    logfire,
    mcp,
    openinference,
    openlit,
    pydantic_ai,
    semantic_kernel,
    smolagents,
    testspans,
    traceloop,
    vercel_ai,
)
from .common import build_step
from .content import step_content
from .convention import Rule
from .step import KINDS, OTHER, Step
from .table import Table

Adapter = Callable[[SpanRecord, Sequence[str]], "Step | None"]
# Dialects that only ever read their own scopes are looked up by scope, not tried in turn: one
# dict lookup instead of a call per dialect on every span (classify is the ingest hot path).
BY_SCOPE: dict[str, Adapter] = {
    smolagents.SCOPE: smolagents.classify,
    llama_index.SCOPE: llama_index.classify,
    agent_framework.SCOPE: agent_framework.classify,  # workflow spans; GenAI spans fall through
    **{scope: crewai.classify for scope in crewai.SCOPES},
}
# ... and by scope prefix where a family names one scope per module: one C-level startswith
# for the spans of every other family
BY_PREFIX: tuple[tuple[str, Adapter], ...] = (
    (semantic_kernel.SCOPE_PREFIX, semantic_kernel.classify),
    (logfire.SCOPE_PREFIX, logfire.classify),  # log records; the Agents SDK's message templates
    (openlit.SCOPE_PREFIX, openlit.classify),  # its hand-off span looks like an agent run
)
_PREFIXES = tuple(prefix for prefix, _ in BY_PREFIX)
ADAPTERS: tuple[Adapter, ...] = (
    pydantic_ai.classify,  # scope `pydantic-ai`, legacy names
    openinference.classify,  # scope `openinference.*`, else `openinference.span.kind`
    traceloop.classify,  # `traceloop.span.kind` (its scopes are shared with python-contrib)
    mcp.classify,  # `mcp.method.name` (server tool calls also say `execute_tool`)
    vercel_ai.classify,  # `ai.operationId` (the AI SDK's own spans, no GenAI operation names)
    genai.classify,  # `gen_ai.operation.name`
    genai.classify_by_name,  # span names last
)

__all__ = ["ADAPTERS", "BY_PREFIX", "BY_SCOPE", "KINDS", "Classifier", "Step", "classify"]


def _builtin(record: SpanRecord, state_attributes: Sequence[str]) -> Step:
    """The span's scope dialect if it recognises the span, else the first adapter of the
    cascade that does; anything else is an `other` step."""
    scope = record.scope_name
    scoped = BY_SCOPE.get(scope)
    if scoped is None and scope.startswith(_PREFIXES):
        scoped = next(adapter for prefix, adapter in BY_PREFIX if scope.startswith(prefix))
    step = scoped(record, state_attributes) if scoped is not None else None
    if step is None:
        for adapter in ADAPTERS:
            step = adapter(record, state_attributes)
            if step is not None:
                return step
        return build_step(record, OTHER, state_attributes)
    return step


def _finish(
    record: SpanRecord, step: Step, state_attributes: Sequence[str], content: bool
) -> Step:
    step = testspans.as_test_span(record, step, state_attributes)  # never an agent or a tool
    if content:
        step.content = step_content(record, step.kind)
    return step


def classify(
    record: SpanRecord, state_attributes: Sequence[str] = (), content: bool = False
) -> Step:
    """Classify by the built-in conventions only (no spec `conventions:`).

    `content` (a declared check needs it) also reads the span's output, input and tool
    arguments onto the step; without it no content is parsed at all (the hot path)."""
    return _finish(record, _builtin(record, state_attributes), state_attributes, content)


class Classifier:
    """`classify` with a spec's `conventions:` entries tried before the built-in ones."""

    __slots__ = ("_table",)

    def __init__(self, conventions: Sequence[Mapping[str, Any]] = ()) -> None:
        """`conventions`: entries already validated (the spec loader does it)."""
        self._table = Table([Rule(entry) for entry in conventions]) if conventions else None

    def classify(
        self, record: SpanRecord, state_attributes: Sequence[str] = (), content: bool = False
    ) -> Step:
        rule = self._table.first(record) if self._table is not None else None
        if rule is None:
            step = _builtin(record, state_attributes)
        else:
            step = rule.step(record, state_attributes)
        return _finish(record, step, state_attributes, content)
