"""`--jobs N`: trace files read by N worker processes, their CoverageStates merged exactly into
the caller's engine.

Plain protobuf files (one request each, as exporters and the Collector write them) are split by
bytes: their ResourceSpans, found from the field headers alone, are cut into N shares of about
equal size, so each worker decodes only its share. Each worker first scans its share's trace ids
(the compiled core reads nothing but each span's trace_id), the workers swap those scans, and a
trace belongs to the first share holding it: that worker reads it there and then, after its own
share, in the few ResourceSpans of later shares that hold it too, so a trace's spans arrive in
file order, as in one process. Other inputs (JSON, gzip, length-delimited streams) are read by
every worker, each keeping the traces whose id falls to it.

The merged report equals `--jobs 1`: state merges are exact below the state's caps (sums, unions,
the earliest-paths sample, exactly summed durations), and a worker that fails (bad input), or a
bound (traces in flight, buffered spans) that the workers together could have reached, makes the
caller read the files itself instead, so errors, `--keep-going` and early flushes behave exactly
as with one process.
"""

from __future__ import annotations

import multiprocessing
import pickle
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from itertools import chain
from multiprocessing.connection import Connection, wait
from typing import Any

from . import compiled
from .assembler import END_OF_INPUT
from .engine import CoverageEngine, EngineCounters
from .progress import Progress
from .readers.files import (
    STDIN,
    Read,
    Unit,
    read_trace_file,
    read_units,
    resource_spans_units,
    unit_bytes,
)
from .readers.otlp import Ingested, StepReader
from .semconv.shapes import ShapeCounter
from .state import CoverageState

Shares = list[list[Unit]]
_SHOW_EVERY = 4096  # spans between a worker's updates of its progress count
_ABANDONED = b""  # the scan a worker that failed sends, and what all get back then


@dataclass
class _Part:
    """What one worker read: its state and the span counters the report shows."""

    state: CoverageState
    counters: EngineCounters
    peak_traces: int
    peak_spans: int
    unmatched: ShapeCounter | None  # spans no convention matched, when the caller counts them


def _shares(paths: Sequence[str], jobs: int) -> Shares | None:
    """The files' ResourceSpans in `jobs` runs of about equal bytes (each unit goes where its
    middle falls); None when a file is not plain protobuf or a share would come out empty."""
    units: list[Unit] = []
    for path in paths:
        found = resource_spans_units(path)
        if found is None:
            return None
        units.extend(found)
    total = sum(unit.size for unit in units)
    shares: Shares = [[] for _ in range(jobs)]
    done = 0
    for unit in units:
        shares[min(jobs - 1, (2 * done + unit.size) * jobs // max(2 * total, 1))].append(unit)
        done += unit.size
    return shares if all(shares) else None


def _swap_scans(conn: Connection, shares: Shares, k: int) -> list[list[frozenset[int]]]:
    """Scan this worker's share, and get every share's scan back through the caller (raw
    pickles, which it only passes on). Each worker sends one scan and reads all, failed or not,
    so none waits for ever; a failed scan fails them all."""
    try:
        blob = pickle.dumps([compiled.trace_ids(data) for data in unit_bytes(shares[k])])
    except Exception:  # noqa: BLE001 - the caller names what is wrong
        blob = _ABANDONED
    conn.send_bytes(blob)
    blobs = [conn.recv_bytes() for _ in shares]
    if _ABANDONED in blobs:
        raise ValueError("a share could not be scanned")
    scans: list[list[frozenset[int]]] = [pickle.loads(b) for b in blobs]
    return scans


def _share_records(
    shares: Shares, scans: list[list[frozenset[int]]], k: int, steps: StepReader | None
) -> Iterator[Ingested]:
    """The spans this worker reads: its share's, but for traces an earlier share holds, then
    those of later shares that belong to traces first seen in its share (with `steps`,
    decoded and classified by the core, `CoverageEngine.steps`)."""
    earlier: set[int] = set().union(*chain.from_iterable(scans[:k]))
    yield from read_units(shares[k], (lambda t: t not in earlier) if earlier else None, steps)
    owned = set().union(*scans[k]) - earlier
    for share, scan in zip(shares[k + 1:], scans[k + 1:], strict=True):
        for unit, ids in zip(share, scan, strict=True):
            if wanted := ids & owned:
                yield from read_units([unit], wanted.__contains__, steps)


def _work(conn: Connection, parent: CoverageEngine, paths: Sequence[str], shares: Shares | None,
          k: int, n: int, counts: Any) -> None:
    part: _Part | None = None
    try:
        # first of all, so that a worker failing later still took its part in the swap
        scans = None if shares is None else _swap_scans(conn, shares, k)
        engine = CoverageEngine(  # the caller's bounds (forked: its engine is a copy here)
            parent.spec, bounds=parent.bounds, limits=parent.state.limits,
            shapes=parent.unmatched is not None,
        )
        engine.assembler.expect_events()
        records: Iterator[Read]
        steps = engine.steps()
        if shares is None or scans is None:
            records = chain.from_iterable(
                read_trace_file(path, lambda trace_id: trace_id % n == k, steps)
                for path in paths)
        else:
            records = _share_records(shares, scans, k, steps)
        ingest = engine.ingest
        if counts is None:
            for record in records:
                ingest(record)
        else:  # the caller shows the progress line from every worker's count
            read = 0
            for read, record in enumerate(records, 1):
                ingest(record)
                if not read % _SHOW_EVERY:
                    counts[k] = read
            counts[k] = read
        engine.flush_all(END_OF_INPUT)
        part = _Part(engine.state, engine.counters, engine.assembler.peak_traces,
                     engine.assembler.peak_spans, engine.unmatched)
    except Exception:  # noqa: BLE001 - the caller reads them itself
        part = None
    conn.send(part)
    conn.close()


def _relay_scans(pipes: list[Connection]) -> None:
    """Pass every worker's scan to every worker (all abandoned when one failed or died)."""
    blobs = []
    for pipe in pipes:
        try:
            blobs.append(pipe.recv_bytes())
        except (EOFError, OSError):
            blobs.append(_ABANDONED)
    if _ABANDONED in blobs:
        blobs = [_ABANDONED] * len(pipes)
    for pipe in pipes:
        try:
            for blob in blobs:
                pipe.send_bytes(blob)
        except OSError:  # that worker died: it answers None below
            pass


def _parts(pipes: list[Connection], counts: Any, shown: Progress | None) -> list[_Part | None]:
    """Each worker's answer (None when it died without one), showing progress meanwhile."""
    parts: dict[int, _Part | None] = {}
    base = 0 if shown is None else shown.spans
    while len(parts) < len(pipes):
        ready = wait([p for k, p in enumerate(pipes) if k not in parts],
                     None if shown is None else 0.5)
        for k, pipe in enumerate(pipes):
            if pipe in ready:
                try:
                    parts[k] = pipe.recv()
                except EOFError:
                    parts[k] = None
        if shown is not None:
            shown.count(base + sum(counts) - shown.spans)
    return [parts[k] for k in range(len(pipes))]


def read_in_parallel(
    engine: CoverageEngine, paths: Sequence[str], jobs: int, progress: Progress | None = None
) -> bool:
    """Fold the traces of `paths` into `engine` (flushed at end of input) with `jobs` worker
    processes, counting the spans read into `progress`; False, with `engine` untouched, when
    the caller must read them itself."""
    if jobs < 2 or not paths or STDIN in paths:
        return False
    if "fork" not in multiprocessing.get_all_start_methods():
        return False  # workers inherit the spec and paths; spawn would re-import everything
    ctx = multiprocessing.get_context("fork")
    shares = _shares(paths, jobs)
    counts = None if progress is None else ctx.Array("q", jobs, lock=False)
    spans_before = 0 if progress is None else progress.spans
    pipes = []
    workers = []
    for k in range(jobs):
        mine, theirs = ctx.Pipe()
        worker = ctx.Process(target=_work, args=(theirs, engine, paths, shares, k, jobs, counts),
                             daemon=True)
        worker.start()
        theirs.close()
        pipes.append(mine)
        workers.append(worker)
    try:
        if shares is not None:
            _relay_scans(pipes)
        parts = _parts(pipes, counts, progress)
    finally:
        for worker in workers:
            worker.join()
    done = [p for p in parts if p is not None]
    bounds = engine.bounds
    if (len(done) < jobs or sum(p.peak_traces for p in done) >= bounds.max_traces
            or sum(p.peak_spans for p in done) > bounds.max_buffered_spans):
        if progress is not None:
            progress.spans = spans_before  # the caller counts them again as it reads
        return False  # one process could have flushed traces early: let it read them
    for part in done:
        engine.merge(part.state, part.counters)
        if engine.unmatched is not None and part.unmatched is not None:
            engine.unmatched.merge(part.unmatched)
    return True
