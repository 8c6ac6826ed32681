"""Pydantic Logfire's OpenAI Agents spans: what `tables/logfire.json` cannot say.

A failed `Agent run:` span carries an `error` attribute whose message is read here only to see a
limit of steps (never used as a label).
"""

from __future__ import annotations

from collections.abc import Sequence

from otel_agentcov.records import SpanRecord
from otel_agentcov.semconv.common import parse_json
from otel_agentcov.semconv.limits import says_max_steps
from otel_agentcov.semconv.step import MAX_STEPS, Step


def max_turns(record: SpanRecord, step: Step, state_attributes: Sequence[str]) -> Step:
    if step.error is not None and step.limit is None:
        failure = parse_json(record.attributes.get("error"))
        message = failure.get("message") if isinstance(failure, dict) else None
        if isinstance(message, str) and says_max_steps((message,), (message,)):
            step.limit = MAX_STEPS
    return step
