"""What inference read, grouped per vocabulary, for `agentcov explain` to show and pin.

Kept by the offline commands only (like the unmatched shapes), in bounded tables: keys,
kind words, span-name patterns and names, never values of any other kind. Past MAX_GROUPS
groups in a table, spans are counted in `overflow` and not grouped.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ..records import SpanRecord
from .common import clip
from .inference import (
    INPUT_SIDE,
    OUTPUT_SIDE,
    Inferred,
    failure_source,
    model_source,
    tokens_source,
)
from .step import Step

MAX_GROUPS = 1024


@dataclass
class Group:
    """Spans inferred the same way: one `conventions:` entry pins them all."""

    scope: str
    kind: str
    evidence: str
    key: str | None  # the kind attribute, or the GenAI key
    glob: str | None  # the span-name glob of a name affix (BY_NAME), or the span name itself
    regex: str | None  # the affix's regex with the name as `(.+)`
    name_key: str | None  # where the name came from (None: the span name)
    # where the first span's model, token counts and failure flag came from (LLM, any kind)
    sources: dict[str, str] = field(default_factory=dict)
    values: dict[str, None] = field(default_factory=dict)  # the kind words seen, in order
    count: int = 0


@dataclass(frozen=True)
class Candidate:
    """Where a span with no evidence of its own got the name structure may give it."""

    scope: str
    span_name: str
    name_key: str | None
    regex: str | None  # the name affix it carried (`.run`), if any


class InferredLog:
    """Groups of inferred spans, candidates by name, conflicts by reason; all bounded."""

    __slots__ = ("groups", "candidates", "structure", "conflicts", "overflow")

    def __init__(self) -> None:
        self.groups: dict[tuple[str | None, ...], Group] = {}
        self.candidates: dict[str, Candidate] = {}  # candidate name -> its first span's shape
        self.structure: dict[tuple[str, str], int] = {}  # (kind, name) -> spans
        self.conflicts: dict[tuple[str, str], int] = {}  # (scope, why) -> spans
        self.overflow = 0

    def add(self, record: SpanRecord, found: Inferred) -> None:
        scope = clip(record.scope_name)
        if found.conflict is not None:
            self._count(self.conflicts, (scope, found.conflict))
        elif found.evidence is None:
            return
        elif found.kind == "other":  # a candidate: remembered by the name it would take
            if found.name is not None and found.name not in self.candidates:
                if len(self.candidates) < MAX_GROUPS:
                    self.candidates[found.name] = Candidate(
                        scope, clip(record.name), found.name_key,
                        found.affix[1] if found.affix is not None else None)
                else:
                    self.overflow += 1
        else:
            glob, regex = found.affix if found.affix is not None else (None, None)
            if found.evidence == "name":
                key: tuple[str | None, ...] = (scope, found.kind, found.evidence, None, glob)
            else:
                key = (scope, found.kind, found.evidence, found.key, None)
            group = self.groups.get(key)
            if group is None:
                if len(self.groups) >= MAX_GROUPS:
                    self.overflow += 1
                    return
                group = self.groups[key] = Group(scope, found.kind, found.evidence, found.key,
                                                 glob, regex, found.name_key, _sources(record,
                                                                                       found.kind))
            group.count += 1
            if found.value is not None and len(group.values) < 32:
                group.values[found.value] = None

    def reclassified(self, step: Step) -> None:
        """The structural pass made `step` an agent or a tool."""
        name = step.agent if step.kind == "agent" else step.tool
        if name is not None:
            self._count(self.structure, (step.kind, name))

    def _count(self, table: dict[tuple[str, str], int], key: tuple[str, str]) -> None:
        if key in table:
            table[key] += 1
        elif len(table) < MAX_GROUPS:
            table[key] = 1
        else:
            self.overflow += 1


def _sources(record: SpanRecord, kind: str) -> dict[str, str]:
    """The keys an entry pinning this span's kind must read its fields from."""
    attrs = record.attributes
    found: dict[str, str] = {}
    if kind == "llm":
        model = model_source(record)
        if model is not None:
            found["model"] = model[0]
        for field_name, side in (("tokens_in", INPUT_SIDE), ("tokens_out", OUTPUT_SIDE)):
            count = tokens_source(attrs, side)
            if count is not None:
                found[field_name] = count[0]
    if kind in ("llm", "tool", "agent"):
        failed = failure_source(attrs)
        if failed is not None and failed[1] != "_OTHER":  # a typed flag reads as the entry's
            found["error"] = failed[0]
    return found
