"""OpenTelemetry GenAI semantic conventions, every published shape (v1.27 to v1.41) and the
unreleased GenAI-repo attributes (`gen_ai.transfer.*`, `gen_ai.caller.*`, tool-call decisions,
iteration budgets; read in common.build_step).

`classify` keys on `gen_ai.operation.name`; `classify_by_name` is the cascade's last resort,
the spec's span-name patterns for emitters that omit it (pydantic-ai v3, older libraries).
"""

from __future__ import annotations

from collections.abc import Sequence

from ..records import SpanRecord
from .common import agent_name, as_str, build_step, clip
from .step import AGENT, HANDOFF, LLM, OTHER, TOOL, WORKFLOW, Step

LLM_OPERATIONS = frozenset({"chat", "generate_content", "text_completion"})
WORKFLOW_OPERATIONS = frozenset(
    {"invoke_workflow", "invoke_swarm", "invoke_graph", "handle_conversation_turn"}
)
HANDOFF_OPERATIONS = frozenset({"agent_handoff", "handoff"})
MERGED_TOOL = "(merged tools)"
# a span name's first word (`chat gpt-4o`, `execute_tool get_weather`) -> kind
_NAME_KINDS = {
    "chat": LLM,
    "generate_content": LLM,
    "text_completion": LLM,
    "execute_tool": TOOL,
    "invoke_agent": AGENT,
    "invoke_workflow": WORKFLOW,
}


def _kind_from_operation(op: str) -> str:
    if op in LLM_OPERATIONS:
        return LLM
    if op == "execute_tool":
        return TOOL
    if op == "invoke_agent":
        return AGENT
    if op in WORKFLOW_OPERATIONS:
        return WORKFLOW
    if op in HANDOFF_OPERATIONS:
        return HANDOFF
    return OTHER


def _kind_from_name(name: str) -> str | None:
    # one lookup: every non-GenAI span (HTTP, DB, ...) in the host reaches this last adapter
    return _NAME_KINDS.get(name.partition(" ")[0])


def classify(record: SpanRecord, state_attributes: Sequence[str]) -> Step | None:
    """A Step for spans with a GenAI operation name; None otherwise."""
    op = as_str(record.attributes.get("gen_ai.operation.name"))
    return None if op is None else _step(record, _kind_from_operation(op), state_attributes)


def classify_by_name(record: SpanRecord, state_attributes: Sequence[str]) -> Step | None:
    """Span-name patterns only (`chat m`, `execute_tool t`, `invoke_agent a`, ...)."""
    kind = _kind_from_name(record.name)
    return None if kind is None else _step(record, kind, state_attributes)


def _step(record: SpanRecord, kind: str, state_attributes: Sequence[str]) -> Step:
    attrs = record.attributes
    if kind == TOOL:
        tool = as_str(attrs.get("gen_ai.tool.name"))
        if tool is None and record.name.startswith("execute_tool "):
            tool = clip(record.name[len("execute_tool ") :].strip()) or None
        if tool is None or tool == MERGED_TOOL:
            return build_step(record, OTHER, state_attributes)
        return build_step(record, TOOL, state_attributes, tool=tool)
    if kind == AGENT:
        return build_step(record, AGENT, state_attributes, agent=agent_name(attrs, record.name))
    return build_step(record, kind, state_attributes)
