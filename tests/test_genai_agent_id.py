"""`gen_ai.agent.id` on `invoke_agent` (semantic-conventions-genai 546; docs/instrumentations.md,
"GenAI conventions, 2026"): the stable id of an agent definition names the agent where neither
`gen_ai.agent.name` nor the span name does. Real SDK spans through the processor."""

from __future__ import annotations

from typing import Any

import pytest
from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import TracerProvider

from otel_agentcov import AgentCoverageProcessor, CoverageSpec


def agents(span_name: str, attributes: dict[str, Any]) -> dict[str, Any]:
    """One run: the agent span over one chat; the report's agents with their run counts."""
    provider = TracerProvider(resource=Resource.create({"service.name": "svc"}))
    processor = AgentCoverageProcessor(CoverageSpec.empty())
    provider.add_span_processor(processor)
    tracer = provider.get_tracer("t")
    with tracer.start_as_current_span(span_name, attributes={
            "gen_ai.operation.name": "invoke_agent", **attributes}):
        with tracer.start_as_current_span("chat m", attributes={
                "gen_ai.operation.name": "chat", "gen_ai.request.model": "m"}):
            pass
    processor.force_flush()
    got = processor.snapshot().to_dict()["agents"]
    processor.shutdown()
    return {name: a["runs"]["count"] for name, a in got.items()}


@pytest.mark.parametrize(("span_name", "attributes", "expected"), [
    # a provider-managed agent: no name anywhere but its id
    ("invoke_agent", {"gen_ai.agent.id": "asst_abc123"}, {"asst_abc123": 1}),
    # a name wins over the id, and so does the span name
    ("invoke_agent", {"gen_ai.agent.id": "asst_abc123", "gen_ai.agent.name": "support"},
     {"support": 1}),
    ("invoke_agent support", {"gen_ai.agent.id": "asst_abc123"}, {"support": 1}),
    # neither name nor id: a wrapper, not an agent; the run counts for the service
    ("invoke_agent", {}, {"svc": 1}),
])
def test_the_agent_id_names_an_agent_nothing_else_names(
        span_name: str, attributes: dict[str, Any], expected: dict[str, int]) -> None:
    assert agents(span_name, attributes) == expected
