"""AgentAssay-style trial files -> AgentRuns (SpanRecords for the odd trial), through the same
mapping as AgentCoverageCollector.

A trials file is JSON: a list of trials, or an object holding them under `results` or `trials`;
each trial holds a `trace` with `steps` (a bare trace is accepted too). Trial files are small
(one object per test trial), so each is loaded whole. The keys read are AgentAssay's (TrialResult,
ExecutionTrace, StepTrace) plus a trial-level `agent` / `agent_name`; any other key is reported
once per file, so a misspelt one does not go unnoticed.
"""

from __future__ import annotations

import gc
import json
import os
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from typing import Any

from ..compiled import CoreFailed, TrialFile, parse_trials
from ..records import SpanRecord
from ..regular_files import open_regular
from .errors import TraceFormatError
from .trial_runs import TrialError, TrialRuns, trace_to_records, trace_to_runs

# Synthetic trace ids for trials live far above the ids of the other inputs' counters.
_TRACE_ID_BASE = 1 << 120

# AgentAssay's TrialResult, ExecutionTrace and StepTrace fields, plus the trial's agent name.
TRIAL_KEYS = frozenset({"trial_id", "scenario_id", "trace", "passed", "score",
                        "evaluation_details", "timestamp", "agent", "agent_name"})
TRACE_KEYS = frozenset({"trace_id", "scenario_id", "steps", "input_data", "output_data",
                        "success", "error", "total_duration_ms", "total_cost_usd", "model",
                        "framework", "timestamp", "metadata"})
STEP_KEYS = frozenset({"step_id", "step_index", "action", "tool_name", "tool_input",
                       "tool_output", "llm_input", "llm_output", "model", "timestamp",
                       "duration_ms", "metadata"})


def _note_unknown(obj: Any, known: frozenset[str], label: str, where: str,
                  unknown: dict[str, str]) -> None:
    """Remember the first place of each key the reader does not know (`label.key` -> where)."""
    if isinstance(obj, Mapping):
        for key in obj:
            if key not in known:
                unknown.setdefault(f"{label}.{key}", where)


def _agent_name(trial: Mapping[str, Any], name: str, where: str) -> str | None:
    """The trial-level agent name (`agent`, else `agent_name`); it wins over the trace's."""
    value = trial.get("agent") or trial.get("agent_name")
    if value is None:
        return None
    if not isinstance(value, str):
        raise TraceFormatError(f"{name}: {where}.agent: expected a string, got {value!r:.40}")
    return value


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


def trace_base(first_trace_id: int) -> int:
    """The synthetic trace id of a file's first trial (`first_trace_id` apart per file)."""
    return _TRACE_ID_BASE + first_trace_id


def read_trial_file(path: str, state_attributes: Sequence[str] = (), max_spans: int = 10_000
                    ) -> TrialFile | None:
    """The file read by the compiled core (docs/core.md): its trials as names, counts and
    hashes, for the engine to fold per agent. None when `read_trials` must read it: it cannot
    be read, it is not JSON the core reads, or it has a shape only the per-trial route takes
    (that route also words every error)."""
    try:
        with open_regular(path) as fh:
            data = fh.read()
    except OSError:
        return None
    try:
        return parse_trials(data, list(state_attributes), max_spans)
    except CoreFailed:  # a core bug this file met: the per-trial route reads it instead
        return None


def warn_unknown(name: str, unknown: Iterable[tuple[str, str]],
                 warn: Callable[[str], None] | None) -> None:
    """The one line naming the keys a trial file has that the reader does not read."""
    listed = sorted(unknown)
    if listed and warn is not None:
        warn(f"{name}: keys not read (ignored): " + ", ".join(
            f"{key} (first at {where})" for key, where in listed))


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
    path: str, first_trace_id: int = 0, warn: Callable[[str], None] | None = None, *,
    state_attributes: Sequence[str] = (), max_spans: int = 10_000,
) -> Iterator[TrialRuns | list[SpanRecord]]:
    """Every trial as its runs, or (see `trace_to_runs`) as GenAI-shaped SpanRecords; keys it
    does not read go to `warn`, in one line for the file."""
    name = os.fspath(path)
    try:
        with open_regular(path) as fh:
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
    unknown: dict[str, str] = {}
    try:
        for n, trial in enumerate(trials):
            where = f"{key}[{n}]"
            trace = trial.get("trace", trial) if isinstance(trial, dict) else None
            if not isinstance(trace, dict):
                raise TraceFormatError(f"{name}: {where}: expected a trial object with a 'trace'")
            agent = None
            if trace is not trial:
                _note_unknown(trial, TRIAL_KEYS, "trial", where, unknown)
                agent = _agent_name(trial, name, where)
            _note_unknown(trace, TRACE_KEYS, "trace", where, unknown)
            steps = trace.get("steps")
            for i, step in enumerate(steps if isinstance(steps, list) else ()):
                _note_unknown(step, STEP_KEYS, "step", f"{where}.trace.steps[{i}]", unknown)
            try:
                trace_id = trace_base(first_trace_id) + n
                yield trace_to_runs(
                    trace, trace_id, agent, state_attributes=state_attributes,
                    max_spans=max_spans,
                ) or trace_to_records(trace, trace_id, agent)
            except TrialError as exc:
                raise TraceFormatError(f"{name}: {where}.trace: {exc}") from None
            except (TypeError, ValueError, OverflowError) as exc:  # a duration not finite
                raise TraceFormatError(f"{name}: {where}.trace: malformed trace ({exc})") from None
    finally:
        if freeze:
            gc.unfreeze()
    warn_unknown(name, unknown.items(), warn)
