"""Per-span cost of AgentCoverageProcessor on the host thread, against baselines in the same run.

Run: `make bench` (or `.venv/bin/python benchmarks/on_end_cost.py`). Prints medians of repeated
rounds and ratios; never asserts (machines here are noisy).
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable

from opentelemetry.sdk.trace import ReadableSpan, SpanProcessor, TracerProvider
from opentelemetry.sdk.trace.export import BatchSpanProcessor, SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

from otel_agentcov import AgentCoverageProcessor

RUNS_PER_ROUND = 400  # 1 agent + 2 llm + 2 tool spans each -> 2000 spans per round
ROUNDS = 7


def workload(provider: TracerProvider) -> int:
    tracer = provider.get_tracer("bench")
    spans = 0
    for i in range(RUNS_PER_ROUND):
        with tracer.start_as_current_span(
            "invoke_agent bench",
            attributes={"gen_ai.operation.name": "invoke_agent", "gen_ai.agent.name": "bench"},
        ):
            for j in range(2):
                with tracer.start_as_current_span(
                    "chat gpt-4o",
                    attributes={"gen_ai.operation.name": "chat", "gen_ai.request.model": "gpt-4o",
                                "gen_ai.usage.input_tokens": 100, "gen_ai.usage.output_tokens": 20},
                ):
                    pass
                with tracer.start_as_current_span(
                    f"execute_tool t{(i + j) % 5}",
                    attributes={"gen_ai.operation.name": "execute_tool",
                                "gen_ai.tool.name": f"t{(i + j) % 5}"},
                ):
                    pass
        spans += 5
    return spans


def per_span_ns(make: Callable[[], SpanProcessor | None]) -> float:
    samples = []
    for _ in range(ROUNDS):
        provider = TracerProvider()
        processor = make()
        if processor is not None:
            provider.add_span_processor(processor)
        start = time.perf_counter_ns()
        n = workload(provider)
        samples.append((time.perf_counter_ns() - start) / n)
        provider.shutdown()
    return statistics.median(samples)


class NoOp(SpanProcessor):
    pass


def on_end_percentiles() -> tuple[float, float]:
    """Time `on_end` itself on real ended spans (the call the host thread makes)."""
    exporter = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    workload(provider)
    spans: list[ReadableSpan] = list(exporter.get_finished_spans())
    processor = AgentCoverageProcessor()
    timings = []
    for _ in range(5):
        for span in spans:
            t0 = time.perf_counter_ns()
            processor.on_end(span)
            timings.append(time.perf_counter_ns() - t0)
        processor.force_flush()
    processor.shutdown()
    timings.sort()
    return timings[len(timings) // 2] / 1e3, timings[int(len(timings) * 0.99)] / 1e3


def main() -> None:
    base = per_span_ns(lambda: None)
    rows = [
        ("no processor", base),
        ("no-op processor", per_span_ns(NoOp)),
        ("BatchSpanProcessor(InMemory)",
         per_span_ns(lambda: BatchSpanProcessor(InMemorySpanExporter()))),
        ("AgentCoverageProcessor", per_span_ns(AgentCoverageProcessor)),
    ]
    print(f"{'configuration':32} {'ns/span':>9} {'added ns':>9} {'x base':>7}")
    for name, ns in rows:
        print(f"{name:32} {ns:9.0f} {ns - base:9.0f} {ns / base:7.2f}")
    batch_added = rows[2][1] - base
    cov_added = rows[3][1] - base
    print(f"coverage added / batch added = {cov_added / batch_added:.2f} (target <= 0.50)")
    p50, p99 = on_end_percentiles()
    print(f"AgentCoverageProcessor.on_end: p50 {p50:.2f} us, p99 {p99:.2f} us (target p99 < 20 us)")


if __name__ == "__main__":
    main()
