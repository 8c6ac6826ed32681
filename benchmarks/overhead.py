"""Overhead on the agent: a synthetic agent emitting GenAI spans with the real OpenTelemetry SDK.

Four configurations run interleaved in every round (so machine noise hits them alike): no
processor, a no-op processor, `BatchSpanProcessor(InMemorySpanExporter())` and
`AgentCoverageProcessor`. "Added cost" is reported two ways, both per span, against no processor:

- host-thread CPU (`time.thread_time` of the agent's thread during the workload): what the agent's
  own thread executes, `on_end` and the garbage collection it triggers;
- total CPU (`time.process_time` over the workload plus `force_flush`, so every span's processing
  is included, worker threads too). With a CPU-bound agent on CPython the worker holds the GIL
  while it runs, so in steady state this is also the wall time the agent loses.

`on_end` percentiles are measured in situ (a timing wrapper inside the provider, the worker
running concurrently).
"""

from __future__ import annotations

import gc
import time
from collections.abc import Callable

from harness import Row, Section
from opentelemetry.context import Context
from opentelemetry.sdk.trace import ReadableSpan, Span, SpanProcessor, TracerProvider
from opentelemetry.sdk.trace.export import BatchSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

from otel_agentcov import AgentCoverageProcessor

RUNS_PER_ROUND = 2000  # 1 agent + 2 llm + 2 tool spans each -> 10 000 spans per round
SPANS_PER_RUN = 5


def workload(provider: TracerProvider, runs: int = RUNS_PER_ROUND) -> int:
    """An agent loop: invoke_agent around two model calls and two tool calls."""
    tracer = provider.get_tracer("bench")
    for i in range(runs):
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
                    pass  # fmt: skip
    return runs * SPANS_PER_RUN


class NoOp(SpanProcessor):
    """The cost of the SDK calling one more processor."""


class TimedOnEnd(SpanProcessor):
    """Records the duration of each `inner.on_end` call as the host thread sees it."""

    def __init__(self, inner: SpanProcessor) -> None:
        self.inner = inner
        self.ns: list[int] = []

    def on_start(self, span: Span, parent_context: Context | None = None) -> None:
        self.inner.on_start(span, parent_context)

    def on_end(self, span: ReadableSpan) -> None:
        t0 = time.perf_counter_ns()
        self.inner.on_end(span)
        self.ns.append(time.perf_counter_ns() - t0)

    def shutdown(self) -> None:
        self.inner.shutdown()

    def force_flush(self, timeout_millis: int = 30_000) -> bool:
        return self.inner.force_flush(timeout_millis)


Make = Callable[[], SpanProcessor | None]
CONFIGS: list[tuple[str, Make]] = [
    ("none", lambda: None),
    ("noop", NoOp),
    ("batch", lambda: BatchSpanProcessor(InMemorySpanExporter())),
    ("coverage", AgentCoverageProcessor),
]


def measure(make: Make) -> tuple[float, float, float]:
    """(host wall ns, host-thread CPU ns, total CPU ns incl. flush) per span, one round."""
    gc.collect()
    provider = TracerProvider()
    processor = make()
    if processor is not None:
        provider.add_span_processor(processor)
    cpu0, th0, w0 = time.process_time_ns(), time.thread_time_ns(), time.perf_counter_ns()
    n = workload(provider)
    w1, th1 = time.perf_counter_ns(), time.thread_time_ns()
    provider.force_flush()
    cpu1 = time.process_time_ns()
    provider.shutdown()
    return (w1 - w0) / n, (th1 - th0) / n, (cpu1 - cpu0) / n


def on_end_percentiles(rounds: int) -> tuple[list[float], list[float]]:
    p50: list[float] = []
    p99: list[float] = []
    for _ in range(rounds):
        timed = TimedOnEnd(AgentCoverageProcessor())
        provider = TracerProvider()
        provider.add_span_processor(timed)
        workload(provider)
        provider.shutdown()
        ns = sorted(timed.ns)
        p50.append(ns[len(ns) // 2] / 1e3)
        p99.append(ns[int(len(ns) * 0.99)] / 1e3)
    return p50, p99


def section(rounds: int) -> Section:
    workload(TracerProvider(), 200)  # warm imports and caches
    samples: dict[str, list[tuple[float, float, float]]] = {name: [] for name, _ in CONFIGS}
    for _ in range(rounds):
        for name, make in CONFIGS:
            samples[name].append(measure(make))

    def added(name: str, metric: int) -> list[float]:
        return [s[metric] - b[metric] for s, b in zip(samples[name], samples["none"], strict=True)]

    def ratio(metric: int) -> list[float]:
        pairs = zip(added("coverage", metric), added("batch", metric), strict=True)
        return [c / b for c, b in pairs]

    rows = [Row("span, no processor: total CPU", [s[2] for s in samples["none"]], "ns/span")]
    for label, metric in (("host-thread CPU", 1), ("total CPU", 2), ("host wall", 0)):
        for name in ("noop", "batch", "coverage"):
            rows.append(Row(f"{name} added {label}", added(name, metric), "ns/span"))
    rows += [
        Row("coverage/batch added, host-thread CPU", ratio(1), "ratio", "<= 0.40",
            lambda v: v <= 0.4),
        Row("coverage/batch added, total CPU", ratio(2), "ratio", "<= 0.5",
            lambda v: v <= 0.5),
    ]  # fmt: skip
    p50, p99 = on_end_percentiles(max(3, rounds // 2))
    rows += [
        Row("AgentCoverageProcessor.on_end p50", p50, "µs"),
        Row("AgentCoverageProcessor.on_end p99", p99, "µs", "< 20", lambda v: v < 20),
    ]
    notes = [
        f"{RUNS_PER_ROUND * SPANS_PER_RUN} spans per round (invoke_agent, 2 chat, 2 execute_tool "
        "per run); added = configuration minus no processor, same round.",
        "Host wall covers the workload only (spans still queued are processed in force_flush, "
        "outside it); total CPU covers workload + force_flush, worker threads included.",
        "Where the time goes (perf and cProfile of the worker): the SDK span is read in place and "
        "classified by the compiled core (_core.sdk_step; its Rust parts are ~1-1.5 % of samples "
        "each); the rest is Python: run assembly, run facts and the state update, attribute reads "
        "on the SDK objects, Step objects and their garbage collection. "
        "BatchSpanProcessor's added cost is mostly garbage collection of the spans its "
        "in-memory exporter keeps (it grows with spans per round).",
        "Total-CPU target gap: BatchSpanProcessor only moves a span, the coverage worker also "
        "assembles runs and folds them into the state in Python; at <= 0.5x that would need "
        "< ~5 us/span for all of it, i.e. assembly and run facts in the core too.",
    ]
    return Section("Overhead on the agent (real OpenTelemetry SDK spans)", rows, notes)
