"""`/metrics` render time for 100 agents x 50 tools (one Prometheus scrape of a busy service).

The state is built by feeding SpanRecords to a CoverageEngine (per agent, runs that together call
its 50 tools); each round times the report a scrape reads (`measures()`: the report without the
advice and expect list no metric shows), one full `render()` and the registry path, in the text
format and in OpenMetrics (what Prometheus asks for first, so what its scrapes cost).
"""

from __future__ import annotations

import time

from harness import Row, Section
from prometheus_client import generate_latest
from prometheus_client.openmetrics.exposition import generate_latest as openmetrics

from otel_agentcov.engine import CoverageEngine
from otel_agentcov.exporters.prometheus import make_registry, render
from otel_agentcov.records import SpanRecord
from otel_agentcov.snapshot import Measures
from otel_agentcov.snapshot.schema import Report

AGENTS = 100
TOOLS = 50
RUNS_PER_AGENT = 5  # each run calls 10 of the agent's tools, so every tool is called
TOOLS_PER_RUN = TOOLS // RUNS_PER_AGENT


def build() -> CoverageEngine:
    engine = CoverageEngine()
    trace_id = 0
    t0 = 1_735_689_600 * 10**9
    for a in range(AGENTS):
        agent = f"agent_{a:03d}"
        for r in range(RUNS_PER_AGENT):
            trace_id += 1
            root = trace_id << 16
            start = t0 + trace_id * 10**9
            for i in range(TOOLS_PER_RUN):
                tool = f"tool_{r * TOOLS_PER_RUN + i:02d}"
                engine.ingest(SpanRecord(
                    trace_id=trace_id, span_id=root + i + 1, parent_id=root,
                    name=f"execute_tool {tool}", start_ns=start + i * 10**6,
                    end_ns=start + (i + 1) * 10**6,
                    attributes={"gen_ai.operation.name": "execute_tool",
                                "gen_ai.tool.name": tool},
                ))  # fmt: skip
            engine.ingest(SpanRecord(
                trace_id=trace_id, span_id=root, parent_id=None, name=f"invoke_agent {agent}",
                start_ns=start, end_ns=start + 10**8,
                attributes={"gen_ai.operation.name": "invoke_agent", "gen_ai.agent.name": agent},
            ))  # fmt: skip
    return engine


def _ms(fn: object) -> float:
    start = time.perf_counter()
    fn()  # type: ignore[operator]
    return (time.perf_counter() - start) * 1000


class Rebuilt:
    """The engine as a scrape sees it when every agent changed since the last scrape: a fresh
    `Measures` (no agent's report kept) per call, and as a new source, no text kept either."""

    def __init__(self, engine: CoverageEngine) -> None:
        self.engine = engine

    def measures(self) -> Report:
        engine = self.engine
        with engine.lock:
            return Measures()(engine.state, engine.spec, engine.span_stats())


def section(rounds: int) -> Section:
    engine = build()
    body = render(engine)
    series = sum(1 for line in body.splitlines() if line and not line.startswith(b"#"))
    assert body == generate_latest(make_registry(engine))  # the fast path writes the same bytes
    assert render(Rebuilt(engine)) == body == render(engine)  # rebuilt, and reused
    om = render(engine, openmetrics=True)
    assert om == openmetrics(make_registry(engine)) == render(Rebuilt(engine), openmetrics=True)
    measures_ms, render_ms, registry_ms, unchanged_ms = [], [], [], []
    om_ms, om_registry_ms = [], []
    for _ in range(max(rounds, 5) * 3):
        measures_ms.append(_ms(Rebuilt(engine).measures))
        render_ms.append(_ms(lambda: render(Rebuilt(engine))))
        registry_ms.append(_ms(lambda: generate_latest(make_registry(Rebuilt(engine)))))
        unchanged_ms.append(_ms(lambda: render(engine)))
        om_ms.append(_ms(lambda: render(Rebuilt(engine), openmetrics=True)))
        om_registry_ms.append(_ms(lambda: openmetrics(make_registry(Rebuilt(engine)))))
    rows = [
        Row("measures(), every agent changed: the report a scrape reads", measures_ms, "ms"),
        Row("render(), every agent changed: measures + direct text (the /metrics path)",
            render_ms, "ms", "<= 25", lambda v: v <= 25),
        Row("render(), no agent changed since the last scrape", unchanged_ms, "ms"),
        Row("registry path, every agent changed: CoverageCollector + generate_latest",
            registry_ms, "ms"),
        Row("render / registry path (every agent changed)",
            [r / g for r, g in zip(render_ms, registry_ms, strict=True)], "ratio"),
        Row("OpenMetrics render(), every agent changed: measures + direct writer (serve's "
            "/metrics as Prometheus scrapes it)", om_ms, "ms", "<= 25", lambda v: v <= 25),
        Row("OpenMetrics registry path, every agent changed: CoverageCollector + its encoder",
            om_registry_ms, "ms"),
        Row("OpenMetrics render / OpenMetrics registry path (every agent changed)",
            [r / g for r, g in zip(om_ms, om_registry_ms, strict=True)], "ratio"),
    ]  # fmt: skip
    notes = [
        f"{AGENTS} agents x {TOOLS} tools: {series} series, {len(body):,} bytes per scrape; "
        "render() output is asserted byte-equal to the registry path before timing, in both "
        "formats.",
        "'Every agent changed': each agent's report and text rebuilt (a fresh Measures, a new "
        "source), as after a busy interval; an agent whose state did not change reuses both.",
        "The target is an absolute time, so machine load inflates it; the ratio to the registry "
        "path (same run) is the load-independent measure.",
    ]
    return Section("/metrics render", rows, notes)
