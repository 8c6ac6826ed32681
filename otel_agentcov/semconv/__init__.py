"""classify: SpanRecord -> Step through convention tables (docs/conventions.md).

The built-in tables (`builtin.FAMILIES`) say what each instrumentation's spans are; a spec's
`conventions:` entries are tried before them. Anything no entry matches is an `other` step.
The compiled core interprets the tables (`compiled.Classifier`) for every span, whatever values
it holds (docs/core.md#values); the Python interpreter of the same tables is the tests' oracle
(tests/_table.py).
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping, Sequence
from typing import TYPE_CHECKING, Any, Literal

from .. import compiled
from ..records import SpanRecord
from . import builtin
from .content import step_content
from .guard import RestrictedGuard
from .inference import Inferred, infer, inferred_step, tool_readings
from .inferred_log import InferredLog
from .step import KINDS, OTHER, TOOL, Step

if TYPE_CHECKING:
    from opentelemetry.sdk.trace import ReadableSpan

__all__ = ["KINDS", "Classified", "Classifier", "RestrictedGuard", "Step", "classify",
           "restricted_guard"]

# One span as the engine folds it (`CoverageEngine.to_step`, or the core's fused reader): a drop
# reason, or its Step and whether it starts a local subtree, with its record when no entry
# matched and the caller counts unmatched shapes.
Classified = str | tuple[Step, bool] | tuple[Step, bool, SpanRecord]


# the built-in tables in the core, parsed once (a spec's classifier shares their rules)
_BUILTIN = compiled.Classifier(list(builtin.entries()), True, Step)


class Classifier:
    """Classify spans by a spec's `conventions:` entries, then the built-in tables, then by
    inference (docs/conventions.md#inference)."""

    __slots__ = ("_core", "inference", "log", "_restricted", "rescued")

    def __init__(self, conventions: Sequence[Mapping[str, Any]] = (), *, inference: bool = True,
                 builtin_tables: bool = True,
                 restricted: Callable[[str], bool] | None = None,
                 agents: Collection[str] = ()) -> None:
        """`conventions`: entries already validated (the spec loader does it); `inference`:
        read a kind for the spans no entry matched; `builtin_tables` off only to measure
        inference alone (benchmarks/inference.py); `restricted`: is a tool name restricted (a
        span inference reads names one is read as its call, see `inferred`); `agents`: the
        agents the spec declares, whose names a tracing library's own name never hides
        (docs/semantics.md#detection-rules)."""
        self.inference = inference
        self.log: InferredLog | None = None  # what inference read, kept for `explain`
        self._restricted = restricted
        self.rescued: Callable[[], None] | None = None  # told each time `inferred` overrules
        self._core = _BUILTIN if builtin_tables else compiled.Classifier([], True, Step)
        if conventions:
            self._core = self._core.before(conventions)
        if agents:
            self._core = self._core.declaring(sorted(agents))

    def classify(
        self, record: SpanRecord, state_attributes: Sequence[str] = (), content: bool = False,
        unmatched: Callable[[SpanRecord], None] | None = None,
    ) -> Step:
        """The first matching entry's Step, else inference's, else an `other` step (and
        `unmatched` is told).

        `content` (a declared check needs it) also reads the span's output, input and tool
        arguments onto the step; without it no content is parsed at all (the hot path)."""
        step, matched = self._core.classify(record, state_attributes)
        if not matched:
            step = self.inferred(record, step, state_attributes)
            if unmatched is not None and step.kind == OTHER:  # inference left it unclassified
                unmatched(record)
        if content:
            step.content = step_content(record, step.kind)
        return step

    def inferred(self, record: SpanRecord, step: Step, state_attributes: Sequence[str] = ()
                 ) -> Step:
        """The Step of a span no entry matched: what inference reads of it (a test case's span
        stays what it is), or `step` itself with inference off."""
        if not self.inference or step.context is not None:
            return step
        found = infer(record)
        if self.log is not None:
            self.log.add(record, found)
        inferred = inferred_step(record, state_attributes, found, step, self._core)
        restricted = self._restricted
        if restricted is None or (inferred.kind == TOOL and inferred.tool is not None
                                  and restricted(inferred.tool)):
            return inferred
        # a kind word that disagrees, or another name attribute, must not hide a restricted
        # tool the span names (docs/conventions.md#restricted-tools): read it as that call
        for name, evidence in tool_readings(record):
            if restricted(name):
                if self.rescued is not None:
                    self.rescued()
                return inferred_step(record, state_attributes,
                                     Inferred(TOOL, evidence, name=name), step, self._core)
        return inferred

    def otlp_steps(
        self, data: bytes, level: Literal["request", "resource_spans"] = "request", *,
        offset: int = 0, resource_index: int = 0, keep: Callable[[int], bool] | None = None,
        caps: tuple[int, int] | None = None, state_attributes: Sequence[str] = (),
        shapes: bool = False,
    ) -> list[Classified]:
        """OTLP protobuf bytes decoded and classified by the core in one call, the GIL released
        (docs/core.md): per kept span, in the readers' end order, what the engine folds. No
        SpanRecord is built but for a span no entry matched, with `shapes`; content is never
        read (a spec whose checks read content takes the SpanRecord path). With inference on,
        a span no entry matched comes with its record too (`inferred` reads it)."""
        return self._core.otlp_steps(
            data, level, offset=offset, resource_index=resource_index, keep=keep, caps=caps,
            state_attributes=list(state_attributes), shapes=shapes or self.inference)

    def sdk_step(self, span: ReadableSpan, state_attributes: Sequence[str] = ()) -> Classified:
        """An SDK span of any layout, holding any value, read in place and classified by the
        core: what the engine folds. Content is never read. With inference on, a span no entry
        matched comes with its record, built by the core (`inferred` reads it)."""
        return compiled.sdk_step(self._core, span, list(state_attributes), self.inference)


classify = Classifier(inference=False).classify  # the built-in conventions alone


def restricted_guard(
    conventions: Sequence[Mapping[str, Any]], restricted: Callable[[str], bool] | None,
    inference: bool = False,
) -> RestrictedGuard | None:
    """What keeps a spec's `conventions:` from hiding a restricted tool (`guard`); None when
    there is nothing to guard (no entries, or no restricted tool: `restricted` None). The
    reading it keeps is the built-in tables', and inference's where it is on (an entry must
    not hide a call only inference reads)."""
    if not conventions or restricted is None:
        return None
    builtin = Classifier(inference=True, restricted=restricted).classify if inference else (
        classify)
    return RestrictedGuard(conventions, restricted, builtin)
