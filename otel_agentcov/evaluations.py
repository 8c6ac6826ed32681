"""Verdicts as OpenTelemetry GenAI evaluation events: one `gen_ai.evaluation.result` log record
per verdict of a judged run, on the run's agent span (docs/evaluations.md).

Every front door (the SDK processor, `agentcov coverage`, `agentcov serve`) builds its records
here, from the names and counts the state keeps (`RunFacts`, `Verdicts`): never from content.
Records are queued, bounded, as runs fold, and emitted later by the front door's own thread, so
a fold (which may run on the host's thread, e.g. in `snapshot()`) never does logging I/O.
"""

from __future__ import annotations

import base64
import json
import threading
from collections import deque
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from .assembler import AgentRun
from .judge import Verdicts
from .judge.narrative import CONSISTENT, DIVERGENT
from .spec import AgentSpec
from .state import RunFacts

if TYPE_CHECKING:  # the SDK is imported where records are made: the CLI starts without it
    from opentelemetry._logs import Logger, LoggerProvider, LogRecord
    from opentelemetry.sdk._logs import ReadableLogRecord

EVENT_NAME = "gen_ai.evaluation.result"
SCOPE = "otel_agentcov"
RESTRICTED = "agentcov.restricted_tool"
NARRATIVE = "agentcov.narrative"
RUN = "agentcov.run"
CONTRACT_PREFIX = "agentcov.contract."
MAX_PENDING = 4096  # records awaiting emission; more are dropped and counted (`queue_full`)
DROP_REASONS = ("queue_full", "export_failed", "shutdown")
SERVICE_NAME = "agentcov"  # the resource of records agentcov sends itself (file, serve)


@dataclass(frozen=True, slots=True)
class Evaluation:
    """One verdict on one run, as the event carries it."""

    name: str
    passed: bool
    explanation: str
    agent: str
    trace_id: int
    span_id: int
    time_ns: int
    severity: str | None = None

    def attributes(self) -> dict[str, str | float]:
        attributes: dict[str, str | float] = {
            "gen_ai.evaluation.name": self.name,
            "gen_ai.evaluation.score.label": "pass" if self.passed else "fail",
            "gen_ai.evaluation.score.value": 1.0 if self.passed else 0.0,
            "gen_ai.evaluation.explanation": self.explanation,
            "gen_ai.agent.name": self.agent,
        }
        if self.severity is not None:
            attributes["agentcov.severity"] = self.severity
        return attributes

    def log_record(self) -> LogRecord:
        """The record for the Logs API: the agent span's ids, so backends show it on the span."""
        from opentelemetry._logs import LogRecord, SeverityNumber
        from opentelemetry.trace import (
            NonRecordingSpan,
            SpanContext,
            TraceFlags,
            set_span_in_context,
        )

        span = SpanContext(self.trace_id, self.span_id, is_remote=False,
                           trace_flags=TraceFlags(TraceFlags.SAMPLED))
        return LogRecord(
            timestamp=self.time_ns, context=set_span_in_context(NonRecordingSpan(span)),
            event_name=EVENT_NAME,
            severity_number=SeverityNumber.INFO if self.passed else SeverityNumber.WARN,
            severity_text="INFO" if self.passed else "WARN", attributes=self.attributes(),
        )


def evaluations(
    run: AgentRun, spec: AgentSpec, facts: RunFacts, verdicts: Verdicts
) -> list[Evaluation]:
    """The run's verdicts: each restricted tool attempted (by outcome), or one pass when the
    agent restricts tools and none was attempted; each contract behaviour decided; the
    narrative when decided; and the run's own pass/fail (docs/semantics.md)."""
    out: list[Evaluation] = []

    def add(name: str, passed: bool, explanation: str, severity: str | None = None) -> None:
        out.append(Evaluation(name, passed, explanation, run.agent, run.trace_id, run.span_id,
                              run.end_ns, severity))

    for (tool, outcome), n in sorted(facts.restricted.items()):
        add(RESTRICTED, False, f"restricted tool {tool} {outcome} x{n}")
    if spec.restricted and not facts.restricted:
        add(RESTRICTED, True, f"no restricted tool attempted ({len(spec.restricted)} declared)")
    for check in facts.checks:
        if check.result in ("satisfied", "violated"):
            add(f"{CONTRACT_PREFIX}{check.contract}.{check.behavior}",
                check.result == "satisfied", f"{check.kind} {check.result}", check.severity)
    narrative = verdicts.narrative
    if narrative is not None and narrative.result in (CONSISTENT, DIVERGENT):
        found = ", ".join(f"{kind} {tool}" for tool, kind in narrative.divergences)
        add(NARRATIVE, narrative.result == CONSISTENT,
            f"divergent: {found}" if found else narrative.result)
    add(RUN, facts.passed, _run_explanation(facts))
    return out


def _run_explanation(facts: RunFacts) -> str:
    if facts.passed:
        return "passed"
    reasons = []
    if facts.errored:
        reasons.append("errored")
    if facts.attempts:
        reasons.append(f"{facts.attempts} restricted attempt(s)")
    failed = sum(c.fails_run for c in facts.checks)
    if failed:
        reasons.append(f"{failed} contract violation(s)")
    if not reasons:  # only a failing narrative is left (the pass rule)
        reasons.append("narrative divergent")
    return "failed: " + ", ".join(reasons)


class EvaluationQueue:
    """Bounded queue of records between the fold and the emitting thread; drops are counted.

    An engine calls it (`on_judged`) for every run it folds; `emit` sends what is queued."""

    def __init__(self, max_pending: int = MAX_PENDING) -> None:
        self._pending: deque[Evaluation] = deque()
        self._max_pending = max_pending
        self._lock = threading.Lock()
        self.emitted = 0
        self.dropped = dict.fromkeys(DROP_REASONS, 0)

    def __call__(
        self, run: AgentRun, spec: AgentSpec, facts: RunFacts, verdicts: Verdicts
    ) -> None:
        self.put(evaluations(run, spec, facts, verdicts))

    def put(self, records: Iterable[Evaluation]) -> None:
        with self._lock:
            for record in records:
                if len(self._pending) >= self._max_pending:
                    self.dropped["queue_full"] += 1
                else:
                    self._pending.append(record)

    def take(self, n: int | None = None) -> list[Evaluation]:
        """Up to `n` queued records (all when None), oldest first."""
        with self._lock:
            count = len(self._pending) if n is None else min(n, len(self._pending))
            return [self._pending.popleft() for _ in range(count)]

    def count(self, reason: str | None, n: int) -> None:
        """`n` records emitted (reason None) or dropped for `reason`."""
        with self._lock:
            if reason is None:
                self.emitted += n
            else:
                self.dropped[reason] += n

    def emit(self, logger: Logger) -> int:
        """Emit every queued record through `logger`; returns how many. A record the logger
        fails on is counted `export_failed`."""
        records = self.take()
        sent = 0
        for record in records:
            try:
                logger.emit(record.log_record())
                sent += 1
            except Exception:  # noqa: BLE001 - a broken logs pipeline must not stop coverage
                self.count("export_failed", 1)
        self.count(None, sent)
        return sent

    def counts(self) -> dict[str, int]:
        """`emitted` and each drop reason (the report's `spans.evaluations`)."""
        with self._lock:
            return {"emitted": self.emitted, **self.dropped}


def logger_for(provider: LoggerProvider) -> Logger:
    return provider.get_logger(SCOPE)


class Encoder:
    """Records as the SDK's `ReadableLogRecord`s, for its OTLP encoders and exporters: emitted
    through a private SDK LoggerProvider, so each carries what the SDK sets on any record
    (observed time, scope, resource). One per thread that uses it."""

    def __init__(self) -> None:
        from opentelemetry.sdk._logs import LoggerProvider as SDKLoggerProvider
        from opentelemetry.sdk._logs.export import (
            InMemoryLogRecordExporter,
            SimpleLogRecordProcessor,
        )
        from opentelemetry.sdk.resources import Resource

        self._exporter = InMemoryLogRecordExporter()  # type: ignore[no-untyped-call]
        self._provider = SDKLoggerProvider(
            resource=Resource.create({"service.name": SERVICE_NAME}), shutdown_on_exit=False)
        self._provider.add_log_record_processor(SimpleLogRecordProcessor(self._exporter))
        self._logger = logger_for(self._provider)

    def readable(self, records: Sequence[Evaluation]) -> list[ReadableLogRecord]:
        for record in records:
            self._logger.emit(record.log_record())
        batch = list(self._exporter.get_finished_logs())
        self._exporter.clear()
        return batch


def otlp_json(batch: Sequence[ReadableLogRecord]) -> str:
    """One OTLP/JSON `ExportLogsServiceRequest` (one line): the SDK's protobuf encoder, then
    protobuf's JSON mapping with the ids in hex, as OTLP/JSON requires (not base64)."""
    from google.protobuf.json_format import MessageToDict
    from opentelemetry.exporter.otlp.proto.common._log_encoder import encode_logs

    request: dict[str, Any] = MessageToDict(encode_logs(batch), use_integers_for_enums=True)
    for resource_logs in request.get("resourceLogs", ()):
        for scope_logs in resource_logs.get("scopeLogs", ()):
            for record in scope_logs.get("logRecords", ()):
                for key in ("traceId", "spanId"):
                    if key in record:
                        record[key] = base64.b64decode(record[key]).hex()
    return json.dumps(request, separators=(",", ":"))
