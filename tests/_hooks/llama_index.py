"""LlamaIndex agent workflows: what `tables/llama_index.json` cannot say, the agents' turns.

No span carries an agent name attribute. Through OpenInference each `setup_agent` step, whose
input event names `current_agent_name`, starts that agent's turn; through Traceloop the steps
that set an agent up return an event naming it in their recorded output. Only that name is read.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from otel_agentcov.records import SpanRecord
from otel_agentcov.semconv.common import PLACEHOLDER_AGENT_NAMES, clip
from otel_agentcov.semconv.step import Step

_AGENT_NAME = re.compile(r"current_agent_name='([^'\\]{1,256})'")  # an event's repr
_AGENT_NAME_JSON = re.compile(r'"current_agent_name":\s*"([^"\\]{1,256})"')  # ... its JSON


def _turn(step: Step, raw: object, pattern: re.Pattern[str]) -> Step:
    """`step` (an `other` step) starts the turn of the agent `raw` names, if it names one."""
    found = pattern.search(raw) if isinstance(raw, str) else None
    name = clip(found.group(1)) if found else None
    step.agent = None if name in PLACEHOLDER_AGENT_NAMES else name
    step.turn = step.agent is not None
    return step


def turn(record: SpanRecord, step: Step, state_attributes: Sequence[str]) -> Step:
    """OpenInference's `setup_agent` step."""
    return _turn(step, record.attributes.get("input.value"), _AGENT_NAME)


def traceloop_turn(record: SpanRecord, step: Step, state_attributes: Sequence[str]) -> Step:
    """A Traceloop `<Class>.task` step whose output names the current agent."""
    return _turn(step, record.attributes.get("traceloop.entity.output"), _AGENT_NAME_JSON)
