"""The offline front door: trace files, trial files and state files folded into one engine.

`coverage`, `gate` and the pytest plugin all build their report here, so they agree.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Mapping, Sequence
from functools import partial
from typing import Any

from .engine import CoverageEngine
from .readers.files import read_trace_file, trace_files
from .readers.otlp import TraceFormatError
from .readers.trials import read_trials
from .records import SpanRecord
from .spec import CoverageSpec
from .state import CoverageState, StateError

END_OF_INPUT = "end_of_input"


class InputError(ValueError):
    """A bad input file; one line naming the file (and line or byte offset) and what was wrong."""


def _ingest(engine: CoverageEngine, records: Iterable[SpanRecord]) -> None:
    ingest = engine.ingest
    for record in records:
        ingest(record)


def load_state(path: str) -> CoverageState:
    """A state file; a JSON report given instead is refused with the reason (it cannot merge)."""
    try:
        return CoverageState.load(path)
    except StateError:
        try:
            with open(path, encoding="utf-8") as fh:
                doc = json.load(fh)
        except (OSError, ValueError, RecursionError):
            doc = None
        if isinstance(doc, dict) and "agents" in doc and "spans" in doc:
            raise StateError(
                f"{path}: a JSON report, not a state file; reports hold ratios, not the path and "
                "state sets, so they cannot be merged exactly (write state files with "
                "`agentcov coverage --state-file F`)"
            ) from None
        raise


def _merge_state(engine: CoverageEngine, path: str) -> None:
    engine.state.merge(load_state(path))
    engine.state_files += 1


def load(
    spec: CoverageSpec,
    *,
    traces: Sequence[str] = (),
    results: Sequence[str] = (),
    states: Sequence[str] = (),
    keep_going: bool = False,
    warn: Callable[[str], None] = lambda message: None,
) -> CoverageEngine:
    """An engine holding every input. A bad file raises InputError, or with `keep_going` is
    passed to `warn` and skipped (spans read from it before the bad spot still count)."""
    engine = CoverageEngine(spec)
    reads: list[Callable[[], None]] = [
        *(partial(_ingest, engine, read_trace_file(p)) for p in trace_files(traces)),
        *(partial(_ingest, engine, read_trials(p, n << 32, warn)) for n, p in enumerate(results)),
        partial(engine.flush_all, END_OF_INPUT),
        *(partial(_merge_state, engine, p) for p in states),
    ]
    for read in reads:
        try:
            read()
        except (TraceFormatError, StateError) as exc:
            if not keep_going:
                raise InputError(str(exc)) from None
            warn(f"{exc} (skipped: --keep-going)")
    return engine


def run_count(report: Mapping[str, Any]) -> int:
    """Agent runs in a report, all agents together (0 means the inputs held nothing to judge)."""
    return sum(int(a["runs"]["count"]) for a in report["agents"].values())


def report(engine: CoverageEngine, *, contexts: bool = False) -> dict[str, Any]:
    """The report, listing the agents the spec names even when no run of theirs was seen
    (0 runs, 0 % coverage), so an agent missing from the traces cannot pass unnoticed."""
    with engine.lock:
        for name in engine.spec.agents:
            if name != "*":
                engine.state.agent(name)
    return engine.snapshot(contexts=contexts).to_dict()
