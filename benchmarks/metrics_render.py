"""Time of one Prometheus scrape (`render()`) for 100 agents x 50 tools.

Run: `.venv/bin/python benchmarks/metrics_render.py`. Builds the state by feeding SpanRecords to a
CoverageEngine (per agent, runs that call its 50 tools), then prints the median of 20 renders in
ms. Never asserts (machines here are noisy).
"""

from __future__ import annotations

import statistics
import time

from otel_agentcov.engine import CoverageEngine
from otel_agentcov.exporters.prometheus import render
from otel_agentcov.records import SpanRecord

AGENTS = 100
TOOLS = 50
RUNS_PER_AGENT = 5  # each run calls 10 of the agent's tools, so every tool is called
TOOLS_PER_RUN = TOOLS // RUNS_PER_AGENT
RENDERS = 20


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


def main() -> None:
    engine = build()
    body = render(engine)
    samples = []
    for _ in range(RENDERS):
        start = time.perf_counter()
        render(engine)
        samples.append((time.perf_counter() - start) * 1000)
    series = sum(1 for line in body.splitlines() if line and not line.startswith(b"#"))
    print(f"agents={AGENTS} tools/agent={TOOLS} series={series} bytes={len(body)}")
    print(f"render() median of {RENDERS}: {statistics.median(samples):.1f} ms "
          f"(min {min(samples):.1f}, max {max(samples):.1f})")


if __name__ == "__main__":
    main()
