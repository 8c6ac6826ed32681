"""assemble() and RunAssembler: span trees cut into agent runs (docs/architecture.md#data-flow,
docs/semantics.md#detection-rules).

Steps are built the way the engine builds them: a SpanRecord through `semconv.classify`.
"""

from __future__ import annotations

import sys
from collections.abc import Mapping
from typing import Any

import pytest

from otel_agentcov.assembler import AgentRun, Bounds, RunAssembler, assemble
from otel_agentcov.records import SpanRecord
from otel_agentcov.semconv import classify
from otel_agentcov.semconv.common import UNKNOWN_AGENT
from otel_agentcov.semconv.step import AGENT, DELEGATE, HANDOFF, LLM, OTHER, TOOL, Step


def span(
    span_id: int,
    parent: int | None,
    name: str,
    attrs: Mapping[str, Any] | None = None,
    *,
    start: int = 0,
    end: int | None = None,
    trace_id: int = 1,
    resource: Mapping[str, Any] | None = None,
) -> Step:
    record = SpanRecord(
        trace_id=trace_id,
        span_id=span_id,
        parent_id=parent,
        name=name,
        start_ns=start,
        end_ns=start + 1 if end is None else end,
        attributes=dict(attrs or {}),
        resource_attributes=dict(resource or {}),
    )
    return classify(record)


def agent(span_id: int, parent: int | None, name: str, start: int = 0, end: int | None = None,
          **kw: Any) -> Step:
    attrs = {"gen_ai.operation.name": "invoke_agent", "gen_ai.agent.name": name}
    return span(span_id, parent, f"invoke_agent {name}", attrs, start=start, end=end, **kw)


def tool(span_id: int, parent: int | None, name: str, start: int = 0, *,
         attrs: Mapping[str, Any] | None = None, **kw: Any) -> Step:
    full = {"gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": name, **(attrs or {})}
    return span(span_id, parent, f"execute_tool {name}", full, start=start, **kw)


def chat(span_id: int, parent: int | None, model: str = "gpt-4o", start: int = 0,
         **kw: Any) -> Step:
    attrs = {"gen_ai.operation.name": "chat", "gen_ai.request.model": model}
    return span(span_id, parent, f"chat {model}", attrs, start=start, **kw)


def workflow(span_id: int, parent: int | None, start: int = 0, end: int | None = None) -> Step:
    attrs = {"gen_ai.operation.name": "invoke_workflow"}
    return span(span_id, parent, "invoke_workflow flow", attrs, start=start, end=end)


def by_agent(runs: list[AgentRun]) -> dict[str, AgentRun]:
    out = {r.agent: r for r in runs}
    assert len(out) == len(runs), f"more than one run per agent: {[r.agent for r in runs]}"
    return out


def kinds(run: AgentRun) -> list[str]:
    return [s.kind for s in run.steps]


def all_span_ids(runs: list[AgentRun]) -> list[int]:
    return sorted(s.span_id for r in runs for s in r.steps)


# --------------------------------------------------------------------------- classification glue


def test_helpers_classify_as_the_engine_does() -> None:
    assert agent(1, None, "a").kind == AGENT
    assert tool(2, 1, "t").kind == TOOL
    assert chat(3, 1).kind == LLM
    assert workflow(4, None).kind == "workflow"
    assert span(5, None, "db query").kind == OTHER


# --------------------------------------------------------------------------- agent identity


def test_nested_agent_is_its_own_run_and_a_delegate_step_in_the_parent() -> None:
    steps = [
        tool(6, 1, "finish", start=60),
        chat(5, 3, start=6),
        agent(3, 1, "billing", start=3, end=50),
        chat(2, 1, start=1),
        tool(4, 3, "refund", start=4),
        agent(1, None, "triage", start=0, end=100),
    ]
    runs = by_agent(assemble(steps))
    assert set(runs) == {"triage", "billing"}

    triage, billing = runs["triage"], runs["billing"]
    assert kinds(triage) == [LLM, DELEGATE, TOOL]  # own steps only, in start order
    delegate = triage.steps[1]
    assert delegate.agent == "billing" and delegate.span_id == 3
    assert triage.delegations == [("triage", "billing")]
    assert (triage.start_ns, triage.end_ns) == (0, 100)

    assert kinds(billing) == [TOOL, LLM]
    assert [s.tool for s in billing.steps] == ["refund", None]
    assert billing.delegations == []
    assert (billing.start_ns, billing.end_ns) == (3, 50)


def test_agent_nested_in_same_name_agent_is_one_invocation() -> None:
    inner_error = {"error.type": "openai.RateLimitError"}
    inner = span(2, 1, "invoke_agent triage", {
        "gen_ai.operation.name": "invoke_agent", "gen_ai.agent.name": "triage", **inner_error,
    }, start=1, end=9)
    steps = [agent(1, None, "triage", 0, 10), inner, tool(3, 2, "search", 2), chat(4, 1, start=5)]
    runs = assemble(steps)
    assert len(runs) == 1
    (run,) = runs
    assert run.agent == "triage"
    assert kinds(run) == [TOOL, LLM]
    assert run.delegations == []
    assert (run.start_ns, run.end_ns) == (0, 10)  # the outer span is the invocation
    assert run.error == "RateLimitError"  # an error on the inner span still fails the run


@pytest.mark.parametrize(
    "wrapper",
    [
        span(1, None, "invoke_agent", {"gen_ai.operation.name": "invoke_agent"}, end=100),
        span(1, None, "Agent workflow", {"gen_ai.operation.name": "invoke_agent"}, end=100),
        span(1, None, "invoke_agent Agent",
             {"gen_ai.operation.name": "invoke_agent", "gen_ai.agent.name": "Agent"}, end=100),
    ],
    ids=["no-name", "agent-workflow", "placeholder-name"],
)
def test_nameless_agent_wrapper_is_not_an_agent(wrapper: Step) -> None:
    assert wrapper.kind == AGENT and wrapper.agent is None
    steps = [
        wrapper,
        tool(2, 1, "lookup", 1, resource={"service.name": "svc"}),
        agent(3, 1, "worker", 2, 50),
        tool(4, 3, "compute", 3),
    ]
    runs = by_agent(assemble(steps))
    assert set(runs) == {"worker", "svc"}
    assert runs["worker"].delegations == []  # the wrapper did not delegate to it
    assert [s.tool for s in runs["worker"].steps] == ["compute"]
    assert [s.tool for s in runs["svc"].steps] == ["lookup"]


def test_steps_under_no_agent_go_to_own_name_then_service_then_unknown() -> None:
    steps = [
        tool(1, None, "a", 0, attrs={"gen_ai.agent.name": "helper"},
             resource={"service.name": "svc"}),
        tool(2, None, "b", 1, resource={"service.name": "svc"}),
        tool(3, None, "c", 2),
        # a placeholder own name is no name: falls through to the service
        tool(4, None, "d", 3, attrs={"gen_ai.agent.name": "OpenAI Agent"},
             resource={"service.name": "svc"}),
        chat(5, None, "m", 4),
    ]
    runs = by_agent(assemble(steps))
    assert set(runs) == {"helper", "svc", UNKNOWN_AGENT}
    assert [s.tool for s in runs["helper"].steps] == ["a"]
    assert [s.tool for s in runs["svc"].steps] == ["b", "d"]
    assert [s.kind for s in runs[UNKNOWN_AGENT].steps] == [TOOL, LLM]


def test_child_own_agent_name_never_overrides_the_enclosing_agent() -> None:
    steps = [
        agent(1, None, "planner", 0, 10),
        tool(2, 1, "search", 1, attrs={"gen_ai.agent.name": "some_other_agent"}),
    ]
    runs = by_agent(assemble(steps))
    assert set(runs) == {"planner"}
    assert [s.tool for s in runs["planner"].steps] == ["search"]


# --------------------------------------------------------------------------- delegation


def test_transfer_tool_then_sibling_invocation_is_an_edge() -> None:
    steps = [
        workflow(1, None, 0, 100),
        agent(2, 1, "triage", 1, 40),
        chat(3, 2, start=2),
        tool(4, 2, "transfer_to_billing_agent", 11),
        agent(5, 1, "Billing Agent", 41, 90),  # normalized name matches the hint
        tool(6, 5, "refund", 42),
    ]
    runs = by_agent(assemble(steps))
    assert runs["triage"].delegations == [("triage", "Billing Agent")]
    assert runs["Billing Agent"].delegations == []
    assert kinds(runs["triage"]) == [LLM, TOOL]  # a sibling is not a delegate step


def test_transfer_tool_hint_chooses_among_pending_hand_offs() -> None:
    steps = [
        workflow(1, None, 0, 200),
        agent(2, 1, "triage", 1, 40),
        tool(4, 2, "transfer_to_billing_agent", 11),
        agent(7, 1, "helper", 3, 39),
        tool(9, 7, "transfer_to_shipping", 12),  # later, but named for someone else
        agent(5, 1, "Billing Agent", 41, 90),
        agent(8, 1, "shipping", 95, 150),
    ]
    runs = by_agent(assemble(steps))
    assert runs["triage"].delegations == [("triage", "Billing Agent")]
    assert runs["helper"].delegations == [("helper", "shipping")]
    assert runs["Billing Agent"].delegations == runs["shipping"].delegations == []


def test_hand_off_tool_needs_a_sibling_under_the_same_parent() -> None:
    steps = [
        workflow(1, None, 0, 200),
        agent(2, 1, "router", 1, 40),
        tool(3, 2, "transfer_to_agent", 11),
        workflow(10, None, 0, 200),
        agent(4, 10, "elsewhere", 41, 90),  # later, but under another parent
    ]
    runs = by_agent(assemble(steps))
    assert runs["router"].delegations == []


def test_generic_transfer_tool_picks_the_next_sibling() -> None:
    steps = [
        workflow(1, None, 0, 200),
        agent(2, 1, "router", 1, 40),
        agent(7, 1, "parallel", 5, 30),  # started before the hand-off: not its target
        tool(3, 2, "transfer_to_agent", 11),
        agent(4, 1, "specialist", 41, 90),
        agent(5, 1, "closer", 91, 150),
    ]
    runs = by_agent(assemble(steps))
    assert runs["router"].delegations == [("router", "specialist")]
    assert all(r.delegations == [] for name, r in runs.items() if name != "router")


def test_explicit_handoff_span_is_an_edge() -> None:
    handoff = span(3, 2, "agent_handoff", {
        "gen_ai.operation.name": "agent_handoff",
        "gen_ai.handoff.from_agent": "triage",
        "gen_ai.handoff.to_agent": "billing",
    }, start=5)
    to_only = span(4, 2, "agent_handoff", {
        "gen_ai.operation.name": "agent_handoff",
        "gen_ai.transfer.target.name": "refunds",
    }, start=6)
    assert handoff.kind == HANDOFF
    steps = [
        workflow(1, None, 0, 100),
        agent(2, 1, "triage", 1, 40),
        handoff,
        to_only,
        agent(5, 1, "billing", 41, 90),  # the sibling does not add a second edge
    ]
    runs = by_agent(assemble(steps))
    assert runs["triage"].delegations == [("triage", "billing"), ("triage", "refunds")]
    assert kinds(runs["triage"]) == [HANDOFF, HANDOFF]


@pytest.mark.parametrize("tool_start", [10, 20], ids=["same_start", "later"])
@pytest.mark.parametrize("tool_first", [False, True], ids=["agent_first", "tool_first"])
def test_work_beside_an_agent_span_in_its_time_is_that_agents(
    tool_start: int, tool_first: bool
) -> None:
    """Traceloop LangGraph parents a nested graph's work to the caller, beside the callee's
    span; it belongs to the callee whatever the arrival order, even starting at the same ns."""
    callee = agent(2, 1, "callee", 10, 50)
    work = tool(3, 1, "work", tool_start)
    steps = [agent(1, None, "caller", 0, 100), *([work, callee] if tool_first else [callee, work])]
    runs = by_agent(assemble(steps))
    assert kinds(runs["caller"]) == [DELEGATE]
    assert [s.tool for s in runs["callee"].steps] == ["work"]


# --------------------------------------------------------------------------- malformed trees


@pytest.mark.timeout(10)
def test_parent_id_cycle_does_not_hang_or_lose_steps() -> None:
    steps = [
        agent(1, 3, "looper", 0, 10),  # 1 -> 3 -> 2 -> 1: no root at all
        tool(2, 1, "a", 1),
        tool(3, 2, "b", 2),
    ]
    runs = assemble(steps)
    assert [r.agent for r in runs] == ["looper"]
    assert [s.tool for s in runs[0].steps] == ["a", "b"]


@pytest.mark.timeout(10)
def test_self_parent_does_not_hang_or_lose_steps() -> None:
    steps = [
        agent(1, 1, "selfish", 0, 10),
        tool(2, 1, "a", 1),
        tool(3, 3, "orphan", 2, resource={"service.name": "svc"}),
    ]
    runs = by_agent(assemble(steps))
    assert [s.tool for s in runs["selfish"].steps] == ["a"]
    assert [s.tool for s in runs["svc"].steps] == ["orphan"]


@pytest.mark.timeout(10)
def test_run_assembler_survives_cycles_and_self_parents() -> None:
    ra = RunAssembler()
    assert ra.add(tool(2, 3, "x", 1), False) == []
    assert ra.add(tool(3, 2, "y", 2), False) == []
    assert ra.add(tool(4, 4, "z", 3), False) == []
    runs = ra.add(agent(1, None, "root", 0, 10), True)  # not connected to the cycle
    assert [(r.agent, r.steps) for r in runs] == [("root", [])]
    assert ra.traces_in_flight == 1
    leftovers = ra.flush_all("shutdown")
    assert sorted(s.tool for r in leftovers for s in r.steps if s.tool) == ["x", "y", "z"]
    assert ra.flushed_early["shutdown"] == 1


DEPTH = 10_000


@pytest.mark.timeout(20)
def test_deep_nesting_does_not_hit_the_recursion_limit() -> None:
    assert sys.getrecursionlimit() < DEPTH
    steps = [agent(0, None, "deep", 0, DEPTH + 10)]
    steps += [span(i, i - 1, f"layer {i}", start=i) for i in range(1, DEPTH + 1)]
    steps.append(tool(DEPTH + 1, DEPTH, "bottom", DEPTH + 1))
    runs = assemble(reversed(steps))
    assert [r.agent for r in runs] == ["deep"]
    assert [s.tool for s in runs[0].steps] == ["bottom"]


@pytest.mark.timeout(20)
def test_deeply_nested_distinct_agents_each_get_a_run() -> None:
    steps = [agent(i, i - 1 if i else None, f"a{i}", i, 2 * DEPTH - i) for i in range(DEPTH)]
    runs = by_agent(assemble(steps))
    assert len(runs) == DEPTH
    assert runs["a0"].delegations == [("a0", "a1")]
    assert kinds(runs["a0"]) == [DELEGATE]
    assert kinds(runs[f"a{DEPTH - 1}"]) == []


@pytest.mark.timeout(20)
def test_run_assembler_takes_a_deep_subtree_without_recursion() -> None:
    ra = RunAssembler(Bounds(max_spans_per_trace=DEPTH * 3))
    for i in range(1, DEPTH + 1):
        assert ra.add(span(i, i - 1, f"layer {i}", start=i), False) == []
    assert ra.add(tool(DEPTH + 1, DEPTH, "bottom", DEPTH + 1), False) == []
    runs = ra.add(agent(0, None, "deep", 0, DEPTH + 10), True)
    assert [(r.agent, [s.tool for s in r.steps]) for r in runs] == [("deep", ["bottom"])]
    assert ra.traces_in_flight == 0


# --------------------------------------------------------------------------- RunAssembler bounds


def test_local_root_end_assembles_only_its_own_subtree() -> None:
    ra = RunAssembler()
    # two subtrees of one trace, each under a remote parent (999 and 998 are not here)
    assert ra.add(tool(11, 10, "a_tool", 2), False) == []
    assert ra.add(tool(21, 20, "b_tool", 3), False) == []
    runs = ra.add(agent(10, 999, "a", 1, 5), True)
    assert [(r.agent, [s.tool for s in r.steps]) for r in runs] == [("a", ["a_tool"])]
    assert ra.traces_in_flight == 1  # b's subtree is still buffered
    runs = ra.add(agent(20, 998, "b", 2, 6), True)
    assert [(r.agent, [s.tool for s in r.steps]) for r in runs] == [("b", ["b_tool"])]
    assert ra.traces_in_flight == 0
    assert set(ra.flushed_early.values()) == {0}


def test_max_traces_evicts_the_oldest_trace_early() -> None:
    ra = RunAssembler(Bounds(max_traces=2))
    assert ra.add(tool(1, 100, "first", trace_id=1), False) == []
    assert ra.add(tool(2, 100, "second", trace_id=2), False) == []
    runs = ra.add(tool(3, 100, "third", trace_id=3), False)
    assert [(r.trace_id, [s.tool for s in r.steps]) for r in runs] == [(1, ["first"])]
    assert ra.flushed_early["trace_limit"] == 1
    assert ra.traces_in_flight == 2
    # a new span of a held trace does not evict anything
    assert ra.add(tool(4, 100, "more", trace_id=2), False) == []
    assert ra.flushed_early["trace_limit"] == 1


def test_max_spans_per_trace_flushes_early() -> None:
    ra = RunAssembler(Bounds(max_spans_per_trace=3))
    assert ra.add(tool(1, 100, "a", 1), False) == []
    assert ra.add(tool(2, 100, "b", 2), False) == []
    runs = ra.add(tool(3, 100, "c", 3), False)
    assert sorted(s.tool for r in runs for s in r.steps if s.tool) == ["a", "b", "c"]
    assert ra.flushed_early["span_limit"] == 1
    assert ra.traces_in_flight == 0


class FakeClock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def test_idle_traces_are_flushed_after_the_ttl() -> None:
    clock = FakeClock()
    ra = RunAssembler(Bounds(idle_ttl_s=60.0), clock=clock)
    ra.add(tool(1, 100, "early", trace_id=1), False)
    clock.now = 30.0
    ra.add(tool(2, 100, "later", trace_id=2), False)
    clock.now = 59.9  # not yet idle for the full TTL
    assert ra.sweep() == []
    clock.now = 61.0
    runs = ra.sweep()
    assert [(r.trace_id, [s.tool for s in r.steps]) for r in runs] == [(1, ["early"])]
    assert ra.flushed_early["idle_ttl"] == 1
    assert ra.traces_in_flight == 1
    clock.now = 91.0
    assert [r.trace_id for r in ra.sweep()] == [2]
    assert ra.flushed_early["idle_ttl"] == 2
    assert ra.traces_in_flight == 0


def test_idle_ttl_counts_from_the_last_span_seen() -> None:
    clock = FakeClock()
    ra = RunAssembler(Bounds(idle_ttl_s=60.0), clock=clock)
    ra.add(tool(1, 100, "t1_a", trace_id=1), False)
    clock.now = 5.0
    ra.add(tool(2, 100, "t2", trace_id=2), False)
    clock.now = 10.0
    ra.add(tool(3, 100, "t1_b", trace_id=1), False)  # trace 1 is active again
    clock.now = 65.5
    assert [r.trace_id for r in ra.sweep()] == [2]
    assert ra.traces_in_flight == 1
    clock.now = 70.5
    runs = ra.sweep()
    assert [r.trace_id for r in runs] == [1]
    assert sorted(s.tool for r in runs for s in r.steps if s.tool) == ["t1_a", "t1_b"]


def test_flush_all_counts_a_reason_only_when_given() -> None:
    ra = RunAssembler()
    ra.add(tool(1, 100, "a", trace_id=1), False)
    ra.add(tool(2, 100, "b", trace_id=2), False)
    runs = ra.flush_all()
    assert sorted(r.trace_id for r in runs) == [1, 2]
    assert set(ra.flushed_early.values()) == {0}
    ra.add(tool(3, 100, "c", trace_id=3), False)
    ra.flush_all("shutdown")
    assert ra.flushed_early["shutdown"] == 1


@pytest.mark.parametrize(("calls", "hit"), [(2, False), (3, True)])
def test_more_model_calls_than_the_agents_step_budget_is_max_steps(calls: int, hit: bool) -> None:
    looper = agent(1, None, "looper", end=100)
    looper.step_limit = 2  # smolagents' `max_steps`: one answer call follows the last step
    runs = assemble([looper, *(chat(10 + i, 1, start=1 + i) for i in range(calls))])
    assert [r.limits for r in runs] == [frozenset({"max_steps"} if hit else ())]


def turn(span_id: int, parent: int | None, name: str, start: int) -> Step:
    """A turn marker as LlamaIndex's `setup_agent` step is classified: no span of its own work."""
    marker = span(span_id, parent, "setup_agent", start=start)
    marker.agent, marker.turn = name, True
    return marker


def test_turn_markers_split_siblings_into_runs_and_hand_offs() -> None:
    handoff = tool(4, 1, "handoff", start=30)
    handoff.handoff_tool = True
    steps = [
        workflow(1, None, end=100),
        turn(2, 1, "triage", start=10), chat(3, 1, start=20), handoff,
        turn(5, 1, "billing", start=40), chat(6, 1, start=50),
        turn(7, 1, "billing", start=60), tool(8, 1, "refund", start=70),
    ]
    runs = by_agent(assemble(steps))
    assert {a: kinds(r) for a, r in runs.items()} == {
        "triage": [LLM, TOOL], "billing": [LLM, TOOL]}  # billing's second marker: same turn
    assert runs["triage"].delegations == [("triage", "billing")]
    assert (runs["billing"].start_ns, runs["billing"].end_ns) == (40, 71)


def test_turn_under_another_agents_tool_is_a_call_and_a_failed_workflow_fails_its_last_run(
) -> None:
    steps = [
        workflow(1, None, end=100),
        turn(2, 1, "orchestrator", start=10), tool(3, 1, "ask_billing", start=20),
        workflow(4, 3, start=21, end=29),
        turn(5, 4, "billing", start=22), chat(6, 4, start=23),
    ]
    steps[0].error = "WorkflowRuntimeError"
    steps[0].limit = "max_steps"
    runs = by_agent(assemble(steps))
    assert kinds(runs["orchestrator"]) == [TOOL, DELEGATE]
    assert runs["orchestrator"].delegations == [("orchestrator", "billing")]
    assert (runs["orchestrator"].error, runs["orchestrator"].limits) == (
        "WorkflowRuntimeError", frozenset({"max_steps"}))
    assert (runs["billing"].error, runs["billing"].limits) == (None, frozenset())


def test_an_llm_span_around_an_llm_span_is_one_model_call() -> None:
    outer, inner = chat(2, 1, start=1), chat(3, 2, start=2)
    inner.error = "InternalServerError"
    runs = assemble([agent(1, None, "a", end=10), outer, inner])
    assert [(s.span_id, s.error) for s in runs[0].steps] == [(3, "InternalServerError")]


def test_hand_off_tool_whose_target_runs_inside_it_is_one_edge() -> None:
    delegate = tool(2, 1, "delegate_work_to_coworker", start=10)
    delegate.handoff_tool, delegate.handoff_hint = True, "billing"
    lone = tool(4, 1, "delegate_work_to_coworker", start=30)
    lone.handoff_tool, lone.handoff_hint = True, "billing"  # the coworker left no span
    steps = [agent(1, None, "triage", end=100), delegate, agent(3, 2, "billing", start=11, end=20),
             lone]
    runs = by_agent(assemble(steps))
    assert runs["triage"].delegations == [("triage", "billing"), ("triage", "billing")]


def test_a_workflow_edge_between_two_agents_runs_is_the_sources_hand_off() -> None:
    def edge(span_id: int, source: str, target: str, start: int) -> Step:
        step = span(span_id, 1, "edge", start=start)
        step.kind, step.handoff_from, step.handoff_to = HANDOFF, source, target
        return step

    steps = [
        workflow(1, None, end=100),
        span(2, 1, "executor triage", start=1, end=20), agent(3, 2, "triage", start=2, end=10),
        edge(4, "triage", "billing", 21),
        edge(5, "orchestrator", "triage", 22),  # routing by a non-agent: no edge
        edge(6, "triage", "nobody", 23),  # a target that never ran: no edge
        span(7, 1, "executor billing", start=30, end=50), agent(8, 7, "billing", start=31, end=40),
    ]
    runs = by_agent(assemble(steps))
    assert runs["triage"].delegations == [("triage", "billing")]
    assert kinds(runs["triage"]) == [HANDOFF]
    assert runs["billing"].delegations == []
    assert UNKNOWN_AGENT not in runs and "orchestrator" not in runs


# --------------------------------------------------------------------------- one call, two spans


def test_model_span_inside_a_model_span_is_one_call_with_the_inner_facts() -> None:
    """A vendor's client span inside a framework's model span (Logfire): one call; the
    outer span had no model or error, the inner one did."""
    outer = span(3, 2, "chat", {"gen_ai.operation.name": "chat"})
    inner = span(4, 3, "Chat Completion", {"gen_ai.operation.name": "chat",
                                           "gen_ai.request.model": "m", "error.type": "E"})
    runs = by_agent(assemble([agent(2, None, "a"), outer, inner, chat(5, 2, "m2", start=2)]))
    assert kinds(runs["a"]) == [LLM, LLM]
    assert [(s.model, s.error) for s in runs["a"].steps] == [("m", "E"), ("m2", None)]


def test_same_tool_nested_is_one_call_another_tool_nested_is_two() -> None:
    steps = [agent(1, None, "a"), tool(2, 1, "get"), tool(3, 2, "get", attrs={"error.type": "E"}),
             tool(4, 1, "outer", start=2), tool(5, 4, "inner", start=2)]
    run = by_agent(assemble(steps))["a"]
    assert [(s.tool, s.error) for s in run.steps] == [
        ("get", "E"), ("outer", None), ("inner", None)]


def test_model_spans_in_a_nested_agent_are_its_own() -> None:
    """An agent started inside a model span (no real stack does it, but a nested run resets
    the rule): the inner agent's model call is counted for it."""
    runs = by_agent(assemble([agent(1, None, "a"), chat(2, 1), agent(3, 2, "b"), chat(4, 3)]))
    assert (kinds(runs["a"]), kinds(runs["b"])) == ([LLM, DELEGATE], [LLM])


def test_mcp_server_half_waits_for_its_caller_or_the_end() -> None:
    """Alone (the processor runs in the MCP server only), the server's tool call is assembled
    at the flush and counted for the server's service.name; it never opens a run early."""
    from otel_agentcov.engine import CoverageEngine

    engine = CoverageEngine()
    engine.ingest(SpanRecord(
        trace_id=7, span_id=9, parent_id=8, parent_remote=True, kind=1,
        name="tools/call get_weather", start_ns=1, end_ns=2,
        attributes={"mcp.method.name": "tools/call", "gen_ai.operation.name": "execute_tool",
                    "gen_ai.tool.name": "get_weather"},
        resource_attributes={"service.name": "tools-server"}))
    assert engine.assembler.traces_in_flight == 1
    engine.flush_all()
    tools = engine.state.agents["tools-server"].inventory.tools
    assert {t: tuple(c) for t, c in tools.items()} == {"get_weather": (1, 0)}


def _turn(span_id: int, parent: int, finish: str, start: int) -> Step:
    return span(span_id, parent, "chat m", {"gen_ai.operation.name": "chat",
                                            "gen_ai.response.finish_reasons": [finish]},
                start=start)


def test_a_run_ending_on_a_tool_request_was_cut_by_its_step_limit() -> None:
    """The AI SDK's stopWhen and Mastra's maxSteps end the loop without an error: the last model
    turn asked for tools. A run that ends on its answer, or hands over, was not cut."""
    cut = assemble([agent(1, None, "looper"), _turn(2, 1, "tool-calls", 1), tool(3, 1, "t", 2)])
    done = assemble([agent(1, None, "a"), _turn(2, 1, "tool_calls", 1), _turn(3, 1, "stop", 2)])
    handed = assemble([agent(1, None, "triage"), _turn(2, 1, "tool_calls", 1),
                       tool(3, 1, "transfer_to_billing", 2)])
    finished = assemble([agent(1, None, "billing"), _turn(2, 1, "tool_calls", 1),
                         tool(3, 1, "Handoff-complete_task", 2)])  # Semantic Kernel
    assert [r.limits for r in (*cut, *done, *handed, *finished)] == [
        frozenset({"max_steps"}), frozenset(), frozenset(), frozenset()]


def test_tools_an_app_runs_between_two_runs_of_one_agent_are_that_agents() -> None:
    """An app request (`serve`, no agent) runs `weather` (one model call naming its tools),
    then the tools itself, then `weather` again with their results: the tools are weather's
    (its earlier run's), one inside them calling `billing` a delegation. A tool between runs of
    two agents, or during a run, stays where it is."""
    app = span(1, None, "serve", start=0, end=100)
    first, second = agent(2, 1, "weather", 0, 10), agent(5, 1, "weather", 40, 50)
    steps = [app, first, chat(3, 2, start=1), second, chat(6, 5, start=41),
             tool(4, 1, "get_weather", 12), tool(7, 1, "ask_billing", 20),
             agent(8, 7, "billing", 21, 22), chat(9, 8, start=21)]
    runs = assemble(steps)
    weather = [r for r in runs if r.agent == "weather"]
    assert [sorted(s.tool for s in r.steps if s.kind == TOOL) for r in weather] == [
        ["ask_billing", "get_weather"], []]
    assert weather[0].delegations == [("weather", "billing")]
    assert {r.agent for r in runs} == {"weather", "billing"}  # no run for the app's service

    triage = agent(12, 11, "triage", 0, 10, trace_id=2)
    billing = agent(14, 11, "billing", 40, 50, trace_id=2)
    handed = assemble([span(11, None, "serve", start=0, end=100, trace_id=2), triage, billing,
                       tool(13, 11, "lookup", 20, trace_id=2)])
    assert {r.agent: [s.tool for s in r.steps if s.kind == TOOL] for r in handed} == {
        "triage": [], "billing": [], UNKNOWN_AGENT: ["lookup"]}
