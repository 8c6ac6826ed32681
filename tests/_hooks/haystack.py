"""Haystack's own tracer: what `tables/haystack.json` cannot say, the agent's budget.

`haystack.agent.run` declares `haystack.agent.max_steps` and records `haystack.agent.steps_taken`;
an agent that took every step it was allowed was stopped by its limit (Haystack stops it there
with a warning, no error).
"""

from __future__ import annotations

from collections.abc import Sequence

from _fields import as_int

from otel_agentcov.records import SpanRecord
from otel_agentcov.semconv.step import MAX_STEPS, Step


def budget(record: SpanRecord, step: Step, state_attributes: Sequence[str]) -> Step:
    attrs = record.attributes
    limit = as_int(attrs.get("haystack.agent.max_steps"))
    if limit > 0 and as_int(attrs.get("haystack.agent.steps_taken")) >= limit:
        step.limit = MAX_STEPS
    return step
