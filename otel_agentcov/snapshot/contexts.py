"""Report section answering who tests what (docs/semantics.md#test-contexts), from the
state's per-test tallies."""

from __future__ import annotations

from collections.abc import Iterable

from ..state import AgentState
from .view import AgentView


def contexts_section(v: AgentView) -> None:
    """Per test what it exercised; per tool the tests that exercise it; what no test (or only
    one test) exercises. Added only when asked for (`--contexts`, the pytest plugin)."""
    if not v.with_contexts:
        return
    by_test = v.st.contexts.by_test
    tests_by_tool: dict[str, list[str]] = {}
    for context, tally in sorted(by_test.items()):
        for tool, n in tally.tools.items():
            if n > 0:
                tests_by_tool.setdefault(tool, []).append(context)
    declared = sorted(set(v.spec.delegation))
    tested_behaviors = {k for t in by_test.values() for k in t.behaviors}
    behaviors = [(c.name, b.name) for c in v.spec.contracts for b in c.behaviours]
    v.report["contexts"] = {
        "by_test": {
            context: {
                "runs": t.runs,
                "passed": t.passed,
                "tools": dict(sorted(t.tools.items())),
                "delegations": [{"from": a, "to": b} for a, b in sorted(t.delegations)],
                "restricted": sorted(t.restricted),
                "behaviors": sorted(f"{c}.{b}" for c, b in t.behaviors),
            }
            for context, t in sorted(by_test.items())
        },
        "tests_by_tool": dict(sorted(tests_by_tool.items())),
        "untested": {
            "tools": [t for t in v.report["tools"]["known"] if t not in tests_by_tool],
            "delegations": [
                {"from": a, "to": b} for a, b in declared if (a, b) not in v.tested_edges
            ],
            "behaviors": [f"{c}.{b}" for c, b in behaviors if (c, b) not in tested_behaviors],
        },
        "single_test": {
            # a tool to test more: never a restricted one, which no test should call at all
            "tools": sorted(t for t, tests in tests_by_tool.items()
                            if len(tests) == 1 and not v.spec.restricted_tools.matches(t))
        },
    }


def tested_edges(states: Iterable[AgentState]) -> set[tuple[str, str]]:
    """Delegation edges some test made, across agents (a caller's runs record its edges)."""
    return {e for st in states for t in st.contexts.by_test.values() for e in t.delegations}
