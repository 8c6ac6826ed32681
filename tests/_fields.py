"""The oracle's field rules: the Python reading of the fields every convention entry shares
(`build_step`: errors, models, tokens, tool lists, hand-off hints, skills, test contexts), which
the core's (core/src/classify/fields.rs) is held equal to, span for span
(tests/test_core_fields.py). The package builds every Step in the core (docs/core.md).
"""

from __future__ import annotations

import math
from collections.abc import Collection, Mapping, Sequence
from typing import Any

from _errors import error_type, limit_signal

from otel_agentcov.fault_families import FAMILY_ATTRIBUTE, family_of
from otel_agentcov.records import STATUS_OK, SpanRecord
from otel_agentcov.semconv.common import (
    MAX_COUNT,
    PLACEHOLDER_AGENT_NAMES,
    PLACEHOLDER_MODELS,
    UNKNOWN_AGENT,
    _list,
    as_str,
    clip,
    parse_json,
    tool_definitions,
)
from otel_agentcov.semconv.step import AGENT, LLM, MAX_STEPS, TOOL, Step

# the hand-off tools' reading (the core's `handoff`, compiled.handoff)
HANDOFF_TOOLS = frozenset({"transfer_to_agent", "handoff_to_agent"})
TRANSFER_PREFIX = "transfer_to_"


def _handoff_name(name: str) -> str | None:
    """The hand-off tool's own name: the whole name, else a plugin's function's
    (`<plugin>-transfer_to_X`, Semantic Kernel); None for any other tool."""
    for tool in (name, name.rsplit("-", 1)[-1]):
        if tool in HANDOFF_TOOLS or tool.startswith(TRANSFER_PREFIX):
            return tool
    return None


def is_handoff_tool(name: str) -> bool:
    """A tool whose call hands control to another agent (`transfer_to_agent`, `transfer_to_X`,
    also as a plugin's function)."""
    return _handoff_name(name) is not None


def mark_handoff(step: Step, tool: str) -> None:
    """A hand-off tool's call (`is_handoff_tool`) hands control over; `transfer_to_X` says to
    whom, the hint the assembler follows to X's run (`_handoff_name`)."""
    name = _handoff_name(tool)
    if name is not None:
        step.handoff_tool = True
        if name not in HANDOFF_TOOLS:
            step.handoff_hint = name[len(TRANSFER_PREFIX) :]


# skill names kept per agent span, and the longest the Agent Skills specification allows
# (core/src/classify/captured.rs)
MAX_SKILL_DEFINITIONS, MAX_SKILL_CHARS = 256, 64


_OUTPUT_TOKEN_KEYS = (
    "gen_ai.usage.output_tokens", "gen_ai.usage.completion_tokens", "llm.token_count.completion"
)


_HANDOFF_KEYS = frozenset(
    {"gen_ai.handoff.from_agent", "gen_ai.handoff.to_agent", "gen_ai.transfer.target.name"}
)


_CONTENT_KEYS = frozenset(
    {"gen_ai.tool.definitions", "model_request_parameters", "gen_ai.output.messages",
     "gen_ai.input.messages"}
)


def budget_exhausted(attrs: Mapping[str, Any]) -> bool:
    """Unreleased GenAI `gen_ai.agent.iteration_budget.*`: the run used all its iterations."""
    limit = as_int(attrs.get("gen_ai.agent.iteration_budget.limit"))
    return limit > 0 and as_int(attrs.get("gen_ai.agent.iteration_budget.consumed")) >= limit


def as_int(value: Any) -> int:
    """Token counts arrive as int, float or str depending on the exporter; anything else is 0."""
    if isinstance(value, bool):
        return 0
    if isinstance(value, int):
        return min(max(value, 0), MAX_COUNT)
    if isinstance(value, float) and math.isfinite(value):
        return min(max(int(value), 0), MAX_COUNT)
    if isinstance(value, str) and value.isascii() and value.isdigit() and len(value) <= 18:
        return int(value)
    return 0


def as_float(value: Any) -> float | None:
    """A finite number (int or float, not bool), else None: costs and scores are summed later."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    if isinstance(value, int) and abs(value) > MAX_COUNT:
        return None
    number = float(value)
    return number if math.isfinite(number) else None


def names_its_library(name: str, record: SpanRecord) -> bool:
    """An agent name only repeating the tracing library's (the scope's) where the service has a
    name of its own: the tool the agent runs in, not the agent (core values.rs)."""
    service = record.resource_attributes.get("service.name")
    return name == record.scope_name and isinstance(service, str) and service != "" and (
        service != name and not service.startswith("unknown_service"))


def own_agent(record: SpanRecord) -> str | None:
    """The agent a span says it ran for (`gen_ai.agent.name`), placeholders aside."""
    own = as_str(record.attributes.get("gen_ai.agent.name"))
    return own if own and own not in PLACEHOLDER_AGENT_NAMES else None


def library_named(step: Step, record: SpanRecord, declared: Collection[str] = ()) -> Step:
    """A library's own name is no agent's unless the spec declares it (core fields.rs)."""
    scope = record.scope_name
    if scope in declared or not names_its_library(scope, record):
        return step
    if step.agent == scope:
        step.agent = None
    if step.fallback_agent == scope:
        step.fallback_agent = fallback_agent(record, None)
    return step


def fallback_agent(record: SpanRecord, own: str | None = None) -> str:
    """Where a step under no agent span is counted (docs/semantics.md#detection-rules): its
    `own_agent` (given when the caller read it already), else its service's."""
    return own or own_agent(record) or as_str(
        record.resource_attributes.get("service.name")) or UNKNOWN_AGENT


def tool_definition_names(attrs: Mapping[str, Any]) -> tuple[str, ...]:
    """Names of the tools offered to the model (for tool discovery); schemas are not kept."""
    return tuple(name for name, _ in tool_definitions(attrs))


_SKILL_CHARS = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_.:")


def skill_name(value: Any) -> str | None:
    """A skill's name when it is a bounded name (1 to 64 ASCII letters, digits, `-_.:`), else
    None: free text (a description put where a name goes) is never kept."""
    if isinstance(value, str) and 0 < len(value) <= MAX_SKILL_CHARS and _SKILL_CHARS.issuperset(
            value):
        return value
    return None


def skill_definition_names(attrs: Mapping[str, Any]) -> tuple[str, ...]:
    """Names of the skills `gen_ai.skill.definitions` offers an agent (a JSON string of
    `{name, description, ...}` objects): names only, never a description."""
    value = attrs.get("gen_ai.skill.definitions")
    defs = parse_json(value) if isinstance(value, str) else None
    if not isinstance(defs, list):
        return ()
    names: dict[str, None] = {}
    for item in defs:
        name = skill_name(item.get("name")) if isinstance(item, dict) else None
        if name is not None:
            names[name] = None
            if len(names) == MAX_SKILL_DEFINITIONS:
                break
    return tuple(names)


def _messages(value: Any) -> list[dict[str, Any]]:
    parsed = parse_json(value)
    return [m for m in parsed if isinstance(m, dict)] if isinstance(parsed, list) else []


def requested_tool_names(attrs: Mapping[str, Any]) -> tuple[str, ...]:
    """Tool calls the model asked for in captured output (to see requests that never ran)."""
    names: list[str] = []
    for message in _messages(attrs.get("gen_ai.output.messages")):
        for part in _list(message.get("parts")):
            if isinstance(part, dict) and part.get("type") == "tool_call":
                name = part.get("name")
                if isinstance(name, str) and name:
                    names.append(clip(name))
    return tuple(names)


def user_input_chars(attrs: Mapping[str, Any]) -> int | None:
    """Length of the first captured user message, or None when no content was captured, or
    none it can read as text: text parts in the GenAI shape (`type: text`, `content`) or
    Gemini's own (`text`, no type)."""
    raw = attrs.get("gen_ai.input.messages")
    if raw is None:  # content not captured, as on every non-GenAI span: nothing to parse
        return None
    for message in _messages(raw):
        if message.get("role") != "user":
            continue
        text = message.get("content")
        if isinstance(text, str):  # the chat-completions shape: the message's text as one string
            return len(text.strip())
        parts = _list(message.get("parts"))
        texts = [part.get("content") if part.get("type") == "text" else part["text"]
                 for part in parts if isinstance(part, dict) and (
                     part.get("type") == "text" or ("type" not in part and isinstance(
                         part.get("text"), str)))]
        if parts and not texts:  # parts, none of them text it can read (an image, say)
            return None
        return sum(len(text.strip()) for text in texts if isinstance(text, str))
    return None


def finish_reason(attrs: Mapping[str, Any]) -> str:
    """The first finish reason; a list flattened into one string (Mastra's JSON, Traceloop's
    Python repr) is unwrapped."""
    reasons = attrs.get("gen_ai.response.finish_reasons")
    if isinstance(reasons, str):
        if reasons.startswith("["):
            return clip(reasons.strip("[]").split(",", 1)[0].strip(" '\""))
        return clip(reasons)
    # `reasons` first: an ABC isinstance on the common None is a quarter of classify's time
    if reasons and isinstance(reasons, Sequence) and isinstance(reasons[0], str):
        return clip(reasons[0])
    return as_str(attrs.get("gen_ai.response.finish_reason")) or ""


def evaluation_scores(record: SpanRecord) -> tuple[float, ...]:
    """GenAI evaluation results attached to the span (used for the run score)."""
    scores: list[float] = []
    for name, event_attrs in record.events:
        if name == "gen_ai.evaluation.result":
            value = as_float(event_attrs.get("gen_ai.evaluation.score.value"))
            if value is not None:
                scores.append(value)
    return tuple(scores)


def _is_empty_result(attrs: Mapping[str, Any]) -> bool:
    for key in ("gen_ai.tool.call.result", "tool_response", "output.value"):
        if key in attrs:
            value = attrs[key]
            return value is None or (isinstance(value, str) and not value.strip())
    return False


TEST_CASE = "test.case.name"


_PYTEST_OTEL_SCOPE = "pytest-opentelemetry"


def test_context(record: SpanRecord) -> str | None:
    """The test a span stands for: `test.case.name` (OTel test conventions), or the node id
    pytest-opentelemetry names its per-test spans by."""
    name = record.attributes.get(TEST_CASE)
    if name is not None:
        return as_str(name)
    if record.scope_name.startswith(_PYTEST_OTEL_SCOPE) and "::" in record.name:
        return clip(record.name)
    return None


def build_step(
    record: SpanRecord,
    kind: str,
    state_attributes: Sequence[str],
    *,
    agent: str | None = None,
    tool: str | None = None,
) -> Step:
    """Fill the fields every convention shares; `kind` and names come from the adapter."""
    attrs = record.attributes
    error = error_type(record)
    own = own_agent(record)  # read once: the fallback, and a model call's agent
    step = Step(
        record.trace_id,
        record.span_id,
        record.parent_id,
        kind,
        record.start_ns,
        record.end_ns,
        fallback_agent(record, own),
        # a model call names the agent it ran for, if it says (docs/semantics.md#detection-rules)
        own if kind == LLM and agent is None else agent,
        tool,
        None,
        error,
        limit_signal(record, error) if error is not None else None,
    )
    # hot path: the optional fields below are absent from most spans, so test before parsing
    if not _HANDOFF_KEYS.isdisjoint(attrs):
        step.handoff_from = as_str(attrs.get("gen_ai.handoff.from_agent"))
        step.handoff_to = as_str(attrs.get("gen_ai.handoff.to_agent")) or as_str(
            attrs.get("gen_ai.transfer.target.name")
        )
    step.version = as_str(attrs.get("gen_ai.agent.version")) or as_str(
        record.resource_attributes.get("service.version")
    )
    if record.events:
        step.scores = evaluation_scores(record)
    if FAMILY_ATTRIBUTE in attrs:
        step.fault = family_of(attrs[FAMILY_ATTRIBUTE])
    context = test_context(record)
    if context is not None:
        step.context = context
    resource_context = record.resource_attributes.get(TEST_CASE)
    if resource_context is not None:
        step.resource_context = as_str(resource_context)
    if state_attributes:
        step.state_extra = tuple(str(attrs.get(name, "")) for name in state_attributes)
    if kind in (LLM, TOOL):
        amount = as_float(attrs.get("gen_ai.usage.cost.amount"))
        if amount is not None and amount > 0:
            step.cost_amount = amount
            step.cost_currency = as_str(attrs.get("gen_ai.usage.cost.currency"))
    if kind == LLM:
        for key in ("gen_ai.response.model", "gen_ai.request.model", "llm.model_name"):
            model = as_str(attrs.get(key))
            if model is not None and model not in PLACEHOLDER_MODELS:
                step.model = model
                break
        step.input_tokens = as_int(attrs.get("gen_ai.usage.input_tokens")) or as_int(
            attrs.get("gen_ai.usage.prompt_tokens") or attrs.get("llm.token_count.prompt")
        )
        out_key = next((k for k in _OUTPUT_TOKEN_KEYS if k in attrs), _OUTPUT_TOKEN_KEYS[0])
        step.output_tokens = as_int(attrs.get(out_key))
        step.empty = out_key in attrs and step.output_tokens == 0 and error is None
        step.finish_reason = finish_reason(attrs)
        if not _CONTENT_KEYS.isdisjoint(attrs):
            step.tool_definitions = tool_definition_names(attrs)
            step.requested_tools = requested_tool_names(attrs)
            step.input_chars = user_input_chars(attrs)
        cost = as_float(attrs.get("gen_ai.usage.cost"))
        if cost is not None and cost > 0:
            step.cost_usd = cost
    elif kind == TOOL:
        step.decision = as_str(attrs.get("gen_ai.tool.call.decision"))
        step.call_id = as_str(attrs.get("gen_ai.tool.call.id"))
        step.empty = error is None and _is_empty_result(attrs)
        # a skill load (or a read of one of its resources, a run of its script): the GenAI
        # `execute_tool` refinements name the skill; the call stays a tool call
        # (docs/semantics.md#skills)
        step.skill = skill_name(attrs.get("gen_ai.skill.name"))
        step.skill_resource = step.skill is not None and "gen_ai.skill.resource.name" in attrs
        if tool is not None:
            mark_handoff(step, tool)
    else:
        step.input_chars = user_input_chars(attrs)
        if kind == AGENT:
            as_agent(step, attrs, agent)
        # a run's span that ends OK handled what failed under it (calls' spans: their own error)
        step.settled = record.status_code == STATUS_OK
    return step


def as_agent(step: Step, attrs: Mapping[str, Any], agent: str | None) -> None:
    """Make a workflow or `other` step an agent run named `agent` (what build_step does for
    AGENT beyond the other kinds), for code that decides a kind only after the entry's step."""
    step.kind, step.agent = AGENT, agent
    # unreleased GenAI: a remote invoke_agent names its caller; a budget can run out
    caller = as_str(attrs.get("gen_ai.caller.name"))
    if caller is not None and attrs.get("gen_ai.caller.type", "agent") == "agent":
        step.handoff_from = caller
    if step.limit is None and budget_exhausted(attrs):
        step.limit = MAX_STEPS
    step.turn_count = as_int(attrs.get("gen_ai.agent.turn.count"))
    step.skill_definitions = skill_definition_names(attrs)
