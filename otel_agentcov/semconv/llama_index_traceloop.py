"""LlamaIndex through Traceloop: what `tables/llama_index_traceloop.json` cannot say, the turns.

No span names an agent: the workflow's steps are `<Class>.task` spans, and the steps that set an
agent up return an event naming `current_agent_name` in their recorded output. As with the
OpenInference instrumentation, such a step starts that agent's turn; that name is the only thing
read from the output.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from ..records import SpanRecord
from .common import PLACEHOLDER_AGENT_NAMES, clip
from .step import Step

_AGENT_NAME = re.compile(r'"current_agent_name":\s*"([^"\\]{1,256})"')


def turn(record: SpanRecord, step: Step, state_attributes: Sequence[str]) -> Step:
    """A step whose output names the current agent: an `other` step starting its turn."""
    raw = record.attributes.get("traceloop.entity.output")
    found = _AGENT_NAME.search(raw) if isinstance(raw, str) else None
    name = clip(found.group(1)) if found else None
    step.agent = None if name in PLACEHOLDER_AGENT_NAMES else name
    step.turn = step.agent is not None
    return step
