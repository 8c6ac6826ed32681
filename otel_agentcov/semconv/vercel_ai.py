"""Vercel AI SDK's own `ai.*` spans (`experimental_telemetry` in AI SDK 3 to 6, the
`LegacyOpenTelemetry` integration in 7), keyed by `ai.operationId`.

No GenAI operation names: `ai.generateText` / `ai.streamText` is the agent run, named only by
`ai.telemetry.functionId` (no function id: no agent, the steps count for service.name);
`.doGenerate` / `.doStream` is the model call (its finish reason shows a run cut short by
`stopWhen`, see the assembler); `ai.toolCall` the tool. The SDK's `OpenTelemetry` integration
emits GenAI shapes, left to the GenAI adapter.
"""

from __future__ import annotations

from collections.abc import Sequence

from ..records import SpanRecord
from .common import as_str, build_step
from .step import AGENT, LLM, OTHER, TOOL, Step

OPERATION = "ai.operationId"
_RUNS = frozenset({"ai.generateText", "ai.streamText", "ai.generateObject", "ai.streamObject"})
_CALLS = frozenset(f"{run}.{call}" for run in _RUNS for call in ("doGenerate", "doStream"))


def classify(record: SpanRecord, state_attributes: Sequence[str]) -> Step | None:
    attrs = record.attributes
    if OPERATION not in attrs:  # the hot path: most spans are not the AI SDK's
        return None
    op = as_str(attrs.get(OPERATION))
    if op is None:
        return None
    if op in _RUNS:
        agent = as_str(attrs.get("ai.telemetry.functionId"))
        return build_step(record, AGENT, state_attributes, agent=agent)
    if op in _CALLS:
        step = build_step(record, LLM, state_attributes)
        step.model = step.model or as_str(attrs.get("ai.model.id"))
        return step
    if op == "ai.toolCall":
        tool = as_str(attrs.get("ai.toolCall.name"))
        return build_step(record, TOOL if tool else OTHER, state_attributes, tool=tool)
    return build_step(record, OTHER, state_attributes)  # embeddings, object streams' parts
