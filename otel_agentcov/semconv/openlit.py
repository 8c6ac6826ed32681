"""OpenLIT: GenAI shapes, except its OpenAI Agents hand-off, an `invoke_agent {target}` span
with `gen_ai.agent.source` (the agent handing over) that is not the target's run.

Everything else OpenLIT emits (`invoke_workflow`, nameless per-turn `invoke_agent` wrappers,
`create_agent`, `chat`, `execute_tool`) is left to the GenAI adapter.
"""

from __future__ import annotations

from collections.abc import Sequence

from ..records import SpanRecord
from .common import as_str, build_step
from .step import HANDOFF, Step

SCOPE_PREFIX = "openlit.instrumentation"


def classify(record: SpanRecord, state_attributes: Sequence[str]) -> Step | None:
    attrs = record.attributes
    if "gen_ai.agent.source" not in attrs:  # read for OpenLIT's scopes only (BY_PREFIX)
        return None
    step = build_step(record, HANDOFF, state_attributes)
    step.handoff_from = as_str(attrs.get("gen_ai.agent.source"))
    step.handoff_to = as_str(attrs.get("gen_ai.agent.name"))
    return step
