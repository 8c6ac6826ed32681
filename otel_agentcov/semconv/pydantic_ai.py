"""pydantic-ai's own span formats (instrumentation v1/v2: `agent run`, `running tool(s)`).

v3+ formats follow the GenAI span names and are left to the genai adapter.
"""

from __future__ import annotations

from collections.abc import Sequence

from ..records import SpanRecord
from .common import agent_name, as_str, build_step
from .step import AGENT, OTHER, TOOL, Step

SCOPE = "pydantic-ai"


def classify(record: SpanRecord, state_attributes: Sequence[str]) -> Step | None:
    """Only pydantic-ai's scope, and only the names the GenAI adapter would not recognise."""
    if record.scope_name != SCOPE:
        return None
    name = record.name
    if name == "agent run":
        return build_step(record, AGENT, state_attributes, agent=agent_name(record.attributes, ""))
    if name == "running tool":
        tool = as_str(record.attributes.get("gen_ai.tool.name"))
        return build_step(record, TOOL if tool else OTHER, state_attributes, tool=tool)
    if name == "running tools":
        return build_step(record, OTHER, state_attributes)
    return None
