"""Pydantic Logfire: log records sent as spans, and the OpenAI Agents SDK as Logfire renders it.

Read for Logfire's own scopes only (`logfire*`). Logfire sends each log line as a zero-length
span (`logfire.span_type=log`) under a remote-flagged parent; its OpenAI streaming log repeats
the whole model call's GenAI attributes, so it must never count. `instrument_openai_agents`
names spans by message template (`Agent run: {name!r}`, `Function: {name}`, `Handoff:
{from_agent} → {to_agent}`) with the values in plain attributes (`name`, `from_agent`,
`to_agent`) and no GenAI operation names; failures carry an `error` attribute whose message is
read here only to see a turn limit.
"""

from __future__ import annotations

from collections.abc import Sequence

from ..records import SpanRecord
from .common import as_str, build_step, parse_json
from .step import AGENT, HANDOFF, LLM, MAX_STEPS, OTHER, TOOL, Step

SCOPE_PREFIX = "logfire"  # `logfire`, `logfire.openai`, `logfire.openai_agents`, ...
AGENTS_SCOPE = "logfire.openai_agents"
_TEMPLATE_KINDS = (
    ("Agent run:", AGENT),
    ("Chat completion with", LLM),
    ("Responses API with", LLM),
    ("Function:", TOOL),
    ("Handoff:", HANDOFF),
)
_MAX_TURNS = "max turns exceeded"


def classify(record: SpanRecord, state_attributes: Sequence[str]) -> Step | None:
    attrs = record.attributes
    if attrs.get("logfire.span_type") == "log":
        return build_step(record, OTHER, state_attributes)
    if record.scope_name != AGENTS_SCOPE:
        return None
    template = as_str(attrs.get("logfire.msg_template")) or ""
    kind = next((k for prefix, k in _TEMPLATE_KINDS if template.startswith(prefix)), OTHER)
    name = as_str(attrs.get("name"))
    if kind == AGENT:
        step = build_step(record, AGENT, state_attributes, agent=name)
        if step.error is not None and step.limit is None:
            failure = parse_json(attrs.get("error"))
            message = failure.get("message") if isinstance(failure, dict) else None
            if isinstance(message, str) and _MAX_TURNS in message.lower():
                step.limit = MAX_STEPS
        return step
    if kind == TOOL:
        return build_step(record, TOOL if name else OTHER, state_attributes, tool=name)
    step = build_step(record, kind, state_attributes)
    if kind == HANDOFF:
        step.handoff_from = as_str(attrs.get("from_agent"))
        step.handoff_to = as_str(attrs.get("to_agent"))
    return step
