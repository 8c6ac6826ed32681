"""Decision events as JSON rows: what the journal keeps of a log record (ids, names, outcome).

Read back strictly, as step rows are (`steps.py`): a file on disk is input like any other.
"""

from __future__ import annotations

from typing import Any

from ..semconv.events import OUTCOMES, ToolDecision


def to_row(event: ToolDecision) -> list[Any]:
    return [event.trace_id, event.span_id, event.call_id, event.tool, event.outcome,
            event.time_ns, event.fallback_agent]


def from_row(row: Any) -> ToolDecision:
    """The event a row holds; ValueError naming what is wrong."""
    if type(row) is not list or len(row) != 7:
        raise ValueError("an event is a list of 7 fields")
    trace_id, span_id, call_id, tool, outcome, time_ns, agent = row
    if not all(type(v) is int and 0 <= v < 1 << 128 for v in (trace_id, span_id, time_ns)):
        raise ValueError(f"event ids and time must be integers, got {str(row)[:60]!r}")
    if not all(v is None or type(v) is str for v in (call_id, tool)) or type(agent) is not str:
        raise ValueError(f"event names must be strings, got {str(row)[:60]!r}")
    if outcome not in OUTCOMES:
        raise ValueError(f"event outcome {str(outcome)[:40]!r} is not one of {OUTCOMES}")
    return ToolDecision(trace_id, span_id, call_id, tool, outcome, time_ns, agent)
