"""What inference read, grouped per vocabulary, for `agentcov explain` to show and pin.

Kept by the offline commands only (like the unmatched shapes), in bounded tables: keys,
kind words, span-name patterns and names, never values of any other kind. Past MAX_GROUPS
groups in a table, spans are counted in `overflow` and not grouped.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from .. import compiled
from ..records import SpanRecord
from .common import clip
from .inference import (
    BY_ATTRIBUTE,
    BY_FUNCTION,
    BY_NAME,
    CANDIDATE,
    INPUT_SIDE,
    MODEL_IN_NAME,
    OUTPUT_SIDE,
    Inferred,
    caller_source,
    failure_source,
    handoff_source,
    kind_words,
    model_in_parameters,
    model_source,
    tokens_source,
)
from .step import AGENT, HANDOFF, LLM, OTHER, TOOL, WORKFLOW, Step

MAX_GROUPS = 1024
# kinds structure may read otherwise in a vocabulary's group (a call around calls, an agent's
# method beside its run, a hand-off in a trace with no agent, a workflow that is a run)
_REREAD = (TOOL, LLM, AGENT, HANDOFF, WORKFLOW)
MAX_CALL_SPANS = 65536  # such spans remembered by id: was structure to read them otherwise
_MAX_WORDS = 32  # kind words and other kind keys kept per group


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
    # where its spans' model, token counts and failure flag came from (the first span having
    # one), and THROWN where an exception event failed one
    sources: dict[str, str] = field(default_factory=dict)
    decode: bool = False  # its first span wrote its values JSON-quoted (`"\"AGENT\""`)
    values: dict[str, None] = field(default_factory=dict)  # the kind words seen, in order
    # the other kind keys its spans carried, with their kind words (inference preferred `key`
    # over them), bounded
    beside: dict[str, dict[str, None]] = field(default_factory=dict)
    count: int = 0
    # structure read some of its spans otherwise (a model's requests, a call around calls)
    unpinned: bool = False
    # failure flags no field source can say (`x.level: ERROR`): key -> the values that failed
    flags: dict[str, dict[str, None]] = field(default_factory=dict)
    # the model keys of its later spans where the first one's was absent (`model` beside
    # `response.model`), bounded: the entry reads the first present, in inference's order
    models: dict[str, None] = field(default_factory=dict)


@dataclass
class Candidate:
    """Where a span whose kind the trace structure may change got its name (a span with no
    evidence of its own, typed only as a function, a workflow or an agent), and how many such
    spans carried that name: structure's reading is pinned only if it read them all alike."""

    scope: str
    span_name: str
    name_key: str | None
    regex: str | None  # the name affix it carried (`.run`), if any
    group: tuple[str | None, ...] | None  # the vocabulary group it was in (None: a candidate)
    decode: bool = False
    count: int = 0
    mixed: bool = False  # its spans' names differ, or another name's spans share one of them
    flags: dict[str, dict[str, None]] = field(default_factory=dict)  # as a Group's
    # what failed its spans where no status did, as a Group's `error` and THROWN sources: what
    # an entry must read, should the structure make them runs or tool executions
    sources: dict[str, str] = field(default_factory=dict)


def _structural(found: Inferred) -> bool:
    """Whether the structural pass (assembler/infer.py) may change this span's kind."""
    return found.evidence in (CANDIDATE, BY_FUNCTION) or (found.kind == AGENT) or (
        found.kind == WORKFLOW and found.evidence in (BY_ATTRIBUTE, BY_NAME))


def quoted(record: SpanRecord, keys: tuple[str | None, ...]) -> bool:
    """Whether the span writes its values JSON-quoted (MLflow): an entry then decodes them."""
    attrs = record.attributes
    return any(isinstance(v := attrs.get(k), str) and len(v) > 1 and v[0] == v[-1] == '"'
               for k in keys if k is not None)


class InferredLog:
    """Groups of inferred spans, candidates by name, conflicts by reason; all bounded."""

    __slots__ = ("groups", "candidates", "structure", "conflicts", "overflow", "spans",
                 "_by_span_name", "_call_spans")

    def __init__(self) -> None:
        self.groups: dict[tuple[str | None, ...], Group] = {}
        self.candidates: dict[str, Candidate] = {}  # candidate name -> its first span's shape
        self.structure: dict[tuple[str, str], int] = {}  # (kind, name) -> spans
        self.conflicts: dict[tuple[str, str], int] = {}  # (scope, why) -> spans
        self._by_span_name: dict[tuple[str, str], str] = {}  # a candidate's span -> its name
        self.spans: dict[tuple[str, str], int] = {}  # (scope, span name) -> spans inference read
        # a vocabulary's tool, model or agent span (trace id, span id) -> its group; None once
        # past MAX_CALL_SPANS
        self._call_spans: dict[tuple[int, int], Group] | None = {}
        self.overflow = 0

    def add(self, record: SpanRecord, found: Inferred) -> None:
        scope = clip(record.scope_name)
        span = (scope, clip(record.name))
        if span in self.spans or len(self.spans) < MAX_GROUPS:
            self.spans[span] = self.spans.get(span, 0) + 1
        if found.conflict is not None:
            self._count(self.conflicts, (scope, found.conflict))
        elif found.evidence is None:
            return
        elif found.kind == OTHER:  # a candidate: remembered by the name it would take
            self._candidate(record, found, scope, None)
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
                sources = _sources(record, found.kind)
                group = self.groups[key] = Group(
                    scope, found.kind, found.evidence, found.key, glob, regex, found.name_key,
                    sources, quoted(record, (found.key, found.name_key, *sources.values())))
            elif len(group.sources) < len(_SOURCE_FIELDS):  # a field its first span lacked
                sources = _sources(record, found.kind)  # (a model call's never all: read always)
                for name, source in sources.items():
                    group.sources.setdefault(name, source)
                model = sources.get("model")  # another key naming this one's model
                if model is not None and model not in (group.sources["model"], MODEL_IN_NAME) and (
                        len(group.models) < _MAX_MODEL_KEYS):
                    group.models[model] = None
            group.count += 1
            if found.kind in (LLM, TOOL, AGENT, WORKFLOW):
                _flag(record, group.flags)
            if found.kind in _REREAD and self._call_spans is not None:
                if len(self._call_spans) < MAX_CALL_SPANS:
                    self._call_spans[(record.trace_id, record.span_id)] = group
                else:  # no longer known which group a span structure read otherwise was in
                    self._call_spans = None
            if found.value is not None and len(group.values) < _MAX_WORDS:
                group.values[found.value] = None
            if found.evidence in (BY_ATTRIBUTE, BY_FUNCTION):
                for other, word in kind_words(record.attributes):
                    said = group.beside.get(other)
                    if said is None and other != found.key and len(group.beside) < _MAX_WORDS:
                        said = group.beside[other] = {}
                    if said is not None and len(said) < _MAX_WORDS:
                        said[word] = None
            if _structural(found):
                self._candidate(record, found, scope, key)

    def _candidate(self, record: SpanRecord, found: Inferred, scope: str,
                   group: tuple[str | None, ...] | None) -> None:
        if found.name is None:
            return
        candidate = self.candidates.get(found.name)
        span = (scope, clip(record.name))
        if candidate is None:
            if len(self.candidates) >= MAX_GROUPS:
                self.overflow += 1
                return
            candidate = self.candidates[found.name] = Candidate(
                scope, span[1], found.name_key,
                found.affix[1] if found.affix is not None else None, group,
                quoted(record, (found.name_key,)))
        candidate.count += 1
        _flag(record, candidate.flags)
        for name, source in _error_sources(record).items():
            candidate.sources.setdefault(name, source)
        other = self._by_span_name.get(span, found.name)
        if len(self._by_span_name) < MAX_GROUPS:
            self._by_span_name[span] = other
        if (candidate.scope, candidate.span_name) != span or other != found.name or (
                span not in self._by_span_name):
            candidate.mixed = True  # an exact-name entry would claim spans read otherwise
            if other in self.candidates:
                self.candidates[other].mixed = True

    def reclassified(self, step: Step, was: str, evidence: str) -> None:
        """The structural pass made `step` an agent, a tool or nothing (`other`)."""
        if was in _REREAD and evidence not in (CANDIDATE, BY_FUNCTION, ""):
            # a vocabulary's span read otherwise (a model's request, a call around calls, an
            # agent's idle method): an entry would read it as the vocabulary says, so its group
            # is not pinned
            self._unpin((step.trace_id, step.span_id))
        name = step.agent if step.kind == AGENT else step.tool
        if step.kind == OTHER:
            name = step.agent or step.tool
        if name is not None:
            self._count(self.structure, (step.kind, name))

    def _unpin(self, span: tuple[int, int]) -> None:
        if self._call_spans is None:  # which group is unknown: no such group is pinned
            for group in self.groups.values():
                group.unpinned = group.unpinned or group.kind in _REREAD
        elif span in self._call_spans:
            self._call_spans[span].unpinned = True

    def _count(self, table: dict[tuple[str, str], int], key: tuple[str, str]) -> None:
        if key in table:
            table[key] += 1
        elif len(table) < MAX_GROUPS:
            table[key] = 1
        else:
            self.overflow += 1


_FLAG_WORD = re.compile(r"[A-Za-z][A-Za-z_-]{0,23}")  # `ERROR`, `tool`: one word, no text
MESSAGE = ""  # a failure flag holding an error's message (never a flag word: those are not empty)


def _flag(record: SpanRecord, flags: dict[str, dict[str, None]]) -> None:
    """Note the span's failure flag when an entry's `error` field cannot read it: a short value
    saying failure only by what it is (`ERROR` beside `INFO`), not a type or `true`."""
    failed = failure_source(record.attributes)
    if failed is None or failed[1] != "_OTHER":
        return
    value = record.attributes[failed[0]]
    if not isinstance(value, str):
        return  # `true`: the entry's `error` field reads it
    # a message, not a flag word, is never written into the pinned file: noted as MESSAGE, its
    # entry matches the key's presence
    word = value if _FLAG_WORD.fullmatch(value) else MESSAGE
    said = flags.get(failed[0])
    if said is None and len(flags) < _MAX_WORDS:
        said = flags[failed[0]] = {}
    if said is not None and len(said) < _MAX_WORDS:
        said[word] = None


THROWN = "exception"  # a source: an exception event failed some span of the group
_MAX_MODEL_KEYS = 4  # model keys a group's entry reads beside its first span's
_SOURCE_FIELDS = ("model", "model_parameters", "tokens_in", "tokens_out", "error", THROWN,
                  "handoff_from", "handoff_to")


def _sources(record: SpanRecord, kind: str) -> dict[str, str]:
    """The keys an entry pinning this span's kind must read its fields from."""
    attrs = record.attributes
    found: dict[str, str] = {}
    if kind == "llm":
        model = model_source(record)
        asked = model_in_parameters(attrs)  # where the calls no response named say theirs
        if model is not None and (asked is None or model[0] != asked[0]):
            found["model"] = model[0]
        if asked is not None:
            found["model_parameters"] = asked[0]
        for field_name, side in (("tokens_in", INPUT_SIDE), ("tokens_out", OUTPUT_SIDE)):
            count = tokens_source(attrs, side)
            if count is not None:
                found[field_name] = count[0]
    if kind == "agent":
        came = caller_source(attrs)
        if came is not None:
            found["handoff_from"] = came[0]
    if kind == "handoff":
        for field_name, end in (("handoff_from", "from"), ("handoff_to", "to")):
            agent = handoff_source(attrs, end)
            if agent is not None:
                found[field_name] = agent[0]
    if kind in ("llm", "tool", "agent", "workflow"):  # what failed it, as `outcome` reads it
        found.update(_error_sources(record))
    return found


def _error_sources(record: SpanRecord) -> dict[str, str]:
    """The `error` and THROWN sources of a span inference failed (`outcome`)."""
    attrs = record.attributes
    found: dict[str, str] = {}
    failed = failure_source(attrs)
    # a typed flag, or a `true` one, reads as the entry's `error` field does
    if failed is not None and (failed[1] != "_OTHER" or attrs[failed[0]] is True):
        found["error"] = failed[0]
    if any(name == "exception" for name, _ in record.events) and not compiled.outcome(record)[2]:
        found[THROWN] = THROWN  # what failed it where no status did: `{exception: true}`
    return found
