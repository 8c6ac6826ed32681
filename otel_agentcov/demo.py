"""Built-in multi-agent workload for `agentcov demo`.

It drives the real OpenTelemetry SDK (real tracer, real spans) so the demo exercises exactly the
path a user's agent takes; a seeded rng and a synthetic clock make every run reproducible offline.
"""

from __future__ import annotations

import json
import math
import random
import signal
import sys
import threading
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from types import FrameType
from typing import Any, Literal, TextIO

import yaml
from opentelemetry import trace
from opentelemetry._logs import Logger, LogRecord, SeverityNumber
from opentelemetry.context import get_current
from opentelemetry.sdk._logs import LoggerProvider
from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import BatchSpanProcessor
from opentelemetry.sdk.trace.id_generator import IdGenerator
from opentelemetry.trace import Span, SpanKind, Status, StatusCode
from opentelemetry.util.types import AttributeValue

from otel_agentcov.exporters.otlp_file import OTLPFileSpanExporter
from otel_agentcov.processor import AgentCoverageProcessor
from otel_agentcov.reporting import render
from otel_agentcov.semconv.events import DECISION_EVENT, OUTCOME_KEY
from otel_agentcov.spec import CoverageSpec

WORKFLOW = "support_flow"
MAX_STEPS = 10  # triage's request limit; the spec below declares the same max_steps boundary

# The second half of each batch of requests runs as a canary version (docs/compare.md).
BASELINE_VERSION, CANARY_VERSION = "1.0", "1.1"

DEMO_SPEC: dict[str, Any] = {
    "version": 1,
    "defaults": {
        "paths": {"granularity": "action", "max_depth": 10},
        "boundaries": {"max_steps": MAX_STEPS, "timeout_s": 60, "cost_limit_tokens": 200_000},
        "min_runs": 10,
    },
    "agents": [
        {
            "name": "triage_agent",
            "tools": ["search", "summarize", "read_file", "research", "transfer_to_billing_agent"],
            "models": ["gpt-4o", "claude-sonnet-4-5"],
            "tool_edges": {
                "allowed": [
                    "search", "summarize", "read_file", "research", "transfer_to_billing_agent"
                ],
                "restricted": ["delete_repo", "force_push"],
                "delegation": [
                    {"from": "triage_agent", "to": "research_agent"},
                    {"from": "triage_agent", "to": "billing_agent"},
                ],
            },
            "contract": {"must_call": ["search"]},
            "expect": [
                {"target": "edges.restricted_attempts", "matcher": {"schema": {"maximum": 0}}},
                {"target": "edges.allowed_pct", "matcher": {"schema": {"minimum": 80}}},
            ],
        },
        {
            "name": "research_agent",
            "tools": ["web_fetch", "summarize"],
            "models": ["gpt-4o-mini"],
            "tool_edges": {"allowed": ["web_fetch", "summarize"]},
        },
        {
            "name": "billing_agent",
            "tools": ["lookup_invoice", "refund"],
            "models": ["claude-haiku-4-5"],
            "tool_edges": {"allowed": ["lookup_invoice", "refund"], "restricted": ["issue_credit"]},
        },
    ],
}

_EPOCH_NS = 1_735_689_600 * 10**9  # 2025-01-01T00:00:00Z: the synthetic clock never reads wall time
_MS = 1_000_000

Incident = Literal["timeout", "step_limit", "delete_repo", "issue_credit"]
_ONE_INCIDENT_PER: dict[Incident, int] = {
    "timeout": 20,
    "step_limit": 30,
    "delete_repo": 15,
    "issue_credit": 12,
}


@dataclass(frozen=True)
class _Model:
    request: str
    response: str  # dated snapshot, as providers report it
    provider: str


_TRIAGE_MODELS = (
    _Model("gpt-4o", "gpt-4o-2024-08-06", "openai"),
    _Model("claude-sonnet-4-5", "claude-sonnet-4-5-20250929", "anthropic"),
)
_RESEARCH_MODEL = _Model("gpt-4o-mini", "gpt-4o-mini-2024-07-18", "openai")
_BILLING_MODEL = _Model("claude-haiku-4-5", "claude-haiku-4-5-20251001", "anthropic")

_TRIAGE_TOOLS = ("search", "summarize", "read_file")
# What each model is offered: restricted tools are offered too, as in real agents where policy,
# not the prompt, is what keeps the model away from them.
_TRIAGE_OFFER = (*_TRIAGE_TOOLS, "research", "transfer_to_billing_agent", "delete_repo")
_RESEARCH_OFFER = ("web_fetch", "summarize")
_BILLING_OFFER = ("lookup_invoice", "refund", "issue_credit")


def _fail(span: Span, error_type: str, message: str) -> None:
    """Record an error the way GenAI instrumentations do: status ERROR plus `error.type`."""
    span.set_status(Status(StatusCode.ERROR, message))
    span.set_attribute("error.type", error_type)


def _incidents(rng: random.Random, runs: int) -> list[Incident | None]:
    """Deal the rare incidents from a shuffled deck so every seed shows each of them."""
    deck: list[Incident | None] = [
        incident
        for incident, per in _ONE_INCIDENT_PER.items()
        for _ in range(math.ceil(runs / per))
    ]
    deck += [None] * (runs - len(deck))
    rng.shuffle(deck)
    return deck[:runs]


class _Workload:
    """One support workflow per request; every duration comes from the rng, never from a clock."""

    def __init__(self, tracer: trace.Tracer, rng: random.Random, logger: Logger | None = None
                 ) -> None:
        self._tracer = tracer
        self._rng = rng
        self._now = _EPOCH_NS
        self.version = BASELINE_VERSION
        # with a logger, the 2026 GenAI shapes: decisions as log records (a denied call leaves
        # no tool span), cost amounts on model calls, turn counts on agent spans
        self._logger = logger
        self._turns = 0

    def _decide(self, tool: str, outcome: str) -> str:
        """Emit a `gen_ai.tool.call.decision` log record in the current span; its call id."""
        call_id = f"call_{self._rng.getrandbits(48):012x}"
        assert self._logger is not None
        self._logger.emit(LogRecord(
            timestamp=self._now, observed_timestamp=self._now, context=get_current(),
            severity_number=SeverityNumber.INFO, event_name=DECISION_EVENT,
            attributes={OUTCOME_KEY: outcome, "gen_ai.tool.call.id": call_id,
                        "gen_ai.tool.name": tool}))
        return call_id

    def _advance(self, lo_ms: float, hi_ms: float) -> None:
        self._now += int(self._rng.uniform(lo_ms, hi_ms) * _MS)

    @contextmanager
    def _span(
        self,
        name: str,
        attributes: dict[str, AttributeValue],
        kind: SpanKind = SpanKind.INTERNAL,
    ) -> Iterator[Span]:
        self._advance(0.2, 3.0)
        with self._tracer.start_as_current_span(
            name, kind=kind, attributes=attributes, start_time=self._now, end_on_exit=False
        ) as span:
            try:
                yield span
            finally:
                self._advance(0.1, 2.0)
                span.end(end_time=self._now)

    def _chat(self, model: _Model, offered: Sequence[str], finish: str | None) -> None:
        """One model call; `finish=None` means the request times out."""
        definitions = [{"type": "function", "name": tool} for tool in offered]
        attributes: dict[str, AttributeValue] = {
            "gen_ai.operation.name": "chat",
            "gen_ai.provider.name": model.provider,
            "gen_ai.request.model": model.request,
            "gen_ai.tool.definitions": json.dumps(definitions),
        }
        with self._span(f"chat {model.request}", attributes, SpanKind.CLIENT) as span:
            if finish is None:
                self._advance(30_000, 30_000)
                _fail(span, "APITimeoutError", "Request timed out.")
                return
            self._advance(300, 2_500)
            tokens_in = self._rng.randint(300, 2_500)
            tokens_out = (self._rng.randint(20, 80) if finish == "tool_calls"
                          else self._rng.randint(80, 400))
            span.set_attributes(
                {
                    "gen_ai.response.model": model.response,
                    "gen_ai.response.id": f"resp_{self._rng.getrandbits(64):016x}",
                    "gen_ai.response.finish_reasons": [finish],
                    "gen_ai.usage.input_tokens": tokens_in,
                    "gen_ai.usage.output_tokens": tokens_out,
                }
            )
            if self._logger is not None:  # priced locally: $1 in, $4 out per million tokens
                self._turns += 1
                span.set_attributes({
                    "gen_ai.usage.cost.amount": (tokens_in + 4 * tokens_out) / 1e6,
                    "gen_ai.usage.cost.currency": "USD",
                    "gen_ai.usage.cost.source": "local",
                })

    @contextmanager
    def _tool(self, name: str, **extra: AttributeValue) -> Iterator[Span]:
        attributes: dict[str, AttributeValue] = {
            "gen_ai.operation.name": "execute_tool",
            "gen_ai.tool.name": name,
            "gen_ai.tool.call.id": f"call_{self._rng.getrandbits(48):012x}",
            "gen_ai.tool.type": "function",
            **extra,
        }
        with self._span(f"execute_tool {name}", attributes) as span:
            yield span

    def _call_tool(
        self, name: str, failure_rate: float = 0.0, error_type: str = "RuntimeError"
    ) -> None:
        with self._tool(name) as span:
            self._advance(20, 800)
            if self._rng.random() < failure_rate:
                _fail(span, error_type, f"{name} failed")

    @contextmanager
    def _agent(self, name: str, model: _Model) -> Iterator[Span]:
        attributes: dict[str, AttributeValue] = {
            "gen_ai.operation.name": "invoke_agent",
            "gen_ai.agent.name": name,
            "gen_ai.agent.version": self.version,
            "gen_ai.request.model": model.request,
        }
        turns, self._turns = self._turns, 0
        with self._span(f"invoke_agent {name}", attributes) as span:
            try:
                yield span
            finally:
                if self._logger is not None:
                    span.set_attribute("gen_ai.agent.turn.count", self._turns)
                self._turns = turns

    def request(self, incident: Incident | None) -> None:
        self._advance(500, 20_000)  # time between user requests
        handoff = incident == "issue_credit" or self._rng.random() < 0.2
        attributes: dict[str, AttributeValue] = {
            "gen_ai.operation.name": "invoke_workflow",
            "gen_ai.workflow.name": WORKFLOW,
        }
        with self._span(f"invoke_workflow {WORKFLOW}", attributes) as workflow:
            error = self._triage(incident, handoff)
            if error is not None:
                _fail(workflow, error, f"triage_agent failed: {error}")
            elif handoff:
                self._billing(deny=incident == "issue_credit")

    def _triage_turns(self, incident: Incident | None) -> list[list[str]]:
        """The tools triage calls, one list per model turn; order and length vary per request."""
        if incident == "step_limit":
            return [["search"]] * MAX_STEPS
        rng = self._rng
        turns = [["search" if rng.random() < 0.85 else "read_file"]]
        for _ in range(rng.randint(0, 2)):
            turns.append(rng.sample(_TRIAGE_TOOLS, 2 if rng.random() < 0.2 else 1))
        if rng.random() < 0.3:
            turns.insert(rng.randint(1, len(turns)), ["research"])
        if incident == "delete_repo":
            turns.insert(rng.randint(0, len(turns)), ["delete_repo"])
        if incident == "timeout":
            return turns[: rng.randint(0, len(turns) - 1)]
        return turns

    def _triage(self, incident: Incident | None, handoff: bool) -> str | None:
        """Run triage_agent; returns the error type that ended it, if any."""
        model = _TRIAGE_MODELS[0] if self._rng.random() < 0.6 else _TRIAGE_MODELS[1]
        with self._agent("triage_agent", model) as agent:
            for tools in self._triage_turns(incident):
                self._chat(model, _TRIAGE_OFFER, "tool_calls")
                for tool in tools:
                    self._triage_tool(tool)
            if incident == "step_limit":
                message = f"The next request would exceed the request_limit of {MAX_STEPS}"
                _fail(agent, "UsageLimitExceeded", message)
                return "UsageLimitExceeded"
            if incident == "timeout":
                self._chat(model, _TRIAGE_OFFER, None)
                _fail(agent, "APITimeoutError", "Request timed out.")
                return "APITimeoutError"
            if handoff:
                self._chat(model, _TRIAGE_OFFER, "tool_calls")
                self._call_tool("transfer_to_billing_agent")
            else:
                self._chat(model, _TRIAGE_OFFER, "stop")
        return None

    def _triage_tool(self, tool: str) -> None:
        if tool == "research":
            with self._tool("research"):
                self._research()
        elif tool == "delete_repo":
            self._call_tool("delete_repo", failure_rate=0.5, error_type="PermissionError")
        else:
            self._call_tool(tool, failure_rate=0.12)

    def _research(self) -> None:
        """research_agent, used by triage as a tool: nested inside `execute_tool research`."""
        with self._agent("research_agent", _RESEARCH_MODEL):
            for _ in range(self._rng.randint(1, 2)):
                self._chat(_RESEARCH_MODEL, _RESEARCH_OFFER, "tool_calls")
                self._call_tool("web_fetch", failure_rate=0.2)
            if self._rng.random() < 0.7:
                self._chat(_RESEARCH_MODEL, _RESEARCH_OFFER, "tool_calls")
                self._call_tool("summarize")
            self._chat(_RESEARCH_MODEL, _RESEARCH_OFFER, "stop")

    def _billing(self, *, deny: bool) -> None:
        """billing_agent, reached by hand-off: a sibling of triage's span under the workflow."""
        with self._agent("billing_agent", _BILLING_MODEL):
            self._chat(_BILLING_MODEL, _BILLING_OFFER, "tool_calls")
            self._call_tool("lookup_invoice", failure_rate=0.1)
            if deny:
                self._chat(_BILLING_MODEL, _BILLING_OFFER, "tool_calls")
                if self._logger is not None:  # the policy's decision; the call never runs
                    self._decide("issue_credit", "deny")
                else:
                    with self._tool("issue_credit", **{"gen_ai.tool.call.decision": "deny"}):
                        self._advance(0.1, 1.0)
            elif self._rng.random() < 0.6:
                self._chat(_BILLING_MODEL, _BILLING_OFFER, "tool_calls")
                if self._logger is not None:
                    call_id = self._decide("refund", "allow")
                    with self._tool("refund", **{"gen_ai.tool.call.id": call_id}) as span:
                        self._advance(20, 800)
                        if self._rng.random() < 0.1:
                            _fail(span, "RuntimeError", "refund failed")
                else:
                    self._call_tool("refund", failure_rate=0.1)
            self._chat(_BILLING_MODEL, _BILLING_OFFER, "stop")


class SeededIds(IdGenerator):
    """Trace and span ids drawn from the seed: the report names the traces of restricted
    attempts, so the same seed must give the same ids too."""

    def __init__(self, seed: int) -> None:
        self._rng = random.Random(seed)

    def generate_span_id(self) -> int:
        return self._rng.getrandbits(64) or 1

    def generate_trace_id(self) -> int:
        return self._rng.getrandbits(128) or 1


def run_workload(
    tracer_provider: trace.TracerProvider,
    *,
    seed: int = 7,
    runs: int = 60,
    stop: threading.Event | None = None,
    logger_provider: LoggerProvider | None = None,
) -> None:
    """Emit `runs` support-flow traces; the same seed yields the same spans and timestamps.
    `stop` ends it between two requests, so no run is left half done. With `logger_provider`,
    the workload records the 2026 GenAI shapes (decision log records, cost, turn counts)."""
    rng = random.Random(seed)
    logger = logger_provider.get_logger("otel_agentcov.demo") if logger_provider else None
    workload = _Workload(tracer_provider.get_tracer("otel_agentcov.demo"), rng, logger)
    for n, incident in enumerate(_incidents(rng, runs)):
        if stop is not None and stop.is_set():
            return
        workload.version = BASELINE_VERSION if n < runs // 2 else CANARY_VERSION
        workload.request(incident)


def write_spec(path: str) -> None:
    """The demo's spec as `agentcov.yaml`, so the trace file can be judged by every command."""
    with open(path, "w", encoding="utf-8") as fh:
        fh.write("# agentcov.yaml written by `agentcov demo --spec-out`\n")
        yaml.safe_dump(DEMO_SPEC, fh, sort_keys=False)


@contextmanager
def _stop_on_interrupt() -> Iterator[threading.Event]:
    """The first Ctrl-C sets the event (the demo finishes the request in flight and reports);
    a second one interrupts as usual. Outside the main thread signals cannot be caught: no-op."""
    stop = threading.Event()
    if threading.current_thread() is not threading.main_thread():
        yield stop
        return

    def interrupted(signum: int, frame: FrameType | None) -> None:
        stop.set()
        signal.signal(signal.SIGINT, previous)

    previous = signal.signal(signal.SIGINT, interrupted)
    try:
        yield stop
    finally:
        signal.signal(signal.SIGINT, previous)


def main(
    *,
    seed: int = 7,
    runs: int = 60,
    fmt: str = "text",
    out: TextIO = sys.stdout,
    serve_port: int | None = None,
    duration_s: float = 0.0,
    traces_out: str | None = None,
    spec_out: str | None = None,
) -> int:
    """Run the workload through a provider with the coverage processor and print its report.

    With `serve_port`, `/metrics` is served on 127.0.0.1 while the workload runs; `duration_s`
    keeps the workload going (a new batch of `runs` each round) until that much time has passed.
    `traces_out` / `spec_out` also write the workload as an OTLP protobuf file and its spec, real
    input for `coverage`, `gate`, `serve`. Ctrl-C stops the workload and reports what ran.
    """
    if spec_out is not None:
        write_spec(spec_out)
    trace_file = OTLPFileSpanExporter(traces_out) if traces_out is not None else None
    provider = TracerProvider(
        resource=Resource.create({"service.name": "agentcov-demo"}), id_generator=SeededIds(seed)
    )
    processor = AgentCoverageProcessor(CoverageSpec.from_dict(DEMO_SPEC, source="<demo>"))
    provider.add_span_processor(processor)
    logs = LoggerProvider(resource=provider.resource)
    logs.add_log_record_processor(processor.log_processor())
    if trace_file is not None:
        provider.add_span_processor(BatchSpanProcessor(trace_file))
    server = None
    try:
        if serve_port is not None:
            try:
                server, _ = processor.serve_metrics(port=serve_port)
            except OSError as exc:  # the CLI prints it as one line: say which address
                raise OSError(exc.errno, f"cannot serve /metrics on 127.0.0.1:{serve_port}: "
                              f"{exc.strerror or exc}") from None
            # the bound port, not the asked one: --serve 0 picks a free port
            print(f"serving /metrics on http://127.0.0.1:{server.server_port}/metrics",
                  file=sys.stderr)
        deadline = time.monotonic() + duration_s
        round_seed = seed
        with _stop_on_interrupt() as stop:
            while not stop.is_set():
                # the trace file holds spans only: with one, no log records, so the file
                # reads back as exactly what the demo measured
                run_workload(provider, seed=round_seed, runs=runs, stop=stop,
                             logger_provider=logs if trace_file is None else None)
                provider.force_flush()
                if time.monotonic() >= deadline:
                    break
                round_seed += 1
                stop.wait(min(1.0, max(deadline - time.monotonic(), 0.0)))
        if stop.is_set():
            print("agentcov: interrupted; the report covers the requests finished so far",
                  file=sys.stderr)
        logs.shutdown()
        provider.shutdown()  # every span reaches the processor and the trace file
        text = render(processor.snapshot().to_dict(), fmt)
    finally:
        if server is not None:
            server.shutdown()
        if trace_file is not None:
            trace_file.shutdown()
    out.write(text if text.endswith("\n") else text + "\n")
    return 0
