"""A spec's `conventions:` entries cannot hide a restricted tool (docs/conventions.md).

An entry is tried before the built-in tables, so one that re-reads a span the built-in tables
read as a call of a restricted tool (as `other`, `llm`, a hand-off, another tool's name, or a
name read from a missing key) would turn a failing gate into a pass. Such a span is read as
the built-in tables read it instead, and counted, so every report says it happened. Cheap: the
built-in reading is computed only for spans a spec entry matched.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from .. import compiled
from ..records import SpanRecord
from .step import TOOL, Step


class RestrictedGuard:
    """Overrules a spec entry's reading of a span that names a restricted tool."""

    __slots__ = ("_core", "_restricted", "_builtin")

    def __init__(
        self, conventions: Sequence[Mapping[str, Any]], restricted: Callable[[str], bool],
        builtin: Callable[[SpanRecord, Sequence[str], bool], Step],
    ) -> None:
        """`restricted`: is a tool name restricted for some agent (the spec's lists together,
        since the agent is not known yet); `builtin`: the built-in tables' classify."""
        self._core = compiled.Classifier(list(conventions), False, Step)  # the spec's alone
        self._restricted = restricted
        self._builtin = builtin

    def _spec_matches(self, record: SpanRecord) -> bool:
        return self._core.classify(record, [])[1]

    def overrule(
        self, record: SpanRecord, step: Step, state_attributes: Sequence[str], content: bool
    ) -> Step | None:
        """The built-in reading of `record` when a spec entry read it (as `step`) other than
        as a call of the restricted tool the built-in tables see; else None."""
        if step.kind == TOOL and step.tool is not None and self._restricted(step.tool):
            return None  # read as a restricted call anyway: nothing hidden
        if not self._spec_matches(record):
            return None
        builtin = self._builtin(record, state_attributes, content)
        if builtin.kind != TOOL or builtin.tool is None or not self._restricted(builtin.tool):
            return None
        return builtin
