"""How cost grows: the engine's per-span CPU (classify, assembly, judge, state; records built
beforehand) as traces get longer and agents more numerous, and the memory a trace in flight
holds. In process, 40 k spans per configuration; it must stay flat.
"""

from __future__ import annotations

import time
import tracemalloc

from harness import Row, Section

from otel_agentcov.assembler import Bounds
from otel_agentcov.engine import CoverageEngine
from otel_agentcov.records import SpanRecord

SPANS = 40_000
_MS = 1_000_000


def _trace(trace_id: int, spans: int, agent: str, root: bool = True) -> list[SpanRecord]:
    """An agent span over spans-1 children (model call, then a tool, alternating), children
    first as an exporter sends them; the root last (or not at all: a trace still in flight)."""
    out = []
    for i in range(1, spans):
        start = i * 10 * _MS
        if i % 2:
            attrs = {"gen_ai.operation.name": "chat", "gen_ai.request.model": "gpt-4o",
                     "gen_ai.usage.input_tokens": 100, "gen_ai.usage.output_tokens": 20}
            name = "chat gpt-4o"
        else:
            tool = f"tool_{i % 7}"
            attrs = {"gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": tool}
            name = f"execute_tool {tool}"
        out.append(SpanRecord(trace_id, i + 1, 1, name, start_ns=start, end_ns=start + 5 * _MS,
                              attributes=attrs))
    if root:
        out.append(SpanRecord(trace_id, 1, None, f"invoke_agent {agent}", start_ns=0,
                              end_ns=spans * 10 * _MS,
                              attributes={"gen_ai.operation.name": "invoke_agent",
                                          "gen_ai.agent.name": agent}))
    return out


def _records(per_trace: int, agents: int) -> list[SpanRecord]:
    return [r for t in range(SPANS // per_trace)
            for r in _trace(t + 1, per_trace, f"agent_{t % agents}")]


def _ns_per_span(records: list[SpanRecord]) -> float:
    engine = CoverageEngine(bounds=Bounds(max_spans_per_trace=20_000))
    ingest = engine.ingest
    started = time.process_time()
    for record in records:
        ingest(record)
    engine.flush_all()
    return (time.process_time() - started) / len(records) * 1e9


def _bytes_per_trace_in_flight(traces: int, per_trace: int = 10) -> float:
    records = [r for t in range(traces) for r in _trace(t + 1, per_trace, "a", root=False)]
    engine = CoverageEngine(bounds=Bounds(max_traces=traces))
    tracemalloc.start()
    before = tracemalloc.get_traced_memory()[0]
    for record in records:
        engine.ingest(record)
    held = tracemalloc.get_traced_memory()[0] - before
    tracemalloc.stop()
    assert engine.assembler.traces_in_flight == traces
    return held / traces


def section(rounds: int) -> Section:
    rounds = max(1, min(rounds, 3))
    shapes = [(n, 1) for n in (10, 100, 1000, 10_000)] + [(10, a) for a in (100, 1000)]
    costs: dict[tuple[int, int], list[float]] = {s: [] for s in shapes}
    for _ in range(rounds):
        for shape in shapes:
            costs[shape].append(_ns_per_span(_records(*shape)))
    rows = [
        Row(f"{n:,} spans/trace, {a:,} agent{'s' if a > 1 else ''}: engine CPU per span",
            samples, "ns/span")
        for (n, a), samples in costs.items()
    ]
    for big, small, what in (((10_000, 1), (10, 1), "10,000 / 10 spans per trace"),
                             ((10, 1000), (10, 1), "1,000 / 1 agents")):
        rows.append(Row(f"growth of the per-span cost, {what}",
                        [b / s for b, s in zip(costs[big], costs[small], strict=True)],
                        "ratio", "<= 1.5", lambda v: v <= 1.5))
    for traces in (100, 1000, 10_000):
        rows.append(Row(f"memory per trace in flight ({traces:,} open traces of 9 spans)",
                        [_bytes_per_trace_in_flight(traces) for _ in range(1)], "bytes"))
    notes = [
        f"{SPANS:,} GenAI spans per configuration (an agent span over alternating model and tool "
        "calls), SpanRecords built beforehand, so this is the engine alone: classify, assembly, "
        "judge and state; process CPU time. 10,000 spans/trace runs with the per-trace span "
        "bound raised to 20,000 (its default, 10,000, would flush that trace early).",
        "Memory: tracemalloc of the engine after ingesting the children of N traces whose root "
        "never arrives (the steps buffered until the root or the TTL closes them).",
    ]
    return Section("Scaling (in process)", rows, notes)
