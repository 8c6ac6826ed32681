"""Decision, state and guardrail events joined to their runs, in either arrival order
(docs/semantics.md#decisions, docs/semantics.md#state-from-events,
docs/semantics.md#plans-and-guardrails).

An event that arrives while its trace is buffered waits with it and is joined when the subtree
is assembled: to the `execute_tool` step with its `gen_ai.tool.call.id` (or the tool span it was
recorded in), which then carries the decision; otherwise it becomes an event-only tool step under
the span it was recorded in (a denied call often has no span). An event that arrives after its
run was folded is joined through a bounded index of recently closed traces (`Closed`) and folded
on its own as a `LateDecision`. Nothing here reads content: outcomes, names and ids only.
"""

from __future__ import annotations

import hashlib
from array import array
from collections import OrderedDict
from dataclasses import dataclass

from ..semconv.events import (
    DENY,
    REQUIRE_APPROVAL,
    Event,
    GuardrailResult,
    StateChange,
    ToolDecision,
)
from ..semconv.step import DELEGATE, GUARDRAIL, STATE, TOOL, Step
from .run import AgentRun

# event counters: received, joined (to a buffered span), late (to a folded run), and the drops:
# a duplicate of a decided call, no span of the trace ever came, no room, unusable (no trace id,
# an outcome the convention does not define)
EVENT_COUNTS = ("received", "joined", "late", "duplicate", "unjoined", "buffer_full", "invalid")


def event_counts() -> dict[str, int]:
    return dict.fromkeys(EVENT_COUNTS, 0)


@dataclass(slots=True, frozen=True)
class LateDecision:
    """A decision whose run was already folded: folded on its own into that agent's state."""

    agent: str
    tool: str
    outcome: str
    trace_id: int
    time_ns: int
    executed: bool  # a tool span of the call was in the run (so it is no attempt of its own)
    replaces: str | None  # the call's decision it replaces (a pending approval, an allow)


@dataclass(slots=True, frozen=True)
class LateState:
    """A state change whose run was already folded: folded on its own into that agent's
    states."""

    agent: str
    tokens: tuple[str, ...]


@dataclass(slots=True, frozen=True)
class LateGuardrail:
    """A guardrail result whose run was already folded: its state, and the boundary
    `guardrail_blocked` when the agent's spec names the result, folded on their own."""

    agent: str
    result: str


Late = LateDecision | LateState | LateGuardrail


def _synthetic_id(event: Event, n: int) -> int:
    """A 64-bit span id for an event-only step, the same on every replay of the same events."""
    key = f"{event.trace_id}/{event.span_id}/{event.time_ns}/{event.call_id}/{n}"
    return int.from_bytes(hashlib.blake2b(key.encode(), digest_size=8).digest(), "big") or 1


def event_step(event: ToolDecision, n: int) -> Step:
    """The tool step an event stands for when no span of the call is there."""
    return Step(
        trace_id=event.trace_id, span_id=_synthetic_id(event, n),
        parent_id=event.span_id or None, kind=TOOL, start_ns=event.time_ns,
        end_ns=event.time_ns, fallback_agent=event.fallback_agent, tool=event.tool,
        decision=event.outcome, call_id=event.call_id, event=True,
    )


def _resolves(before: str | None, outcome: str) -> bool:
    """A call's first decision counts, and so does the answer to a pending approval, and a
    `deny` after any other decision (fail safe: an `allow` first cannot hide the denial of a
    restricted tool, whatever the arrival order); any other decision for the same call is a
    duplicate (the same event sent twice, say)."""
    return before is None or (before == REQUIRE_APPROVAL and outcome != REQUIRE_APPROVAL) or (
        outcome == DENY and before != DENY)


def state_step(event: StateChange, n: int) -> Step:
    """The step a state change stands for, under the span it was recorded in."""
    return Step(
        trace_id=event.trace_id, span_id=_synthetic_id(event, n), parent_id=event.span_id,
        kind=STATE, start_ns=event.time_ns, end_ns=event.time_ns,
        fallback_agent=event.fallback_agent, state_extra=event.tokens(), event=True,
    )


def guardrail_step(event: GuardrailResult, n: int) -> Step:
    """The guardrail step a result event stands for (a guardrail with no `apply_guardrail` span
    of its own, or a further result of one), under the span it was recorded in."""
    return Step(
        trace_id=event.trace_id, span_id=_synthetic_id(event, n), parent_id=event.span_id,
        kind=GUARDRAIL, start_ns=event.time_ns, end_ns=event.time_ns,
        fallback_agent=event.fallback_agent, finish_reason=event.result, event=True,
    )


def _join_guardrail(subtree: dict[int, Step], event: GuardrailResult, n: int) -> None:
    """A result recorded in its own `apply_guardrail` span is that span's result when the span
    reported none (the same result twice is one); any other is a guardrail step of its own."""
    here = subtree[event.span_id]
    if here.kind == GUARDRAIL and not here.event and here.finish_reason in ("", event.result):
        here.finish_reason = event.result
        return
    step = guardrail_step(event, n)
    subtree[step.span_id] = step


def join(subtree: dict[int, Step], events: list[Event]) -> tuple[list[Event], int]:
    """Join `events` to the steps of `subtree` (adding event-only steps to it); returns the
    events that belong to none of its spans, and how many were duplicates of a call already
    decided."""
    by_call = {s.call_id: s for s in subtree.values() if s.kind == TOOL and s.call_id}
    left: list[Event] = []
    duplicates = 0
    for n, event in enumerate(events):
        if isinstance(event, (StateChange, GuardrailResult)):
            if event.span_id not in subtree:
                left.append(event)
            elif isinstance(event, GuardrailResult):
                _join_guardrail(subtree, event, n)
            else:
                state = state_step(event, n)
                subtree[state.span_id] = state
            continue
        step = by_call.get(event.call_id) if event.call_id else None
        if step is None:
            here = subtree.get(event.span_id)
            if here is None:
                left.append(event)
                continue
            if here.kind == TOOL and not here.event and (
                    event.call_id is None or here.call_id in (None, event.call_id)):
                step = here  # recorded inside the call's own span
        if step is None:
            step = event_step(event, n)
            subtree[step.span_id] = step
            if event.call_id:
                by_call[event.call_id] = step
        elif _resolves(step.decision, event.outcome):
            step.decision = event.outcome
        else:
            duplicates += 1
    return left, duplicates


def unjoined_denials(events: list[Event], agent: str | None) -> list[LateDecision]:
    """The denials among events no span of their trace joined (recorded in a span that never
    came: a guardrail service's, say): a denial is an attempt whether or not its spans arrive
    (docs/semantics.md#decisions), so each folds on its own, under `agent` (a run of the same
    trace) or else the service that emitted it; other outcomes stay counted `unjoined` only."""
    return [LateDecision(agent or e.fallback_agent, e.tool, DENY, e.trace_id, e.time_ns, False,
                         None) for e in events
            if isinstance(e, ToolDecision) and e.outcome == DENY and e.tool is not None]


_SPAN_IDS = "Q"  # span ids are 8 bytes: a folded trace keeps them in an array, not a dict
_MAX_SPAN_ID = 1 << 64


class _Folded:
    """One folded trace: its span ids in order, each with the index of the agent whose run
    held it (a few bytes a span, as a dict of span id -> agent is not; none while one agent
    held them all, as in most traces), and its tool calls (none until one has an id)."""

    __slots__ = ("seen", "agents", "ids", "owners", "calls")

    def __init__(self, seen: float) -> None:
        self.seen = seen
        self.agents: list[str] = []
        self.ids = array(_SPAN_IDS)
        self.owners: array[int] | None = None  # None: every span is agents[0]'s
        self.calls: dict[str, list[object]] | None = None

    def owner(self, span_id: int) -> str | None:
        """The agent whose run held the span, if it was remembered."""
        if not 0 <= span_id < _MAX_SPAN_ID:
            return None
        try:
            at = self.ids.index(span_id)
        except ValueError:
            return None
        return self.agents[self.owners[at] if self.owners is not None else 0]

    def call(self, call_id: str) -> list[object] | None:
        """[agent, tool, decision so far, a span of the call ran] of a remembered call."""
        return self.calls.get(call_id) if self.calls is not None else None

    def add_call(self, call_id: str, call: list[object]) -> None:
        if self.calls is None:
            self.calls = {}
        self.calls[call_id] = call

    def add(self, runs: list[AgentRun]) -> None:
        """Remember the runs' spans: a run's own span for that run, any other for the first
        run that held it (an id no 8 bytes hold is no span an event can name: not kept)."""
        ids = self.ids
        index = {span_id: i for i, span_id in enumerate(ids)}
        agents = {agent: i for i, agent in enumerate(self.agents)}
        for run in runs:
            owner = agents.get(run.agent)
            if owner is None:
                owner = agents[run.agent] = len(self.agents)
                self.agents.append(run.agent)
            if owner and self.owners is None:  # a second agent: each span's own from now on
                self.owners = array("I", bytes(4 * len(ids)))
            owners = self.owners
            at = index.get(run.span_id) if run.span_id else None
            if at is not None and owners is not None:
                owners[at] = owner
            for span_id in ([run.span_id] if run.span_id and at is None else []) + [
                    s.span_id for s in run.steps if s.kind != DELEGATE]:
                if span_id not in index:
                    try:
                        ids.append(span_id)
                    except OverflowError:
                        continue
                    index[span_id] = len(ids) - 1
                    if owners is not None:
                        owners.append(owner)
            for s in run.steps:
                if s.kind == TOOL and s.call_id and s.tool:
                    self.add_call(s.call_id, [run.agent, s.tool, s.decision, not s.event])

    def __len__(self) -> int:
        return len(self.ids) + (len(self.calls) if self.calls is not None else 0)


class Closed:
    """Recently folded traces: span id -> the agent whose run held it, call id -> [agent, tool,
    decision so far, a span of the call ran]. Bounded in entries (oldest traces forgotten
    first) and by the TTL."""

    def __init__(self, max_entries: int) -> None:
        self.max_entries = max_entries
        self.entries = 0
        self._traces: OrderedDict[int, _Folded] = OrderedDict()

    def remember(self, runs: list[AgentRun], now: float) -> None:
        by_trace: dict[int, list[AgentRun]] = {}
        for run in runs:
            by_trace.setdefault(run.trace_id, []).append(run)
        for trace_id, held in by_trace.items():
            folded = self._traces.get(trace_id)
            if folded is None:
                folded = self._traces[trace_id] = _Folded(now)
            folded.seen = now  # the TTL counts from the last fold, as the order does: expire
            # stops at the first trace folded since its deadline
            before = len(folded)
            folded.add(held)
            self._traces.move_to_end(trace_id)
            self.entries += len(folded) - before
        while self.entries > self.max_entries and self._traces:
            self._forget()

    def _forget(self) -> None:
        _, folded = self._traces.popitem(last=False)
        self.entries -= len(folded)

    def expire(self, deadline: float) -> None:
        while self._traces and next(iter(self._traces.values())).seen <= deadline:
            self._forget()

    def agent_of(self, trace_id: int) -> str | None:
        """The agent of a folded run of the trace (its first remembered span's), if any."""
        found = self._traces.get(trace_id)
        return found.owner(found.ids[0]) if found is not None and found.ids else None

    def knows(self, event: Event) -> bool:
        found = self._traces.get(event.trace_id)
        return found is not None and (found.owner(event.span_id) is not None or (
            event.call_id is not None and found.call(event.call_id) is not None))

    def _owner(self, event: StateChange | GuardrailResult) -> str:
        """The agent whose folded run held the event's span (`knows` said there is one: these
        events name no call)."""
        agent = self._traces[event.trace_id].owner(event.span_id)
        if agent is None:
            raise KeyError(event.span_id)
        return agent

    def late_state(self, event: StateChange) -> LateState:
        """The state change of a folded run, for the agent whose run held its span."""
        return LateState(self._owner(event), event.tokens())

    def late_guardrail(self, event: GuardrailResult) -> LateGuardrail:
        """The guardrail result of a folded run, for the agent whose run held its span."""
        return LateGuardrail(self._owner(event), event.result)

    def late_event(self, event: Event) -> Late | None:
        """What to fold for an event of a folded run (None: a duplicate decision, or one with
        no tool name to count it under)."""
        if isinstance(event, StateChange):
            return self.late_state(event)
        if isinstance(event, GuardrailResult):
            return self.late_guardrail(event)
        return self.late(event)

    def late(self, event: ToolDecision) -> LateDecision | None:
        """The decision to fold for an event of a folded run; None: a duplicate, or a call
        with no tool name to count it under."""
        folded = self._traces[event.trace_id]
        call = folded.call(event.call_id) if event.call_id else None
        if call is not None:
            agent, tool, before, executed = call
            if not _resolves(before if isinstance(before, str) else None, event.outcome):
                return None
            call[2] = event.outcome
            return LateDecision(str(agent), str(tool), event.outcome, event.trace_id,
                                event.time_ns, bool(executed),
                                before if isinstance(before, str) else None)
        agent = folded.owner(event.span_id)
        if agent is None or event.tool is None:
            return None
        if event.call_id:  # a second event of this call later is a duplicate
            folded.add_call(event.call_id, [agent, event.tool, event.outcome, False])
            self.entries += 1
        return LateDecision(agent, event.tool, event.outcome, event.trace_id, event.time_ns,
                            False, None)
