"""What a failed default-gate check names: the restricted tool and outcome, the contract and
behaviour, the claimed tool, and where known the tests and up to three trace ids, so a red CI
line says what broke without opening the report. Names, counts and ids only: never content."""

from __future__ import annotations

from collections.abc import Callable
from functools import partial

from ..judge.narrative import CLAIMED_NOT_CALLED
from ..spec import CONTRACTS_GATE_TARGET, DEFAULT_GATE_TARGET, NARRATIVE_GATE_TARGET
from .contracts import gates
from .schema import ContractRow
from .view import AgentView

MAX_TRACES = 3
MAX_TESTS = 3


def _listed(label: str, names: list[str], limit: int) -> str:
    if not names:
        return ""
    more = f" (+{len(names) - limit} more)" if len(names) > limit else ""
    return f"; {label} " + ", ".join(names[:limit]) + more


def _restricted(v: AgentView) -> str:
    edges = v.report["edges"]
    by_tool: dict[str, list[str]] = {}
    for row in edges["restricted"]:
        by_tool.setdefault(row["tool"], []).append(f"{row['outcome']} ×{row['count']}")
    parts = []
    for tool, outcomes in by_tool.items():
        tests = sorted(c for c, t in v.st.contexts.by_test.items() if t.restricted.get(tool))
        source = v.spec.restricted_by(tool)
        parts.append(f"restricted tool {tool} {', '.join(outcomes)}"
                     + (f" (restricted by spec entry {source!r})" if source else "")
                     + _listed("tests", tests, MAX_TESTS)
                     + _listed("traces", edges["restricted_traces"].get(tool, []), MAX_TRACES))
    return " | ".join(parts)


def _contracts(keep: Callable[[AgentView, ContractRow], bool], v: AgentView) -> str:
    rows = [r for r in v.report["contracts"] if r["violated"] and keep(v, r)]
    return ", ".join(f"contract {r['contract']}.{r['behavior']} ({r['severity']}) violated "
                     f"×{r['violated']}" for r in rows)


def _narrative(v: AgentView) -> str:
    claimed = [d for d in v.report["narrative"]["divergences"] if d["kind"] == CLAIMED_NOT_CALLED]
    return ", ".join(f"claimed tool {d['tool']} without calling it ×{d['count']}"
                     for d in claimed)


_DETAILS: dict[str, Callable[[AgentView], str]] = {
    DEFAULT_GATE_TARGET: _restricted,
    "edges.gate_passed": _restricted,
    CONTRACTS_GATE_TARGET: partial(_contracts, lambda v, r: gates(v.spec, r)),
    "contracts.violations": partial(_contracts, lambda v, r: True),
    "contracts.violations_critical": partial(_contracts, lambda v, r: r["severity"] == "critical"),
    NARRATIVE_GATE_TARGET: _narrative,
    "narrative.divergences": _narrative,
}


def detail(target: str, v: AgentView) -> str:
    """What failed behind `target` for this agent ("" when the target names nothing more)."""
    explain = _DETAILS.get(target)
    return explain(v) if explain is not None else ""
