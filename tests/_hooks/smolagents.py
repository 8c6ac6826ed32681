"""smolagents through OpenInference: what `tables/smolagents.json` cannot say.

`<name>.run` is the agent, but `ToolCallingAgent.run` (an agent with no name) names a class, no
agent; the run span declares `smolagents.max_steps`, and a run past its budget makes one extra
answer call (see the assembler).
"""

from __future__ import annotations

from collections.abc import Sequence

from _fields import as_int

from otel_agentcov.records import SpanRecord
from otel_agentcov.semconv.step import Step

CLASS_NAMES = frozenset({"MultiStepAgent", "ToolCallingAgent", "CodeAgent"})


def run(record: SpanRecord, step: Step, state_attributes: Sequence[str]) -> Step:
    if step.agent in CLASS_NAMES:
        step.agent = None
    step.step_limit = as_int(record.attributes.get("smolagents.max_steps"))
    return step
