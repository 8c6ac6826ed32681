"""LlamaIndex agent workflows through OpenInference: what `tables/llama_index.json` cannot say.

No span carries an agent name attribute: each `setup_agent` step, whose input event names
`current_agent_name`, starts that agent's turn (only that name is read from it).
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from ..records import SpanRecord
from .common import PLACEHOLDER_AGENT_NAMES, clip
from .step import Step

_AGENT_NAME = re.compile(r"current_agent_name='([^'\\]{1,256})'")


def turn(record: SpanRecord, step: Step, state_attributes: Sequence[str]) -> Step:
    """The `setup_agent` step: an `other` step that starts the named agent's turn."""
    raw = record.attributes.get("input.value")
    found = _AGENT_NAME.search(raw) if isinstance(raw, str) else None
    name = clip(found.group(1)) if found else None
    step.agent = None if name in PLACEHOLDER_AGENT_NAMES else name
    step.turn = step.agent is not None
    return step
