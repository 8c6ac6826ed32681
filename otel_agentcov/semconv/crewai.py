"""CrewAI through OpenInference (default wrappers and `use_event_listener=True`).

Agents are `graph.node.id` (the role) on AGENT spans, read by the generic OpenInference rule; the
crew's kickoff is a workflow; the coworker tools delegate, and name their coworker only in their
arguments: that one field is read, because the default wrappers trace no span for the coworker.
"""

from __future__ import annotations

from collections.abc import Sequence

from ..records import SpanRecord
from . import openinference
from .common import as_str, build_step, parse_json
from .step import WORKFLOW, Step

SCOPE = "openinference.instrumentation.crewai"
SCOPES = (SCOPE, f"{SCOPE}._event_listener")  # default wrappers, event listener
KICKOFF = ".kickoff"
COWORKER_TOOLS = frozenset({
    "Delegate work to coworker", "Ask question to coworker",  # default wrappers
    "delegate_work_to_coworker", "ask_question_to_coworker",  # event listener
})


def classify(record: SpanRecord, state_attributes: Sequence[str]) -> Step | None:
    if record.scope_name not in SCOPES:
        return None
    attrs = record.attributes
    if attrs.get(openinference.KIND) == "CHAIN" and record.name.endswith(KICKOFF):
        return build_step(record, WORKFLOW, state_attributes)
    step = openinference.classify(record, state_attributes)
    if step is not None and step.tool in COWORKER_TOOLS:
        step.handoff_tool = True
        args = parse_json(attrs.get("input.value"))
        step.handoff_hint = as_str(args.get("coworker")) if isinstance(args, dict) else None
    return step
