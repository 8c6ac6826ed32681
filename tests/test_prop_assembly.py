"""Property tests: run assembly on random span forests (docs/architecture.md#data-flow,
docs/semantics.md#detection-rules).

Random trees with missing parents, parent-id cycles, self-parents, duplicate span ids, random
arrival order, random local roots and tight bounds: assembly terminates, never raises, and every
LLM/tool/hand-off step lands in exactly one run, whatever the shape.
"""

from __future__ import annotations

from collections import Counter

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from otel_agentcov.assembler import AgentRun, Bounds, RunAssembler, assemble
from otel_agentcov.semconv.step import AGENT, DELEGATE, HANDOFF, LLM, OTHER, TOOL, WORKFLOW, Step

RUN_KINDS = (LLM, TOOL, HANDOFF)


@st.composite
def forests(draw: st.DrawFn, max_spans: int = 40) -> list[Step]:
    """Steps of a few traces; parents may be absent, cyclic, the span itself or a remote id."""
    n = draw(st.integers(1, max_spans))
    steps: list[Step] = []
    for span_id in range(1, n + 1):
        kind = draw(st.sampled_from((LLM, TOOL, AGENT, HANDOFF, WORKFLOW, OTHER)))
        start = draw(st.integers(0, 50))
        steps.append(Step(
            trace_id=draw(st.integers(1, 3)),
            span_id=span_id,
            parent_id=draw(st.none() | st.integers(1, n + 3)),  # n+1.. are never seen
            kind=kind,
            start_ns=start,
            end_ns=start + draw(st.integers(0, 50)),
            fallback_agent=draw(st.sampled_from(("svc", "other_svc"))),
            agent=draw(st.sampled_from(("a", "b", "c", None))) if kind == AGENT else None,
            tool=draw(st.sampled_from(("t", "transfer_to_b", "handoff_to_agent"))),
            handoff_to=draw(st.none() | st.just("b")),
            handoff_tool=draw(st.booleans()),
            handoff_hint=draw(st.none() | st.just("b")),
        ))
    return draw(st.permutations(steps))


def _run_step_ids(runs: list[AgentRun]) -> Counter[tuple[int, int]]:
    return Counter((s.trace_id, s.span_id) for r in runs for s in r.steps if s.kind != DELEGATE)


def _wrappers(steps: list[Step]) -> set[tuple[int, int]]:
    """LLM spans around another LLM span of their trace: one model call, counted at the inner
    span, so the outer one is in no run."""
    first: dict[tuple[int, int], Step] = {}
    for s in steps:
        first.setdefault((s.trace_id, s.span_id), s)
    return {
        (s.trace_id, s.parent_id) for s in first.values()
        if s.kind == LLM and s.parent_id is not None and s.parent_id != s.span_id
        and (parent := first.get((s.trace_id, s.parent_id))) is not None and parent.kind == LLM
    }


def _expected(steps: list[Step]) -> Counter[tuple[int, int]]:
    wrappers = _wrappers(steps)
    return Counter((s.trace_id, s.span_id) for s in steps
                   if s.kind in RUN_KINDS and (s.trace_id, s.span_id) not in wrappers)


def _same_call_above(steps: list[Step], got: Counter[tuple[int, int]]) -> set[tuple[int, int]]:
    """The missing run steps that have a placed ancestor of the same call (a tool span inside
    the same tool's span, a model span inside a model span): one call, counted there."""
    first: dict[tuple[int, int], Step] = {}
    for s in steps:
        first.setdefault((s.trace_id, s.span_id), s)
    nested = set()
    for key in set(_expected(steps)) - set(got):
        s = first[key]
        seen, pid = {s.span_id}, s.parent_id
        while pid is not None and pid not in seen and (s.trace_id, pid) in first:
            seen.add(pid)
            up = first[(s.trace_id, pid)]
            if (s.trace_id, pid) in got and up.kind == s.kind and s.kind in (LLM, TOOL) and (
                s.kind == LLM or s.tool is None or s.tool == up.tool
            ):
                nested.add(key)
                break
            pid = up.parent_id
    return nested


def _placed(got: Counter[tuple[int, int]], steps: list[Step], pieces: bool = False) -> None:
    """Every run step is placed, once, except the inner span of one call recorded twice.
    Assembled in pieces (early flushes, late local roots), a wrapper and its inner call can
    land in different pieces: then the wrapper counts too. Nothing else may differ."""
    expected = set(_expected(steps))
    allowed = expected | _wrappers(steps) if pieces else expected
    assert all(n == 1 for n in got.values())
    assert set(got) <= allowed
    assert expected - set(got) <= _same_call_above(steps, got)


def _placed_once_in_pieces(got: Counter[tuple[int, int]], steps: list[Step]) -> None:
    _placed(got, steps, pieces=True)


@given(forests())
def test_assemble_places_every_run_step_exactly_once(steps: list[Step]) -> None:
    for trace_id in {s.trace_id for s in steps}:
        mine = [s for s in steps if s.trace_id == trace_id]
        runs = assemble(mine)
        _placed(_run_step_ids(runs), mine)
        named_agents = {s.agent for s in mine if s.kind == AGENT and s.agent}
        assert named_agents <= {r.agent for r in runs}
        for run in runs:
            assert run.trace_id == trace_id
            assert run.steps == sorted(run.steps, key=lambda s: (s.start_ns, s.end_ns))


@pytest.mark.slow
@settings(max_examples=150)
@given(forests(), st.lists(st.booleans(), min_size=40, max_size=40), st.integers(1, 4),
       st.integers(2, 12), st.sets(st.integers(0, 39), max_size=8), st.integers(1, 60))
def test_run_assembler_loses_and_duplicates_nothing_under_any_arrival_and_bounds(
    steps: list[Step], roots: list[bool], max_traces: int, max_spans: int, sweeps: set[int],
    max_buffered: int,
) -> None:
    now = [0.0]
    ra = RunAssembler(Bounds(max_traces=max_traces, max_spans_per_trace=max_spans, idle_ttl_s=5.0,
                             max_buffered_spans=max_buffered), clock=lambda: now[0])
    runs: list[AgentRun] = []
    for i, step in enumerate(steps):
        runs += ra.add(step, local_root=step.parent_id is None or roots[i])
        assert ra.traces_in_flight <= max_traces
        assert ra.buffered_spans <= max_buffered
        assert ra.buffered_spans == sum(len(s) for _, _, s in ra.open_traces())
        if i in sweeps:
            now[0] += 10.0
            runs += ra.sweep()
    runs += ra.flush_all("shutdown")
    assert ra.traces_in_flight == 0
    _placed_once_in_pieces(_run_step_ids(runs), steps)
    early = ra.flushed_early
    assert set(early) <= {"trace_limit", "span_limit", "span_budget", "idle_ttl", "shutdown"}
    if not sweeps:  # only the idle sweep flushes for idle_ttl
        assert early.get("idle_ttl", 0) == 0
    if max_spans > len(steps):  # no trace can reach the span limit
        assert early.get("span_limit", 0) == 0
    if max_buffered >= len(steps):  # the buffer can never exceed the budget
        assert early.get("span_budget", 0) == 0


@given(forests(max_spans=20), st.lists(st.integers(1, 20), min_size=1, max_size=10))
def test_duplicate_span_ids_never_raise_and_never_invent_steps(
    steps: list[Step], dup_ids: list[int]
) -> None:
    by_id = {s.span_id: s for s in steps}
    resent = [by_id[i] for i in dup_ids if i in by_id]  # an exporter retry re-sends spans
    ra = RunAssembler()
    runs: list[AgentRun] = []
    for step in steps + resent:
        runs += ra.add(step, local_root=step.parent_id is None)
    runs += ra.flush_all()
    got = _run_step_ids(runs)
    # each run step at least once (or inside a placed step of the same call), at most once per
    # time it was sent
    expected = set(_expected(steps))
    assert set(got) <= expected | _wrappers(steps)
    assert expected - set(got) <= _same_call_above(steps, got)
    assert all(n <= 1 + dup_ids.count(sid) for (_, sid), n in got.items())


# quadratic work on 100k spans takes hours; the bound leaves room for a loaded 2-core machine
@pytest.mark.slow
@pytest.mark.timeout(240)
@pytest.mark.parametrize("shape", ["chain", "cycle", "star"])
def test_a_hundred_thousand_span_trace_assembles_in_one_pass(shape: str) -> None:
    """Pairwise hand-off/hosting rules once made a 10k-span star take ~10 s (a CPU DoS)."""
    n = 100_000
    parent = {
        "chain": lambda i: i - 1 if i > 1 else None,
        "cycle": lambda i: i - 1 if i > 1 else n,  # one big parent-id cycle, no root at all
        "star": lambda i: 1 if i > 1 else None,
    }[shape]
    steps = [
        Step(trace_id=1, span_id=i, parent_id=parent(i), kind=TOOL if i % 2 else AGENT,
             start_ns=i, end_ns=2 * n - i, fallback_agent="svc", tool="transfer_to_b",
             handoff_tool=True, agent=None if i % 2 else f"agent{i}")  # 50k agents, 50k hand-offs
        for i in range(1, n + 1)
    ]
    runs = assemble(steps)
    _placed(_run_step_ids(runs), steps)


@pytest.mark.slow
@pytest.mark.timeout(240)
def test_a_hundred_thousand_workflow_edges_and_failed_workflows_assemble_in_one_pass() -> None:
    """Workflow hand-offs and failed workflows are matched to runs by index, not pairwise."""
    n = 100_000
    steps = [Step(trace_id=1, span_id=1, parent_id=None, kind=WORKFLOW, start_ns=0,
                  end_ns=3 * n, fallback_agent="svc", error="Boom")]
    for i in range(2, n + 1):
        if i % 4 == 0:  # a failed sub-workflow holding one agent run
            steps.append(Step(trace_id=1, span_id=i, parent_id=1, kind=WORKFLOW, start_ns=i,
                              end_ns=i + 2, fallback_agent="svc", error="Boom"))
        elif i % 4 == 1:
            steps.append(Step(trace_id=1, span_id=i, parent_id=i - 1, kind=AGENT, start_ns=i,
                              end_ns=i + 1, fallback_agent="svc", agent=f"a{i % 8}"))
        else:  # a workflow edge between the two agent names
            steps.append(Step(trace_id=1, span_id=i, parent_id=1, kind=HANDOFF, start_ns=i,
                              end_ns=i, fallback_agent="svc", handoff_from="a1",
                              handoff_to="a5"))
    runs = assemble(steps)
    assert _run_step_ids(runs) == _expected(steps)
    assert all(r.error == "Boom" for r in runs)
