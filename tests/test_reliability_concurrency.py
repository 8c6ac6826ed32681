"""Concurrency: many host threads ending spans while scrapes, snapshots, force_flush and shutdown
run (docs/guarantees.md: safe under concurrent on_end, never blocks or raises into the host).

Totals are exact: every ended span is processed or dropped with a reason, none lost, none twice.
Every join has a timeout, so a deadlock fails the test instead of hanging the suite.
"""

from __future__ import annotations

import threading
from collections import deque
from collections.abc import Callable

import pytest
from opentelemetry.sdk.trace import ReadableSpan, Tracer, TracerProvider

from otel_agentcov.assembler import Bounds
from otel_agentcov.exporters.prometheus import render
from otel_agentcov.processor import AgentCoverageProcessor

WRITERS, RUNS_PER_WRITER, TOOLS_PER_RUN = 8, 1500, 2
JOIN_S = 60.0


def _sdk(**kw: object) -> tuple[AgentCoverageProcessor, Tracer]:
    processor = AgentCoverageProcessor(flush_interval_s=0.01, **kw)  # type: ignore[arg-type]
    provider = TracerProvider()
    provider.add_span_processor(processor)
    return processor, provider.get_tracer("concurrency")


def _writer(tracer: Tracer, agent: str, ended: list[int], i: int,
            stop: threading.Event | None = None) -> None:
    """RUNS_PER_WRITER runs, or runs until `stop` is set."""
    runs = 0
    while (runs < RUNS_PER_WRITER) if stop is None else not stop.is_set():
        runs += 1
        attrs = {"gen_ai.operation.name": "invoke_agent", "gen_ai.agent.name": agent}
        with tracer.start_as_current_span("invoke_agent", attributes=attrs):
            for t in range(TOOLS_PER_RUN):
                tool = {"gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": f"t{t}"}
                with tracer.start_as_current_span("execute_tool", attributes=tool):
                    pass
        ended[i] += 1 + TOOLS_PER_RUN


def _run_all(threads: list[threading.Thread]) -> None:
    for t in threads:
        t.start()


def _join_all(threads: list[threading.Thread]) -> None:
    for t in threads:
        t.join(JOIN_S)
        assert not t.is_alive(), f"{t.name} did not finish: deadlock?"


def _loop_until(done: threading.Event, action: Callable[[], object], count: list[int]) -> None:
    while not done.is_set():
        action()
        count[0] += 1


@pytest.mark.slow
@pytest.mark.timeout(180)
@pytest.mark.parametrize("max_queue", [100_000, 64])  # 64: the queue overflows, drops counted
def test_threads_end_spans_while_scrapes_snapshots_and_flushes_run(max_queue: int) -> None:
    processor, tracer = _sdk(bounds=Bounds(max_queue=max_queue))
    ended = [0] * WRITERS
    writers = [threading.Thread(target=_writer, args=(tracer, f"agent{i}", ended, i),
                                name=f"writer{i}") for i in range(WRITERS)]
    done = threading.Event()
    counts = {"scrape": [0], "snapshot": [0], "flush": [0]}
    actions: dict[str, Callable[[], object]] = {
        "scrape": lambda: render(processor), "snapshot": processor.snapshot,
        "flush": processor.force_flush,
    }
    readers = [threading.Thread(target=_loop_until, args=(done, actions[k], counts[k]), name=k)
               for k in actions]
    _run_all(writers + readers)
    _join_all(writers)
    done.set()
    _join_all(readers)
    assert processor.force_flush() is True

    report = processor.snapshot().to_dict()
    spans = report["spans"]
    total = sum(ended)
    assert total == WRITERS * RUNS_PER_WRITER * (1 + TOOLS_PER_RUN)
    assert spans["processed"] == total
    assert spans["internal_errors"] == 0
    dropped = spans["dropped"].get("queue_full", 0)
    assert set(spans["dropped"]) <= {"queue_full"}
    assert sum(spans["by_kind"].values()) == total - dropped
    if max_queue == 100_000:
        assert dropped == 0
        for i in range(WRITERS):
            agent = report["agents"][f"agent{i}"]
            assert agent["runs"]["count"] == RUNS_PER_WRITER
            assert agent["tools"]["called"]["t0"] == {"ok": RUNS_PER_WRITER, "error": 0}
    assert all(c[0] > 0 for c in counts.values())
    processor.shutdown()
    print(f"\n{total} spans from {WRITERS} threads, {dropped} dropped (queue {max_queue}); "
          + ", ".join(f"{k} x{c[0]}" for k, c in counts.items()))


@pytest.mark.slow
@pytest.mark.timeout(180)
def test_shutdown_during_load_counts_every_span_and_never_hangs() -> None:
    processor, tracer = _sdk()
    ended = [0] * WRITERS
    stop = threading.Event()
    writers = [threading.Thread(target=_writer, args=(tracer, f"agent{i}", ended, i, stop),
                                name=f"writer{i}") for i in range(WRITERS)]
    scraper_done = threading.Event()
    scrapes = [0]
    scraper = threading.Thread(target=_loop_until, args=(scraper_done, lambda: render(processor),
                                                         scrapes), name="scraper")
    _run_all([*writers, scraper])
    while sum(ended) < 5000:  # load is flowing
        threading.Event().wait(0.005)
    shutter = threading.Thread(target=processor.shutdown, name="shutdown")
    shutter.start()
    _join_all([shutter])
    at_shutdown = sum(ended)
    while sum(ended) < at_shutdown + 3000:  # the host keeps ending spans after shutdown
        threading.Event().wait(0.005)
    stop.set()
    _join_all(writers)
    scraper_done.set()
    _join_all([scraper])

    stats = processor.snapshot().to_dict()["spans"]
    assert stats["processed"] == sum(ended)
    assert stats["internal_errors"] == 0
    assert set(stats["dropped"]) <= {"after_shutdown"}
    assert stats["dropped"].get("after_shutdown", 0) > 0
    print(f"\nshutdown under load: {sum(ended)} ended, "
          f"{stats['dropped'].get('after_shutdown', 0)} after shutdown, {scrapes[0]} scrapes")


class _ShutdownOnAppend(deque[ReadableSpan]):
    """Replays the race exactly: shutdown completes between on_end's check and its append."""

    def __init__(self, processor: AgentCoverageProcessor) -> None:
        super().__init__()
        self.processor = processor

    def append(self, span: ReadableSpan) -> None:
        self.processor.shutdown()
        super().append(span)


@pytest.mark.timeout(30)
def test_a_span_racing_shutdown_is_still_counted() -> None:
    processor, tracer = _sdk()
    processor._queue = _ShutdownOnAppend(processor)
    with tracer.start_as_current_span("chat", attributes={"gen_ai.operation.name": "chat"}):
        pass
    assert processor.span_stats()["processed"] == 1
