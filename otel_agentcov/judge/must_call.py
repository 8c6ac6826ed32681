"""The `contract: {must_call: [...]}` check: tools a run must have executed."""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ..assembler import AgentRun
from ..semconv.step import TOOL


def missing_calls(run: AgentRun, must_call: Iterable[str]) -> set[str]:
    """The required tools the run never executed (a denied request is not a call)."""
    called = {
        s.tool for s in run.steps if s.kind == TOOL and s.tool is not None and s.decision != "deny"
    }
    return set(must_call) - called
