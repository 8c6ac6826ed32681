"""CoverageStore: the service's engine, made durable by a journal and periodic snapshots.

The engine's state is a pure function of the journal: every accepted request and every idle
sweep that changed something is a record, applied with the engine's clock set to the time the
record carries. Replaying snapshot + journal therefore rebuilds exactly what was acknowledged,
including traces still open (the snapshot keeps their buffered steps).
"""

from __future__ import annotations

import dataclasses
import json
import os
import struct
import sys
import threading
import time
from collections.abc import Iterable, Mapping
from typing import Any

from ..engine import CoverageEngine
from ..readers.otlp import (
    TraceFormatError,
    decode_request,
    in_end_order,
    records_from_json,
    records_from_request,
)
from ..records import SpanRecord
from ..semconv.step import Step
from ..snapshot import Snapshot
from ..spec import CoverageSpec
from ..state import CoverageState, StateError
from .journal import Journal, JournalError, create_journal, fsync_dir, read_journal

PROTOBUF, JSON, SWEEP = b"P", b"J", b"S"
_TIME = struct.Struct(">d")
# what a snapshot keeps of an open trace's steps: every field but captured content
_STEP_FIELDS = tuple(f.name for f in dataclasses.fields(Step) if f.name != "content")


class Unavailable(Exception):
    """The store cannot take the request now (shutting down, or the journal failed)."""


class _Clock:
    """The engine's clock: set to the record's time before each record is applied."""

    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def decode_records(kind: bytes, payload: bytes, where: str) -> list[SpanRecord]:
    """A request payload (protobuf or OTLP/JSON bytes) as SpanRecords in end-time order;
    TraceFormatError if not."""
    if kind == PROTOBUF:
        return in_end_order(records_from_request(decode_request(payload, where)))
    try:
        document = json.loads(payload)
    except (UnicodeDecodeError, ValueError, RecursionError) as exc:
        raise TraceFormatError(f"{where}: not JSON ({exc})") from None
    return in_end_order(records_from_json(document, where))


class CoverageStore:
    """Applies requests to the engine; with a state file, acknowledges only what is on disk."""

    def __init__(
        self,
        spec: CoverageSpec,
        state_file: str | None = None,
        *,
        max_traces: int = 10_000,
        max_spans_per_trace: int = 10_000,
        idle_ttl_s: float = 60.0,
        max_record_bytes: int = 1 << 30,
    ) -> None:
        self._clock = _Clock()
        self.engine = CoverageEngine(
            spec, max_traces=max_traces, max_spans_per_trace=max_spans_per_trace,
            idle_ttl_s=idle_ttl_s, clock=self._clock,
        )
        self.state_file = state_file
        self.journal_path = f"{state_file}.journal" if state_file else None
        self._max_record = max_record_bytes
        self._apply_lock = threading.Lock()
        self._journal: Journal | None = None
        self._generation = 0
        self._closed = False
        self.recoveries: dict[str, int] = {}
        self.compactions = 0
        self.replayed_records = 0
        self.recovery_seconds = 0.0
        self._fsyncs_before = 0  # fsyncs of journals already replaced by compaction

    # ------------------------------------------------------------------ live path

    def submit(self, kind: bytes, payload: bytes, records: list[SpanRecord]) -> dict[str, int]:
        """Apply one accepted request; returns its rejected spans by reason once it is durable."""
        with self._apply_lock:
            if self._closed:
                raise Unavailable("shutting down")
            now = time.time()
            journal = self._journal
            seq = 0
            if journal is not None:
                try:
                    seq = journal.append(kind + _TIME.pack(now) + payload)
                except OSError as exc:
                    raise Unavailable(f"journal write failed: {exc}") from None
            rejected = self._apply(now, records)
        if journal is not None:
            try:
                journal.commit(seq)
            except OSError as exc:
                raise Unavailable(f"journal fsync failed: {exc}") from None
        return rejected

    def _apply(self, now: float, records: Iterable[SpanRecord]) -> dict[str, int]:
        engine = self.engine
        self._clock.now = now
        before = dict(engine.dropped)
        for record in records:
            engine.ingest(record)
        return {k: v - before.get(k, 0) for k, v in engine.dropped.items() if v != before.get(k)}

    def sweep(self) -> None:
        """Finish traces idle past the TTL; journaled (not waited for) when it changed state."""
        with self._apply_lock:
            if self._closed:
                return
            now = self._clock.now = time.time()
            flushed = self.engine.assembler.flushed_early
            before = flushed["idle_ttl"]
            self.engine.sweep()
            if flushed["idle_ttl"] != before and self._journal is not None:
                try:
                    self._journal.append(SWEEP + _TIME.pack(now))
                except OSError as exc:
                    print(f"agentcov serve: {self.journal_path}: {exc}", file=sys.stderr)

    @property
    def journal_bytes(self) -> int:
        journal = self._journal
        return journal.size if journal is not None else 0

    @property
    def fsyncs(self) -> int:
        journal = self._journal
        return self._fsyncs_before + (journal.fsyncs if journal is not None else 0)

    # ------------------------------------------------------------------ snapshots

    def compact(self) -> None:
        """Snapshot everything applied (atomic rename), then start an empty journal."""
        if self.state_file is None or self.journal_path is None:
            return
        with self._apply_lock:
            old = self._journal
            if old is not None:
                old.commit_all()  # its waiters are released before the snapshot is written
            generation = self._generation + 1
            self.engine.state.save(self.state_file, {"serve": self._serve_extra(generation)})
            fsync_dir(self.state_file)
            create_journal(self.journal_path, generation)
            self._journal = Journal(self.journal_path)
            self._generation = generation
            self.compactions += 1
            if old is not None:
                self._fsyncs_before += old.fsyncs
                old.close()

    def _serve_extra(self, generation: int) -> dict[str, Any]:
        engine = self.engine
        with engine.lock:
            return {
                "generation": generation,
                "by_kind": dict(engine.by_kind),
                "dropped": dict(engine.dropped),
                "internal_errors": engine.internal_errors,
                "flushed_early": dict(engine.assembler.flushed_early),
                "open_traces": [
                    [tid, last_seen, [[getattr(s, f) for f in _STEP_FIELDS] for s in steps]]
                    for tid, last_seen, steps in engine.assembler.open_traces()
                ],
            }

    def _restore(self, data: Mapping[str, Any]) -> None:
        """Install a snapshot's state, counters and open traces (raises on a malformed one)."""
        serve = data["serve"]
        engine = self.engine
        engine.state = CoverageState.from_dict(data, engine.state.limits)
        engine.by_kind.update({str(k): int(v) for k, v in serve["by_kind"].items()})
        engine.dropped.update({str(k): int(v) for k, v in serve["dropped"].items()})
        engine.internal_errors = int(serve["internal_errors"])
        engine.assembler.flushed_early.update(
            {str(k): int(v) for k, v in serve["flushed_early"].items()}
        )
        for trace_id, last_seen, steps in serve["open_traces"]:
            self._clock.now = float(last_seen)
            for values in steps:
                if len(values) > len(_STEP_FIELDS):
                    raise ValueError(f"open trace {trace_id:x} holds a step with unknown fields")
                # an older snapshot lacks the fields added since: they keep their defaults
                fields = dict(zip(_STEP_FIELDS, values, strict=False))
                fields = {k: tuple(v) if isinstance(v, list) else v for k, v in fields.items()}
                step = Step(**fields)
                if step.trace_id != int(trace_id):
                    raise ValueError(f"open trace {trace_id:x} holds a step of another trace")
                engine.assembler.add(step, False)
        self._generation = int(serve["generation"])

    # ------------------------------------------------------------------ recovery

    def open(self) -> None:
        """Recover snapshot + journal (setting aside what is corrupt), then compact so the
        next start replays nothing. Without a state file this does nothing. A file that cannot
        be opened at all (a directory, no permission) raises OSError: moving it aside would not
        help, and it may be something other than ours."""
        if self.state_file is None or self.journal_path is None:
            return
        started = time.monotonic()
        snap, journal = self.state_file, self.journal_path
        base_ok = True
        if os.path.exists(snap):
            try:
                with open(snap, encoding="utf-8") as fh:
                    data = json.load(fh)
                if not isinstance(data, dict) or "serve" not in data:
                    raise StateError("not an agentcov serve state file")
                self._restore(data)
            except (ValueError, KeyError, TypeError, RecursionError) as exc:  # incl. StateError
                self._reset_engine()
                also = [journal] if os.path.exists(journal) else []
                self._set_aside(snap, "snapshot_unreadable", f"cannot read state ({exc})", also)
                base_ok = False
        if base_ok and os.path.exists(journal):
            self._replay(journal)
        self.compact()
        self.recovery_seconds = time.monotonic() - started

    def _replay(self, path: str) -> None:
        try:
            result = read_journal(path, self._max_record + 64)
        except JournalError as exc:
            self._set_aside(path, "journal_unreadable", exc)
            return
        if result.generation < self._generation:
            return  # already folded into the snapshot (a crash between its rename and reset)
        if result.generation > self._generation:
            self._set_aside(path, "journal_without_snapshot",
                            f"journal generation {result.generation}, snapshot {self._generation}")
            return
        for n, body in enumerate(result.bodies):
            kind, (when,) = body[:1], _TIME.unpack_from(body, 1)
            if kind == SWEEP:
                self._clock.now = when
                self.engine.sweep()
                continue
            try:
                records = decode_records(kind, body[1 + _TIME.size :], f"{path} record {n}")
            except TraceFormatError:
                self.engine.count_internal_error()
                continue
            self._apply(when, records)
        self.replayed_records += len(result.bodies)
        if result.torn_tail:
            self._count("journal_torn_tail")
            print(f"agentcov serve: {path}: last record was cut short (crash mid-write); "
                  f"dropped it, kept {len(result.bodies)} records", file=sys.stderr)
        elif result.corrupt:
            self._set_aside(path, "journal_corrupt",
                            f"bad record at byte {result.good_bytes}; kept the "
                            f"{len(result.bodies)} records before it")

    def _reset_engine(self) -> None:
        old = self.engine
        self.engine = CoverageEngine(
            old.spec, max_traces=old.assembler.max_traces,
            max_spans_per_trace=old.assembler.max_spans_per_trace,
            idle_ttl_s=old.assembler.idle_ttl_s, limits=old.state.limits, clock=self._clock,
        )
        self._generation = 0

    def _count(self, reason: str) -> None:
        self.recoveries[reason] = self.recoveries.get(reason, 0) + 1

    def _set_aside(self, path: str, reason: str, detail: object, also: Iterable[str] = ()) -> None:
        """One line on stderr, the file (and `also`, which depends on it) renamed to
        `<path>.corrupt-<timestamp>`, counted once."""
        suffix = f".corrupt-{time.strftime('%Y%m%dT%H%M%S')}-{os.getpid()}"
        moved = []
        for name in (path, *also):
            os.replace(name, name + suffix)
            moved.append(name + suffix)
        self._count(reason)
        print(f"agentcov serve: {path}: {detail}; moved to {' and '.join(moved)}, "
              "continuing without it", file=sys.stderr)

    def snapshot(self) -> Snapshot:
        """The current report (the engine is replaced when a corrupt state is set aside)."""
        return self.engine.snapshot()

    def close(self) -> None:
        """Stop taking requests and compact (graceful shutdown)."""
        self.compact()
        with self._apply_lock:
            self._closed = True
            if self._journal is not None:
                self._journal.close()
                self._journal = None
