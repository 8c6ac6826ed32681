"""CoverageEngine: SpanRecord -> classify -> RunAssembler -> judge -> CoverageState, one lock.

Every front door (SDK processor, OTLP files and service, trial files) feeds this same engine.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Mapping
from typing import Any

from .assembler import AgentRun, RunAssembler
from .judge import judge
from .records import SpanRecord
from .reporting import RenderedSnapshot
from .semconv import KINDS, Classifier, Step
from .snapshot import compute_snapshot
from .spec import CoverageSpec
from .state import CoverageState, Limits


def _add(counts: dict[str, int], more: Mapping[str, Any]) -> None:
    for key, n in more.items():
        counts[str(key)] = counts.get(str(key), 0) + int(n)


class CoverageEngine:
    """Thread-safe ingestion and snapshots; counts every span it sees, keeps or drops."""

    def __init__(
        self,
        spec: CoverageSpec | None = None,
        *,
        max_traces: int = 10_000,
        max_spans_per_trace: int = 10_000,
        max_buffered_spans: int = 500_000,
        idle_ttl_s: float = 60.0,
        limits: Limits | None = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.spec = spec if spec is not None else CoverageSpec.empty()
        self._content = self.spec.needs_content  # classify reads content only if a check needs it
        # `agentcov serve` passes a clock it sets from its journal, so a replay is exact
        self.assembler = RunAssembler(
            max_traces=max_traces, max_spans_per_trace=max_spans_per_trace,
            max_buffered_spans=max_buffered_spans, idle_ttl_s=idle_ttl_s, clock=clock,
            content=self._content,
        )
        self.state = CoverageState(limits)
        self.lock = threading.RLock()
        # drops and errors are counted from the host's threads too: a lock of their own that is
        # never held across work, so counting never waits behind ingestion or a snapshot
        self._counters_lock = threading.Lock()
        self.by_kind: dict[str, int] = dict.fromkeys(KINDS, 0)
        self.dropped: dict[str, int] = {}
        self.internal_errors = 0
        self.state_files = 0  # state files merged in (`--state`): runs whose spans are not here
        self._state_attributes = self.spec.state_attribute_names
        # the spec's `conventions:` entries are tried before the built-in ones
        self._classify = Classifier(self.spec.conventions).classify

    def count_drop(self, reason: str, n: int = 1) -> None:
        with self._counters_lock:
            self.dropped[reason] = self.dropped.get(reason, 0) + n

    def count_internal_error(self) -> None:
        with self._counters_lock:
            self.internal_errors += 1

    def ingest(self, record: SpanRecord) -> None:
        """Classify one span and fold any runs it completes; never raises, counts it exactly once.

        Invalid spans and spans classify cannot read are counted drops; a failure after the span
        was counted is an internal error (so processed = classified + dropped always holds).
        """
        result = self.to_step(record)
        if isinstance(result, str):
            self.reject(result)
        else:
            self.apply(*result)

    def to_step(self, record: SpanRecord) -> tuple[Step, bool] | str:
        """The span's Step and whether it is a local root, or the reason it is dropped (not
        counted here: `reject` counts it).

        The Step is all the engine keeps of a span (names and counts, no content): `agentcov
        serve` journals Steps, so a restart replays exactly this without reading a payload."""
        if record.trace_id == 0 or record.span_id == 0:
            return "invalid_ids"
        if record.end_ns < record.start_ns:
            return "end_before_start"
        try:
            step = self._classify(record, self._state_attributes, self._content)
        except Exception:
            return "malformed"  # classify must read anything: this is a bug, counted as one
        # a remote parent starts a local subtree, except where the span is the server half of
        # a call whose client is traced too: then it waits for the caller's root (or the TTL)
        return step, record.parent_id is None or (record.parent_remote and not step.joins_caller)

    def reject(self, reason: str, n: int = 1) -> None:
        """Count `n` spans dropped by `to_step` for `reason`."""
        self.count_drop(reason, n)
        if reason == "malformed":
            with self._counters_lock:
                self.internal_errors += n

    def apply(self, step: Step, local_root: bool) -> None:
        """Buffer a classified span and fold the runs it completes."""
        with self.lock:
            self.by_kind[step.kind] += 1
            try:
                runs = self.assembler.add(step, local_root)
            except Exception:
                self.count_internal_error()
                return
            self._fold(runs)

    def ingest_runs(self, runs: list[AgentRun], kinds: Mapping[str, int]) -> None:
        """Fold runs a front door built without spans (trials), counting the spans they stand
        for by kind, as `ingest` would have."""
        with self.lock:
            for kind, n in kinds.items():
                self.by_kind[kind] += n
            self._fold(runs)

    def _fold(self, runs: list[AgentRun]) -> None:
        """Judge and fold finished runs; one that fails is counted and does not lose the rest.

        A run's content is dropped as soon as it is judged: only verdicts reach the state."""
        for run in runs:
            try:
                spec = self.spec.for_agent(run.agent)
                verdicts = judge(run, spec.checks)
                run.content = None
                self.state.update(run, spec, verdicts)
            except Exception:
                self.count_internal_error()

    def sweep(self) -> None:
        with self.lock:
            self._fold(self.assembler.sweep())

    def flush_all(self, reason: str | None = None) -> None:
        """Finish every buffered trace now (end of input, or shutdown)."""
        with self.lock:
            self._fold(self.assembler.flush_all(reason))

    def span_stats(self) -> dict[str, Any]:
        with self._counters_lock:
            dropped = dict(sorted(self.dropped.items()))
            internal_errors = self.internal_errors
        with self.lock:
            return {
                "processed": sum(self.by_kind.values()) + sum(dropped.values()),
                "by_kind": dict(self.by_kind),
                "dropped": dropped,
                "flushed_early": dict(self.assembler.flushed_early),
                "traces_in_flight": self.assembler.traces_in_flight,
                "spans_buffered": self.assembler.buffered_spans,
                "label_overflow": dict(self.state.overflow),
                "internal_errors": internal_errors,
                "state_files": self.state_files,
            }

    def merge(self, state: CoverageState, spans: Mapping[str, Any]) -> None:
        """Fold in what another engine saw (a pytest-xdist worker): its state, and the span
        counters of its `span_stats()`, so the merged report equals one engine seeing it all."""
        with self.lock:
            self.state.merge(state)
            _add(self.by_kind, spans["by_kind"])
            _add(self.assembler.flushed_early, spans["flushed_early"])
        with self._counters_lock:
            _add(self.dropped, spans["dropped"])
            self.internal_errors += int(spans["internal_errors"])

    def snapshot(self, *, contexts: bool = False) -> RenderedSnapshot:
        """The computed view now; `str()` of it is the text report."""
        with self.lock:
            return compute_snapshot(self.state, self.spec, self.span_stats(), contexts=contexts,
                                    kind=RenderedSnapshot)
