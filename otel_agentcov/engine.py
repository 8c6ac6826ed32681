"""CoverageEngine: SpanRecord -> classify -> RunAssembler -> judge -> CoverageState, one lock.

Every front door (SDK processor, OTLP files and service, trial files) feeds this same engine.
"""

from __future__ import annotations

import threading
import time
from collections import defaultdict, deque
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from functools import partial
from typing import TYPE_CHECKING, Any

from .assembler import AgentRun, Bounds, RunAssembler, early_flushes
from .assembler.events import event_counts
from .compiled import local_root
from .judge import Checks, Verdicts, judge
from .readers.trial_runs import plain_other_step
from .records import SpanRecord, valid_id
from .reporting import RenderedSnapshot
from .semconv import KINDS, Classified, Classifier, Step, restricted_guard
from .semconv.events import EVENT_TYPES, INVALID, Event, InvalidEvent, record_events
from .semconv.inference import CANDIDATE, EVIDENCE
from .semconv.inferred_log import InferredLog
from .semconv.shapes import EXPLAIN_SHARE, REPORTED_SHAPES, ShapeCounter, Unclassified
from .semconv.step import FIRST_KINDS
from .snapshot import Measures, compute_snapshot
from .snapshot.schema import Report, SpanStats
from .spec import CoverageSpec
from .state import CoverageState, Limits, fields, losses
from .state.trial_fold import fits, fold_params, fold_shares

if TYPE_CHECKING:
    from opentelemetry.sdk.trace import ReadableSpan

    from .compiled import TrialFile
    from .evaluations import EvaluationQueue


def _add(counts: dict[str, int], more: Mapping[str, int]) -> None:
    for key, n in more.items():
        counts[key] = counts.get(key, 0) + n


@dataclass
class EngineCounters:
    """What an engine counted of the spans it saw: classified by kind, dropped by reason, traces
    flushed early by reason, internal errors. Counters merge by summing, so the engines of
    `--jobs` workers, pytest-xdist workers and a restarted `agentcov serve` add up exactly."""

    by_kind: dict[str, int] = field(
        default_factory=lambda: defaultdict(int, dict.fromkeys(FIRST_KINDS, 0)))
    dropped: dict[str, int] = field(default_factory=dict)
    flushed_early: dict[str, int] = field(default_factory=early_flushes)
    internal_errors: int = 0
    # spans a spec `conventions:` entry or inference re-read that name a restricted tool: read
    # as calls of it instead (semconv/guard.py, `Classifier.inferred`)
    overruled: int = 0
    events: dict[str, int] = field(default_factory=event_counts)  # decision events, by fate
    # spans classified by inference: `<kind>.<evidence>` (semconv/inference.EVIDENCE) -> count
    inferred: dict[str, int] = field(default_factory=dict)

    def merge(self, other: EngineCounters) -> None:
        _add(self.by_kind, other.by_kind)
        _add(self.dropped, other.dropped)
        _add(self.flushed_early, other.flushed_early)
        _add(self.events, other.events)
        _add(self.inferred, other.inferred)
        self.internal_errors += other.internal_errors
        self.overruled += other.overruled

    def to_dict(self) -> dict[str, Any]:
        counts = {"by_kind": dict(self.by_kind), "dropped": dict(self.dropped),
                  "internal_errors": self.internal_errors,
                  "flushed_early": dict(self.flushed_early), "overruled": self.overruled}
        if any(self.events.values()):  # absent without events: older files are unchanged
            counts["events"] = dict(self.events)
        if self.inferred:  # absent from files written before inference, and where none was
            counts["inferred"] = dict(self.inferred)
        return counts

    @classmethod
    def from_dict(cls, data: Mapping[str, Any], what: str) -> EngineCounters:
        """ValueError or KeyError naming the field (`what.field`) when one is malformed."""
        by_kind = fields.counts(data["by_kind"], f"{what}.by_kind")
        if not set(by_kind) <= set(KINDS):
            raise ValueError(f"{what}.by_kind: unknown kind in {sorted(by_kind)[:8]}")
        counters = cls(dropped=fields.counts(data["dropped"], f"{what}.dropped"),
                       internal_errors=fields.count(data["internal_errors"],
                                                    f"{what}.internal_errors"),
                       overruled=fields.count(data.get("overruled", 0), f"{what}.overruled"))
        _add(counters.by_kind, by_kind)
        _add(counters.flushed_early,
             fields.counts(data["flushed_early"], f"{what}.flushed_early"))
        _add(counters.events, fields.counts(data.get("events", {}), f"{what}.events"))
        inferred = fields.counts(data.get("inferred", {}), f"{what}.inferred")
        if not all(_inferred_key(key) for key in inferred):
            raise ValueError(f"{what}.inferred: unknown kind or evidence in {sorted(inferred)[:8]}")
        _add(counters.inferred, inferred)
        return counters


def _inferred_key(key: str) -> bool:
    kind, _, evidence = key.partition(".")
    return kind in KINDS and evidence in EVIDENCE


class CoverageEngine:
    """Thread-safe ingestion and snapshots; counts every span it sees, keeps or drops."""

    def __init__(
        self,
        spec: CoverageSpec | None = None,
        *,
        bounds: Bounds | None = None,
        limits: Limits | None = None,
        clock: Callable[[], float] = time.monotonic,
        shapes: bool = False,
    ) -> None:
        """`shapes`: count the shapes of spans no convention matched, for the report to say
        why runs are missing (the offline commands; the processor does not pay for it)."""
        self.spec = spec if spec is not None else CoverageSpec.empty()
        self.bounds = bounds if bounds is not None else Bounds()
        self._content = self.spec.needs_content  # classify reads content only if a check needs it
        self.counters = EngineCounters()
        # `agentcov serve` passes a clock it sets from its journal, so a replay is exact
        self.assembler = RunAssembler(
            self.bounds, clock=clock, content=self._content,
            flushed_early=self.counters.flushed_early, events=self.counters.events,
        )
        self.state = CoverageState(limits)
        self.lock = threading.RLock()
        # drops and errors are counted from the host's threads too: a lock of their own that is
        # never held across work, so counting never waits behind ingestion or a snapshot
        self._counters_lock = threading.Lock()
        self.state_files = 0  # state files merged in (`--state`): runs whose spans are not here
        self._state_attributes = self.spec.state_attribute_names
        # the spec's `conventions:` entries are tried before the built-in ones
        anywhere = self.spec.restricted_anywhere
        restricted = anywhere.matches if anywhere else None
        self._classifier = Classifier(self.spec.conventions, inference=self.spec.inference,
                                      restricted=restricted,
                                      agents=[a for a in self.spec.agents if a != "*"])
        self._classifier.rescued = self._count_overruled
        self._classify = self._classifier.classify
        self._inferred = self._classifier.inferred
        if self.spec.inference:
            self.assembler.reclassified = self._reclassified
            self.assembler.restricted = restricted
        # none of them may hide a restricted tool; while they could, spans take the SpanRecord
        # path, where the built-in reading can be compared (docs/conventions.md)
        self._guard = restricted_guard(self.spec.conventions, restricted, self.spec.inference)
        self.unmatched = ShapeCounter() if shapes else None
        self._unmatched = self.unmatched.add if self.unmatched is not None else None
        # what inference read, per vocabulary, for `agentcov explain` (offline only, as shapes)
        self.inferred_log = InferredLog() if shapes and self.spec.inference else None
        self._classifier.log = self.inferred_log
        # `agentcov serve` journals each judged run's (agent, verdicts), in fold order, and a
        # replay folds the journaled ones instead of judging runs whose content is gone
        self.judged: list[tuple[str, Verdicts]] | None = None
        self.replayed: deque[tuple[str, Verdicts]] | None = None
        # where each folded run's evaluation events go (docs/evaluations.md); None: nowhere
        self.evaluations: EvaluationQueue | None = None
        self._measures = Measures()

    def count_drop(self, reason: str, n: int = 1) -> None:
        with self._counters_lock:
            counts = self.counters.dropped
            counts[reason] = counts.get(reason, 0) + n

    def count_event(self, fate: str) -> None:
        """A decision event received that never reached the assembler (`invalid`, or no room)."""
        with self.lock:
            events = self.counters.events
            events["received"] += 1
            events[fate] += 1

    def count_internal_error(self, n: int = 1) -> None:
        with self._counters_lock:
            self.counters.internal_errors += n

    def ingest(self, span: SpanRecord | Classified | Event | InvalidEvent) -> None:
        """Classify one span and fold any runs it completes; never raises, counts it exactly once.

        A SpanRecord is classified here (`to_step`); anything else is a span the core's fused
        reader (`steps`) already decoded and classified the same way. Invalid spans and spans
        classify cannot read are counted drops; a failure after the span was counted is an
        internal error (so processed = classified + dropped always holds). A decision or state
        event (a log file's) goes to `ingest_event`.
        """
        if type(span) is tuple and len(span) == 2:  # (step, local root), the processor's usual
            self.apply(*span)  # span: no type test below is paid for it
            return
        if isinstance(span, EVENT_TYPES):
            self.ingest_event(span)
            return
        if isinstance(span, InvalidEvent):
            self.count_event(INVALID)
            return
        if type(span) is SpanRecord and span.events:
            self.span_events(span)
        result = self.classified(span)
        if isinstance(result, str):
            self.reject(result)
        else:
            self.apply(*result)

    def ingest_all(
        self, spans: Iterable[SpanRecord | Classified | Event | InvalidEvent]
    ) -> None:
        """`ingest` of each span in turn (the offline readers' bulk path): the same counts, runs
        and fold order, without a call per span for what the core already classified."""
        classified, reject, apply = self.classified, self.reject, self.apply
        for span in spans:
            if type(span) is tuple and len(span) == 2:  # (step, local root): nothing to add
                apply(*span)
                continue
            if type(span) is not SpanRecord or span.events:  # an event, or a span carrying some
                self.ingest(span)
                continue
            result = classified(span)
            if isinstance(result, str):
                reject(result)
            else:
                apply(*result)

    def classified(self, span: SpanRecord | Classified) -> tuple[Step, bool] | str:
        """`to_step` of a SpanRecord; a span the core's fused reader classified, as it is (one
        no entry matched comes with its record, for the shape counter)."""
        if isinstance(span, SpanRecord):
            return self.to_step(span)
        if isinstance(span, str) or len(span) == 2:
            return span
        step, root, record = span
        step = self._inferred(record, step, self._state_attributes)
        if self._unmatched is not None and step.kind == "other":  # inference left it so
            self._unmatched(record)
        # inference may have made it a server's half: the core's root rule on what it read
        return step, local_root(record.parent_id is not None, record.parent_remote, record.kind,
                                step.kind)

    def steps(self) -> Callable[..., list[Classified]] | None:
        """The core's decode-and-classify entry with this engine's conventions, for readers of
        protobuf bytes (`semconv.Classifier.otlp_steps`; what it returns goes to `ingest`); None
        when a declared check reads content, which comes from SpanRecords."""
        if self._content or self._guard is not None:
            return None
        return partial(self._classifier.otlp_steps, state_attributes=self._state_attributes,
                       shapes=self.unmatched is not None)

    def sdk_steps(self) -> Callable[[ReadableSpan], Classified] | None:
        """The core's reader of SDK spans with this engine's conventions, for the processor
        (`semconv.Classifier.sdk_step`; what it returns goes to `ingest`); None when content or
        span shapes are read, from SpanRecords, or a spec entry may hide a restricted tool."""
        if self._content or self.unmatched is not None or self._guard is not None:
            return None
        return partial(self._classifier.sdk_step, state_attributes=self._state_attributes)

    def to_step(self, record: SpanRecord) -> tuple[Step, bool] | str:
        """The span's Step and whether it is a local root, or the reason it is dropped (not
        counted here: `reject` counts it).

        The Step is all the engine keeps of a span (names and counts, no content): `agentcov
        serve` journals Steps, so a restart replays exactly this without reading a payload."""
        if not (valid_id(record.trace_id, 128) and valid_id(record.span_id, 64)) or (
                record.parent_id is not None and not valid_id(record.parent_id, 64, 0)):
            return "invalid_ids"
        if record.end_ns < record.start_ns:
            return "end_before_start"
        try:
            step = self._classify(record, self._state_attributes, self._content, self._unmatched)
            if self._guard is not None:
                builtin = self._guard.overrule(record, step, self._state_attributes,
                                               self._content)
                if builtin is not None:
                    step = builtin
                    self._count_overruled()
            root = local_root(record.parent_id is not None, record.parent_remote, record.kind,
                              step.kind)  # the core's one rule (docs/architecture.md)
        except Exception:  # a core panic too: CoreFailed
            return "malformed"  # classify must read anything: this is a bug, counted as one
        return step, root

    def _count_overruled(self) -> None:
        """A reading that would hide a restricted tool was overruled (semconv/guard.py, or
        `Classifier.inferred`)."""
        with self._counters_lock:
            self.counters.overruled += 1

    def reject(self, reason: str, n: int = 1) -> None:
        """Count `n` spans dropped by `to_step` for `reason`."""
        self.count_drop(reason, n)
        if reason == "malformed":
            self.count_internal_error(n)

    def apply(self, step: Step, local_root: bool) -> None:
        """Buffer a classified span and fold the runs it completes."""
        with self.lock:
            self.counters.by_kind[step.kind] += 1
            if step.inferred and step.inferred != CANDIDATE:
                self._count_inferred(step.kind, step.inferred)
            try:
                runs = self.assembler.add(step, local_root)
            except Exception:
                self.count_internal_error()
                return
            if runs:
                self._fold(runs)
            if self.assembler.denials:
                self._fold_denials()

    def _count_inferred(self, kind: str, evidence: str) -> None:
        inferred = self.counters.inferred
        key = f"{kind}.{evidence}"
        inferred[key] = inferred.get(key, 0) + 1

    def _reclassified(self, step: Step, was: str, evidence: str) -> None:
        """The assembler's structural pass changed a span's kind (under `self.lock`)."""
        by_kind = self.counters.by_kind
        by_kind[was] -= 1
        by_kind[step.kind] += 1
        if evidence and evidence != CANDIDATE:  # counted as what it was: it is no longer that
            inferred, key = self.counters.inferred, f"{was}.{evidence}"
            if inferred[key] > 1:
                inferred[key] -= 1
            else:  # none left: no `kind.evidence: 0` in the report
                del inferred[key]
        if step.inferred:
            self._count_inferred(step.kind, step.inferred)
        if self.inferred_log is not None:
            self.inferred_log.reclassified(step, was, evidence)
    def ingest_event(self, event: Event) -> None:
        """Join a decision or state event to its run (buffered with its trace, or folded on its
        own when the run was folded already: assembler/events.py); never raises."""
        with self.lock:
            try:
                late = self.assembler.add_event(event)
                if late is not None:
                    self.state.add_late(late, self.spec.for_agent(late.agent))
            except Exception:
                self.count_internal_error()

    def span_events(self, record: SpanRecord) -> None:
        """The decision and state span events of a span, joined as their log-record form is
        (before the span itself, so a span that closes its run finds them buffered)."""
        for event in record_events(record):
            self.ingest_event(event)

    def ingest_runs(self, runs: list[AgentRun], kinds: Mapping[str, int]) -> None:
        """Fold runs a front door built without spans (trials), counting the spans they stand
        for by kind, as `ingest` would have."""
        with self.lock:
            by_kind = self.counters.by_kind
            for kind, n in kinds.items():
                by_kind[kind] += n
            self._fold(runs)

    def ingest_trial_file(self, trials: TrialFile, trace_base: int) -> bool:
        """Fold a trial file the compiled core read (readers/trials.py `read_trial_file`) as
        each agent's share of the state, counting its spans by kind, as `ingest_runs` of every
        trial would. False, with nothing folded, when its runs must go one by one: a check to
        judge, evaluation events or a journal to write, a step a convention would classify,
        or a table that would reach its cap."""
        if self.evaluations is not None or self.judged is not None or self.replayed:
            return False
        specs = {name: self.spec.for_agent(name) for name in trials.agents()}
        if any(s.checks.contracts or s.checks.narrative is not None for s in specs.values()):
            return False
        attributes = self._state_attributes
        if not all(plain_other_step(str(action).strip().lower() if action else "", error,
                                    attributes) for action, error in trials.other_steps()):
            return False
        tools = trials.tools()
        with self.lock:
            state = self.state
            shares = trials.fold({name: fold_params(s, tools, state)
                                  for name, s in specs.items()}, trace_base)
            if not fits(state, shares):
                return False
            fold_shares(state, shares, {n: s.consistency_window for n, s in specs.items()})
            by_kind = self.counters.by_kind
            for kind, n in trials.kinds():
                by_kind[kind] += n
        return True

    def _fold(self, runs: list[AgentRun]) -> None:
        """Judge and fold finished runs; one that fails is counted and does not lose the rest.

        A run's content is dropped as soon as it is judged: only verdicts reach the state."""
        for run in runs:
            try:
                spec = self.spec.for_agent(run.agent)
                verdicts = self._verdicts(run, spec.checks)
                run.content = None
                facts = self.state.update(run, spec, verdicts)
                if self.evaluations is not None:
                    self.evaluations(run, spec, facts, verdicts)
            except Exception:
                self.count_internal_error()

    def _verdicts(self, run: AgentRun, checks: Checks) -> Verdicts:
        """The run's verdicts: journaled ones on a replay (in fold order; a replay folds the
        same runs in the same order), else judged now; a check that fails inside the judge is
        `unknown` and counted as an internal error (docs/guarantees.md)."""
        replayed = self.replayed
        if replayed is not None and replayed and replayed[0][0] == run.agent:
            verdicts = replayed.popleft()[1]
        else:
            verdicts = judge(run, checks)
        if verdicts.errors:
            self.count_internal_error(verdicts.errors)
        if self.judged is not None:
            self.judged.append((run.agent, verdicts))
        return verdicts

    def sweep(self) -> None:
        with self.lock:
            self._fold(self.assembler.sweep())
            self._fold_denials()

    def flush_all(self, reason: str | None = None) -> None:
        """Finish every buffered trace now (end of input, or shutdown)."""
        with self.lock:
            self._fold(self.assembler.flush_all(reason))
            self._fold_denials()

    def _fold_denials(self) -> None:
        """Fold the denials no span joined (assembler/events.py `unjoined_denials`)."""
        denials, self.assembler.denials = self.assembler.denials, []
        for late in denials:
            try:
                self.state.add_late(late, self.spec.for_agent(late.agent))
            except Exception:
                self.count_internal_error()

    def span_stats(self) -> SpanStats:
        """The report's `spans` section: the counters, what is buffered now, the folds."""
        counters = self.counters
        with self._counters_lock:
            dropped = dict(sorted(counters.dropped.items()))
            internal_errors = counters.internal_errors
            overruled = counters.overruled
        with self.lock:
            stats: SpanStats = {
                "processed": sum(counters.by_kind.values()) + sum(dropped.values()),
                "by_kind": dict(counters.by_kind),
                "dropped": dropped,
                "flushed_early": dict(counters.flushed_early),
                "traces_in_flight": self.assembler.traces_in_flight,
                "spans_buffered": self.assembler.buffered_spans,
                "label_overflow": dict(self.state.overflow),
                "internal_errors": internal_errors,
                "state_files": self.state_files,
            }
            if counters.events["received"]:  # absent without events: older reports unchanged
                stats["events"] = {**counters.events,
                                   "buffered": self.assembler.pending_events}
            if overruled:
                stats["conventions_overruled"] = overruled
            if counters.inferred:
                stats["inferred"] = dict(sorted(counters.inferred.items()))
            unclassified = self._unclassified(sum(counters.by_kind.values()))
            if unclassified is not None:
                stats["unclassified"] = unclassified
        if self.evaluations is not None:
            stats["evaluations"] = self.evaluations.counts()
        return stats

    def _unclassified(self, classified: int) -> Unclassified | None:
        """What no convention matched, when it explains something: spans were read but no
        agent run came out, or nearly all of them (shapes.EXPLAIN_SHARE) matched nothing."""
        unmatched = self.unmatched
        if unmatched is None or not unmatched.total:
            return None
        runs = any(a.outcomes.runs for a in self.state.agents.values())
        if runs and unmatched.total < EXPLAIN_SHARE * classified:
            return None
        return {"spans": unmatched.total, "overflow": unmatched.overflow,
                "shapes": unmatched.top(REPORTED_SHAPES)}

    def counted(self) -> EngineCounters:
        """A copy of the counters, consistent with the state (to send or save with it)."""
        with self.lock, self._counters_lock:
            c = self.counters
            return EngineCounters(dict(c.by_kind), dict(c.dropped), dict(c.flushed_early),
                                  c.internal_errors, c.overruled, dict(c.events),
                                  dict(c.inferred))

    def lost(self) -> dict[str, int]:
        """What was dropped before it was judged and may have held a run (`state/losses.py`):
        by this engine, and by whoever wrote the state files merged into it."""
        with self.lock, self._counters_lock:
            total = dict(self.state.dropped)
            losses.add(total, losses.of_counters(self.counters.dropped, self.counters.events))
        return total

    def merge(self, state: CoverageState, counters: EngineCounters) -> None:
        """Fold in what another engine saw (a `--jobs` or pytest-xdist worker): its state and
        its counters, so the merged report equals one engine seeing it all."""
        with self.lock, self._counters_lock:
            self.state.merge(state)
            self.counters.merge(counters)

    def snapshot(self, *, contexts: bool = False) -> RenderedSnapshot:
        """The computed view now; `str()` of it is the text report."""
        with self.lock:
            return compute_snapshot(self.state, self.spec, self.span_stats(), contexts=contexts,
                                    kind=RenderedSnapshot)

    def measures(self) -> Report:
        """The report as far as the metric families read it (`snapshot.measures`): one
        consistent view per scrape, without the advice and expect list a scrape never shows;
        agents whose state did not change since the last call keep their report."""
        with self.lock:
            return self._measures(self.state, self.spec, self.span_stats())
