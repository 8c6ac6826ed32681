"""classify: SpanRecord -> Step through a fixed cascade of convention adapters.

Adding a convention family is one new module and one entry in ADAPTERS (most specific first:
scope-keyed dialects before attribute-keyed conventions before name patterns).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from ..records import SpanRecord
from . import genai, pydantic_ai
from .common import build_step
from .step import KINDS, OTHER, Step

Adapter = Callable[[SpanRecord, Sequence[str]], "Step | None"]
ADAPTERS: tuple[Adapter, ...] = (pydantic_ai.classify, genai.classify)

__all__ = ["ADAPTERS", "KINDS", "Step", "classify"]


def classify(record: SpanRecord, state_attributes: Sequence[str] = ()) -> Step:
    """The first adapter that recognises the span wins; anything else is an `other` step."""
    for adapter in ADAPTERS:
        step = adapter(record, state_attributes)
        if step is not None:
            return step
    return build_step(record, OTHER, state_attributes)
