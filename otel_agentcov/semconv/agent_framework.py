"""Microsoft Agent Framework's built-in telemetry: GenAI spans plus its workflow dialect.

Agents, model calls and tools are GenAI spans (the genai adapter reads them). A hand-off
orchestration short-circuits its `handoff_to_<name>` tool (no tool span): the edge is the
workflow's `edge_group.process` span that carries both `message.source_id` and
`message.target_id`; `workflow.run` is a workflow, executors and messages are not agents.
"""

from __future__ import annotations

from collections.abc import Sequence

from ..records import SpanRecord
from .common import as_str, build_step
from .step import HANDOFF, WORKFLOW, Step

SCOPE = "agent_framework"
INTERNAL_PREFIX = "internal:"  # the workflow's own start message, not an agent's


def classify(record: SpanRecord, state_attributes: Sequence[str]) -> Step | None:
    if record.scope_name != SCOPE or "gen_ai.operation.name" in record.attributes:
        return None
    if record.name == "workflow.run":
        return build_step(record, WORKFLOW, state_attributes)
    if record.name.startswith("edge_group.process"):
        source = as_str(record.attributes.get("message.source_id"))
        target = as_str(record.attributes.get("message.target_id"))
        if source and target and source != target and not source.startswith(INTERNAL_PREFIX):
            step = build_step(record, HANDOFF, state_attributes)
            step.handoff_from, step.handoff_to = source, target
            return step
    return None
