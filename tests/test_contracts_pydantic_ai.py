"""Contracts on a real pydantic-ai agent (FunctionModel, offline) with content capture on.

The agent's model asks for `issue_refund` with a given amount, then answers with a given text.
An `args` detector reads the captured tool arguments and an `output` detector the agent's final
result, in the legacy (v2: `agent run` / `running tool`, `final_result`, `tool_arguments`) and
the default span formats.
"""

from __future__ import annotations

from typing import Any, Literal

import pytest
from opentelemetry.sdk.trace import TracerProvider
from pydantic_ai import Agent
from pydantic_ai.messages import ModelMessage, ModelResponse, TextPart, ToolCallPart, ToolReturnPart
from pydantic_ai.models.function import AgentInfo, FunctionModel
from pydantic_ai.models.instrumented import InstrumentationSettings

from otel_agentcov.processor import AgentCoverageProcessor
from otel_agentcov.spec import CoverageSpec

pytestmark = pytest.mark.filterwarnings("ignore:Instrumentation format versions")

SPEC: dict[str, Any] = {"version": 1, "agents": [{"name": "support", "contracts": [{
    "name": "refunds",
    "must": [{"behavior": "apologises", "output": {"regex": "(?i)sorry"}, "severity": "low"}],
    "must_not": [{"behavior": "big_refund", "severity": "critical",
                  "called": {"tool": "issue_refund", "args": {"amount": "^[0-9]{4,}$"}}}],
}]}]}


def _agent(amount: int, answer: str) -> Agent[None, str]:
    def model(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        returned = any(isinstance(p, ToolReturnPart) for m in messages for p in m.parts)
        if returned:
            return ModelResponse(parts=[TextPart(answer)])
        return ModelResponse(parts=[ToolCallPart("issue_refund", {"amount": amount})])

    agent: Agent[None, str] = Agent(FunctionModel(model), name="support")

    @agent.tool_plain
    def issue_refund(amount: int) -> str:
        return f"refunded {amount}"

    return agent


@pytest.mark.parametrize("version", [2, None], ids=["v2", "default"])
def test_output_and_args_detectors_on_pydantic_ai(version: Literal[2] | None) -> None:
    provider = TracerProvider()
    processor = AgentCoverageProcessor(CoverageSpec.from_dict(SPEC))
    provider.add_span_processor(processor)
    settings = (InstrumentationSettings(tracer_provider=provider, include_content=True)
                if version is None else
                InstrumentationSettings(tracer_provider=provider, include_content=True,
                                        version=version))
    try:
        for amount, answer in ((5000, "Sorry for the delay, refund issued."), (50, "Done.")):
            agent = _agent(amount, answer)
            agent.instrument = settings
            agent.run_sync("refund my order")
        assert processor.force_flush()
        report = processor.snapshot().to_dict()
    finally:
        provider.shutdown()
    a = report["agents"]["support"]
    rows = {r["behavior"]: (r["satisfied"], r["violated"], r["unknown"]) for r in a["contracts"]}
    # run 1: amount 5000 (four digits) and "Sorry ..."; run 2: amount 50 and "Done."
    assert rows == {"big_refund": (1, 1, 0), "apologises": (1, 1, 0)}
    assert a["runs"]["count"] == 2
    assert a["runs"]["passed"] == 1  # the critical big refund fails run 1; low does not fail 2
