"""smolagents through OpenInference: agents named only in span names, a step budget on the run.

`<name>.run` is the agent (`ToolCallingAgent.run` when the agent has no name: a class name, no
agent); `final_answer` is how the framework ends a run, not a tool the agent chose; the run span
declares `smolagents.max_steps`, and a run past its budget makes one extra answer call.
"""

from __future__ import annotations

from collections.abc import Sequence

from ..records import SpanRecord
from . import openinference
from .common import as_int, as_str, build_step, clip
from .step import AGENT, OTHER, Step

SCOPE = "openinference.instrumentation.smolagents"
RUN_SUFFIX = ".run"
CLASS_NAMES = frozenset({"MultiStepAgent", "ToolCallingAgent", "CodeAgent"})
ANSWER_TOOL = "final_answer"


def classify(record: SpanRecord, state_attributes: Sequence[str]) -> Step | None:
    if record.scope_name != SCOPE:
        return None
    kind = as_str(record.attributes.get(openinference.KIND))
    if kind == "AGENT":
        name = record.name.removesuffix(RUN_SUFFIX)
        agent = None if name in CLASS_NAMES else clip(name) or None
        step = build_step(record, AGENT, state_attributes, agent=agent)
        step.step_limit = as_int(record.attributes.get("smolagents.max_steps"))
        return step
    if kind == "TOOL" and record.attributes.get("tool.name") == ANSWER_TOOL:
        return build_step(record, OTHER, state_attributes)
    return openinference.classify(record, state_attributes)
