"""Hard regressions: changes that fail a comparison whatever the statistics say (docs/compare.md).

Each check reads the two agent states and returns what regressed; a new concern adds one check
to `HARD_CHECKS`.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..state import OVERFLOW, AgentState

HardCheck = Callable[[AgentState, AgentState], list[dict[str, Any]]]


def new_restricted_attempts(baseline: AgentState, current: AgentState) -> list[dict[str, Any]]:
    """A restricted tool attempted in current and never in baseline."""
    before = {tool for tool, _ in baseline.edges.restricted}
    attempts: dict[str, int] = {}
    for (tool, _), n in current.edges.restricted.items():
        if tool not in before:
            attempts[tool] = attempts.get(tool, 0) + n
    return [
        {"type": "restricted_attempt", "item": tool, "count": n}
        for tool, n in sorted(attempts.items())
    ]


def new_critical_violations(baseline: AgentState, current: AgentState) -> list[dict[str, Any]]:
    """A `critical` contract behaviour violated in current and never in baseline (§3a)."""
    before = {(c, b) for (c, b, _, _), (_, violated, *_) in baseline.contracts.checks.items()
              if violated}
    return [
        {"type": "contract_violation", "item": f"{c}.{b}", "count": violated}
        for (c, b, _, severity), (_, violated, *_) in current.contracts.checks.items()
        if severity == "critical" and violated and (c, b) not in before and c != OVERFLOW
    ]


HARD_CHECKS: tuple[HardCheck, ...] = (new_restricted_attempts, new_critical_violations)


def hard_regressions(baseline: AgentState, current: AgentState) -> list[dict[str, Any]]:
    """Every check's findings, sorted by type and item."""
    found = [f for check in HARD_CHECKS for f in check(baseline, current)]
    return sorted(found, key=lambda f: (f["type"], f["item"]))
