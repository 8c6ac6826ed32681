"""The judge stage: pure functions of one finished AgentRun that return its verdicts.

It sits between the assembler and the state (docs/architecture.md#data-flow): every front door
judges runs here, with one evaluator, and only the verdicts (names and outcomes, never content)
reach the state.
(The assembler imports `judge.content`, so AgentRun is imported here for type checking only.)
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from .contracts import Check, evaluate
from .narrative import DIVERGENT, NarrativeVerdict, judge_narrative

if TYPE_CHECKING:
    from ..assembler import AgentRun
    from ..spec import AgentSpec


@dataclass(frozen=True, slots=True)
class Verdicts:
    """What judging one run decided."""

    # a declared check failed the run (the pass rule: docs/semantics.md#runs-and-statistics)
    fails_run: bool = False
    checks: tuple[Check, ...] = ()  # one per behaviour of every contract that applied
    narrative: NarrativeVerdict | None = None  # None: no narrative check declared


PASSING = Verdicts()


def judge(run: AgentRun, spec: AgentSpec) -> Verdicts:
    """Every declared check, on every run; cheap when the spec declares none."""
    if not spec.contracts and spec.narrative is None:
        return PASSING
    checks, fails = evaluate(run, spec.contracts) if spec.contracts else ((), False)
    narrative = None
    if spec.narrative is not None:
        narrative = judge_narrative(run, spec, spec.narrative)
        fails = fails or (narrative.result == DIVERGENT and spec.narrative.fail_run)
    return Verdicts(fails_run=fails, checks=checks, narrative=narrative)


__all__ = ["PASSING", "Check", "Verdicts", "judge"]
