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
from bisect import bisect_left
from collections import OrderedDict
from dataclasses import dataclass
from heapq import merge

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
_OWNERS = "I"  # ... each with its agent's index
_Segment = tuple["array[int]", "array[int] | None"]  # sorted span ids, their agents if not one
_MAX_SPAN_ID = 1 << 64


class _Folded:
    """One folded trace: its span ids, each with the index of the agent whose run held it (a
    few bytes a span, as a dict of span id -> agent is not; none while one agent held them
    all, as in most traces), and its tool calls (none until one has an id).

    The ids are kept in sorted runs (an array each, with its owners), one more per fold, two
    merged while the older is at most twice the newer: a few runs however many times the trace
    is folded (a session's requests under one trace id), each found by bisection, so neither a
    fold nor an event walks every span the trace already has."""

    __slots__ = ("seen", "agents", "first", "ids", "owners", "more", "calls")

    def __init__(self, seen: float) -> None:
        self.seen = seen
        self.agents: list[str] = []
        self.first: int | None = None  # the first span remembered (the trace's agent's)
        # the oldest run of sorted span ids and their agents' indices (None: every one is
        # agents[0]'s), then the later runs, if any (most traces are folded once: none)
        self.ids = array(_SPAN_IDS)
        self.owners: array[int] | None = None
        self.more: list[_Segment] | None = None
        self.calls: dict[str, list[object]] | None = None

    def _segments(self) -> list[_Segment]:
        return [(self.ids, self.owners), *(self.more or ())]

    def _find(self, span_id: int) -> tuple[int, int] | None:
        """(segment, position) of a remembered span id."""
        ids = self.ids
        at = bisect_left(ids, span_id)
        if at < len(ids) and ids[at] == span_id:
            return 0, at
        for n, (ids, _) in enumerate(self.more or (), 1):
            at = bisect_left(ids, span_id)
            if at < len(ids) and ids[at] == span_id:
                return n, at
        return None

    def owner(self, span_id: int) -> str | None:
        """The agent whose run held the span, if it was remembered (an id no 8 bytes hold is
        in no run of ids: not found, as any other)."""
        found = self._find(span_id)
        if found is None:
            return None
        owners = self._segments()[found[0]][1]
        return self.agents[owners[found[1]] if owners is not None else 0]

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
        new: dict[int, int] = {}  # this fold's spans not remembered before -> their agent
        agents = {agent: i for i, agent in enumerate(self.agents)}
        find = self._find if self.ids else _nowhere  # most traces fold once: nothing to find
        for run in runs:
            owner = agents.get(run.agent)
            if owner is None:
                owner = agents[run.agent] = len(self.agents)
                self.agents.append(run.agent)
            if run.span_id and 0 <= run.span_id < _MAX_SPAN_ID:  # the run's own span is its
                found = None if run.span_id in new else find(run.span_id)
                if found is None:
                    new[run.span_id] = owner
                else:
                    self._own(found, owner)
            for s in run.steps:
                if s.kind != DELEGATE and 0 <= s.span_id < _MAX_SPAN_ID and (
                        s.span_id not in new and find(s.span_id) is None):
                    new[s.span_id] = owner
                if s.kind == TOOL and s.call_id and s.tool:
                    self.add_call(s.call_id, [run.agent, s.tool, s.decision, not s.event])
        if not new:
            return
        if self.first is None:
            self.first = next(iter(new))
        order = sorted(new)
        owners = array(_OWNERS, [new[i] for i in order]) if any(new.values()) else None
        segments = [*self._segments(), (array(_SPAN_IDS, order), owners)] if self.ids else [
            (array(_SPAN_IDS, order), owners)]
        while len(segments) > 1 and len(segments[-2][0]) <= 2 * len(segments[-1][0]):
            segments.append(_merged(segments.pop(-2), segments.pop()))
        (self.ids, self.owners), self.more = segments[0], segments[1:] or None

    def _own(self, found: tuple[int, int], owner: int) -> None:
        """Make a remembered span the agent's (its run's own span, folded after another run
        held it)."""
        n, at = found
        ids, owners = self._segments()[n]
        if owners is None:
            if not owner:
                return
            owners = array(_OWNERS, bytes(4 * len(ids)))
            if n and self.more is not None:  # (a later run: `more` holds it)
                self.more[n - 1] = (ids, owners)
            else:
                self.owners = owners
        owners[at] = owner

    def __len__(self) -> int:
        return sum(len(ids) for ids, _ in self._segments()) + (
            len(self.calls) if self.calls is not None else 0)


def _nowhere(span_id: int) -> None:
    """`_Folded._find` while nothing is remembered."""


def _merged(a: _Segment, b: _Segment) -> _Segment:
    """Two sorted runs of span ids (no id in both) as one, each id keeping its agent."""
    if a[1] is None and b[1] is None:
        return array(_SPAN_IDS, sorted(a[0] + b[0])), None
    ids, owners = array(_SPAN_IDS), array(_OWNERS)
    pairs = [zip(run, owned if owned is not None else array(_OWNERS, bytes(4 * len(run))),
                 strict=True) for run, owned in (a, b)]
    for span_id, owner in merge(*pairs):
        ids.append(span_id)
        owners.append(owner)
    return ids, owners


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
        return found.owner(found.first) if found is not None and found.first is not None else None

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
