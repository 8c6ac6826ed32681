"""LlamaIndex agent workflows through OpenInference: agents named only inside step events.

No span carries an agent name attribute: `<Workflow>.run` is a workflow (one per `run()`, for a
lone FunctionAgent and for an AgentWorkflow of several), and each `setup_agent` step, whose input
event names `current_agent_name`, starts that agent's turn (only that name is read from it).
`_prepare_chat_with_tools` is an LLM-kind span that calls no model; `handoff` is
AgentWorkflow's hand-off tool.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from ..records import SpanRecord
from . import openinference
from .common import PLACEHOLDER_AGENT_NAMES, as_str, build_step, clip
from .step import OTHER, WORKFLOW, Step

SCOPE = "openinference.instrumentation.llama_index"
HANDOFF_TOOL = "handoff"
_AGENT_NAME = re.compile(r"current_agent_name='([^'\\]{1,256})'")


def _turn(record: SpanRecord, state_attributes: Sequence[str]) -> Step:
    raw = record.attributes.get("input.value")
    found = _AGENT_NAME.search(raw) if isinstance(raw, str) else None
    name = clip(found.group(1)) if found else None
    step = build_step(record, OTHER, state_attributes,
                      agent=None if name in PLACEHOLDER_AGENT_NAMES else name)
    step.turn = step.agent is not None
    return step


def classify(record: SpanRecord, state_attributes: Sequence[str]) -> Step | None:
    if record.scope_name != SCOPE:
        return None
    kind = as_str(record.attributes.get(openinference.KIND))
    method = record.name.rpartition(".")[2]
    if kind == "CHAIN" and method == "run":
        return build_step(record, WORKFLOW, state_attributes)
    if kind == "CHAIN" and method == "setup_agent":
        return _turn(record, state_attributes)
    if kind == "LLM" and method.startswith("_"):
        return build_step(record, OTHER, state_attributes)
    step = openinference.classify(record, state_attributes)
    if step is not None and step.tool == HANDOFF_TOOL:
        step.handoff_tool = True
    return step
