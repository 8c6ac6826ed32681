"""AgentRun, what the assembler hands the judge: one agent invocation and its steps, with the
captured content a declared check needs (final output, user input, tool arguments, and the
tools' input schemas for argument coverage).

Content is read from spans only when a detector needs it (`CoverageSpec.needs_content`), travels
with the steps and the finished run until the run is judged, and is never stored anywhere: the
judge returns verdicts and the run (with its content) is dropped.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from ..semconv.step import LLM, TOOL, Step


@dataclass(slots=True)
class RunContent:
    """One run's content, for the judge only; absent means not captured (never a violation)."""

    output: str | None
    input: str | None
    tool_args: dict[int, Mapping[str, Any]] = field(default_factory=dict)  # tool span_id -> args
    output_too_long: bool = False  # no output read because the answer was past the size cap
    # tool -> input schema (canonical JSON) its LLM and agent spans offered: argument coverage
    schemas: dict[str, str] = field(default_factory=dict)


@dataclass(slots=True)
class AgentRun:
    """One agent invocation: its own steps in start order, nested agents as `delegate` steps."""

    agent: str
    trace_id: int
    start_ns: int
    end_ns: int
    error: str | None = None
    limits: frozenset[str] = frozenset()
    steps: list[Step] = field(default_factory=list)
    delegations: list[tuple[str, str]] = field(default_factory=list)
    input_chars: int | None = None
    scores: tuple[float, ...] = ()
    tool_definitions: frozenset[str] = frozenset()
    version: str | None = None  # the agent's version, for per-version verdicts (docs/compare.md)
    context: str | None = None  # the test that ran it (docs/semantics.md#test-contexts)
    content: RunContent | None = None  # only when a check needs it; dropped once judged
    models: frozenset[str] = frozenset()  # used but named by no step (a trial's trace model)
    # tool -> had a successful call, over the runs this one delegated to (transitively): what a
    # story may report as done on its behalf (docs/narrative.md)
    delegated_calls: dict[str, bool] = field(default_factory=dict)
    # the agent span's id (else the run's first step's): where its evaluation events attach
    # (docs/evaluations.md); 0 when the run came from no span (a trial file)
    span_id: int = 0
    turns: int = 0  # gen_ai.agent.turn.count of its agent span (0: not recorded)
    faults: frozenset[str] = frozenset()  # families of the faults injected on its spans
    # the states its runtime said it reached (`gen_ai.execution.state.changed` events, in time
    # order): key names or counts, never values (docs/semantics.md#state-from-events)
    state_changes: tuple[tuple[str, ...], ...] = ()
    # the skills its agent span said it had (gen_ai.skill.definitions names;
    # docs/semantics.md#skills)
    skill_definitions: frozenset[str] = frozenset()

    @property
    def duration_s(self) -> float:
        return max(self.end_ns - self.start_ns, 0) / 1e9


def run_content(
    agent_spans: Sequence[Step], steps: Sequence[Step]
) -> RunContent | None:
    """docs/narrative.md, where the final output comes from: the agent span's own output, else the
    last LLM step's text; input likewise from the agent span, else the first LLM step.
    None when no span of the run carried content (content was not asked for)."""
    if not any(s.content is not None for s in (*agent_spans, *steps)):
        return None
    llm = [s.content for s in steps if s.kind == LLM and s.content is not None]
    own = [s.content for s in agent_spans if s.content is not None]
    output = _first(c.output for c in own)
    if output is None:
        output = _first(c.output for c in reversed(llm))
    user_input = _first(c.input for c in own)
    if user_input is None:
        user_input = _first(c.input for c in llm)
    too_long = output is None and any(c.output_too_long for c in (*own, *llm))
    args = {
        s.span_id: s.content.args
        for s in steps
        if s.kind == TOOL and s.content is not None and s.content.args is not None
    }
    schemas: dict[str, str] = {}
    for c in (*own, *llm):
        for tool, schema in (c.schemas or {}).items():
            schemas.setdefault(tool, schema)
    return RunContent(output, user_input, args, too_long, schemas)


def _first(texts: Iterable[str | None]) -> str | None:
    return next((t for t in texts if t is not None), None)

