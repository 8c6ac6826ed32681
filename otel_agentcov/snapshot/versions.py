"""Report section for agent versions: each version's pass rate and its verdict against the
version before it, by the same statistics as `agentcov compare` (docs/compare.md)."""

from __future__ import annotations

from ..stats.regression import pass_rate_verdict
from .schema import Version
from .view import AgentView


def versions_section(v: AgentView) -> None:
    """Oldest first; the first version has nothing to be compared with (verdict null).

    One comparison per version and the one before it, so there is no family to correct for.
    """
    entries: list[Version] = []
    previous: tuple[str, int, int] | None = None
    for version, c in v.st.versions.ordered():
        verdict = baseline = None
        if previous is not None:
            baseline, x0, n0 = previous
            verdict = pass_rate_verdict(x0, n0, c.passed, c.runs).verdict
        entries.append({
            "version": version,
            "runs": c.runs,
            "passed": c.passed,
            "pass_rate": c.passed / c.runs,
            "verdict_vs_previous": verdict,
            "baseline_version": baseline,
            "tool_calls": dict(sorted(c.tools.items())),
        })
        previous = (version, c.passed, c.runs)
    v.report["versions"] = entries
