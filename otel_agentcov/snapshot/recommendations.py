"""Report section: concrete next steps per agent, most impact on the overall score first (§3e).

Impact is computed, not guessed: each step's score is the overall with that one item covered.
While a dimension is 0 the overall is 0 whatever else is covered, so steps are ranked first by the
zero dimensions they lift, then by the geometric mean of the non-zero ones; steps that cannot
move the score (delegation edges, restrictions, more runs) follow in a fixed order of urgency.
"""

from __future__ import annotations

import re

from ..fault_families import PROVOKING
from ..semconv.common import is_handoff_tool
from ..stats import frequency_counts, geometric_mean, runs_for_coverage, runs_for_interval
from .arguments import how_to_exercise, next_argument
from .contracts import unexercised
from .coverage import model_matches
from .schema import DIMENSIONS, Dimension, Recommendation
from .view import AgentView

# how each boundary condition is usually provoked in a test
# (docs/semantics.md#next-steps-recommendations)
PROVOKE = {
    "max_steps": "a prompt that loops, with a low turn limit",
    "timeout": "a low client timeout",
    "cost_limit": "a low token budget",
    "empty_input": "an empty prompt",
    "error_path": "a failing model endpoint (HTTP 500)",
    "tool_failure": "a tool that raises",
    "guardrail_blocked": "an input the guardrail's policy blocks (a denied topic, a prompt attack)",
}
# words in a tool name that suggest it changes or destroys something
DESTRUCTIVE = frozenset({
    "delete", "drop", "remove", "force", "truncate", "transfer", "pay", "payment", "destroy",
    "wipe", "purge", "erase", "kill", "terminate", "revoke", "overwrite", "reset", "shutdown",
    "uninstall", "withdraw", "refund", "rm", "deletion", "removal",
})
ORDER = (
    "uncovered_tool", "errors_only_tool", "boundary", "model", "restrict", "unexercised_behavior",
    "argument", "delegation", "undeclared_tool", "more_runs",
)
PATH_COVERAGE_TARGET = 0.95
PASS_RATE_HALF_WIDTH = 0.05
_WORDS = re.compile(r"[A-Z]?[a-z0-9]+|[A-Z]+(?![a-z])")


def name_words(name: str) -> list[str]:
    """`deleteRepo`, `delete_repo`, `delete-repo` → ["delete", "repo"]."""
    return [w.lower() for w in _WORDS.findall(name)]


def looks_destructive(tool: str) -> bool:
    return not DESTRUCTIVE.isdisjoint(name_words(tool))


Score = tuple[int, float]


def _score(v: AgentView, dimension: Dimension | None = None, step: float = 0.0) -> Score:
    """(−zero dimensions, geometric mean of the others) if `dimension` rose by `step`."""
    coverage = v.report["coverage"]
    values = [
        min((coverage[d] or 0.0) + (step if d == dimension else 0.0), 1.0)
        for d in DIMENSIONS
        if d in coverage["counted"]
    ]
    nonzero = [x for x in values if x > 0]
    return -(len(values) - len(nonzero)), geometric_mean(nonzero) or 0.0


def _gain(v: AgentView, dimension: Dimension, step: float) -> Score:
    (zeros, mean), (zeros0, mean0) = _score(v, dimension, step), _score(v)
    return zeros - zeros0, mean - mean0


def _more_runs(v: AgentView) -> Recommendation | None:
    out = v.st.outcomes
    _, f1, f2, n = frequency_counts(v.st.diversity.paths.values())
    # below min_runs the estimate rests on too few runs (one run is one path seen once, which
    # the extrapolation reads as full coverage): at least reach min_runs
    for_paths = max(
        runs_for_coverage(f1, f2, n, PATH_COVERAGE_TARGET) or 0, v.spec.min_runs - out.runs
    )
    for_rate = runs_for_interval(out.passed, out.runs, PASS_RATE_HALF_WIDTH)
    runs = max(for_paths, for_rate)
    if runs == 0:
        return None
    return {
        "kind": "more_runs",
        "subject": "runs",
        "message": f"about {runs} more runs: {for_paths} for path sample coverage "
        f"{PATH_COVERAGE_TARGET:.0%}, {for_rate} for a ±{PASS_RATE_HALF_WIDTH:.0%} pass-rate "
        "interval",
        "runs": runs,
        "runs_for_paths": for_paths,
        "runs_for_pass_rate": for_rate,
    }


def recommendations_section(v: AgentView) -> None:
    report, spec = v.report, v.spec
    steps: list[tuple[Score, Recommendation]] = []
    none = (0, 0.0)

    def add(impact: Score, kind: str, subject: str, message: str) -> None:
        steps.append((impact, {"kind": kind, "subject": subject, "message": message}))

    known = report["tools"]["known"]
    for tool in report["tools"]["uncovered"]:
        add(_gain(v, "tool", 1 / len(known)), "uncovered_tool", tool,
            f"no run called `{tool}`: add a test that needs it")
    for tool in report["tools"]["errors_only"]:
        add(_gain(v, "tool", 1 / len(known)) if tool in known else none, "errors_only_tool",
            tool, f"every call of `{tool}` failed: add a test where it succeeds")
    arguments = report.get("arguments")
    for tool, row in arguments["tools"].items() if arguments is not None else ():
        item = next_argument(row)
        if item is not None:
            add(none, "argument", f"{tool}:{item}",
                f"no call of `{tool}` exercised `{item}`: {how_to_exercise(item)} in a test")
    enabled = report["boundaries"]
    for condition, hit in enabled.items():
        if not hit:
            family = PROVOKING.get(condition)  # no fault provokes a guardrail's verdict
            add(_gain(v, "boundary", 1 / len(enabled)), "boundary", condition,
                f"`{condition}` never hit: provoke it with {PROVOKE[condition]}" + (
                    f", or run `pytest --agentcov-faults={family}` (agentcov docs faults)"
                    if family is not None else ""))
    used = v.st.inventory.models
    for model in spec.models:
        if not any(model_matches(u, model) for u in used):
            add(_gain(v, "model", 1 / len(spec.models)), "model", model,
                f"model `{model}` never used: run the suite against it")
    # hand-off tools (transfer_to_billing) pass control to an agent, they act on nothing; a tool
    # listed under tool_edges.allowed was allowed on purpose
    handoffs = v.st.inventory.handoff_tools
    candidates = set(known) | set(report["tools"]["called"])
    for tool in sorted(t for t in candidates if t not in handoffs
                       and not spec.restricted_tools.matches(t)
                       and not spec.allowed_tools.matches(t)
                       and looks_destructive(t) and not is_handoff_tool(t)):
        add(none, "restrict", tool,
            f"`{tool}` looks destructive but is not restricted: declare it under "
            "tool_edges.restricted, or list it under tool_edges.allowed if it is meant to run")
    for behavior in unexercised(v)[0]:
        add(none, "unexercised_behavior", behavior,
            f"contract behaviour `{behavior}` was never exercised (no run decided it without "
            "its trigger missing): add a test whose run triggers it")
    observed = v.observed_edges
    for a, b in sorted(set(spec.delegation)):
        if (a, b) not in observed:
            add(none, "delegation", f"{a}->{b}",
                f"declared delegation {a} -> {b} never observed: add a task that needs {b}")
    for tool in report["tools"]["undeclared"]:
        add(none, "undeclared_tool", tool,
            f"`{tool}` was called but is declared nowhere: add it to tools or tool_edges")
    steps.sort(key=lambda s: (-s[0][0], -round(s[0][1], 12), ORDER.index(s[1]["kind"]),
                              s[1]["subject"]))
    items = [item for _, item in steps]
    more = _more_runs(v)
    if more is not None:
        items.append(more)
    report["recommendations"] = items
