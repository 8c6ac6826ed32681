"""Step: a classified span, with only the normalized fields coverage needs.

Content (`content`) is there only when a declared check asked for it, until the run is judged.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

LLM, TOOL, AGENT, HANDOFF, WORKFLOW, OTHER = "llm", "tool", "agent", "handoff", "workflow", "other"
PLAN, GUARDRAIL = "plan", "guardrail"  # GenAI `plan` and `apply_guardrail` (docs/semantics.md)
KINDS = (LLM, TOOL, AGENT, HANDOFF, WORKFLOW, OTHER, PLAN, GUARDRAIL)
# counted per kind from the first span of theirs on: reports of traces without any are unchanged
FIRST_KINDS = (LLM, TOOL, AGENT, HANDOFF, WORKFLOW, OTHER)
DELEGATE = "delegate"  # not a span kind: the token a nested agent run leaves in its caller's run
STATE = "state"  # not a span kind: a state-change event under its span (assembler/events.py)
MAX_STEPS, TIMEOUT = "max_steps", "timeout"


@dataclass(slots=True)
class StepContent:
    """What one span carried; None = not captured on this span."""

    output: str | None = None  # text of its output messages (the final result on an agent span)
    input: str | None = None  # text of the user messages among its input messages
    args: Mapping[str, Any] | None = None  # a tool call's parsed arguments
    # tool -> its input schema as canonical JSON, from the definitions an LLM span offered
    schemas: Mapping[str, str] | None = None
    output_too_long: bool = False  # an output was there but past MAX_RAW: not read (counted)


@dataclass(slots=True)
class Step:
    """One span after classification; names and counts only, so nothing sensitive is kept
    (the optional `content` is dropped with the run once it is judged)."""

    trace_id: int
    span_id: int
    parent_id: int | None
    kind: str
    start_ns: int
    end_ns: int
    fallback_agent: str
    agent: str | None = None
    tool: str | None = None
    model: str | None = None
    error: str | None = None
    limit: str | None = None
    finish_reason: str = ""
    input_tokens: int = 0
    output_tokens: int = 0
    cost_usd: float = 0.0
    empty: bool = False
    handoff_from: str | None = None
    handoff_to: str | None = None
    handoff_tool: bool = False
    handoff_hint: str | None = None
    graph_candidate: bool = False  # a LangGraph graph span: an agent only when a tool started it
    decision: str | None = None
    tool_definitions: tuple[str, ...] = ()
    requested_tools: tuple[str, ...] = ()
    input_chars: int | None = None
    scores: tuple[float, ...] = ()
    state_extra: tuple[str, ...] = ()
    context: str | None = None  # `test.case.name` on this span (docs/semantics.md#test-contexts)
    resource_context: str | None = None  # ... on its resource: used when no ancestor names one
    # new fields go last: a service snapshot stores steps as value lists in this order
    step_limit: int = 0  # an agent span's model-call budget: more calls than this mean it was hit
    turn: bool = False  # starts `agent`'s turn: its later siblings are that agent's work
    version: str | None = None  # gen_ai.agent.version, else the resource's service.version
    call_id: str | None = None  # gen_ai.tool.call.id: what a decision event names (events.py)
    cost_amount: float = 0.0  # gen_ai.usage.cost.amount of a model or tool call ...
    cost_currency: str | None = None  # ... in gen_ai.usage.cost.currency
    turn_count: int = 0  # gen_ai.agent.turn.count of an agent span
    fault: str | None = None  # the family of a fault injected on this span (docs/faults.md)
    event: bool = False  # made of a decision event, not a span: no call ran (semconv/events.py)
    inferred: str = ""  # how inference found its kind when no entry matched (semconv/inference)
    skill_definitions: tuple[str, ...] = ()  # gen_ai.skill.definitions names of an agent span
    skill: str | None = None  # gen_ai.skill.name of a tool call that loads a skill ...
    skill_resource: bool = False  # ... or reads one of its resources (docs/semantics.md#skills)
    # a candidate's own span name when an agent-name key named it: the key may be its
    # context's (LangChain's metadata names the outer agent on every span inside it)
    own_name: str | None = None
    # its status is OK: the span says it handled what failed under it (a run's span, not a call's)
    settled: bool = False
    content: StepContent | None = None  # only when a check needs it; snapshots skip it
