"""OpenTelemetry GenAI semantic conventions: what `tables/genai.json` cannot say.

The table reads every published shape (v1.27 to v1.41) by `gen_ai.operation.name`, then by span
name for emitters that omit it; the unreleased GenAI-repo attributes (`gen_ai.transfer.*`,
`gen_ai.caller.*`, tool-call decisions, iteration budgets) are read in the field rules
(tests/_fields.py).
"""

from __future__ import annotations

from collections.abc import Sequence

from otel_agentcov.records import SpanRecord
from otel_agentcov.semconv.common import as_str
from otel_agentcov.semconv.step import Step

AGENT_NAME_KEYS = ("gen_ai.agent.name", "agent_name", "agent.name")


def guardrail(record: SpanRecord, step: Step, state_attributes: Sequence[str]) -> Step:
    """A guardrail's overall result as it reported it, `<result.type>=<value>` (provider-native:
    the conventions forbid reading it as allow or deny), in the step's finish reason."""
    attrs = record.attributes
    kind = as_str(attrs.get("gen_ai.guardrail.result.type"))
    value = as_str(attrs.get("gen_ai.guardrail.result.value"))
    if kind is not None and value is not None:
        step.finish_reason = f"{kind}={value}"
    return step


def agent(record: SpanRecord, step: Step, state_attributes: Sequence[str]) -> Step:
    """A span name that only repeats the model (`invoke_agent gpt-4o`: the AI SDK names an
    agent span after its model when the call has no `functionId`) names no agent."""
    attrs = record.attributes
    if step.agent is not None and step.agent == attrs.get("gen_ai.request.model") and not any(
        as_str(attrs.get(key)) for key in AGENT_NAME_KEYS
    ):
        step.agent = None
    return step
