"""Types of the compiled core (core/, docs/core.md)."""

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from .records import SpanRecord
from .semconv.step import Step

__version__: str

class Classifier:
    """The convention tables, interpreted by the core (docs/conventions.md)."""

    def __init__(self, entries: Iterable[Mapping[str, Any]], builtin: bool) -> None: ...
    def before(self, conventions: Iterable[Mapping[str, Any]]) -> Classifier: ...
    def classify(
        self, record: SpanRecord, state_attributes: Sequence[str]
    ) -> tuple[Step, bool] | None: ...
