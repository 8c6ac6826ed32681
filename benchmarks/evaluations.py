"""Evaluation events' cost: `AgentCoverageProcessor` per span with and without emission.

Both configurations run interleaved in every round on overhead.py's agent loop (real SDK spans),
under a spec that declares a restricted tool, so every run gives two records
(`agentcov.restricted_tool`, `agentcov.run`). With emission the records go through the real SDK
`LoggerProvider` and `BatchLogRecordProcessor` to an exporter that discards them (the cost of
encoding or sending is the exporter's, not agentcov's). Total CPU covers the workload plus
`force_flush` (worker threads included); host-thread CPU is the agent's own thread only.
"""

from __future__ import annotations

import gc
import time
from collections.abc import Sequence

from harness import Row, Section
from opentelemetry.sdk._logs import LoggerProvider, ReadableLogRecord
from opentelemetry.sdk._logs.export import (
    BatchLogRecordProcessor,
    LogRecordExporter,
    LogRecordExportResult,
)
from opentelemetry.sdk.trace import TracerProvider
from overhead import RUNS_PER_ROUND, SPANS_PER_RUN, workload

from otel_agentcov import AgentCoverageProcessor
from otel_agentcov.spec import CoverageSpec

SPEC = CoverageSpec.from_dict({"version": 1, "agents": [
    {"name": "bench", "tool_edges": {"restricted": ["t9"]}}]})


class Discard(LogRecordExporter):
    def __init__(self) -> None:
        self.records = 0

    def export(self, batch: Sequence[ReadableLogRecord]) -> LogRecordExportResult:
        self.records += len(batch)
        return LogRecordExportResult.SUCCESS

    def force_flush(self, timeout_millis: int = 30_000) -> bool:
        return True

    def shutdown(self) -> None:
        pass


def measure(emit: bool | None) -> tuple[float, float, int]:
    """(host-thread CPU ns, total CPU ns) per span and the records exported, one round; `emit`
    None runs the workload with no processor (the baseline the processor's cost is added to)."""
    gc.collect()
    exporter = Discard()
    logs = None
    if emit:
        logs = LoggerProvider(shutdown_on_exit=False)
        logs.add_log_record_processor(BatchLogRecordProcessor(exporter))
    provider = TracerProvider()
    if emit is not None:
        provider.add_span_processor(AgentCoverageProcessor(SPEC, logger_provider=logs))
    cpu0, th0 = time.process_time_ns(), time.thread_time_ns()
    n = workload(provider)
    th1 = time.thread_time_ns()
    provider.force_flush()
    if logs is not None:
        logs.force_flush()
    cpu1 = time.process_time_ns()
    provider.shutdown()
    if logs is not None:
        logs.shutdown()
    return (th1 - th0) / n, (cpu1 - cpu0) / n, exporter.records


def section(rounds: int) -> Section:
    workload(TracerProvider(), 200)  # warm imports and caches
    none: list[tuple[float, float, int]] = []
    off: list[tuple[float, float, int]] = []
    on: list[tuple[float, float, int]] = []
    for _ in range(rounds):
        none.append(measure(None))
        off.append(measure(False))
        on.append(measure(True))
    records = {s[2] for s in on}
    assert records == {2 * RUNS_PER_ROUND}, records  # every record reached the exporter

    def added(samples: list[tuple[float, float, int]], metric: int) -> list[float]:
        return [s[metric] - b[metric] for s, b in zip(samples, none, strict=True)]

    def ratio(metric: int) -> list[float]:
        return [a / b for a, b in zip(added(on, metric), added(off, metric), strict=True)]

    rows = [
        Row("span, no processor: total CPU", [s[1] for s in none], "ns/span"),
        Row("processor added, without emission: total CPU", added(off, 1), "ns/span"),
        Row("processor added, with emission: total CPU", added(on, 1), "ns/span"),
        Row("processor with/without emission, total CPU", ratio(1), "ratio", "<= 1.5",
            lambda v: v <= 1.5),
        Row("processor with/without emission, host-thread CPU", ratio(0), "ratio", "<= 1.5",
            lambda v: v <= 1.5),
    ]
    notes = [
        f"{RUNS_PER_ROUND * SPANS_PER_RUN} spans ({RUNS_PER_ROUND} runs) per round, 2 records "
        "per run (restricted tool pass + run), through the SDK's BatchLogRecordProcessor to a "
        "discarding exporter; both configurations in every round.",
        "Added = configuration minus no processor, same round. The host thread only pays for "
        "garbage collection the worker's allocations trigger there (noisy: the added host-thread "
        "cost is a few us/span): records are built as runs fold and emitted by the worker.",
    ]
    return Section("Evaluation events (processor per span)", rows, notes)
