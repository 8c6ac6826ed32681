"""A real pydantic-ai agent (TestModel, offline) feeding an AgentCoverageProcessor and an
in-memory exporter, for the fault tests: the quickstart's `support` agent and its one tool."""

from __future__ import annotations

from typing import Any

from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from pydantic_ai import Agent
from pydantic_ai.models.instrumented import InstrumentationSettings
from pydantic_ai.models.test import TestModel

from otel_agentcov.processor import AgentCoverageProcessor
from otel_agentcov.spec import CoverageSpec

SPEC: dict[str, Any] = {"version": 1, "agents": [{"name": "support", "tools": ["lookup_order"]}]}


def support_agent(tool_answer: str = "shipped") -> tuple[
        Agent[None, str], AgentCoverageProcessor, InMemorySpanExporter]:
    provider = TracerProvider()
    processor = AgentCoverageProcessor(CoverageSpec.from_dict(SPEC))
    exporter = InMemorySpanExporter()
    provider.add_span_processor(processor)
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    agent: Agent[None, str] = Agent(TestModel(), name="support")
    agent.instrument = InstrumentationSettings(tracer_provider=provider)

    @agent.tool_plain
    def lookup_order(order_id: str) -> str:
        return tool_answer

    return agent, processor, exporter


def run_all(agent: Agent[None, str], n: int, prompt: str = "where is order 42?") -> list[str]:
    """n runs; each one's outcome: "ok", or the class name of what it raised."""
    outcomes = []
    for _ in range(n):
        try:
            agent.run_sync(prompt)
            outcomes.append("ok")
        except Exception as exc:  # noqa: BLE001 - the injected faults are the point
            outcomes.append(type(exc).__name__)
    return outcomes
