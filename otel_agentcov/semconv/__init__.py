"""classify: SpanRecord -> Step through convention tables (docs/conventions.md).

The built-in tables (`builtin.FAMILIES`) say what each instrumentation's spans are; a spec's
`conventions:` entries are tried before them. Anything no entry matches is an `other` step.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from ..records import SpanRecord
from . import builtin, testspans
from .common import build_step
from .content import step_content
from .convention import Rule
from .step import KINDS, OTHER, Step
from .table import Table

__all__ = ["KINDS", "Classifier", "Step", "classify"]


class Classifier:
    """Classify spans by a spec's `conventions:` entries, then the built-in tables."""

    __slots__ = ("_table",)

    def __init__(self, conventions: Sequence[Mapping[str, Any]] = ()) -> None:
        """`conventions`: entries already validated (the spec loader does it)."""
        self._table = builtin.TABLE
        if conventions:
            self._table = Table([*(Rule(entry) for entry in conventions), *builtin.TABLE.rules])

    def classify(
        self, record: SpanRecord, state_attributes: Sequence[str] = (), content: bool = False,
        unmatched: Callable[[SpanRecord], None] | None = None,
    ) -> Step:
        """The first matching entry's Step, else an `other` step (and `unmatched` is told).

        `content` (a declared check needs it) also reads the span's output, input and tool
        arguments onto the step; without it no content is parsed at all (the hot path)."""
        step = self._table.classify(record, state_attributes)
        if step is None:
            if unmatched is not None:
                unmatched(record)
            step = build_step(record, OTHER, state_attributes)
        step = testspans.as_test_span(record, step, state_attributes)  # never an agent or a tool
        if content:
            step.content = step_content(record, step.kind)
        return step


classify = Classifier().classify  # the built-in conventions alone
