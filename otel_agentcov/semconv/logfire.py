"""Pydantic Logfire's OpenAI Agents spans: what `tables/logfire.json` cannot say.

A failed `Agent run:` span carries an `error` attribute whose message is read here only to see a
turn limit (never used as a label).
"""

from __future__ import annotations

from collections.abc import Sequence

from ..records import SpanRecord
from .common import parse_json
from .step import MAX_STEPS, Step

_MAX_TURNS = "max turns exceeded"


def max_turns(record: SpanRecord, step: Step, state_attributes: Sequence[str]) -> Step:
    if step.error is not None and step.limit is None:
        failure = parse_json(record.attributes.get("error"))
        message = failure.get("message") if isinstance(failure, dict) else None
        if isinstance(message, str) and _MAX_TURNS in message.lower():
            step.limit = MAX_STEPS
    return step
