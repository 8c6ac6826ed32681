"""AgentAssay-style trial files -> SpanRecords, through the same mapping as AgentCoverageCollector.

A trials file is JSON: a list of trials, or an object holding them under `results` or `trials`;
each trial holds a `trace` with `steps` (a bare trace is accepted too). Trial files are small
(one object per test trial), so each is loaded whole.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from typing import Any

from ..agentassay import TrialError, trace_to_records
from ..records import SpanRecord
from .otlp import TraceFormatError

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


def read_trials(path: str, first_trace_id: int = 0) -> Iterator[SpanRecord]:
    """Every trial's trace as GenAI-shaped SpanRecords (one agent span plus one per step)."""
    name = os.fspath(path)
    try:
        with open(path, "rb") as fh:
            data = fh.read()
    except OSError as exc:
        raise TraceFormatError(f"{name}: cannot read: {exc.strerror or exc}") from None
    if not data.strip():
        raise TraceFormatError(f"{name}: empty file; expected AgentAssay trials JSON")
    try:
        doc = json.loads(data.decode("utf-8-sig"))
    except UnicodeDecodeError as exc:
        raise TraceFormatError(f"{name}: byte {exc.start}: not UTF-8 text") from None
    except RecursionError:
        raise TraceFormatError(f"{name}: JSON nested too deeply to be trials") from None
    except json.JSONDecodeError as exc:
        raise TraceFormatError(
            f"{name}: line {exc.lineno} column {exc.colno}: not valid JSON ({exc.msg})"
        ) from None
    key, trials = _trials(doc, name)
    for n, trial in enumerate(trials):
        where = f"{key}[{n}]"
        trace = trial.get("trace", trial) if isinstance(trial, dict) else None
        if not isinstance(trace, dict):
            raise TraceFormatError(f"{name}: {where}: expected a trial object with a 'trace'")
        try:
            yield from trace_to_records(trace, _TRACE_ID_BASE + first_trace_id + n)
        except TrialError as exc:
            raise TraceFormatError(f"{name}: {where}.trace: {exc}") from None
        except (TypeError, ValueError, OverflowError) as exc:  # a duration not a finite number
            raise TraceFormatError(f"{name}: {where}.trace: malformed trace ({exc})") from None
