"""AgentCoverageProcessor: the in-process front door, an OpenTelemetry SpanProcessor.

`on_end` only appends the span to a bounded queue (no I/O, no locks on the common path,
never raises); a worker thread classifies and assembles off the host's threads. The queue is
bounded in spans and in bytes: a span counts a flat `SPAN_BYTES`, or the length of its string
attribute values (captured prompts and outputs) when larger. Measuring costs ~1 us, so it is
done only once the queue is long (the worker is behind, which is when bytes pile up): at most
the first `_wake_at` (<= 128) queued spans go unmeasured. Only the part above the flat size is
accounted, under a lock, so spans without content never take one.

With a `logger_provider` (or `AGENTCOV_EVALUATIONS=on`: the globally configured one), each
judged run's verdicts are emitted as `gen_ai.evaluation.result` log records on the agent span
(docs/evaluations.md), by the worker thread only.
"""

from __future__ import annotations

import dataclasses
import logging
import os
import sys
import threading
import warnings
from collections import deque
from typing import Any

from opentelemetry._logs import LoggerProvider, get_logger_provider
from opentelemetry.context import Context
from opentelemetry.sdk._logs import LogRecordProcessor
from opentelemetry.sdk.trace import ReadableSpan, Span, SpanProcessor

from .assembler import Bounds
from .compiled import CoreFailed
from .engine import CoverageEngine
from .evaluations import EvaluationQueue, logger_for
from .records import from_readable_span
from .reporting import RenderedSnapshot
from .semconv.events import EVENT_NAMES, EVENT_TYPES, Event, event, service_agent
from .snapshot.schema import Report, SpanStats
from .spec import CoverageSpec
from .state import Limits

_log = logging.getLogger(__name__)
SPAN_BYTES = 2048  # a queued SDK span with a dozen short attributes, rounded up
EVALUATIONS_ENV = "AGENTCOV_EVALUATIONS"  # "on": emit through the global LoggerProvider


def _provider(given: LoggerProvider | None) -> LoggerProvider | None:
    """The provider evaluation events go to: the one given, else the global one when the
    environment turns them on (auto-instrumented apps), else none (nothing emitted)."""
    if given is not None:
        return given
    value = os.environ.get(EVALUATIONS_ENV, "").strip().lower()
    return get_logger_provider() if value in ("on", "true", "1") else None


_BOUND_NAMES = frozenset(f.name for f in dataclasses.fields(Bounds))


def _bounds(bounds: Bounds | None, old: dict[str, Any]) -> Bounds | None:
    """`max_queue=` and the other bounds as keywords, the spelling before `Bounds`: kept for one
    release with a DeprecationWarning, so code written to the old docs still starts."""
    if not old:
        return bounds
    unknown = sorted(set(old) - _BOUND_NAMES)
    if unknown:
        raise TypeError(f"AgentCoverageProcessor() got an unexpected keyword argument "
                        f"{unknown[0]!r}")
    warnings.warn(f"AgentCoverageProcessor({', '.join(f'{k}=' for k in sorted(old))}) is "
                  "deprecated and will be removed in the next release; use bounds=Bounds(...) "
                  "(from otel_agentcov.assembler import Bounds)", DeprecationWarning, stacklevel=3)
    return dataclasses.replace(bounds or Bounds(), **old)


def _str_bytes(attributes: Any) -> int:
    """The lengths of the string values in one SDK attribute mapping (its own dict, read in place:
    the public `attributes` property walks a locked mapping key by key, ~10 us a span)."""
    total = 0
    if attributes:
        for value in attributes._dict.values():
            if type(value) is str:
                total += len(value)
    return total


def _content_bytes(span: Any) -> int:
    """A span's string attribute bytes, its events' included: where captured content is; no
    copy, no encoding."""
    return _str_bytes(span._attributes) + sum(
        _str_bytes(e._attributes) for e in span._events or ()
    )


class AgentCoverageProcessor(SpanProcessor):
    """Maps ended GenAI spans into coverage state; `snapshot()` is the computed report."""

    def __init__(
        self,
        spec: CoverageSpec | None = None,
        *,
        bounds: Bounds | None = None,
        limits: Limits | None = None,
        flush_interval_s: float = 0.5,
        logger_provider: LoggerProvider | None = None,
        **old_bounds: Any,
    ) -> None:
        self.engine = CoverageEngine(spec, bounds=_bounds(bounds, old_bounds), limits=limits)
        provider = _provider(logger_provider)
        self._logger = logger_for(provider) if provider is not None else None
        if provider is not None:
            self.engine.evaluations = EvaluationQueue()
        # force_flush callers waiting for the worker's next round (it emits the events)
        self._flush_waiters: list[threading.Event] = []
        self._waiters_lock = threading.Lock()
        bounds = self.engine.bounds
        max_queue, max_queue_bytes = bounds.max_queue, bounds.max_queue_bytes
        # a span, or (span, bytes above SPAN_BYTES) when it was measured
        # ... or a decision or state event from the paired log processor (`log_processor`)
        self._queue: deque[ReadableSpan | tuple[ReadableSpan, int] | Event] = deque()
        self._max_queue = min(max_queue, max_queue_bytes // SPAN_BYTES)
        self._max_queue_bytes = max_queue_bytes
        self._extra_bytes = 0  # sum of the queued spans' bytes above SPAN_BYTES
        self._bytes_lock = threading.Lock()
        # wake the worker every 128 spans: a short queue retains fewer spans for the garbage
        # collector to scan, which the host thread pays for (benchmarks/overhead.py: host-thread
        # CPU added per span 6.8 us at 4096, 3.7 us at 128; total CPU lower too)
        self._wake_at = max(1, min(max_queue // 4, 128))
        self._flush_interval_s = flush_interval_s
        self._drain_lock = threading.Lock()
        self._wake = threading.Event()
        self._stopped = threading.Event()
        self._shutdown_lock = threading.Lock()
        self._is_shutdown = False
        self._worker = threading.Thread(target=self._work, name="agentcov-worker", daemon=True)
        self._worker.start()

    @property
    def spec(self) -> CoverageSpec:
        return self.engine.spec

    def log_processor(self) -> AgentCoverageLogProcessor:
        """The LogRecordProcessor paired with this processor: add it to the LoggerProvider so
        decision events (`gen_ai.tool.call.decision` log records) join their runs here."""
        self.engine.assembler.expect_events()
        return AgentCoverageLogProcessor(self)

    def enqueue_event(self, found: Event) -> None:
        """Queue a decision or state event behind the spans ended before it (the paired log
        processor's `on_emit`); bounded with the spans, never raises."""
        try:
            if self._is_shutdown or len(self._queue) >= self._max_queue:
                self.engine.count_event("buffer_full")
            else:
                self._queue.append(found)
        except Exception:
            self._internal_error()

    def on_start(self, span: Span, parent_context: Context | None = None) -> None:
        """Nothing to do: GenAI attributes are only complete when the span ends."""

    def on_end(self, span: ReadableSpan) -> None:
        """Enqueue only; the host thread never waits on coverage work."""
        try:
            if self._is_shutdown:
                self.engine.count_drop("after_shutdown")
                return
            queue = self._queue
            if len(queue) >= self._max_queue:
                self.engine.count_drop("queue_full")
                return
            item: Any = span
            if len(queue) >= self._wake_at:  # the worker is behind: only now is size measured
                try:
                    extra = _content_bytes(span) - SPAN_BYTES
                except AttributeError:  # not the SDK's ReadableSpan layout: the flat estimate
                    extra = 0
                if extra > 0:
                    with self._bytes_lock:
                        queued = (len(queue) + 1) * SPAN_BYTES + self._extra_bytes + extra
                        if queued > self._max_queue_bytes:
                            self.engine.count_drop("queue_bytes")
                            return
                        self._extra_bytes += extra
                    item = (span, extra)
            queue.append(item)
            if self._is_shutdown:  # shutdown finished between the check and the append:
                self._drain()  # its final drain missed this span, so count it here
            elif len(queue) >= self._wake_at and not self._wake.is_set():
                self._wake.set()  # set() takes a lock: only when it changes something
        except Exception:  # never raise into the host application
            self._internal_error()

    def _internal_error(self) -> None:
        try:
            self.engine.count_internal_error()
            # never the message: a core panic's or `int('...')`'s may quote a span's text, and
            # content never reaches a log (docs/guarantees.md)
            error = sys.exc_info()[1]
            what = ("a panic of the compiled core" if isinstance(error, CoreFailed)
                    else type(error).__name__)
            _log.debug("agentcov internal error: %s", what)
        except Exception:  # pragma: no cover - last line of defence
            pass

    def _drain(self) -> None:
        """Process what was queued when the drain began: under sustained load a scrape or
        force_flush that kept draining spans ended after it started would never return."""
        with self._drain_lock:
            queue = self._queue
            ingest = self.engine.ingest
            read = self.engine.sdk_steps()  # the core reads SDK spans in place, unless content
            for _ in range(len(queue)):
                item = queue.popleft()
                if isinstance(item, EVENT_TYPES):
                    self.engine.ingest_event(item)
                    continue
                if isinstance(item, tuple):  # measured: (span, bytes above the flat size)
                    span, extra = item
                    with self._bytes_lock:
                        self._extra_bytes -= extra
                else:
                    span = item
                try:
                    if read is None:  # a check reads content: from the SpanRecord
                        ingest(from_readable_span(span))  # its decision span events too
                    else:
                        if span.events:  # decision span events: joined as log records are
                            _span_events(self.engine, span)
                        ingest(read(span))
                except Exception:  # a core panic too: CoreFailed
                    self.engine.count_drop("malformed")
                    self._internal_error()
            self.engine.sweep()

    def _work(self) -> None:
        while not self._stopped.is_set():
            self._wake.wait(self._flush_interval_s)
            self._wake.clear()
            self._round()
        try:  # shutdown: finish open traces here, so their events leave from this thread
            self._drain()
            self.engine.flush_all("shutdown")
        except Exception:
            self._internal_error()
        self._round()

    def _round(self) -> None:
        """Drain, then emit the evaluation events queued so far; then release the force_flush
        calls that were waiting when the round began."""
        with self._waiters_lock:  # a waiter added later drained after this round began
            waiters, self._flush_waiters = self._flush_waiters, []
        try:
            self._drain()
        except Exception:
            self._internal_error()
        queue, logger = self.engine.evaluations, self._logger
        if queue is not None and logger is not None:
            try:
                queue.emit(logger)
            except Exception:
                self._internal_error()
        for waiter in waiters:
            waiter.set()

    def force_flush(self, timeout_millis: int = 30_000) -> bool:
        """Every span ended before this call is classified and visible to `snapshot()`; with
        evaluation events on, their records are emitted too (by the worker: this waits for it,
        at most `timeout_millis`)."""
        try:
            self._drain()
            if self.engine.evaluations is None or not self._worker.is_alive():
                return True
            done = threading.Event()
            with self._waiters_lock:
                self._flush_waiters.append(done)
            self._wake.set()
            return done.wait(timeout_millis / 1000)
        except Exception:
            self._internal_error()
            return False

    def shutdown(self) -> None:
        """Idempotent: stops the worker, processes what is queued and finishes open traces."""
        with self._shutdown_lock:
            if self._is_shutdown:
                return
            self._is_shutdown = True
        self._stopped.set()
        self._wake.set()
        if self._worker is not threading.current_thread():
            self._worker.join(timeout=5.0)
        try:
            self._drain()
            self.engine.flush_all("shutdown")
            queue = self.engine.evaluations
            if queue is not None:  # the worker is gone: never emitted from the caller's thread
                queue.count("shutdown", len(queue.take()))
        except Exception:
            self._internal_error()

    def snapshot(self) -> RenderedSnapshot:
        """The current report (`str()` of it is the text report); spans queued so far are
        processed first."""
        self._drain()
        return self.engine.snapshot()

    def measures(self) -> Report:
        """What a scrape reads (`CoverageEngine.measures`), spans queued so far processed first."""
        self._drain()
        return self.engine.measures()

    def span_stats(self) -> SpanStats:
        return self.engine.span_stats()

    def serve_metrics(
        self, port: int = 9464, addr: str = "127.0.0.1", **tls: Any
    ) -> tuple[Any, threading.Thread]:
        """Serve Prometheus `/metrics` for this processor (see `exporters.prometheus`).

        Returns `(server, thread)`; TLS keyword arguments pass through to prometheus_client.
        """
        from .exporters.prometheus import serve_metrics

        return serve_metrics(self, port=port, addr=addr, **tls)

    def metrics_app(self) -> Any:
        """A WSGI app serving the Prometheus exposition, for mounting behind an auth proxy."""
        from .exporters.prometheus import wsgi_app

        return wsgi_app(self)


def _span_events(engine: CoverageEngine, span: ReadableSpan) -> None:
    """Decision, state and guardrail span events of an SDK span, joined as their log-record
    form is."""
    context = span.context
    if context is None or not any(e.name in EVENT_NAMES for e in span.events):
        return
    agent = service_agent(span.resource.attributes if span.resource is not None else None)
    for e in span.events:
        found = event(e.name, e.attributes or {}, context.trace_id, context.span_id,
                      e.timestamp or 0, agent) if e.name in EVENT_NAMES else None
        if isinstance(found, EVENT_TYPES):
            engine.ingest_event(found)


class AgentCoverageLogProcessor(LogRecordProcessor):
    """The in-process front door for events: `on_emit` keeps only decision, state and guardrail
    events (names, outcomes, key counts, results and ids, never a body) and queues them with the
    paired processor's spans."""

    def __init__(self, spans: AgentCoverageProcessor) -> None:
        self._spans = spans

    def on_emit(self, log_data: Any) -> None:
        """Read the record's event name, ids and the attributes events.py reads; never raises."""
        try:
            record = getattr(log_data, "log_record", log_data)  # LogData or ReadWriteLogRecord
            attributes = record.attributes or {}
            name = getattr(record, "event_name", None)
            if name not in EVENT_NAMES and attributes.get("event.name") not in EVENT_NAMES:
                return
            resource = getattr(log_data, "resource", None) or getattr(record, "resource", None)
            found = event(name, attributes, record.trace_id or 0, record.span_id or 0,
                             record.timestamp or record.observed_timestamp or 0,
                             service_agent(resource.attributes if resource is not None else None))
            if isinstance(found, EVENT_TYPES):
                self._spans.enqueue_event(found)
            elif found is not None:
                self._spans.engine.count_event("invalid")
        except Exception:
            self._spans._internal_error()

    def emit(self, log_data: Any) -> None:
        """The SDK's newer name for `on_emit`."""
        self.on_emit(log_data)

    def shutdown(self) -> None:
        """Nothing of its own: the paired span processor finishes the runs."""

    def force_flush(self, timeout_millis: int = 30_000) -> bool:
        return self._spans.force_flush(timeout_millis)
