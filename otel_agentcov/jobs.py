"""`--jobs N`: trace files read by N worker processes, each keeping the traces whose id falls to
it (traces may span files), their CoverageStates merged exactly into the caller's engine.

Every worker decodes every file, but converts, classifies and assembles only its own traces,
which is where the time goes. The merged report equals `--jobs 1`: state merges are exact below
the state's caps (sums, unions, the earliest-paths sample, exactly summed durations), and a
worker that fails (bad input), or a bound (traces in flight, buffered spans) that the workers
together could have reached, makes the caller read the files itself instead, so errors,
`--keep-going` and early flushes behave exactly as with one process.
"""

from __future__ import annotations

import multiprocessing
from collections.abc import Sequence
from dataclasses import dataclass
from multiprocessing.connection import Connection

from .assembler import END_OF_INPUT
from .engine import CoverageEngine, EngineCounters
from .progress import Progress
from .readers.files import STDIN, read_trace_file
from .semconv.shapes import ShapeCounter
from .state import CoverageState


@dataclass
class _Part:
    """What one worker read: its state and the span counters the report shows."""

    state: CoverageState
    counters: EngineCounters
    peak_traces: int
    peak_spans: int
    unmatched: ShapeCounter | None  # spans no convention matched, when the caller counts them


def _work(conn: Connection, parent: CoverageEngine, paths: Sequence[str], k: int, n: int,
          progress: bool) -> None:
    part: _Part | None = None
    # the first worker shows the progress line: every span of the input passes its `keep`
    shown = Progress(len(paths)) if progress and k == 0 else None
    try:
        engine = CoverageEngine(  # the caller's bounds (forked: its engine is a copy here)
            parent.spec, bounds=parent.bounds, limits=parent.state.limits,
            shapes=parent.unmatched is not None,
        )

        def keep(trace_id: int) -> bool:
            if shown is not None:
                shown.count()
            return trace_id % n == k

        ingest, steps = engine.ingest, engine.steps()
        for path in paths:
            for record in read_trace_file(path, keep, steps):
                ingest(record)
            if shown is not None:
                shown.file_done()
        engine.flush_all(END_OF_INPUT)
        part = _Part(engine.state, engine.counters, engine.assembler.peak_traces,
                     engine.assembler.peak_spans, engine.unmatched)
    except Exception:  # noqa: BLE001 - any failure: the caller reads the files itself
        part = None
    if shown is not None:
        shown.close()
    conn.send(part)
    conn.close()


def read_in_parallel(
    engine: CoverageEngine, paths: Sequence[str], jobs: int, progress: bool = False
) -> bool:
    """Fold the traces of `paths` into `engine` (flushed at end of input) with `jobs` worker
    processes; False, with `engine` untouched, when the caller must read them itself."""
    if jobs < 2 or not paths or STDIN in paths:
        return False
    if "fork" not in multiprocessing.get_all_start_methods():
        return False  # workers inherit the spec and paths; spawn would re-import everything
    ctx = multiprocessing.get_context("fork")
    pipes = []
    workers = []
    for k in range(jobs):
        receive, send = ctx.Pipe(duplex=False)
        worker = ctx.Process(target=_work, args=(send, engine, paths, k, jobs, progress),
                             daemon=True)
        worker.start()
        send.close()
        pipes.append(receive)
        workers.append(worker)
    try:
        parts = [pipe.recv() for pipe in pipes]
    except EOFError:  # a worker died without an answer
        parts = [None]
    finally:
        for worker in workers:
            worker.join()
    done = [p for p in parts if p is not None]
    bounds = engine.bounds
    if (len(done) < jobs or sum(p.peak_traces for p in done) >= bounds.max_traces
            or sum(p.peak_spans for p in done) > bounds.max_buffered_spans):
        return False  # one process could have flushed traces early: let it read them
    for part in done:
        engine.merge(part.state, part.counters)
        if engine.unmatched is not None and part.unmatched is not None:
            engine.unmatched.merge(part.unmatched)
    return True
