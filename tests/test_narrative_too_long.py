"""An answer padded past the 1 MiB read cap no longer evades the narrative check silently
(issue 29, low items): it is `unverifiable`, counted as too long, and the report says so.
Before, it was counted like an answer never captured. Real SDK spans through the processor."""

from __future__ import annotations

import json

from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import TracerProvider

from otel_agentcov.processor import AgentCoverageProcessor
from otel_agentcov.reporting import render
from otel_agentcov.semconv.content import MAX_RAW
from otel_agentcov.spec import CoverageSpec

CLAIM = "I have issued your refund."


def test_a_padded_answer_is_unverifiable_too_long_and_shown() -> None:
    spec = CoverageSpec.from_dict({"version": 1, "agents": [
        {"name": "support", "narrative": {"claims": {"issue_refund": ["(?i)refund"]}}}]})
    processor = AgentCoverageProcessor(spec, flush_interval_s=3600.0)
    provider = TracerProvider(resource=Resource.create({"service.name": "support"}))
    provider.add_span_processor(processor)
    tracer = provider.get_tracer("support")
    padded = CLAIM + " " * MAX_RAW  # the hallucinated claim, then padding past the cap
    for output in (padded, None, CLAIM):
        attrs = {"gen_ai.operation.name": "invoke_agent", "gen_ai.agent.name": "support"}
        if output is not None:
            attrs["gen_ai.output.messages"] = json.dumps(
                [{"role": "assistant", "parts": [{"type": "text", "content": output}]}])
        with tracer.start_as_current_span("invoke_agent support", attributes=attrs):
            pass
    assert processor.force_flush()
    report = processor.snapshot().data
    provider.shutdown()
    narrative = report["agents"]["support"]["narrative"]
    # padded: unverifiable, too long; not captured: unverifiable; the plain claim: divergent
    assert narrative["runs"] == {"consistent": 0, "divergent": 1, "unverifiable": 2}
    assert narrative["too_long"] == 1
    assert "unverifiable 2 (1 too long)" in render(report, "text")
