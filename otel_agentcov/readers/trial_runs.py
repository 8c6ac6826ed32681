"""AgentAssay trace objects -> AgentRuns (trials are already classified runs:
docs/architecture.md#data-flow); odd trials take the span route (SpanRecords). Trial files
(`trials.py`) and the AgentAssay-compatible collector (`otel_agentcov.agentassay`) both convert
through here.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import partial
from typing import Any

from ..assembler import AgentRun, assemble
from ..records import STATUS_ERROR, STATUS_OK, STATUS_UNSET, SpanRecord
from ..semconv import classify
from ..semconv.common import (
    PLACEHOLDER_MODELS,
    PLACEHOLDER_TOOLS,
    UNKNOWN_AGENT,
    agent_name,
    as_str,
    clip,
    error_limit,
    is_handoff_tool,
    short_error_name,
)
from ..semconv.step import AGENT, LLM, OTHER, TOOL, Step

DEFAULT_AGENT = "agent"
_LLM_ACTIONS = frozenset({"llm_response", "llm_call", "llm", "generation", "chat"})
_TOOL_ACTIONS = frozenset({"tool_call", "tool", "tool_use"})


class TrialError(ValueError):
    """A trial that does not have the AgentAssay trace shape; the message says what is missing."""


def _get(obj: Any, key: str, default: Any = None) -> Any:
    if type(obj) is dict:  # trial files: skip the (slow) ABC check below
        return obj.get(key, default)
    if isinstance(obj, Mapping):
        return obj.get(key, default)
    return getattr(obj, key, default)


def _steps(trace: Any) -> Sequence[Any]:
    steps = _get(trace, "steps")
    if not isinstance(steps, Sequence) or isinstance(steps, str | bytes):
        raise TrialError("trace has no 'steps' list")
    return steps


def _agent(trace: Any, agent: str | None) -> Any:
    meta = _get(trace, "metadata") or {}
    return agent or _get(meta, "agent") or _get(meta, "agent_name") or DEFAULT_AGENT


def _step_fields(step: Any, index: int) -> tuple[str, str, Any, Any, int, Any]:
    """What both routes read of one step: (kind, action, tool, model, duration ns, error).
    The kind is TOOL, LLM or OTHER (an action that is neither; its span name decides)."""
    get = step.get if type(step) is dict else partial(_get, step)  # trial files: dicts
    action = get("action")
    action = str(action).strip().lower() if action else ""
    duration_ns = int(float(get("duration_ms") or 0.0) * 1e6)
    meta = get("metadata")
    error = _get(meta, "error") if meta and (type(meta) is dict or isinstance(
        meta, Mapping)) else None
    tool, model = get("tool_name"), get("model")
    if action in _TOOL_ACTIONS or (tool and action not in _LLM_ACTIONS):
        if not isinstance(tool, str) or not tool:
            raise TrialError(f"step {index}: a tool_call step needs 'tool_name'")
        return TOOL, action, tool, model, duration_ns, error
    if action in _LLM_ACTIONS or model:
        return LLM, action, tool, model, duration_ns, error
    return OTHER, action, tool, model, duration_ns, error


def _step_span(kind: str, action: str, tool: Any, model: Any, error: Any
               ) -> tuple[str, dict[str, Any]]:
    """The step's span name and GenAI attributes."""
    attrs: dict[str, Any]
    if kind == TOOL:
        name, attrs = f"execute_tool {tool}", {
            "gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": tool}
    elif kind == LLM:
        name, attrs = f"chat {model or ''}".strip(), {"gen_ai.operation.name": "chat"}
        if isinstance(model, str) and model:
            attrs["gen_ai.request.model"] = model
    else:
        name, attrs = action or "step", {}
    if error:
        attrs["error.type"] = str(error)
    return name, attrs


def plain_other_step(action: str, error: Any, state_attributes: Sequence[str] = ()) -> bool:
    """Whether a step that is neither a tool nor a model call (its lower-cased `action`, its
    `metadata.error`) stays `other` when classified as a span: if a convention reads it as
    something, the trial takes the span route."""
    span_name, attrs = _step_span(OTHER, action, None, None, error)
    record = SpanRecord(1, 2, 1, span_name, attributes=attrs)
    return classify(record, state_attributes).kind == OTHER


def _agent_attributes(trace: Any, name: Any, failed: bool) -> dict[str, Any]:
    attrs: dict[str, Any] = {"gen_ai.operation.name": "invoke_agent", "gen_ai.agent.name": name}
    if failed:
        error_type = _get(trace, "error")
        attrs["error.type"] = error_type if isinstance(error_type, str) else "TrialFailed"
    cost = _get(trace, "total_cost_usd")
    if isinstance(cost, int | float) and cost > 0:
        attrs["gen_ai.usage.cost"] = float(cost)
    version = _version(trace)
    if version is not None:
        attrs["gen_ai.agent.version"] = version
    return attrs


def _version(trace: Any) -> str | None:
    """The agent version a trial names (`metadata.version` or `agent_version`), if any."""
    meta = _get(trace, "metadata") or {}
    version = _get(meta, "version") or _get(meta, "agent_version")
    return version if isinstance(version, str) and version else None


def _failed(trace: Any) -> bool:
    return bool(_get(trace, "error")) or _get(trace, "success") is False


def _total_ns(trace: Any, clock: int) -> int:
    return max(int(float(_get(trace, "total_duration_ms") or 0.0) * 1e6), clock)


def trace_to_records(trace: Any, trace_id: int, agent: str | None = None) -> list[SpanRecord]:
    """One agent span plus one span per step, shaped like the GenAI conventions."""
    steps = _steps(trace)
    name = _agent(trace, agent)
    clock = 1
    records: list[SpanRecord] = []
    for index, step in enumerate(steps):
        kind, action, tool, model, duration_ns, error = _step_fields(step, index)
        span_name, attrs = _step_span(kind, action, tool, model, error)
        records.append(SpanRecord(
            trace_id=trace_id, span_id=index + 2, parent_id=1, name=span_name, start_ns=clock,
            end_ns=clock + duration_ns, status_code=STATUS_ERROR if error else STATUS_UNSET,
            attributes=attrs,
        ))
        clock += duration_ns + 1
    failed = _failed(trace)
    records.append(SpanRecord(  # the trial says how it ended: a failed step it survived is OK
        trace_id=trace_id, span_id=1, parent_id=None, name=f"invoke_agent {name}", start_ns=0,
        end_ns=_total_ns(trace, clock), status_code=STATUS_ERROR if failed else STATUS_OK,
        attributes=_agent_attributes(trace, name, failed),
    ))
    return records


@dataclass(slots=True)
class TrialRuns:
    """One trial as the engine folds it: its runs, and the span kinds it counts as (so the
    report's span counts are those of the trial's spans going through classify)."""

    runs: list[AgentRun]
    kinds: Counter[str]


def _error_name(error: Any) -> str | None:
    """common.error_type of a trial span: its `error.type` short name, `_OTHER` when blank."""
    if not error:
        return None
    return short_error_name(text) if (text := str(error)) else "_OTHER"


class _SpanRoute(Exception):
    """This trial has a shape the direct route does not build: classify and assemble it."""


def trace_to_runs(
    trace: Any, trace_id: int, agent: str | None = None, *,
    state_attributes: Sequence[str] = (), max_spans: int = 10_000,
) -> TrialRuns | None:
    """A trial straight to its AgentRun (docs/architecture.md#data-flow): for plain tool and
    model-call steps the Steps classify would give (tested equal on random trials) are built
    without SpanRecords; other shapes are classified and the trial assembled on its own. None
    when the trial needs the engine's span checks (a negative duration, more spans than a trace
    may buffer): feed `trace_to_records` then.

    The trial's trace-level `model` counts as used beside its steps' models (as AgentAssay
    counts it): once per run, when no step of the run names it.
    """
    steps_in = _steps(trace)
    name = _agent(trace, agent)
    if len(steps_in) >= max_spans:
        return None
    clock = 1
    steps: list[Step] = []
    kinds: Counter[str] = Counter({AGENT: 1})
    limits: set[str] = set()
    try:
        for index, raw in enumerate(steps_in):
            kind, action, tool, model, duration_ns, error = _step_fields(raw, index)
            if duration_ns < 0:
                return None
            end = clock + duration_ns
            if kind == TOOL:
                tool = clip(tool)
                if tool in PLACEHOLDER_TOOLS or is_handoff_tool(tool):
                    raise _SpanRoute
                model = None
            elif kind == LLM:
                tool, model = None, as_str(model)
                if model in PLACEHOLDER_MODELS:
                    model = None
            else:
                if not plain_other_step(action, error, state_attributes):
                    raise _SpanRoute
                kinds[OTHER] += 1
                clock = end + 1
                continue
            err = limit = None
            if error:
                err = _error_name(error)
                limit = error_limit(err) if err else None
                if limit:
                    limits.add(limit)
            step = Step(trace_id, index + 2, 1, kind, clock, end, UNKNOWN_AGENT, None, tool,
                        model, err, limit)
            if state_attributes:
                attrs = _step_span(kind, action, tool, model, error)[1]
                step.state_extra = tuple(str(attrs.get(a, "")) for a in state_attributes)
            kinds[kind] += 1
            steps.append(step)
            clock = end + 1
        agent_name_ = agent_name({"gen_ai.agent.name": name}, f"invoke_agent {name}")
        if agent_name_ is None:
            raise _SpanRoute
    except _SpanRoute:
        return _assembled(trace, trace_id, state_attributes)
    failed = _failed(trace)
    err = _error_name(_agent_attributes(trace, name, failed).get("error.type")) or (
        "_OTHER" if failed else None)
    limit = None if err is None else error_limit(err)
    if limit:
        limits.add(limit)
    run = AgentRun(
        agent=agent_name_, trace_id=trace_id, start_ns=0, end_ns=_total_ns(trace, clock),
        error=err, limits=frozenset(limits), steps=steps, version=_version(trace),
    )
    _add_trace_model(run, trace)
    return TrialRuns([run], kinds)


def _assembled(trace: Any, trace_id: int, state_attributes: Sequence[str]) -> TrialRuns:
    """The whole span route for one unusual trial: classify every span, assemble the trace."""
    steps = [classify(r, state_attributes) for r in trace_to_records(trace, trace_id)]
    runs = assemble(steps)
    if runs:
        _add_trace_model(runs[0], trace)
    return TrialRuns(runs, Counter(s.kind for s in steps))


def _add_trace_model(run: AgentRun, trace: Any) -> None:
    model = as_str(_get(trace, "model"))
    if model is not None and model not in PLACEHOLDER_MODELS and all(
        s.model != model for s in run.steps if s.kind == LLM
    ):
        run.models = frozenset({model})
