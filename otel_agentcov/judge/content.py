"""Captured content a declared check needs: a run's final output, its user input, tool arguments.

It is read from spans only when a detector needs it (`CoverageSpec.needs_content`), travels
with the steps and the finished run until the run is judged, and is never stored anywhere: the
judge returns verdicts and the run (with its content) is dropped.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from ..semconv.content import MAX_TEXT, StepContent
from ..semconv.step import LLM, TOOL


@dataclass(slots=True)
class RunContent:
    """One run's content, for the judge only; absent means not captured (never a violation)."""

    output: str | None
    input: str | None
    tool_args: dict[int, Mapping[str, Any]] = field(default_factory=dict)  # tool span_id -> args


class _HasContent(Protocol):
    """The part of a Step that run_content reads."""

    @property
    def span_id(self) -> int: ...
    @property
    def kind(self) -> str: ...
    @property
    def content(self) -> StepContent | None: ...


def run_content(
    agent_spans: Sequence[_HasContent], steps: Sequence[_HasContent]
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
    args = {
        s.span_id: s.content.args
        for s in steps
        if s.kind == TOOL and s.content is not None and s.content.args is not None
    }
    return RunContent(output, user_input, args)


def _first(texts: Iterable[str | None]) -> str | None:
    return next((t for t in texts if t is not None), None)


__all__ = ["MAX_TEXT", "RunContent", "StepContent", "run_content"]
