"""Decision, state and guardrail events as JSON rows: what the journal keeps of a log record
(ids, names, outcome, key counts, guardrail result).

Read back strictly, as step rows are (`steps.py`): a file on disk is input like any other.
"""

from __future__ import annotations

from typing import Any

from ..semconv.events import (
    MAX_KEY_CHARS,
    MAX_STATE_KEYS,
    OUTCOMES,
    Event,
    GuardrailResult,
    StateChange,
    ToolDecision,
)

STATE_ROW = "state"  # the first field of a state change's row (a decision's is its trace id)
GUARDRAIL_ROW = "guardrail"  # ... and of a guardrail result's


def to_row(event: Event) -> list[Any]:
    if isinstance(event, GuardrailResult):
        return [GUARDRAIL_ROW, event.trace_id, event.span_id, event.result, None,
                event.time_ns, event.fallback_agent]
    if isinstance(event, StateChange):
        return [STATE_ROW, event.trace_id, event.span_id, event.count, list(event.keys),
                event.time_ns, event.fallback_agent]
    return [event.trace_id, event.span_id, event.call_id, event.tool, event.outcome,
            event.time_ns, event.fallback_agent]


def _ids(row: list[Any], *values: Any) -> None:
    if not all(type(v) is int and 0 <= v < 1 << 128 for v in values):
        raise ValueError(f"event ids and time must be integers, got {str(row)[:60]!r}")


def _state_row(row: list[Any]) -> StateChange:
    _, trace_id, span_id, count, keys, time_ns, agent = row
    _ids(row, trace_id, span_id, time_ns)
    if type(count) is not int or not 0 < count < 1 << 63:
        raise ValueError(f"a state event's key count must be positive, got {str(count)[:40]!r}")
    if type(keys) is not list or len(keys) > MAX_STATE_KEYS or not all(
            type(k) is str and 0 < len(k) <= MAX_KEY_CHARS for k in keys) or type(agent) is not str:
        raise ValueError(f"state event names must be strings, got {str(row)[:60]!r}")
    return StateChange(trace_id, span_id, count, tuple(keys), time_ns, agent)


def from_row(row: Any) -> Event:
    """The event a row holds; ValueError naming what is wrong."""
    if type(row) is not list or len(row) != 7:
        raise ValueError("an event is a list of 7 fields")
    if row[0] == STATE_ROW:
        return _state_row(row)
    if row[0] == GUARDRAIL_ROW:
        _, trace_id, span_id, result, _, time_ns, agent = row
        _ids(row, trace_id, span_id, time_ns)
        if type(result) is not str or type(agent) is not str:
            raise ValueError(f"a guardrail result must be a string, got {str(row)[:60]!r}")
        return GuardrailResult(trace_id, span_id, result, time_ns, agent)
    trace_id, span_id, call_id, tool, outcome, time_ns, agent = row
    _ids(row, trace_id, span_id, time_ns)
    if not all(v is None or type(v) is str for v in (call_id, tool)) or type(agent) is not str:
        raise ValueError(f"event names must be strings, got {str(row)[:60]!r}")
    if outcome not in OUTCOMES:
        raise ValueError(f"event outcome {str(outcome)[:40]!r} is not one of {OUTCOMES}")
    return ToolDecision(trace_id, span_id, call_id, tool, outcome, time_ns, agent)
