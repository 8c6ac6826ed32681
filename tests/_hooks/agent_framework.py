"""Microsoft Agent Framework's workflow dialect: what `tables/agent_framework.json` cannot say."""

from __future__ import annotations

from collections.abc import Sequence

from otel_agentcov.records import SpanRecord
from otel_agentcov.semconv.step import Step


def edge(record: SpanRecord, step: Step, state_attributes: Sequence[str]) -> Step | None:
    """A message from an executor to itself is no hand-off."""
    return None if step.handoff_from == step.handoff_to else step
