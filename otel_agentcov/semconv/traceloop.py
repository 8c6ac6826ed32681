"""OpenLLMetry/Traceloop: `traceloop.span.kind` and its custom operations.

Traceloop also sets GenAI operation names, but on the wrong spans for coverage: CrewAI tasks
and LangGraph `X.workflow` spans say `invoke_agent`. Its kind wins here; spans without a kind
(chat spans, `invoke_agent X`, `create_agent X`) are left to the GenAI adapter.
"""

from __future__ import annotations

from collections.abc import Sequence

from ..records import SpanRecord
from .common import agent_name, as_str, build_step, clip
from .step import AGENT, HANDOFF, OTHER, TOOL, WORKFLOW, Step

KIND = "traceloop.span.kind"


def _suffixless(name: str, suffix: str) -> str | None:
    """`weather.agent` -> `weather` (Traceloop names spans `{entity}.{kind}`)."""
    return clip(name[: -len(suffix)]) or None if name.endswith(suffix) else None


def classify(record: SpanRecord, state_attributes: Sequence[str]) -> Step | None:
    attrs = record.attributes
    kind = as_str(attrs.get(KIND))
    if kind is None:
        return None
    entity = as_str(attrs.get("traceloop.entity.name"))
    if kind == "tool":
        tool = as_str(attrs.get("gen_ai.tool.name")) or entity or _suffixless(record.name, ".tool")
        return build_step(record, TOOL if tool else OTHER, state_attributes, tool=tool)
    if kind == "agent":
        name = agent_name(attrs, "") or entity or _suffixless(record.name, ".agent")
        return build_step(record, AGENT, state_attributes, agent=name)
    if kind == "workflow":
        # LangGraph's `X.workflow` is the same run as its `invoke_agent X` parent; other
        # workflows (`Agent Workflow`, `crewai.workflow`) wrap agents without being one
        if attrs.get("gen_ai.operation.name") == "invoke_agent":
            name = agent_name(attrs, "")
            if name is not None:
                return build_step(record, AGENT, state_attributes, agent=name)
        return build_step(record, WORKFLOW, state_attributes)
    if kind == "handoff":
        return build_step(record, HANDOFF, state_attributes)
    return build_step(record, OTHER, state_attributes)  # task, unknown
