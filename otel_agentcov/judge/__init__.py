"""The judge stage: pure functions of one finished AgentRun that return its verdicts.

It sits between the assembler and the state (docs/architecture.md#data-flow): every front door
judges runs here, with one evaluator, and only the verdicts (names and outcomes, never content)
reach the state. It reads compiled checks (`Checks`), never the spec they were compiled from.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..assembler import AgentRun
from .arguments import ArgumentSpec, ToolArguments, judge_arguments
from .contracts import Check, Contract, evaluate
from .narrative import (
    DIVERGENT,
    UNVERIFIABLE,
    NarrativeSpec,
    NarrativeVerdict,
    judge_narrative,
)


@dataclass(frozen=True, slots=True)
class Checks:
    """One agent's declared checks, compiled: all the judge reads of its spec."""

    contracts: tuple[Contract, ...] = ()
    narrative: NarrativeSpec | None = None  # None = not declared
    declared_tools: frozenset[str] = frozenset()  # tools, allowed, restricted: claimable names
    arguments: ArgumentSpec | None = None  # None = argument coverage not enabled


@dataclass(frozen=True, slots=True)
class Verdicts:
    """What judging one run decided."""

    # a declared check failed the run (the pass rule: docs/semantics.md#runs-and-statistics)
    fails_run: bool = False
    checks: tuple[Check, ...] = ()  # one per behaviour of every contract that applied
    narrative: NarrativeVerdict | None = None  # None: no narrative check declared
    errors: int = 0  # checks that failed inside the judge, each recorded as unknown/unverifiable
    arguments: tuple[ToolArguments, ...] = ()  # argument items exercised, when enabled


PASSING = Verdicts()


def judge(run: AgentRun, declared: Checks) -> Verdicts:
    """Every declared check, on every run; cheap when none is declared. A check that fails
    inside (any exception) is `unknown` (a narrative `unverifiable`) and counted in `errors`:
    the run is still folded, with its coverage and restricted attempts."""
    if not declared.contracts and declared.narrative is None and declared.arguments is None:
        return PASSING
    checks, fails, errors = (evaluate(run, declared.contracts) if declared.contracts
                             else ((), False, 0))
    arguments: tuple[ToolArguments, ...] = ()
    if declared.arguments is not None:
        try:
            arguments = judge_arguments(run, declared.arguments)
        except Exception:  # noqa: BLE001 - counted; the run keeps its other verdicts
            errors += 1
    narrative = None
    if declared.narrative is not None:
        try:
            narrative = judge_narrative(run, declared.narrative, declared.declared_tools)
        except Exception:  # noqa: BLE001 - one check's failure is its unverifiable, not the run's
            narrative, errors = NarrativeVerdict(UNVERIFIABLE), errors + 1
        fails = fails or (narrative.result == DIVERGENT and declared.narrative.fail_run)
    return Verdicts(fails_run=fails, checks=checks, narrative=narrative, errors=errors,
                    arguments=arguments)


__all__ = ["PASSING", "ArgumentSpec", "Check", "Checks", "ToolArguments", "Verdicts", "judge"]
