"""The offline front door: trace files, trial files and state files folded into one engine.

`coverage`, `gate` and the pytest plugin all build their report here, so they agree.
"""

from __future__ import annotations

import json
import os
import re
import sys
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from functools import partial
from typing import TYPE_CHECKING

from .assembler import END_OF_INPUT
from .compiled import parse_trials
from .engine import CoverageEngine
from .evaluations import Encoder, EvaluationQueue, otlp_json
from .gc_bulk import bulk_ingestion
from .progress import Progress
from .readers.errors import TraceFormatError
from .readers.foreign import kind_of
from .readers.trial_runs import TrialRuns
from .readers.trials import read_trial_file, read_trials, trace_base, warn_unknown
from .records import SpanRecord
from .regular_files import open_regular
from .snapshot.schema import Report
from .spec import CoverageSpec
from .state import STATE_FORMAT, CoverageState, StateError, TooLarge, read_capped

if TYPE_CHECKING:
    from .readers.files import Read

MAX_RESULTS_BYTES = 256 << 20  # a results (trials) file is parsed whole: past this, not sniffed
# how a state file begins (`CoverageState.save`): known from its first bytes, whatever its size
_STATE_HEAD = re.compile(rb'\{\s*"format"\s*:\s*"' + re.escape(STATE_FORMAT.encode()) + rb'"')


class InputError(ValueError):
    """A bad input file; one line naming the file (and line or byte offset) and what was wrong."""


def _ingest(
    engine: CoverageEngine, records: Iterable[Read], progress: Progress | None
) -> None:
    if progress is None:
        engine.ingest_all(records)
        return
    ingest = engine.ingest
    count = progress.count
    for record in records:
        ingest(record)
        count()
    progress.file_done()


def fold_trial(engine: CoverageEngine, trial: TrialRuns | list[SpanRecord]) -> None:
    """Feed one trial, as `trace_to_runs` or (when it returned None) `trace_to_records` gave it."""
    if isinstance(trial, TrialRuns):
        engine.ingest_runs(trial.runs, trial.kinds)
    else:
        for record in trial:
            engine.ingest(record)


def _ingest_trials(
    engine: CoverageEngine, trials: Iterable[TrialRuns | list[SpanRecord]],
    progress: Progress | None,
) -> None:
    for trial in trials:
        fold_trial(engine, trial)
        if progress is not None:
            progress.count(sum(trial.kinds.values()) if isinstance(trial, TrialRuns)
                           else len(trial))
    if progress is not None:
        progress.file_done()


def _read_results(
    engine: CoverageEngine, path: str, first_trace_id: int, warn: Callable[[str], None],
    progress: Progress | None,
) -> None:
    """A trial file: read and folded per agent by the compiled core when its runs allow it
    (`CoverageEngine.ingest_trial_file`), else trial by trial (which words any error)."""
    attributes, max_spans = engine.spec.state_attribute_names, engine.bounds.max_spans_per_trace
    trials = read_trial_file(path, attributes, max_spans)
    if trials is not None and engine.ingest_trial_file(trials, trace_base(first_trace_id)):
        warn_unknown(os.fspath(path), trials.unknown_keys(), warn)
        if progress is not None:
            progress.count(sum(n for _, n in trials.kinds()))
            progress.file_done()
        return
    _ingest_trials(engine, read_trials(
        path, first_trace_id, warn, state_attributes=attributes, max_spans=max_spans,
    ), progress)


def _trace_files(paths: Sequence[str]) -> list[str]:
    """Directories expanded; protobuf is imported only when there are trace files."""
    if not paths:
        return []
    from .readers.files import trace_files

    return list(trace_files(paths))


def _read(path: str, engine: CoverageEngine | None = None) -> Iterator[Read]:
    """The spans (and decision events) of one trace or log file; with `engine`, protobuf is
    decoded and classified by the core for it in one call per resource
    (`CoverageEngine.steps`)."""
    from .readers.files import read_trace_file

    return read_trace_file(path, steps=engine.steps() if engine is not None else None)


def load_state(path: str) -> CoverageState:
    """A state file; a JSON report given instead is refused with the reason (it cannot merge)."""
    try:
        return CoverageState.load(path)
    except TooLarge:
        raise
    except StateError:
        try:
            doc = json.loads(read_capped(path))
        except (OSError, ValueError, RecursionError):  # TooLarge is a ValueError too
            doc = None
        if isinstance(doc, dict) and "agents" in doc and "spans" in doc:
            raise StateError(
                f"{path}: a JSON report, not a state file; reports hold ratios, not the path and "
                "state sets, so they cannot be merged exactly (write state files with "
                "`agentcov coverage --data-file F` or `pytest --agentcov`, which writes .agentcov)"
            ) from None
        raise


def _merge_state(engine: CoverageEngine, state: CoverageState) -> None:
    engine.state.merge(state)
    engine.state_files += 1


def _recorded(path: str, state: CoverageState) -> tuple[str, CoverageSpec] | None:
    """(where, spec) a state file records it was made with, validated as any spec is."""
    if state.recorded_spec is None:
        return None
    source = f"{state.recorded_spec['source']} (as recorded in {path})"
    return source, CoverageSpec.from_dict(state.recorded_spec["document"], source)


def read_states(
    spec: CoverageSpec | None, paths: Sequence[str], keep_going: bool = False,
    warn: Callable[[str], None] = lambda message: None, own_spec: bool = False,
) -> tuple[CoverageSpec, list[CoverageState]]:
    """The state files, read first, and the spec to read every input with: a data file is
    read with the spec it was made with (docs/ci.md). Without `spec`, or with `own_spec`
    (compare's sides), that recorded spec; a given spec that differs is refused, as are state
    files made with different specs."""
    states: list[CoverageState] = []
    chosen: tuple[str, str, CoverageSpec] | None = None  # (path, source, spec)
    for path in paths:
        try:
            state = load_state(path)
        except StateError as exc:
            if not keep_going:
                raise InputError(str(exc)) from None
            warn(f"{exc} (skipped: --keep-going)")
            continue
        states.append(state)
        recorded = _recorded(path, state)
        if recorded is None:
            continue
        source, made_with = recorded
        document = made_with.record()["document"]
        if chosen is not None and not chosen[2].judges_as(document):
            raise InputError(f"{path}: made with spec {source}, {chosen[0]} with another "
                             f"({chosen[1]}); data files judged under different specs cannot "
                             "be read as one")
        if chosen is None:
            chosen = (path, source, made_with)
        if spec is not None and not spec.judges_as(document):
            if not own_spec:
                raise InputError(
                    f"{path}: made with spec {source}, not {spec.source}: its runs were judged "
                    "under that spec (restricted tools, contracts, boundaries), so no other can "
                    "read it; drop --spec to read it with its own, or re-run the session")
            warn(f"{path}: read with the spec it was made with, {source}, not {spec.source}")
    if chosen is not None and (spec is None or own_spec):
        return chosen[2], states
    return spec if spec is not None else CoverageSpec.empty(), states


@bulk_ingestion()  # `--jobs` workers, forked inside, inherit it
def load(
    spec: CoverageSpec | None,
    *,
    traces: Sequence[str] = (),
    results: Sequence[str] = (),
    states: Sequence[str] = (),
    keep_going: bool = False,
    warn: Callable[[str], None] = lambda message: None,
    jobs: int = 1,
    progress: bool = False,
    evaluations: EvaluationQueue | None = None,
    own_spec: bool = False,
) -> CoverageEngine:
    """An engine holding every input, under `spec`, or under the spec the state files record
    when none is given (`own_spec`: even when one is; `read_states`). A bad file raises
    InputError, or with `keep_going` is passed to `warn` and skipped (spans read from it
    before the bad spot still count).
    `jobs` > 1 reads the trace files in that many processes (see `jobs.py`); `progress` shows
    a progress line on stderr when the reading takes more than a moment. `evaluations`
    collects the evaluation events of the runs judged here (not of merged states' runs), and
    reads in this process (a worker's runs fold in its own)."""
    spec, loaded = read_states(spec, states, keep_going, warn, own_spec)
    engine = CoverageEngine(spec, shapes=True)  # the report can say why runs are missing
    engine.assembler.expect_events()  # a log file may come after its traces' spans
    engine.evaluations = evaluations
    if evaluations is not None:
        jobs = 1
    paths = _trace_files(traces)
    shown = Progress(len(paths) + len(results)) if progress else None
    if jobs > 1 and paths:
        from .jobs import read_in_parallel

        if read_in_parallel(engine, paths, jobs, shown):
            if shown is not None:
                shown.files_done = len(paths)
            paths = []
    reads: list[Callable[[], None]] = [
        *(partial(_ingest, engine, _read(p, engine), shown) for p in paths),
        *(partial(_read_results, engine, p, n << 32, warn, shown)
          for n, p in enumerate(results)),
        partial(engine.flush_all, END_OF_INPUT),
        *(partial(_merge_state, engine, state) for state in loaded),
    ]
    try:
        for read in reads:
            try:
                read()
            except (TraceFormatError, StateError) as exc:
                if not keep_going:
                    raise InputError(str(exc)) from None
                warn(f"{exc} (skipped: --keep-going)")
    finally:
        if shown is not None:
            shown.close()
    return engine


EVALUATIONS_PER_LINE = 1000


def write_evaluations(path: str, queue: EvaluationQueue) -> int:
    """Write the queued evaluation events to `path` as OTLP/JSON logs, JSON Lines of
    `ExportLogsServiceRequest` (the Collector's `otlpjsonfile` receiver reads it); returns the
    number written (docs/evaluations.md)."""
    encoder = Encoder()
    written = 0
    with open(path, "w", encoding="utf-8") as fh:
        while batch := queue.take(EVALUATIONS_PER_LINE):
            fh.write(otlp_json(encoder.readable(batch)) + "\n")
            queue.count(None, len(batch))
            written += len(batch)
    return written


def save_data_file(
    state: CoverageState, spec: CoverageSpec, path: str | os.PathLike[str],
    lost: Mapping[str, int] | None = None,
) -> None:
    """Write `state` as a data file that records `spec`, the spec its runs were judged under, so
    every later reading judges as this one did, and `lost`, what was dropped before it was judged
    (`CoverageEngine.lost`), so no later gate passes either (docs/ci.md). Raises OSError."""
    state.recorded_spec = spec.record()
    state.save(path, lost=lost)


def incomplete_warnings(engine: CoverageEngine) -> list[str]:
    """One line per reason the inputs' runs are known to be incomplete (a data file's mark)."""
    return [f"incomplete data: {reason}" for reason in engine.state.incomplete]


def run_count(report: Report) -> int:
    """Agent runs in a report, all agents together (0 means the inputs held nothing to judge)."""
    return sum(int(a["runs"]["count"]) for a in report["agents"].values())


def report(engine: CoverageEngine, *, contexts: bool = False) -> Report:
    """The report, listing the agents the spec names even when no run of theirs was seen
    (0 runs, 0 % coverage), so an agent missing from the traces cannot pass unnoticed."""
    with engine.lock:
        for name in engine.spec.agents:
            if name != "*":
                engine.state.agent(name)
    return engine.snapshot(contexts=contexts).to_dict()


def input_kind(path: str) -> str:
    """Which `load` argument a single path is: "states", "results" (trials) or "traces".

    Read from the content, like the trace formats: a JSON object naming the state format (or a
    JSON report, which `load_state` then refuses with the reason) is a state; a JSON list, or an
    object holding `results`/`trials`, is trials; anything else (directories, JSON Lines,
    protobuf, gzip, stdin) goes to the trace readers, which name what is wrong with it.
    """
    from .readers.files import STDIN  # lazily, like the readers (startup time)

    if path == STDIN or os.path.isdir(path):
        return "traces"
    try:
        with open_regular(path) as fh:
            start = fh.read(1 << 16).lstrip(b"\xef\xbb\xbf \t\r\n")
            if _STATE_HEAD.match(start):  # as `CoverageState.save` writes it: any size is
                return "states"  # the state loader's to read or refuse, never sniffed whole
            head = start[:1]
            if head not in (b"{", b"["):
                return "traces"
            fh.seek(0)
            data = fh.read(MAX_RESULTS_BYTES + 1)
            if len(data) > MAX_RESULTS_BYTES:
                return "traces"  # the trace reader refuses a JSON document this big, naming it
            trials = parse_trials(data, (), sys.maxsize)  # trials read far faster by the core
            if trials is not None:
                return _trials_kind(*trials.doc_shape())
            doc = json.loads(data.decode("utf-8-sig"))
    except (OSError, ValueError, RecursionError):  # a core panic is a ValueError (CoreFailed)
        return "traces"  # the trace reader reports the problem with the file's name
    if isinstance(doc, list):
        return "traces" if kind_of(doc) == "zipkin" else "results"
    if not isinstance(doc, dict):
        return "traces"
    if doc.get("format") == STATE_FORMAT or ("agents" in doc and "spans" in doc):
        return "states"
    if any(isinstance(doc.get(k), list) for k in ("results", "trials")):
        return "results"
    return "traces"


def _trials_kind(keys: list[str] | None, format_: str | None, zipkin_keys: bool) -> str:
    """`input_kind` of a document the core read as trials: the same rules, on its shape."""
    if keys is None:
        return "traces" if zipkin_keys else "results"  # Zipkin: spans with traceId and id
    if format_ == STATE_FORMAT or ("agents" in keys and "spans" in keys):
        return "states"
    return "results"


def load_path(
    spec: CoverageSpec | None, path: str, warn: Callable[[str], None] = lambda message: None
) -> CoverageEngine:
    """An engine over one input of any kind (`agentcov compare` takes one per side); a data
    file is read with the spec it was made with, whatever `spec` says (`warn` says so)."""
    kind = input_kind(path)
    return load(
        spec,
        traces=[path] if kind == "traces" else (),
        results=[path] if kind == "results" else (),
        states=[path] if kind == "states" else (),
        warn=warn,
        own_spec=True,
    )
