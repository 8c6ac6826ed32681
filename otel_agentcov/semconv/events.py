"""GenAI events (log records, or span events of the same name) -> ToolDecision.

The GenAI conventions record a tool-call decision as the event `gen_ai.tool.call.decision`
(docs/instrumentations.md#events): a denied call often has no `execute_tool` span at all, so the
event is the only evidence of the attempt. Only names and identifiers are read from an event:
its outcome, the tool's name and the call id; never a body or another attribute (content).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from ..records import SpanRecord, valid_id
from .common import UNKNOWN_AGENT

DECISION_EVENT = "gen_ai.tool.call.decision"
OUTCOME_KEY = "gen_ai.tool.call.decision.outcome"
ALLOW, DENY, REQUIRE_APPROVAL = "allow", "deny", "require_approval"
OUTCOMES = (ALLOW, DENY, REQUIRE_APPROVAL)
EVENT_NAME_KEY = "event.name"  # the attribute older SDKs put the event name in
INVALID = "invalid"  # the event counter of decision events that cannot be used
MAX_ID_CHARS = 256  # a call id longer than this is no identifier: kept cut (joins still match)


@dataclass(slots=True, frozen=True)
class ToolDecision:
    """One decision event: where it was recorded (trace and span ids), what it decided."""

    trace_id: int
    span_id: int  # the span current when it was recorded (0: none)
    call_id: str | None  # gen_ai.tool.call.id: joins the event to the call's execute_tool span
    tool: str | None
    outcome: str
    time_ns: int
    fallback_agent: str  # the emitting service, as spans name an agent no span names


class InvalidEvent:
    """A decision event that cannot be used (no trace id, an unknown outcome), as a reader
    yields it for the engine to count."""

    __slots__ = ()


INVALID_EVENT = InvalidEvent()


def service_agent(resource_attributes: Mapping[str, Any] | None) -> str:
    """The agent an event names when no span does: its service, as for spans."""
    name = (resource_attributes or {}).get("service.name")
    return name if isinstance(name, str) and name else UNKNOWN_AGENT


def event_name(name: str | None, attributes: Mapping[str, Any]) -> str | None:
    """A log record's event name: its own field, else the `event.name` attribute."""
    if name:
        return name
    value = attributes.get(EVENT_NAME_KEY)
    return value if isinstance(value, str) else None


def _str(value: Any) -> str | None:
    return value[:MAX_ID_CHARS] if isinstance(value, str) and value else None


def decision(
    name: str | None, attributes: Mapping[str, Any], trace_id: int, span_id: int,
    time_ns: int, fallback_agent: str,
) -> ToolDecision | str | None:
    """The decision an event records; None when it is another event (not ours to read);
    "invalid" when it is a decision event that cannot be used (no trace, unknown outcome)."""
    if event_name(name, attributes) != DECISION_EVENT:
        return None
    outcome = attributes.get(OUTCOME_KEY)
    # ids as the API takes them (any value: a str or float trace id once reached the report
    # and made `snapshot()` raise) are checked as a span's are
    if outcome not in OUTCOMES or not valid_id(trace_id, 128) or not valid_id(span_id, 64, 0):
        return INVALID
    return ToolDecision(trace_id, span_id, _str(attributes.get("gen_ai.tool.call.id")),
                        _str(attributes.get("gen_ai.tool.name")), str(outcome),
                        time_ns if valid_id(time_ns, 64, 0) else 0, fallback_agent)


def span_decisions(
    trace_id: int, span_id: int, events: Iterable[tuple[str, Mapping[str, Any]]], time_ns: int,
    fallback_agent: str,
) -> list[ToolDecision]:
    """The decision events a span carries as span events (the older form of the same event),
    recorded in that span; unusable ones are skipped (a span event has no drop counter)."""
    found = []
    for name, attributes in events:
        if name == DECISION_EVENT:
            result = decision(name, attributes, trace_id, span_id, time_ns, fallback_agent)
            if isinstance(result, ToolDecision):
                found.append(result)
    return found


def record_decisions(record: SpanRecord) -> list[ToolDecision]:
    """`span_decisions` of a SpanRecord (timed at the span's end)."""
    return span_decisions(record.trace_id, record.span_id, record.events, record.end_ns,
                          service_agent(record.resource_attributes))
