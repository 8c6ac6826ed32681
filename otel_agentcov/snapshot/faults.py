"""The `faults` section (docs/faults.md): per family injected, hit, recovered and failed; per
enabled condition the hits faults provoked apart from natural ones; resilience with its Wilson
interval; which tools were seen failing and recovering. It runs after `tools_section` and
`boundaries_section`, whose keys it reads."""

from __future__ import annotations

from ..fault_families import FAMILIES
from ..state.faults import FAILED, HIT, INJECTED, RECOVERED
from ..stats import wilson
from .schema import ConditionHits, FaultFamily, ToolFailures
from .view import AgentView


def faults_section(v: AgentView) -> None:
    faults, report = v.st.faults, v.report
    ci = wilson(faults.recovered, faults.runs)
    conditions: dict[str, ConditionHits] = {}
    for condition, hits in report["boundary_hits"].items():
        provoked = min(faults.provoked.get(condition, 0), hits)
        conditions[condition] = {"hits": hits, "provoked": provoked, "natural": hits - provoked}
    families: dict[str, FaultFamily] = {
        family: {"seam": FAMILIES[family][0], "injected": row[INJECTED], "hit": row[HIT],
                 "recovered": row[RECOVERED], "failed": row[FAILED]}
        for family, row in sorted(faults.families.items())
    }
    tools: dict[str, ToolFailures] = {
        tool: {"failed": failed, "recovered": recovered}
        for tool, (failed, recovered) in sorted(faults.tools.items())
    }
    known = report["tools"]["known"]
    # the known tools seen recovering, looked up from the few seen failing (most agents had
    # no injected fault, and a scrape builds every agent's report)
    recovered_tools = len({t for t, (_, recovered) in faults.tools.items() if recovered > 0}
                          .intersection(known)) if faults.tools else 0
    report["faults"] = {
        "runs": faults.runs,
        "recovered": faults.recovered,
        "failed": faults.runs - faults.recovered,
        "resilience": faults.recovered / faults.runs if faults.runs else None,
        "resilience_ci95": list(ci) if ci is not None else None,
        "families": families,
        "conditions": conditions,
        "tools": tools,
        "failure_paths_pct": 100 * recovered_tools / len(known) if known else None,
    }
    v.targets["faults.runs"] = faults.runs
    v.targets["faults.recovered_pct"] = (
        100 * faults.recovered / faults.runs if faults.runs else None)
    v.targets["faults.failure_paths_pct"] = report["faults"]["failure_paths_pct"]
    v.targets["boundary.provoked"] = sum(1 for c in conditions.values() if c["provoked"])
    v.targets["boundary.natural"] = sum(1 for c in conditions.values() if c["natural"])
