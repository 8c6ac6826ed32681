"""`runs.pass_rate` with a minimum, judged by the Wilson 95 % interval: PASS when the lower bound
clears the threshold, FAIL when the upper bound is below it, INCONCLUSIVE below `min_runs` or in
between. One rule for the CI gate and the in-process `snapshot.gate_passed`, so neither lets a
pass rate too few runs can show pass on its point estimate (docs/gate.md).
"""

from __future__ import annotations

from ..spec import AgentSpec, ExpectItem, evaluate_expect
from ..stats import wilson
from ..stats.verdicts import FAIL, INCONCLUSIVE, PASS
from .schema import Runs

PASS_RATE = "runs.pass_rate"
_MINIMA = ("minimum", "exclusiveMinimum")


def pass_rate_verdict(
    item: ExpectItem, runs: Runs, spec: AgentSpec
) -> tuple[str, str] | None:
    """(verdict, reason) from the Wilson interval, or None when the matcher has no minimum."""
    key = next((k for k in _MINIMA if k in item.schema), None)
    if key is None:
        return None
    threshold = float(item.schema[key])
    rest = {k: v for k, v in item.schema.items() if k not in _MINIMA}
    if rest and runs["pass_rate"] is not None:
        value = {item.target: runs["pass_rate"]}
        (other,) = evaluate_expect([ExpectItem(item.target, rest)], value)
        if not other.passed:
            return FAIL, other.reason
    count, passed = int(runs["count"]), int(runs["passed"])
    if count < spec.min_runs:
        return INCONCLUSIVE, f"{count} runs, fewer than min_runs {spec.min_runs}"
    ci = wilson(passed, count)
    assert ci is not None  # count >= min_runs >= 1
    lower, upper = ci
    clears = lower > threshold if key == "exclusiveMinimum" else lower >= threshold
    below = upper <= threshold if key == "exclusiveMinimum" else upper < threshold
    interval = f"pass rate {passed / count:.1%}, 95% interval [{lower:.1%}, {upper:.1%}]"
    if clears:
        return PASS, ""
    if below:
        return FAIL, f"{interval} entirely below {threshold:g}"
    return INCONCLUSIVE, f"{interval} straddles {threshold:g}"
