"""A small support agent whose tool calls a policy decides, through the real OpenTelemetry SDK:
spans from a TracerProvider, `gen_ai.tool.call.decision` events as log records from a
LoggerProvider (the 2026 GenAI conventions), and what each front door should make of them.

Expected values are worked out by hand in each test from the script below, never computed.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from opentelemetry import trace
from opentelemetry._logs import Logger, LogRecord, SeverityNumber
from opentelemetry.sdk._logs import LoggerProvider
from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import TracerProvider

RESOURCE = Resource.create({"service.name": "policy-svc"})
CANARY = "CANARY-7f3a-do-not-store"  # a prompt, an argument, a log body: must reach no output

SPEC: dict[str, Any] = {
    "version": 1,
    "agents": [{
        "name": "support",
        "tools": ["lookup", "issue_refund"],
        "tool_edges": {"restricted": ["issue_refund"]},
    }],
}


def decide(logger: Logger, tool: str, outcome: str, call_id: str | None,
           span: trace.Span | None = None) -> None:
    """One decision event as a log record, in `span` (else the current span)."""
    attributes: dict[str, Any] = {"gen_ai.tool.call.decision.outcome": outcome,
                                  "gen_ai.tool.name": tool,
                                  "gen_ai.tool.call.arguments": CANARY}
    if call_id is not None:
        attributes["gen_ai.tool.call.id"] = call_id
    logger.emit(LogRecord(
        context=trace.set_span_in_context(span) if span is not None else None,
        severity_number=SeverityNumber.INFO, event_name="gen_ai.tool.call.decision",
        body=CANARY, attributes=attributes))


@dataclass
class Script:
    """What one run does; `after` events are emitted once the agent span has ended."""

    decisions: list[tuple[str, str, str | None]] = field(default_factory=list)  # before tools
    tools: list[tuple[str, str | None]] = field(default_factory=list)  # (tool, call id) spans
    after: list[tuple[str, str, str | None]] = field(default_factory=list)


def run_agent(tracer: trace.Tracer, logger: Logger, script: Script,
              between: Callable[[], None] = lambda: None) -> None:
    """invoke_agent support > chat, the decisions, the tool spans; then the late events."""
    with tracer.start_as_current_span("invoke_agent support", attributes={
            "gen_ai.operation.name": "invoke_agent", "gen_ai.agent.name": "support",
            "gen_ai.input.messages": CANARY}) as agent:
        with tracer.start_as_current_span("chat gpt-4o", attributes={
                "gen_ai.operation.name": "chat", "gen_ai.request.model": "gpt-4o",
                "gen_ai.usage.input_tokens": 10, "gen_ai.usage.output_tokens": 5}):
            pass
        for tool, outcome, call_id in script.decisions:
            decide(logger, tool, outcome, call_id)
        for tool, call_id in script.tools:
            attributes = {"gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": tool,
                          "gen_ai.tool.call.arguments": CANARY}
            if call_id is not None:
                attributes["gen_ai.tool.call.id"] = call_id
            with tracer.start_as_current_span(f"execute_tool {tool}", attributes=attributes):
                pass
    between()
    for tool, outcome, call_id in script.after:
        decide(logger, tool, outcome, call_id, agent)


def providers() -> tuple[TracerProvider, LoggerProvider]:
    return TracerProvider(resource=RESOURCE), LoggerProvider(resource=RESOURCE)
