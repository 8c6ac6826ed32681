"""Renderers of a comparison report: text, Markdown (a PR comment), JSON and JUnit.

Each renders the dict `compare()` returned and recomputes nothing; wording of numbers and
Markdown escaping are the coverage report's own (reporting/_format, reporting/markdown).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from ..gate import Check, junit_xml
from ..reporting import _format as fmt
from ..reporting import render_json
from ..reporting.markdown import _table, escape, prose
from ..snapshot.schema import DIMENSIONS
from ..stats.verdicts import FAIL, INCONCLUSIVE, PASS
from .sets import KINDS

_COLUMNS = (*DIMENSIONS, "overall")


def _side(side: Mapping[str, Any]) -> str:
    """`93% [79%–98%] 28/30`, or `no runs`."""
    if not side["runs"]:
        return "no runs"
    ci = side["ci95"]
    return (f"{fmt.percent(side['rate'])} [{fmt.percent(ci[0])}–{fmt.percent(ci[1])}] "
            f"{side['passed']}/{side['runs']}")


def _points(x: float) -> str:
    return f"{100 * x:+.1f}"


def _drop(pass_rate: Mapping[str, Any]) -> str:
    """The drop p0 - p1 in points with its 95 % interval; a negative drop is a rise."""
    ci = pass_rate["diff_ci95"]
    if ci is None:
        return fmt.NA
    b, c = pass_rate["baseline"]["rate"], pass_rate["current"]["rate"]
    return f"{_points(b - c)} pts [{_points(ci[0])}, {_points(ci[1])}]"


def _arrow(before: float | None, after: float | None) -> str:
    """`80% → 100% ▲`: ▲ up, ▼ down, nothing when unchanged or not comparable."""
    text = f"{fmt.percent(before)} → {fmt.percent(after)}"
    if before is None or after is None or before == after:
        return text
    return text + (" ▲" if after > before else " ▼")


def reason(agent: Mapping[str, Any], tolerance: float) -> str:
    """Why an agent did not pass, in one line ("" when it passed)."""
    if agent["verdict"] == PASS:
        return ""
    parts = [f"{h['type']} {h['item']} ×{h['count']}" for h in agent["hard_regressions"]]
    pr = agent["pass_rate"]
    if pr["diff_ci95"] is None:
        parts.append("no runs on one side" if not parts else "")
    else:
        parts.append(
            f"pass rate {_side(pr['baseline'])} → {_side(pr['current'])}, drop {_drop(pr)} vs "
            f"tolerance {100 * tolerance:g} pts, one-sided Fisher p {pr['p_value_holm']:.3g} "
            "(Holm)"
        )
    if agent["verdict"] == INCONCLUSIVE and pr["diff_ci95"] is not None:
        parts.append(_settles(agent))
    return "; ".join(p for p in parts if p)


def _settles(agent: Mapping[str, Any]) -> str:
    """Which verdict more runs would bring, and after how many per side, if the observed
    rates held: the PASS bound is checked first, so it wins a tie."""
    ways = [(n, v) for n, v in ((agent["runs_needed"], PASS),
                                (agent.get("runs_to_fail"), FAIL)) if n is not None]
    if not ways:
        return "more runs at these rates would settle nothing (no drop, yet none ruled out)"
    runs, verdict = min(ways, key=lambda w: w[0])
    return f"if these rates held, about {runs} runs per side would settle it: {verdict}"


def same_data_line(report: Mapping[str, Any]) -> str:
    """One line when both sides hold the same data (a version against itself), else ""."""
    if not report.get("same_data"):
        return ""
    needed = [a["runs_needed"] for a in report["agents"].values()
              if a["verdict"] == INCONCLUSIVE and a["runs_needed"] is not None]
    after = f"; it passes from about {max(needed)} runs per side" if needed else ""
    return ("both sides hold the same data: a version compared with itself shows no drop, and "
            f"too few runs still cannot rule one out{after}")


def _changes(agent: Mapping[str, Any]) -> list[str]:
    """`lost tools: a, b` lines, one per non-empty kind."""
    return [
        f"{which} {kind}: " + ", ".join(agent[which][kind])
        for which in ("lost", "new") for kind in KINDS if agent[which][kind]
    ]


def _drift(drift: Mapping[str, Any]) -> str:
    if drift["p_value"] is None:
        return "tool-call mix: not tested (one tool category, or no calls on a side)"
    word = "DRIFT" if drift["drift"] else "no drift"
    return (f"tool-call mix: {word} (χ² p {drift['p_value']:.3g}, Cramér's V "
            f"{drift['cramers_v']:.2f}, {drift['categories']} categories)")


_SECONDARY = (
    ("contracts", "contracts: runs no contract failed"),
    ("narrative", "narrative: runs whose story matched their calls"),
)


def _contracts(agent: Mapping[str, Any]) -> list[str]:
    """`contracts: runs no contract failed 400/400 → 399/400, drop … : PASS` (and the same for
    narrative-consistent runs), for each rate both sides had."""
    lines = []
    for key, label in _SECONDARY:
        c = agent.get(key)
        if c is None:
            continue
        (x0, n0), (x1, n1), (lo, hi) = c["baseline"], c["current"], c["diff_ci95"]
        lines.append(f"{label} {x0}/{n0} → {x1}/{n1}, drop {_points(x0 / n0 - x1 / n1)} pts "
                     f"[{_points(lo)}, {_points(hi)}]: {c['verdict']}")
    return lines


def render_text(report: Mapping[str, Any]) -> str:
    tol = report["tolerance"]
    lines = [f"agentcov compare: {report['verdict']} (tolerated drop {100 * tol:g} pts, "
             f"alpha {report['alpha']:g}, Holm across agents)"]
    same = same_data_line(report)
    lines += [same] if same else []
    for name, a in report["agents"].items():
        pr = a["pass_rate"]
        lines += [
            "",
            f"== {name}: {a['verdict']}" + (f" [{', '.join(a['flags'])}]" if a["flags"] else ""),
            f"  pass rate  {_side(pr['baseline'])} → {_side(pr['current'])}  drop {_drop(pr)}",
            "  coverage   " + "  ".join(
                f"{d} {_arrow(c['baseline'], c['current'])}" for d, c in a["coverage"].items()
            ),
            f"  {_drift(a['drift'])}",
        ]
        why = reason(a, tol)
        lines += [f"  why        {why}"] if why else []
        lines += [f"  {line}" for line in _contracts(a)]
        lines += [f"  {line}" for line in _changes(a)]
    return "\n".join(lines) + "\n"


def render_markdown(report: Mapping[str, Any]) -> str:
    """A PR comment: one row per agent, then each agent's reasons and lost/new items."""
    verdict, tol = report["verdict"], report["tolerance"]
    lines = [
        f"## agentcov compare: {'**' + verdict + '**' if verdict != PASS else verdict}",
        "",
        f"Tolerated pass-rate drop {100 * tol:g} points · α {report['alpha']:g}, Holm-corrected "
        "across agents · drop = baseline − current, 95 % Newcombe interval",
        "",
    ]
    same = same_data_line(report)
    lines += [same, ""] if same else []
    head = ("agent", "verdict", "pass rate before", "pass rate after", "drop (95% CI)",
            *_COLUMNS)
    rows = [
        [
            escape(name),
            a["verdict"] if a["verdict"] == PASS else f"**{a['verdict']}**",
            _side(a["pass_rate"]["baseline"]),
            _side(a["pass_rate"]["current"]),
            _drop(a["pass_rate"]),
            *(_arrow(a["coverage"][d]["baseline"], a["coverage"][d]["current"])
              for d in _COLUMNS),
        ]
        for name, a in report["agents"].items()
    ]
    lines += _table(head, rows) if rows else ["_no agents on either side_"]
    for name, a in report["agents"].items():
        notes = [f"- flags: {', '.join(a['flags'])}"] if a["flags"] else []
        why = reason(a, tol)
        notes += [f"- {prose(why)}"] if why else []
        notes += [f"- {prose(line)}" for line in _contracts(a)]
        notes.append(f"- {escape(_drift(a['drift']))}")
        notes += [
            f"- {which} {kind}: {', '.join(escape(i) for i in a[which][kind])}"
            for which in ("lost", "new") for kind in KINDS if a[which][kind]
        ]
        lines += ["", f"### {escape(name)}", "", *notes]
    return "\n".join(lines) + "\n"


def render_junit(report: Mapping[str, Any], allow_inconclusive: bool = False) -> str:
    """One test case per agent (FAIL a failure; INCONCLUSIVE a failure, or skipped when
    allowed), through the gate's JUnit writer so both read alike in CI."""
    tol = report["tolerance"]
    checks = [
        Check(name, "compare.pass_rate", a["pass_rate"]["current"]["rate"],
              {"tolerance": tol, "alpha": report["alpha"]}, a["verdict"], reason(a, tol))
        for name, a in report["agents"].items()
    ]
    return junit_xml(checks, allow_inconclusive, suite="agentcov.compare")


RENDERERS: dict[str, Callable[[Mapping[str, Any]], str]] = {
    "text": render_text,
    "json": render_json,
    "markdown": render_markdown,
}
