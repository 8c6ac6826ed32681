"""Hand-built runs for the contract tests, and the judge run on them in both polarities.

Runs are built directly (tool calls in order, captured arguments and texts or not), never
recorded, so every expected verdict can be worked out by hand from docs/contracts.md.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from otel_agentcov.assembler import AgentRun, RunContent
from otel_agentcov.judge import Verdicts, judge
from otel_agentcov.semconv.step import TOOL, Step
from otel_agentcov.spec import CoverageSpec

NOT_CAPTURED = object()
Call = str | tuple[str, Any]  # a name, or (name, args | NOT_CAPTURED)


def make_run(
    *calls: Call,
    output: str | None = None,
    user_input: str | None = None,
    delegations: Sequence[tuple[str, str]] = (),
    content: bool = True,
    denied: Sequence[str] = (),
) -> AgentRun:
    steps, args = [], {}
    for i, call in enumerate(calls, start=1):
        name, arguments = (call, {}) if isinstance(call, str) else call
        steps.append(Step(1, i, None, TOOL, i, i, "a", tool=name))
        if arguments is not NOT_CAPTURED:
            args[i] = arguments
    for j, name in enumerate(denied, start=len(calls) + 1):
        steps.append(Step(1, j, None, TOOL, j, j, "a", tool=name, decision="deny"))
    return AgentRun(
        "a", 1, 0, 100, steps=steps, delegations=list(delegations),
        content=RunContent(output, user_input, args) if content else None,
    )


def judged(run: AgentRun, *contracts: dict[str, Any], **entry: Any) -> Verdicts:
    spec = CoverageSpec.from_dict(
        {"version": 1, "agents": [{"name": "a", "contracts": list(contracts), **entry}]}
    )
    return judge(run, spec.for_agent("a").checks)


def shows(detector: dict[str, Any], run: AgentRun, **entry: Any) -> str:
    """The detector as a `must` and as a `must_not`; returns whether the run shows it
    ("yes"/"no"/"unknown"/"vacuous": its trigger never occurred), checking that the two
    polarities agree."""
    v = judged(run, {
        "name": "c",
        "must": [{"behavior": "m", **detector}],
        "must_not": [{"behavior": "n", **detector}],
    }, **entry)
    must, must_not = (c.result for c in v.checks)
    expected_pair = {
        "satisfied": "violated", "violated": "satisfied", "unknown": "unknown",
        "not_exercised": "not_exercised",
    }[must]
    assert must_not == expected_pair
    return {"satisfied": "yes", "violated": "no", "unknown": "unknown",
            "not_exercised": "vacuous"}[must]
