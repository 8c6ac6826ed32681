"""Report sections for runs (pass rate, durations, tokens, consistency) and their concerns."""

from __future__ import annotations

import math

from ..stats import mean_pairwise_jaccard, wilson
from .schema import Concern
from .view import AgentView

MAX_NAMED = 10  # tools a concern names; the rest are counted

DURATION_BUCKETS_S = (0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0, 60.0, 120.0, 300.0)


def runs_section(v: AgentView) -> None:
    """Run counts, the Wilson pass-rate interval, duration/token summaries, consistency."""
    out = v.st.outcomes
    ci = wilson(out.passed, out.runs)
    pass_rate = out.passed / out.runs if out.runs else None
    window = sorted(out.tool_sets)[-v.spec.consistency_window :]
    consistency = mean_pairwise_jaccard([s for _, _, s in window])
    p95_duration = out.durations.quantile(0.95)
    v.report["runs"] = {
        "count": out.runs,
        "errors": out.errors,
        "passed": out.passed,
        "pass_rate": pass_rate,
        "pass_rate_ci95": list(ci) if ci else None,
        "duration_s": {"mean": out.durations.mean(), "p95": p95_duration},
        "tokens": {"mean": out.tokens.mean(), "p95": out.tokens.quantile(0.95)},
        "behavior_consistency": consistency,
        "duration_histogram": {
            "bounds": list(DURATION_BUCKETS_S),
            "cumulative": out.durations.cumulative(DURATION_BUCKETS_S),
            "count": out.durations.count,
            "sum": out.durations.total,
        },
    }
    costs = v.st.costs.by_currency
    if costs:  # absent without costs: older reports are unchanged
        v.report["runs"]["cost"] = {
            currency: {"total": e.total, "runs": e.runs,
                       "mean": e.total / e.runs if e.runs else None}
            for currency, e in sorted(costs.items())}
    declared = costs.get(v.spec.boundaries.cost_limit_currency)
    v.targets.update({
        "cost.total": declared.total if declared else None,  # none recorded: nothing to judge
        "runs.count": out.runs,
        "runs.pass_rate": pass_rate,
        "runs.pass_rate_lower": ci[0] if ci else None,
        "runs.p95_duration_s": p95_duration,
        "runs.behavior_consistency": consistency,
    })


def concerns_section(v: AgentView) -> None:
    """Low pass rate, inconsistent behaviour, high score variance (docs/semantics.md), tools
    only ever seen failing (docs/report.md#tool-outcomes)."""
    runs, out = v.report["runs"], v.st.outcomes
    pass_rate, ci, consistency = runs["pass_rate"], runs["pass_rate_ci95"], runs[
        "behavior_consistency"
    ]
    concerns: list[Concern] = []
    if pass_rate is not None and ci is not None and pass_rate < 0.8:
        concerns.append({
            "type": "low_pass_rate",
            "severity": "critical" if pass_rate < 0.5 else "high",
            "message": f"pass rate {pass_rate:.1%} (point estimate; 95% interval "
                       f"[{ci[0]:.1%}, {ci[1]:.1%}]) below 80%",
        })
    if consistency is not None and consistency < 0.7:
        concerns.append({
            "type": "inconsistent_behavior",
            "severity": "medium",
            "message": f"behaviour consistency {consistency:.2f} below 0.70",
        })
    if out.score_n >= 2:
        mean = out.score_sum / out.score_n
        std = math.sqrt(max(out.score_sq / out.score_n - mean * mean, 0.0))
        if std > 0.3:
            concerns.append({
                "type": "high_variance",
                "severity": "medium",
                "message": f"run score std {std:.2f} above 0.30",
            })
    errors_only = v.report["tools"]["errors_only"]
    if errors_only:
        shown = ", ".join(errors_only[:MAX_NAMED])
        more = f" and {len(errors_only) - MAX_NAMED} more" if len(errors_only) > MAX_NAMED else ""
        concerns.append({
            "type": "errors_only_tools",
            "severity": "high",
            "message": f"tools called but never successfully: {shown}{more}",
        })
    v.report["concerns"] = concerns
