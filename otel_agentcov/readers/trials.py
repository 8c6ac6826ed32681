"""AgentAssay-style trial files -> AgentRuns (SpanRecords for the odd trial), through the same
mapping as AgentCoverageCollector.

A trials file is JSON: a list of trials, or an object holding them under `results` or `trials`;
each trial holds a `trace` with `steps` (a bare trace is accepted too). Trial files are small
(one object per test trial), so each is loaded whole.
"""

from __future__ import annotations

import gc
import json
import os
from collections.abc import Iterator, Sequence
from typing import Any

from ..agentassay import TrialError, TrialRuns, trace_to_records, trace_to_runs
from ..records import SpanRecord
from .errors import TraceFormatError

# Synthetic trace ids for trials live far above the ids of the other inputs' counters.
_TRACE_ID_BASE = 1 << 120


def _trials(doc: Any, name: str) -> tuple[str, list[Any]]:
    if isinstance(doc, list):
        return "", doc
    if isinstance(doc, dict):
        for key in ("results", "trials"):
            if isinstance(doc.get(key), list):
                return key, doc[key]
    raise TraceFormatError(
        f"{name}: expected a list of trials or an object with a 'results' or 'trials' list"
    )


def _parse(text: str) -> Any:
    """json.loads with the cyclic collector paused: a JSON document has no cycles, and the
    full collections its millions of new objects trigger cost as much as parsing them."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        return json.loads(text)
    finally:
        if enabled:
            gc.enable()


def read_trials(
    path: str, first_trace_id: int = 0, *, state_attributes: Sequence[str] = (),
    max_spans: int = 10_000,
) -> Iterator[TrialRuns | list[SpanRecord]]:
    """Every trial as its runs, or (see `trace_to_runs`) as GenAI-shaped SpanRecords."""
    name = os.fspath(path)
    try:
        with open(path, "rb") as fh:
            data = fh.read()
    except OSError as exc:
        raise TraceFormatError(f"{name}: cannot read: {exc.strerror or exc}") from None
    if not data.strip():
        raise TraceFormatError(f"{name}: empty file; expected AgentAssay trials JSON")
    try:
        doc = _parse(data.decode("utf-8-sig"))
    except UnicodeDecodeError as exc:
        raise TraceFormatError(f"{name}: byte {exc.start}: not UTF-8 text") from None
    except RecursionError:
        raise TraceFormatError(f"{name}: JSON nested too deeply to be trials") from None
    except json.JSONDecodeError as exc:
        raise TraceFormatError(
            f"{name}: line {exc.lineno} column {exc.colno}: not valid JSON ({exc.msg})"
        ) from None
    key, trials = _trials(doc, name)
    # The document lives until its last trial: keep the collector from re-scanning its objects
    # (unless the host froze objects of its own, which unfreezing would release).
    freeze = gc.get_freeze_count() == 0
    if freeze:
        gc.freeze()
    try:
        for n, trial in enumerate(trials):
            trace = trial.get("trace", trial) if isinstance(trial, dict) else None
            if not isinstance(trace, dict):
                raise TraceFormatError(
                    f"{name}: {key}[{n}]: expected a trial object with a 'trace'"
                )
            try:
                trace_id = _TRACE_ID_BASE + first_trace_id + n
                yield trace_to_runs(
                    trace, trace_id, state_attributes=state_attributes, max_spans=max_spans
                ) or trace_to_records(trace, trace_id)
            except TrialError as exc:
                raise TraceFormatError(f"{name}: {key}[{n}].trace: {exc}") from None
            except (TypeError, ValueError, OverflowError) as exc:  # a duration not finite
                raise TraceFormatError(
                    f"{name}: {key}[{n}].trace: malformed trace ({exc})"
                ) from None
    finally:
        if freeze:
            gc.unfreeze()
