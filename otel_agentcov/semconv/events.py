"""GenAI events (log records, or span events of the same name) -> ToolDecision, StateChange,
GuardrailResult.

The GenAI conventions record a tool-call decision as the event `gen_ai.tool.call.decision`
(docs/instrumentations.md#events): a denied call often has no `execute_tool` span at all, so the
event is the only evidence of the attempt. Only names and identifiers are read from an event:
its outcome, the tool's name and the call id; never a body or another attribute (content).
A runtime's state delta is the event `gen_ai.execution.state.changed`: of it only the number of
keys changed and their (bounded) names are read, never a state value. A guardrail's result is
the event `gen_ai.guardrail.result`: of it only its provider-native result type and value are
read, never the content it evaluated, its reason or its risk detail.
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
STATE_EVENT = "gen_ai.execution.state.changed"
KEY_COUNT_KEY = "gen_ai.execution.state.changed_key.count"
KEYS_KEY = "gen_ai.execution.state.changed_keys"
STATE_KEYS = (KEY_COUNT_KEY, KEYS_KEY)  # the attributes read from a state event
# key names past these bounds are no schema-defined names (the convention allows no others):
# the event counts by its key count alone
MAX_STATE_KEYS, MAX_KEY_CHARS = 32, 64
GUARDRAIL_EVENT = "gen_ai.guardrail.result"
RESULT_TYPE_KEY, RESULT_VALUE_KEY = "gen_ai.guardrail.result.type", "gen_ai.guardrail.result.value"
GUARDRAIL_KEYS = (RESULT_TYPE_KEY, RESULT_VALUE_KEY)  # the attributes read from a result event


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


@dataclass(slots=True, frozen=True)
class StateChange:
    """One state-change event: where it was recorded, how many keys changed and their names
    (empty when the runtime exports none, or more or longer ones than a schema would define)."""

    trace_id: int
    span_id: int  # the workflow or agent span that observed the update (0: none)
    count: int
    keys: tuple[str, ...]
    time_ns: int
    fallback_agent: str

    @property
    def call_id(self) -> None:
        """No call: a state change joins its span only (the decisions' join reads this)."""
        return None

    def tokens(self) -> tuple[str, ...]:
        """The state it stands for: the keys changed, else how many (docs/semantics.md#state)."""
        return ("state", *self.keys) if self.keys else ("state", f"#{self.count}")


@dataclass(slots=True, frozen=True)
class GuardrailResult:
    """One guardrail result event: where it was recorded and the result as the guardrail
    reported it, `<result.type>=<value>` ("" when it reported none), never read as a verdict."""

    trace_id: int
    span_id: int  # the apply_guardrail span, or the agent span it ran in (0: none)
    result: str
    time_ns: int
    fallback_agent: str

    @property
    def call_id(self) -> None:
        """No call: a result joins its span only (the decisions' join reads this)."""
        return None


Event = ToolDecision | StateChange | GuardrailResult
EVENT_TYPES = (ToolDecision, StateChange, GuardrailResult)


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


def _key_names(value: Any) -> tuple[str, ...]:
    """Sorted distinct key names, or none when any is no bounded name (a value, an id)."""
    if not isinstance(value, (list, tuple)) or len(value) > MAX_STATE_KEYS:
        return ()
    if not all(isinstance(k, str) and 0 < len(k) <= MAX_KEY_CHARS for k in value):
        return ()
    return tuple(sorted(set(value)))


def _key_count(value: Any) -> int | None:
    if isinstance(value, str) and value.isdecimal():  # OTLP/JSON writes int64 as a string
        value = int(value)
    return value if type(value) is int and 0 < value < 1 << 63 else None


def state_change(
    attributes: Mapping[str, Any], trace_id: int, span_id: int, time_ns: int, fallback_agent: str,
) -> StateChange | str:
    """The state change a `gen_ai.execution.state.changed` event records; "invalid" without a
    trace or a positive key count (the convention emits the event for non-empty deltas only)."""
    keys = _key_names(attributes.get(KEYS_KEY))
    count = _key_count(attributes.get(KEY_COUNT_KEY))
    if count is None and keys:
        count = len(keys)
    if count is None or not valid_id(trace_id, 128) or not valid_id(span_id, 64, 0):
        return INVALID
    return StateChange(trace_id, span_id, count, keys,
                       time_ns if valid_id(time_ns, 64, 0) else 0, fallback_agent)


def guardrail_result(
    attributes: Mapping[str, Any], trace_id: int, span_id: int, time_ns: int, fallback_agent: str,
) -> GuardrailResult | str:
    """The result a `gen_ai.guardrail.result` event records, as the `apply_guardrail` span's
    is read (`genai.guardrail`); "invalid" without a trace."""
    if not valid_id(trace_id, 128) or not valid_id(span_id, 64, 0):
        return INVALID
    kind, value = _str(attributes.get(RESULT_TYPE_KEY)), _str(attributes.get(RESULT_VALUE_KEY))
    return GuardrailResult(trace_id, span_id, f"{kind}={value}" if kind and value else "",
                           time_ns if valid_id(time_ns, 64, 0) else 0, fallback_agent)


def event(
    name: str | None, attributes: Mapping[str, Any], trace_id: int, span_id: int,
    time_ns: int, fallback_agent: str,
) -> Event | str | None:
    """The decision, state change or guardrail result an event records; None when it is
    another event; "invalid" when it is one of ours that cannot be used."""
    named = event_name(name, attributes)
    if named == STATE_EVENT:
        return state_change(attributes, trace_id, span_id, time_ns, fallback_agent)
    if named == GUARDRAIL_EVENT:
        return guardrail_result(attributes, trace_id, span_id, time_ns, fallback_agent)
    return decision(name, attributes, trace_id, span_id, time_ns, fallback_agent)


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


EVENT_NAMES = frozenset({DECISION_EVENT, STATE_EVENT, GUARDRAIL_EVENT})


def span_events(
    trace_id: int, span_id: int, events: Iterable[tuple[str, Mapping[str, Any]]], time_ns: int,
    fallback_agent: str,
) -> list[Event]:
    """The decision, state and guardrail events a span carries as span events (the older form
    of the same events), recorded in that span; unusable ones are skipped (a span event has no
    drop counter)."""
    found: list[Event] = []
    for name, attributes in events:
        if name in EVENT_NAMES:
            result = event(name, attributes, trace_id, span_id, time_ns, fallback_agent)
            if isinstance(result, EVENT_TYPES):
                found.append(result)
    return found


def record_events(record: SpanRecord) -> list[Event]:
    """`span_events` of a SpanRecord (timed at the span's end)."""
    return span_events(record.trace_id, record.span_id, record.events, record.end_ns,
                       service_agent(record.resource_attributes))
