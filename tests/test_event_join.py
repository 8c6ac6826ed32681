"""The assembler's event buffer: bounded, with the trace TTL, every event counted by its fate
(docs/semantics.md#decisions). Steps and events are built by hand; the counts are worked out
from each test's sequence."""

from __future__ import annotations

from otel_agentcov.assembler import AgentRun, Bounds, RunAssembler
from otel_agentcov.assembler.events import (
    Closed,
    LateDecision,
    LateState,
    join,
    unjoined_denials,
)
from otel_agentcov.semconv.events import ToolDecision
from otel_agentcov.semconv.step import AGENT, TOOL, WORKFLOW, Step

TRACE = 0xABC


class Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def agent(span_id: int = 1, trace_id: int = TRACE) -> Step:
    return Step(trace_id=trace_id, span_id=span_id, parent_id=None, kind=AGENT, start_ns=0,
                end_ns=10, fallback_agent="svc", agent="support")


def tool(call_id: str, span_id: int = 2) -> Step:
    return Step(trace_id=TRACE, span_id=span_id, parent_id=1, kind=TOOL, start_ns=1, end_ns=2,
                fallback_agent="svc", tool="lookup", call_id=call_id)


def event(outcome: str, call_id: str | None, span_id: int = 1, trace_id: int = TRACE
          ) -> ToolDecision:
    return ToolDecision(trace_id, span_id, call_id, "lookup", outcome, 5, "svc")


def test_an_event_whose_spans_never_come_is_unjoined_after_the_ttl() -> None:
    clock = Clock()
    assembler = RunAssembler(Bounds(idle_ttl_s=60), clock=clock)
    assert assembler.add_event(event("deny", "c1", trace_id=0xDEF)) is None
    assert assembler.pending_events == 1 and assembler.traces_in_flight == 1
    clock.now = 59.0
    assert assembler.sweep() == [] and assembler.pending_events == 1
    clock.now = 60.0
    assert assembler.sweep() == []
    assert assembler.pending_events == 0 and assembler.traces_in_flight == 0
    assert assembler.events["unjoined"] == 1
    assert assembler.flushed_early["idle_ttl"] == 0  # no span was flushed early


def test_events_past_the_buffer_are_counted_not_kept() -> None:
    """A budget of 2 buffered: the third event is `buffer_full`."""
    assembler = RunAssembler(Bounds(max_buffered_spans=2), clock=Clock())
    for n in range(3):
        assembler.add_event(event("allow", f"c{n}"))
    assert assembler.pending_events == 2
    assert assembler.events == {"received": 3, "joined": 0, "late": 0, "duplicate": 0,
                                "unjoined": 0, "buffer_full": 1, "invalid": 0}


def test_late_events_join_only_while_their_trace_is_remembered() -> None:
    """The run folds at t=0; a late allow at t=59 joins it, one at t=61 (past the TTL, swept)
    for another call of the same agent span is unjoined."""
    clock = Clock()
    assembler = RunAssembler(Bounds(idle_ttl_s=60), clock=clock)
    assembler.expect_events()
    assembler.add(tool("c1"), False)
    runs = assembler.add(agent(), True)
    assert [r.agent for r in runs] == ["support"]
    clock.now = 59.0
    late = assembler.add_event(event("allow", "c1"))
    assert late is not None and (late.agent, late.tool, late.outcome, late.executed) == (
        "support", "lookup", "allow", True)
    clock.now = 61.0
    assembler.sweep()
    assert assembler.add_event(event("allow", "c2")) is None  # buffered: nothing knows it now
    clock.now = 122.0
    assembler.sweep()
    assert (assembler.events["late"], assembler.events["unjoined"]) == (1, 1)


def test_a_late_answer_to_a_pending_approval_resolves_it() -> None:
    """require_approval c1 joined with the run; allow c1 after it: late, resolving."""
    assembler = RunAssembler(clock=Clock())
    assembler.expect_events()
    assembler.add_event(event("require_approval", "c1"))
    runs = assembler.add(agent(), True)
    assert [s.decision for s in runs[0].steps] == ["require_approval"]
    late = assembler.add_event(event("allow", "c1"))
    assert late is not None and late.replaces == "require_approval" and not late.executed
    assert assembler.add_event(event("allow", "c1")) is None  # answered already: a duplicate
    assert assembler.events["duplicate"] == 1


def test_events_in_a_span_that_is_no_tool_each_become_a_tool_step_of_their_own() -> None:
    """Two decisions recorded in a workflow span (no tool span for either call): two event-only
    tool steps under it, with distinct span ids; the workflow span itself decides nothing."""
    flow = Step(trace_id=TRACE, span_id=3, parent_id=1, kind=WORKFLOW, start_ns=0, end_ns=9,
                fallback_agent="svc")
    subtree = {1: agent(), 3: flow}
    left, duplicates = join(subtree, [event("deny", None, span_id=3),
                                      event("allow", "c2", span_id=3)])
    assert (left, duplicates) == ([], 0)
    added = [s for s in subtree.values() if s.event]
    assert sorted((s.kind, s.parent_id, s.decision, s.call_id) for s in added) == [
        (TOOL, 3, "allow", "c2"), (TOOL, 3, "deny", None)]
    assert len({s.span_id for s in added} | {1, 3}) == 4
    assert flow.decision is None


def test_closed_traces_count_each_remembered_span_and_call_once() -> None:
    """Two runs of one trace folded one after the other: spans 1, 2 and call c1 (3 entries),
    then spans 4, 5 and call c9 (3 more: 6); an event is known by its span or by its call."""
    closed = Closed(max_entries=100)
    first = AgentRun("support", TRACE, 0, 10, steps=[tool("c1", span_id=2)], span_id=1)
    closed.remember([first], now=0.0)
    assert closed.entries == 3
    second = AgentRun("billing", TRACE, 10, 20, steps=[tool("c9", span_id=5)], span_id=4)
    closed.remember([second], now=1.0)
    assert closed.entries == 6
    assert closed.knows(event("allow", "c9", span_id=99))  # its call, recorded elsewhere
    assert closed.knows(event("allow", None, span_id=4))
    assert not closed.knows(event("allow", None, span_id=99))
    assert not closed.knows(event("allow", "c7", span_id=99))
    closed.expire(deadline=1.0)  # both folded at or before t=1: the trace is forgotten whole
    assert closed.entries == 0 and closed.agent_of(TRACE) is None


def test_a_denial_read_from_the_wire_is_an_attempt_like_any_other() -> None:
    """The outcome a reader decodes is a new string, equal to `deny` but not the constant."""
    outcome = b"deny".decode()
    denied = ToolDecision(TRACE, 7, None, "delete_repo", outcome, 5, "guard")
    allowed = ToolDecision(TRACE, 7, None, "lookup", b"allow".decode(), 6, "guard")
    pending = ToolDecision(TRACE, 7, None, "refund", "require_approval", 7, "guard")
    assert unjoined_denials([denied, allowed, pending], None) == [
        LateDecision("guard", "delete_repo", "deny", TRACE, 5, False, None)]


def test_a_denial_after_an_allow_of_the_same_call_is_kept() -> None:
    """allow then deny of c1: the call ends denied (an allow first cannot hide a denial); the
    deny sent again is a duplicate."""
    call = tool("c1")
    left, duplicates = join({1: agent(), 2: call}, [event("allow", "c1"), event("deny", "c1"),
                                                    event("deny", "c1")])
    assert (left, duplicates, call.decision) == ([], 1, "deny")


def test_a_late_decision_of_a_new_call_is_remembered_as_one_more_entry() -> None:
    """A folded run (spans 1, 2, call c1: 3 entries); a late deny of c5 recorded in span 1 folds
    under its agent and remembers c5 (4 entries), so the same deny again is a duplicate."""
    closed = Closed(max_entries=100)
    closed.remember([AgentRun("support", TRACE, 0, 10, steps=[tool("c1")], span_id=1)], now=0.0)
    assert closed.late(event("deny", "c5")) == LateDecision(
        "support", "lookup", "deny", TRACE, 5, False, None)
    assert closed.entries == 4
    assert closed.late(event("deny", "c5")) is None
    closed.expire(deadline=0.0)
    assert closed.entries == 0


def test_a_late_decision_needs_a_known_span_and_a_tool_name() -> None:
    closed = Closed(max_entries=100)
    closed.remember([AgentRun("support", TRACE, 0, 10, steps=[tool("c1")], span_id=1)], now=0.0)
    no_tool = ToolDecision(TRACE, 1, None, None, "deny", 5, "svc")
    unknown_span = ToolDecision(TRACE, 77, None, "lookup", "deny", 5, "svc")
    assert closed.late(no_tool) is None and closed.late(unknown_span) is None
    assert closed.entries == 3


def test_a_step_whose_kind_was_decoded_joins_its_call() -> None:
    """A reader's kind is a new string equal to `tool`: the event still joins the call's step
    by its call id (not as an event-only step under the agent span it was recorded in)."""
    call = Step(trace_id=TRACE, span_id=2, parent_id=1, kind=b"tool".decode(), start_ns=1,
                end_ns=2, fallback_agent="svc", tool="lookup", call_id="c1")
    subtree = {1: agent(), 2: call}
    assert join(subtree, [event("deny", "c1", span_id=1)]) == ([], 0)
    assert call.decision == "deny" and sorted(subtree) == [1, 2]


def test_a_pending_approval_asked_again_from_the_wire_is_a_duplicate() -> None:
    """require_approval of c1 joined its call; the same request again, its outcome decoded by a
    reader (a new string equal to `require_approval`), answers nothing: one duplicate, and c1
    is still pending."""
    call = tool("c1")
    again = ToolDecision(TRACE, 1, "c1", "lookup", b"require_approval".decode(), 6, "svc")
    left, duplicates = join({1: agent(), 2: call}, [event("require_approval", "c1"), again])
    assert (left, duplicates, call.decision) == ([], 1, "require_approval")


def test_an_approval_answers_a_pending_request_read_from_the_span() -> None:
    """c1's span says require_approval (an attribute: text the reader decoded, not the
    constant); an allow event for c1 answers it: joined, c1 allowed, no duplicate."""
    call = tool("c1")
    call.decision = b"require_approval".decode()
    left, duplicates = join({1: agent(), 2: call}, [event("allow", "c1")])
    assert (left, duplicates, call.decision) == ([], 0, "allow")


def test_a_guardrail_result_in_a_tool_span_is_a_guardrail_step_of_its_own() -> None:
    """A result recorded in a tool call's span (no apply_guardrail span of its own): the call
    keeps its (empty) finish reason, and the result is a guardrail step under the call."""
    from otel_agentcov.semconv.events import GuardrailResult
    from otel_agentcov.semconv.step import GUARDRAIL

    call = tool("c1")
    subtree = {1: agent(), 2: call}
    assert join(subtree, [GuardrailResult(TRACE, 2, "pii=blocked", 5, "svc")]) == ([], 0)
    assert call.finish_reason == ""
    assert [(s.kind, s.parent_id, s.finish_reason) for s in subtree.values() if s.event] == [
        (GUARDRAIL, 2, "pii=blocked")]


def test_a_second_run_of_a_remembered_trace_adds_only_its_own_entries() -> None:
    """support's run (spans 1, 2, 3; calls c1, c2: 5 entries), then billing's run of the same
    trace (spans 4, 5; call c9: 3 more, 8); forgetting the trace frees all 8."""
    closed = Closed(100)
    first = AgentRun("support", TRACE, 0, 10, span_id=1,
                     steps=[tool("c1", span_id=2), tool("c2", span_id=3)])
    closed.remember([first], 0.0)
    assert closed.entries == 5
    closed.remember([AgentRun("billing", TRACE, 10, 20, steps=[tool("c9", span_id=5)],
                              span_id=4)], 1.0)
    assert closed.entries == 8
    closed.expire(deadline=1.0)
    assert closed.entries == 0


def test_which_decision_for_a_call_counts() -> None:
    """docs/semantics.md#decisions, every pair by hand: a call's first decision counts; so
    does the answer to a pending approval, and a deny after anything but a deny; all else is
    a duplicate, a pending approval asked again among them."""
    from otel_agentcov.assembler.events import _resolves

    allow, deny, ask = "allow", "deny", "require_approval"
    counted = {(before, outcome) for before in (None, allow, deny, ask)
               for outcome in (allow, deny, ask) if _resolves(before, outcome)}
    assert counted == {(None, allow), (None, deny), (None, ask), (allow, deny),
                       (ask, allow), (ask, deny)}


def test_a_folded_run_is_remembered_past_its_delegation_tokens() -> None:
    """A run of `support` (span 1) that delegated (a delegate token, span 3) and then called
    a tool (span 2, call c1): remembered are both spans and the call, 3 entries, so a late
    decision of c1 still finds its run; the trace's agent is support, another trace's none."""
    from otel_agentcov.semconv.step import DELEGATE

    token = Step(trace_id=TRACE, span_id=3, parent_id=1, kind=DELEGATE, start_ns=1, end_ns=1,
                 fallback_agent="support", agent="billing")
    closed = Closed(100)
    closed.remember([AgentRun("support", TRACE, 0, 10, steps=[token, tool("c1")], span_id=1)],
                    0.0)
    assert closed.entries == 3
    assert closed.agent_of(TRACE) == "support" and closed.agent_of(TRACE + 1) is None


def test_events_after_a_state_change_still_join() -> None:
    """A state change recorded in the agent's span, then a deny of call c1 and a deny
    recorded inside a tool span without a call id (span 3) but naming call c9: the state
    change joins the agent's span as a state step, c1's deny its span, and the other deny the
    span it was recorded in (its call id cannot disagree with a span that has none)."""
    from otel_agentcov.semconv.events import StateChange

    subtree = {1: agent(), 2: tool("c1"), 3: tool("", span_id=3)}
    subtree[3].call_id = None
    change = StateChange(TRACE, 1, 1, ("stage",), 4, "svc")
    left, duplicates = join(subtree, [change, event("deny", "c1", span_id=1),
                                      event("deny", "c9", span_id=3)])
    assert (left, duplicates) == ([], 0)
    assert (subtree[2].decision, subtree[3].decision) == ("deny", "deny")
    assert sorted(s.kind for s in subtree.values()) == ["agent", "state", "tool", "tool"]


def test_a_state_change_of_a_folded_run_goes_to_the_run_of_its_span() -> None:
    from otel_agentcov.semconv.events import StateChange

    closed = Closed(100)
    closed.remember([AgentRun("support", TRACE, 0, 10, steps=[tool("c1")], span_id=1)], 0.0)
    change = StateChange(TRACE, 2, 1, ("stage",), 4, "svc")
    assert closed.late_state(change) == LateState("support", change.tokens())


def test_folded_traces_past_the_entry_bound_are_forgotten_oldest_first() -> None:
    """Room for 3 entries: trace A (span 1 and its tool span with call c1: 3 entries), then
    trace B (3 more): 6 > 3, so A, the oldest, is forgotten and B kept."""
    closed = Closed(3)
    run = [AgentRun("support", TRACE, 0, 10, steps=[tool("c1")], span_id=1)]
    closed.remember(run, 0.0)
    assert closed.entries == 3 and closed.agent_of(TRACE) == "support"
    other = Step(trace_id=TRACE + 1, span_id=2, parent_id=1, kind=TOOL, start_ns=1, end_ns=2,
                 fallback_agent="svc", tool="lookup", call_id="c2")
    closed.remember([AgentRun("billing", TRACE + 1, 0, 10, steps=[other], span_id=1)], 1.0)
    assert closed.entries == 3
    assert (closed.agent_of(TRACE), closed.agent_of(TRACE + 1)) == (None, "billing")


def test_a_folded_run_read_back_from_the_journal_still_knows_its_calls() -> None:
    """serve's journal keeps steps as JSON rows (service/steps.py); read back after a restart,
    a step's kind is a new string equal to `tool`, not the constant. The run folded, a late
    deny of c1 is that call's decision (a span of it ran: executed, so no attempt of its own),
    and spans 1, 2 and call c1 are remembered: 3 entries."""
    import json

    from otel_agentcov.service.steps import from_row, to_row

    step = from_row(json.loads(json.dumps(to_row(tool("c1")))))
    closed = Closed(100)
    closed.remember([AgentRun("support", TRACE, 0, 10, steps=[step], span_id=1)], 0.0)
    assert closed.entries == 3
    assert closed.late(event("deny", "c1")) == LateDecision(
        "support", "lookup", "deny", TRACE, 5, True, None)


def test_a_folded_trace_keeps_a_few_bytes_a_span() -> None:
    """5,000 folded traces of 10 spans each (an agent span over 9 tool spans, 64-bit span ids
    as exporters draw them, no call ids: 50,000 entries), each run dropped once remembered as
    the assembler drops it, leave under 60 bytes a span held, the trace ids and their order
    included: span ids kept as 8-byte integers in an array (a trace's one agent once), not as
    a dict of Python ints to names (about 100 bytes a span)."""
    import gc
    import tracemalloc

    def trace(n: int) -> list[AgentRun]:
        top = 0xF << 60 | n << 8
        steps = [Step(trace_id=n, span_id=top + i, parent_id=top, kind=TOOL, start_ns=i,
                      end_ns=i + 1, fallback_agent="svc", tool="lookup") for i in range(1, 10)]
        return [AgentRun("support", n, 0, 60, steps=steps, span_id=top)]

    gc.collect()
    tracemalloc.start()
    before = tracemalloc.get_traced_memory()[0]
    closed = Closed(100_000)
    for n in range(1, 5_001):
        closed.remember(trace(n), 0.0)
    gc.collect()
    held = tracemalloc.get_traced_memory()[0] - before
    tracemalloc.stop()
    assert closed.entries == 50_000
    assert held / closed.entries < 60
    assert closed.agent_of(7) == "support"


def test_a_trace_folded_in_two_agents_runs_keeps_each_spans_agent() -> None:
    """One trace, two runs remembered in turn (support's, then billing's with a span of its
    own and a tool span support's run also held): each span answers with the first run that
    held it, a run's own span with that run."""
    closed = Closed(100)
    closed.remember([AgentRun("support", TRACE, 0, 10, steps=[tool("c1", 2)], span_id=1)], 0.0)
    billing = [tool("c2", 2), tool("c3", 4)]
    closed.remember([AgentRun("billing", TRACE, 0, 10, steps=billing, span_id=3)], 1.0)
    owners = {span: closed.late(event("deny", None, span_id=span)) for span in (1, 2, 3, 4)}
    assert {span: late.agent if late else None for span, late in owners.items()} == {
        1: "support", 2: "support", 3: "billing", 4: "billing"}
    assert closed.entries == 4 + 3  # spans 1-4, calls c1-c3
    assert closed.agent_of(TRACE) == "support"


def test_a_span_id_no_8_bytes_hold_is_not_kept_and_raises_nothing() -> None:
    """A step whose span id is negative or past 64 bits (a file can say anything) is no span
    an event can name: the run is remembered without it, and asking for it finds nothing."""
    huge = Step(trace_id=TRACE, span_id=1 << 70, parent_id=1, kind=TOOL, start_ns=1, end_ns=2,
                fallback_agent="svc", tool="lookup")
    negative = Step(trace_id=TRACE, span_id=-5, parent_id=1, kind=TOOL, start_ns=1, end_ns=2,
                    fallback_agent="svc", tool="lookup")
    closed = Closed(100)
    closed.remember([AgentRun("support", TRACE, 0, 10, steps=[huge, negative, tool("c1")],
                              span_id=1)], 0.0)
    assert closed.entries == 3  # spans 1 and 2, call c1
    assert not closed.knows(event("deny", None, span_id=1 << 70))
    assert not closed.knows(event("deny", None, span_id=-5))
    assert closed.knows(event("deny", None, span_id=2))


def test_an_event_of_a_span_elsewhere_leaves_the_next_one_to_join() -> None:
    """Two events in one batch: the first recorded in a span not in this subtree (left for
    another), the second in the tool span here: the second still joins its call."""
    subtree = {1: agent(), 2: tool("c1")}
    left, duplicates = join(subtree, [event("deny", None, span_id=99), event("deny", "c1", 2)])
    assert [e.span_id for e in left] == [99] and duplicates == 0
    assert subtree[2].decision == "deny"


def test_a_step_read_back_from_the_journal_joins_an_event_recorded_in_its_span() -> None:
    """serve's journal gives back a tool step whose kind is a new string equal to `tool`; an
    event with no call id recorded inside that span is the call's decision all the same."""
    import json

    from otel_agentcov.service.steps import from_row, to_row

    step = from_row(json.loads(json.dumps(to_row(tool("")))))
    subtree = {1: agent(), 2: step}
    assert join(subtree, [event("deny", None, span_id=2)]) == ([], 0)
    assert subtree[2].decision == "deny" and len(subtree) == 2  # no event-only step added


def test_a_second_denial_read_from_json_is_a_duplicate() -> None:
    """A call already denied by an event whose outcome came from JSON (a string equal to
    `deny`, not the constant): a second denial is the same decision sent twice, a duplicate."""
    import json

    subtree = {1: agent(), 2: tool("c1")}
    first = ToolDecision(TRACE, 2, "c1", "lookup", json.loads('"deny"'), 5, "svc")
    assert join(subtree, [first]) == ([], 0)
    assert join(subtree, [event("deny", "c1", 2)]) == ([], 1)


def test_a_trace_folded_again_is_kept_a_ttl_from_its_last_fold() -> None:
    """Trace A folded at 0, trace B at 5, then A's second local root at 10: the TTL counts
    from a trace's last fold (as the dict-based index kept it), so expiring what was last
    folded by 6 forgets B and keeps A, whose late events still join its second run."""
    closed = Closed(100)
    closed.remember([AgentRun("support", TRACE, 0, 10, steps=[tool("c1")], span_id=1)], 0.0)
    closed.remember([AgentRun("billing", TRACE + 1, 0, 10, steps=[], span_id=7)], 5.0)
    closed.remember([AgentRun("support", TRACE, 10, 20, steps=[tool("c2", span_id=4)],
                              span_id=3)], 10.0)
    closed.expire(deadline=6.0)
    assert closed.agent_of(TRACE + 1) is None
    assert closed.knows(event("deny", "c2", span_id=4)) and closed.agent_of(TRACE) == "support"


def test_a_trace_folded_in_many_parts_is_remembered_and_joined_in_linear_time() -> None:
    """One long trace folded a local root at a time (a session's requests under one trace id:
    2,000 folds of 50 spans, 100,000 spans), then a late deny for a span of each fold: the
    index neither walks the trace's remembered spans at every fold nor at every event. Timed
    against a trace of the same spans folded at once (which both index paths do in linear
    time): the dict-based index took 0.11 s for the parts; walking them took 11 s and 5 s."""
    import time

    def part(k: int, n: int = 50) -> list[AgentRun]:
        top = (k + 1) << 20
        steps = [Step(trace_id=TRACE, span_id=top + i, parent_id=top, kind=TOOL, start_ns=i,
                      end_ns=i + 1, fallback_agent="svc", tool="lookup") for i in range(1, n)]
        return [AgentRun("support", TRACE, 0, 10, steps=steps, span_id=top)]

    parts = [part(k) for k in range(2_000)]
    whole = [AgentRun("support", TRACE, 0, 10, span_id=1,
                      steps=[s for p in parts for s in p[0].steps])]
    started = time.perf_counter()
    Closed(1_000_000).remember(whole, 0.0)
    once = time.perf_counter() - started
    closed = Closed(1_000_000)
    started = time.perf_counter()
    for k, p in enumerate(parts):
        closed.remember(p, float(k))
    denials = [event("deny", None, span_id=((k + 1) << 20) + 1) for k in range(2_000)]
    assert all(closed.knows(d) for d in denials)
    assert [late.agent for late in map(closed.late, denials) if late] == ["support"] * 2_000
    assert time.perf_counter() - started < 20 * once + 0.5
    assert closed.entries == 100_000


def _spans_of(*ids: int) -> list[Step]:
    return [tool("", span_id) for span_id in ids]


def _owners(closed: Closed, spans: range) -> dict[int, str | None]:
    """Each span's agent as a late deny recorded in it reads it (None: not remembered)."""
    return {span: (late.agent if (late := closed.late(event("deny", None, span_id=span)))
                   else None) for span in spans}


def test_a_large_fold_then_a_small_one_keep_each_spans_agent() -> None:
    """One trace folded in two parts of very different sizes: support's run over spans 10-29,
    then billing's over 40-42 (its own span 40): each span answers with its own run's agent,
    the spans of the first part with support, wherever each part is kept."""
    closed = Closed(1_000)
    closed.remember([AgentRun("support", TRACE, 0, 10, steps=_spans_of(*range(11, 30)),
                              span_id=10)], 0.0)
    closed.remember([AgentRun("billing", TRACE, 0, 10, steps=_spans_of(41, 42), span_id=40)],
                    1.0)
    expected = {span: "support" if 10 <= span <= 29 else "billing" if 40 <= span <= 42 else None
                for span in range(5, 45)}
    assert _owners(closed, range(5, 45)) == expected
    assert closed.agent_of(TRACE) == "support"


def test_a_runs_own_span_held_first_by_another_run_becomes_that_runs() -> None:
    """support's run holds spans 20-27 (billing's agent span 24 among them, as a step); billing's
    run, folded later, has 24 as its own span and 30-31 under it: span 24 is billing's from
    then on, its neighbours stay support's."""
    closed = Closed(1_000)
    closed.remember([AgentRun("support", TRACE, 0, 10, steps=_spans_of(*range(21, 28)),
                              span_id=20)], 0.0)
    closed.remember([AgentRun("billing", TRACE, 0, 10, steps=_spans_of(30, 31), span_id=24)],
                    1.0)
    expected = {span: "billing" if span in (24, 30, 31) else "support" for span in range(20, 32)}
    expected.update({28: None, 29: None})
    assert _owners(closed, range(20, 32)) == expected


def test_a_runs_own_span_in_the_oldest_part_of_a_trace_folded_thrice_becomes_that_runs() -> None:
    """support's run over 10-29, billing's over 40-42 (kept apart: three spans beside twenty),
    then triage's run whose own span is 15 (held by support's run first) with 50 under it:
    span 15 and 50 are triage's, the other spans keep their runs."""
    closed = Closed(1_000)
    closed.remember([AgentRun("support", TRACE, 0, 10, steps=_spans_of(*range(11, 30)),
                              span_id=10)], 0.0)
    closed.remember([AgentRun("billing", TRACE, 0, 10, steps=_spans_of(41, 42), span_id=40)],
                    1.0)
    closed.remember([AgentRun("triage", TRACE, 0, 10, steps=_spans_of(50), span_id=15)], 2.0)
    expected = {span: "triage" if span in (15, 50) else "support" if 10 <= span <= 29 else
                "billing" if 40 <= span <= 42 else None for span in range(8, 52)}
    assert _owners(closed, range(8, 52)) == expected
