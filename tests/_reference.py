"""The Python interpreter of the convention tables (`tests/_table.py`) beside the package's
classifier: the reference the core is tested equal to, span for span (docs/core.md).

The package classifies every span in the core (docs/core.md#values); this is what its Python
path read, kept for the tests only.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from _fields import build_step, library_named
from _hooks import HOOKS, testspans
from _rule import Rule
from _table import Table

from otel_agentcov.records import SpanRecord
from otel_agentcov.semconv import Classifier, builtin
from otel_agentcov.semconv.step import OTHER, Step

BUILTIN = Table([Rule(entry, HOOKS) for entry in builtin.entries()])


class Reference:
    """The Python interpreter's reading of a span: a spec's entries, then the built-in tables."""

    def __init__(self, conventions: Sequence[Mapping[str, Any]] = (),
                 agents: Sequence[str] = ()) -> None:
        self._table = Table([*(Rule(entry) for entry in conventions), *BUILTIN.rules])
        self._agents = agents

    def __call__(self, record: SpanRecord, state_attributes: Sequence[str] = ()
                 ) -> tuple[Step, bool]:
        """The Step and whether an entry matched (an `other` step when none did)."""
        step = self._table.classify(record, state_attributes)
        matched = step is not None
        if step is None:
            step = build_step(record, OTHER, state_attributes)
        step = testspans.as_test_span(record, step, state_attributes)
        return library_named(step, record, self._agents), matched


class ReferenceClassifier(Classifier):
    """The package's classifier with its Python reference beside it (`reference`)."""

    def __init__(self, conventions: Sequence[Mapping[str, Any]] = (), **options: Any) -> None:
        super().__init__(conventions, **options)
        self.reference = Reference(conventions, tuple(options.get("agents", ())))
