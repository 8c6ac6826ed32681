"""CoverageStore: the service's engine, made durable by a journal and periodic snapshots.

The engine's state is a pure function of the journal: every accepted request and every idle
sweep that changed something is a record, applied with the engine's clock set to the time the
record carries. Replaying snapshot + journal therefore rebuilds exactly what was acknowledged,
including traces still open (the snapshot keeps their buffered steps). A request is journaled
as its classified Steps and drop counts, never as it came: the payload may carry prompts and
outputs, and nothing of them may reach the disk.
"""

from __future__ import annotations

import json
import os
import struct
import sys
import threading
import time
from collections import deque
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

from ..assembler import Bounds
from ..engine import CoverageEngine, EngineCounters
from ..judge import Verdicts
from ..readers.otlp import (
    Ingested,
    StepReader,
    TraceFormatError,
    classified_from_protobuf,
    in_end_order,
    records_from_json,
    records_from_protobuf,
)
from ..readers.otlp_size import ElementCaps
from ..records import SpanRecord
from ..semconv.events import INVALID, Event, record_events
from ..semconv.step import Step
from ..snapshot import Snapshot
from ..snapshot.schema import Report
from ..spec import CoverageSpec
from ..state import CoverageState, StateError, fields
from . import event_rows, verdict_rows
from .journal import Journal, JournalError, create_journal, fsync_dir, read_journal
from .lock import lock_state
from .steps import from_row, to_row

PROTOBUF, JSON = b"P", b"J"  # request payload encodings
# journal record kinds: a request's steps (with its decision span events), an idle sweep, each
# with the verdicts of the runs it folded (judged while their content was there;
# docs/guarantees.md) in the same frame, so no crash can keep the steps without their verdicts;
# a logs request's decision events (they fold no run). VERDICTS is read only: journals written
# before verdicts shared the frame kept them in a frame of their own after the record.
STEPS, SWEEP, VERDICTS, EVENTS = b"R", b"S", b"V", b"E"
_TIME = struct.Struct(">d")
MAX_RECORD_BYTES = 1 << 30  # a length past this in a journal frame is corruption


class Unavailable(Exception):
    """The store cannot take the request now (shutting down, or the journal failed)."""


class _Clock:
    """The engine's clock: set to the record's time before each record is applied."""

    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def decode_records(
    kind: bytes, payload: bytes, where: str, caps: ElementCaps | None = None,
    steps: StepReader | None = None,
) -> Sequence[Ingested]:
    """A request payload (protobuf or OTLP/JSON bytes) as SpanRecords in end-time order;
    TraceFormatError if not. `caps` bound a protobuf payload before it is decoded (TooLarge);
    a JSON one is bounded by the caller (`json_elements`). With `steps`
    (`CoverageEngine.steps`), protobuf is decoded and classified by the core in one call."""
    if kind == PROTOBUF:
        if steps is not None:
            return classified_from_protobuf(payload, steps, where, caps)
        return in_end_order(records_from_protobuf(payload, where, caps=caps))
    if not payload.strip():  # an empty request: as valid as an empty protobuf one
        return []
    document = json_document(payload, where)
    if document == {}:  # every field of ExportTraceServiceRequest is optional
        return []
    return in_end_order(records_from_json(document, where))


def json_document(payload: bytes, where: str) -> Any:
    """A JSON request body parsed; TraceFormatError naming `where` if it is not JSON."""
    try:
        return json.loads(payload)
    except (UnicodeDecodeError, ValueError, RecursionError) as exc:
        raise TraceFormatError(f"{where}: not JSON ({exc})") from None


def _decode_record(body: bytes) -> tuple[bytes, float, Any, list[tuple[str, Verdicts]] | None]:
    """(kind, time, content, verdicts) of a journal record: content for STEPS is (rejected
    spans by reason, steps, decision events), for EVENTS (invalid events, decision events), for
    SWEEP None, for VERDICTS [(agent, verdicts)]; verdicts are
    the ones the record carries (None in a record from before they shared its frame).
    ValueError if any part is not what the store writes."""
    kind = body[:1]
    if len(body) < 1 + _TIME.size or kind not in (STEPS, SWEEP, VERDICTS, EVENTS):
        raise ValueError(f"kind {kind!r}, {len(body)} bytes")
    (when,) = _TIME.unpack_from(body, 1)
    if when != when or when in (float("inf"), float("-inf")):
        raise ValueError("time is not a number")
    if kind == SWEEP and len(body) == 1 + _TIME.size:
        return kind, when, None, None
    try:
        data = json.loads(body[1 + _TIME.size :])
    except (UnicodeDecodeError, RecursionError) as exc:
        raise ValueError(str(exc)) from None
    if kind == EVENTS:
        if type(data) is not dict or type(data.get("invalid")) is not int or type(
                data.get("events")) is not list:
            raise ValueError("expected {invalid: n, events: [...]}")
        return (kind, when, (data["invalid"], [event_rows.from_row(r) for r in data["events"]]),
                None)
    if kind != STEPS:  # SWEEP: its verdicts; VERDICTS: a frame of them alone
        rows = _verdicts(data)
        return (kind, when, None, rows) if kind == SWEEP else (kind, when, rows, None)
    if type(data) is not dict or type(data.get("dropped")) is not dict or type(
            data.get("steps")) is not list:
        raise ValueError("expected {dropped: {...}, steps: [...]}")
    rejected = data["dropped"]
    if not all(type(n) is int and 0 < n < 1 << 63 for n in rejected.values()):
        raise ValueError("drop counts must be positive integers")
    steps: list[tuple[Step, bool]] = []
    for item in data["steps"]:
        if type(item) is not list or len(item) != 2 or type(item[0]) is not bool:
            raise ValueError("a step entry is [local_root, step]")
        steps.append((from_row(item[1]), item[0]))
    events = data.get("events", [])
    if type(events) is not list:
        raise ValueError("expected a list of events")
    verdicts = _verdicts(data["verdicts"]) if "verdicts" in data else None
    return kind, when, (rejected, steps, [event_rows.from_row(row) for row in events]), verdicts


def _verdicts(data: Any) -> list[tuple[str, Verdicts]]:
    if type(data) is not list:
        raise ValueError("expected a list of verdicts")
    return [verdict_rows.from_row(row) for row in data]


def _verdict_rows(judged: list[tuple[str, Verdicts]]) -> list[Any]:
    return [verdict_rows.to_row(agent, v) for agent, v in judged]


class CoverageStore:
    """Applies requests to the engine; with a state file, acknowledges only what is on disk."""

    def __init__(
        self,
        spec: CoverageSpec,
        state_file: str | None = None,
        *,
        bounds: Bounds | None = None,
    ) -> None:
        self._clock = _Clock()
        self.engine = CoverageEngine(spec, bounds=bounds, clock=self._clock)
        self.engine.assembler.expect_events()  # logs may come after their traces' spans
        # a symlinked state path is written through to its target: the journal, the lock and
        # the temporary files live beside the file itself, and the link stays a link
        self.state_file = os.path.realpath(state_file) if state_file else None
        self.journal_path = f"{self.state_file}.journal" if self.state_file else None
        self._lock_fd: int | None = None
        self._apply_lock = threading.Lock()
        self._journal: Journal | None = None
        self._generation = 0
        self._closed = False
        # set when a snapshot was written but no journal of its generation could follow it:
        # what is appended after that would be skipped at replay, so nothing more is taken
        self.broken: str | None = None
        self.recoveries: dict[str, int] = {}
        self.compactions = 0
        self.replayed_records = 0
        self.recovery_seconds = 0.0
        self._fsyncs_before = 0  # fsyncs of journals already replaced by compaction
        self.version = 0  # bumped whenever a record changes the engine: what a rendering is of

    # ------------------------------------------------------------------ live path

    def submit(self, records: Sequence[Ingested], span_events: Sequence[Event] = ()
               ) -> dict[str, int]:
        """Apply one accepted request; returns its rejected spans by reason once it is durable.

        The request is judged first and journaled after, in one frame with the verdicts of the
        runs it folded: a crash keeps both or neither (never the steps alone, which a replay
        would judge again without their content). A request whose frame cannot be written is
        already in memory, so the store refuses everything until a snapshot holds it
        (`broken`, retried by the maintenance loop)."""
        with self._apply_lock:
            if self._closed or self.broken:
                raise Unavailable(self.broken or "shutting down")
            now = time.time()
            rejected: dict[str, int] = {}
            steps: list[tuple[Step, bool]] = []
            # decision, state and guardrail span events: of OTLP/JSON spans, and those read
            # beside the core's protobuf steps (`span_events`)
            events: list[Event] = list(span_events)
            for record in records:
                if type(record) is SpanRecord and record.events:
                    events += record_events(record)
                result = self.engine.classified(record)
                if isinstance(result, str):
                    rejected[result] = rejected.get(result, 0) + 1
                else:
                    steps.append(result)
            judged = self._judging(lambda: self._apply(now, rejected, steps, events))
            journal = self._journal
            seq = 0
            if journal is not None:
                body: dict[str, Any] = {
                    "dropped": rejected, "steps": [[root, to_row(s)] for s, root in steps],
                    "verdicts": _verdict_rows(judged)}
                if events:
                    body["events"] = [event_rows.to_row(e) for e in events]
                seq = self._append(journal, STEPS + _TIME.pack(now) + json.dumps(
                    body, separators=(",", ":")).encode())
        if journal is not None:
            try:
                journal.commit(seq)
            except OSError as exc:
                self._fail("fsync", exc)
                raise Unavailable(f"journal fsync failed: {exc}") from None
        return rejected

    def _append(self, journal: Journal, body: bytes) -> int:
        """Append one record; on failure the store is broken (Unavailable raised)."""
        try:
            return journal.append(body)
        except OSError as exc:
            self._fail("write", exc)
            raise Unavailable(f"journal write failed: {exc}") from None

    def _fail(self, what: str, exc: OSError) -> None:
        """The journal no longer holds everything applied: take nothing more until a
        compaction snapshots the engine and starts a fresh journal (`/healthz` says so)."""
        self.broken = (f"journal {what} failed ({exc.strerror or exc}); exports are refused "
                       "until a snapshot succeeds")

    def _judging(self, work: Callable[[], None]) -> list[tuple[str, Verdicts]]:
        """Run `work` (apply a record) and return the verdicts of every run it folded."""
        judged: list[tuple[str, Verdicts]] = []
        self.engine.judged = judged
        try:
            work()
        finally:
            self.engine.judged = None
        return judged

    def _apply(self, now: float, rejected: Mapping[str, int],
               steps: Iterable[tuple[Step, bool]], events: Iterable[Event] = ()) -> None:
        engine = self.engine
        self._clock.now = now
        self.version += 1
        for reason, n in rejected.items():
            engine.reject(reason, n)
        for event in events:  # before the spans: one that closes its run finds them buffered
            engine.ingest_event(event)
        for step, local_root in steps:
            engine.apply(step, local_root)

    def submit_events(self, events: Sequence[Event], invalid: int) -> None:
        """Apply one accepted logs request (its decision and state events, and how many of
        them were unusable); returns once it is durable. Joining an event folds no run (it
        waits with its trace, or is folded on its own): no verdicts follow it."""
        with self._apply_lock:
            if self._closed or self.broken:
                raise Unavailable(self.broken or "shutting down")
            now = time.time()
            journal = self._journal
            seq = 0
            if journal is not None:
                body = {"invalid": invalid, "events": [event_rows.to_row(e) for e in events]}
                seq = self._append(journal, EVENTS + _TIME.pack(now) + json.dumps(
                    body, separators=(",", ":")).encode())
            self._apply_events(now, invalid, events)
        if journal is not None:
            try:
                journal.commit(seq)
            except OSError as exc:
                self._fail("fsync", exc)
                raise Unavailable(f"journal fsync failed: {exc}") from None

    def _apply_events(self, now: float, invalid: int, events: Iterable[Event]) -> None:
        engine = self.engine
        self._clock.now = now
        self.version += 1
        for _ in range(invalid):
            engine.count_event(INVALID)
        for event in events:
            engine.ingest_event(event)

    def sweep(self) -> None:
        """Finish traces idle past the TTL; journaled (not waited for) when it changed state."""
        with self._apply_lock:
            if self._closed:
                return
            now = self._clock.now = time.time()
            flushed = self.engine.counters.flushed_early
            before = flushed["idle_ttl"]
            judged = self._judging(self.engine.sweep)
            if flushed["idle_ttl"] != before:
                self.version += 1
            if flushed["idle_ttl"] != before and self._journal is not None:
                rows = json.dumps(_verdict_rows(judged), separators=(",", ":")).encode()
                try:
                    self._append(self._journal, SWEEP + _TIME.pack(now) + rows)
                except Unavailable:
                    print(f"agentcov serve: {self.journal_path}: {self.broken}", file=sys.stderr)

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
                try:  # its waiters are released before the snapshot is written
                    old.commit_all()
                except OSError:  # a failed journal: the snapshot next holds what it lacks
                    pass
            generation = self._generation + 1
            self.engine.state.save(self.state_file, {"serve": self._serve_extra(generation)},
                                   lost=self.engine.lost())
            fsync_dir(self.state_file)
            try:
                create_journal(self.journal_path, generation)
                self._journal = Journal(self.journal_path)
            except OSError as exc:
                self.broken = (f"{self.journal_path}: cannot start a journal after the snapshot "
                               f"({exc.strerror or exc}); restart to recover")
                raise
            self._generation = generation
            self.broken = None  # a snapshot and its journal again: exports can be taken
            self.compactions += 1
            if old is not None:
                self._fsyncs_before += old.fsyncs
                old.close()

    def _serve_extra(self, generation: int) -> dict[str, Any]:
        engine = self.engine
        with engine.lock:
            return {
                "generation": generation,
                **engine.counted().to_dict(),
                "open_traces": [
                    [tid, last_seen, [to_row(s) for s in steps]]
                    for tid, last_seen, steps in engine.assembler.open_traces()
                ],
                "open_events": [event_rows.to_row(e) for e in engine.assembler.open_events()],
            }

    def _restore(self, data: Mapping[str, Any]) -> None:
        """Install a snapshot's state, counters and open traces; ValueError or KeyError on a
        malformed one (every field is checked before anything is installed)."""
        serve = fields.table(data["serve"], "serve")
        generation = fields.count(serve["generation"], "serve.generation")
        counters = EngineCounters.from_dict(serve, "serve")
        open_traces = []
        for entry in fields.items(serve["open_traces"], "serve.open_traces"):
            trace_id, last_seen, rows = fields.items(entry, "serve.open_traces entry", 3)
            trace_id = fields.integer(trace_id, "serve.open_traces trace id")
            steps = [from_row(row) for row in fields.items(rows, "serve.open_traces steps")]
            if any(step.trace_id != trace_id for step in steps):
                raise ValueError(f"open trace {trace_id:x} holds a step of another trace")
            open_traces.append((fields.number(last_seen, "serve.open_traces time"), steps))
        open_events = [event_rows.from_row(row) for row in fields.items(
            serve.get("open_events", []), "serve.open_events")]
        engine = self.engine
        engine.state = CoverageState.from_dict(data, engine.state.limits)
        engine.state.dropped = {}  # the file's drops are this service's: its counters, below
        engine.counters.merge(counters)  # onto the fresh engine's zeros
        for last_seen, steps in open_traces:
            self._clock.now = last_seen
            for step in steps:
                engine.assembler.add(step, False)
        for event in open_events:  # with the newest trace's time: they wait a TTL more at most
            engine.assembler.add_event(event, restored=True)
        self._generation = generation

    # ------------------------------------------------------------------ recovery

    def open(self) -> None:
        """Recover snapshot + journal (setting aside what is corrupt), then compact so the
        next start replays nothing. Without a state file this does nothing. A file that cannot
        be opened at all (a directory, no permission) raises OSError: moving it aside would not
        help, and it may be something other than ours."""
        if self.state_file is None or self.journal_path is None:
            return
        started = time.monotonic()
        if self._lock_fd is None:
            self._lock_fd = lock_state(self.state_file)
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
        try:
            self.compact()
        except OSError as exc:  # a full disk, say: serve what was recovered, take nothing new
            self.broken = (f"read-only: cannot write {self.state_file} ({exc.strerror or exc}); "
                           "exports are refused until a compaction succeeds")
            print(f"agentcov serve: {self.broken}", file=sys.stderr)
        self.recovery_seconds = time.monotonic() - started

    def _replay(self, path: str) -> None:
        try:
            result = read_journal(path, MAX_RECORD_BYTES)
        except JournalError as exc:
            self._set_aside(path, "journal_unreadable", exc)
            return
        if result.generation < self._generation:
            return  # already folded into the snapshot (a crash between its rename and reset)
        if result.generation > self._generation:
            self._set_aside(path, "journal_without_snapshot",
                            f"journal generation {result.generation}, snapshot {self._generation}")
            return
        records = []
        for n, body in enumerate(result.bodies):
            try:
                records.append(_decode_record(body))
            except ValueError as exc:  # CRC-valid but not ours: as corrupt as a bad CRC
                self._replay_records(records)
                self._set_aside(path, "journal_corrupt", f"record {n} is malformed ({exc}); "
                                f"kept the {n} records before it")
                return
        self._replay_records(records)
        if result.torn_tail:
            self._count("journal_torn_tail")
            print(f"agentcov serve: {path}: last record was cut short (crash mid-write); "
                  f"dropped it, kept {len(result.bodies)} records", file=sys.stderr)
        elif result.corrupt:
            self._set_aside(path, "journal_corrupt",
                            f"bad record at byte {result.good_bytes}; kept the "
                            f"{len(result.bodies)} records before it")

    def _replay_records(
        self, records: list[tuple[bytes, float, Any, list[tuple[str, Verdicts]] | None]],
    ) -> None:
        """Apply records in order; the runs a record folds take the verdicts it carries (or,
        in an older journal, the VERDICTS frame after it), so content gone with the crash is
        never judged again. A run without them (a journal from before verdicts were kept) is
        judged on what is left."""
        engine = self.engine
        for n, (kind, when, content, verdicts) in enumerate(records):
            if kind == VERDICTS:
                continue  # taken by the record before it
            self.replayed_records += 1  # requests and sweeps
            following = records[n + 1] if n + 1 < len(records) else None
            if verdicts is None and following is not None and following[0] == VERDICTS:
                verdicts = following[2]
            engine.replayed = deque(verdicts or ())
            try:
                if kind == SWEEP:
                    self._clock.now = when
                    engine.sweep()
                elif kind == EVENTS:
                    self._apply_events(when, *content)
                else:
                    self._apply(when, *content)
            finally:
                engine.replayed = None

    def _reset_engine(self) -> None:
        old = self.engine
        self.engine = CoverageEngine(
            old.spec, bounds=old.bounds, limits=old.state.limits, clock=self._clock,
        )
        self.engine.assembler.expect_events()
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

    def measures(self) -> Report:
        """What a scrape reads (`CoverageEngine.measures`)."""
        return self.engine.measures()

    def close(self) -> None:
        """Stop taking requests and compact (graceful shutdown)."""
        self.compact()
        with self._apply_lock:
            self._closed = True
            if self._journal is not None:
                self._journal.close()
                self._journal = None
            if self._lock_fd is not None:
                os.close(self._lock_fd)  # releases the lock
                self._lock_fd = None
