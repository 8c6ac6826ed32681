"""The CI gate: each agent's `expect` list as PASS / FAIL / INCONCLUSIVE checks, a table, JUnit XML.

A pass-rate target with a minimum gets a statistical verdict from the Wilson 95 % interval: PASS
when the lower bound clears the threshold, FAIL when the upper bound is below it, INCONCLUSIVE
below `min_runs` or in between. INCONCLUSIVE is its own outcome (exit 3) unless the caller allows
it, so a suite too small to tell never passes silently.
"""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from . import agent_names
from .reporting import _format as fmt
from .snapshot.pass_rate import PASS_RATE, pass_rate_verdict
from .snapshot.schema import Report
from .spec import UNMATCHED_TARGET, CoverageSpec
from .state import losses
from .stats.verdicts import (
    EXIT_FAIL,
    EXIT_INCONCLUSIVE,
    EXIT_PASS,
    FAIL,
    INCONCLUSIVE,
    PASS,
    exit_code,
)
from .textsafe import line_safe, plain


@dataclass(frozen=True)
class Check:
    """One agent x target outcome; `reason` says why it did not pass ("" when it did)."""

    agent: str
    target: str
    value: float | int | None
    matcher: Mapping[str, Any]
    verdict: str
    reason: str
    # False: an INCONCLUSIVE that --allow-inconclusive cannot allow (what is missing may be a
    # restricted attempt, so it is not merely undecided)
    allowable: bool = True


def runs_by_agent(report: Report) -> dict[str, int]:
    """Runs per agent in a report."""
    return {name: int(a["runs"]["count"]) for name, a in report["agents"].items()}


def evaluate(
    report: Report, spec: CoverageSpec, allow_empty: bool = False
) -> list[Check]:
    """Every agent's checks, in report order; the report's own expect results are reused.

    A spec agent no run matched has one INCONCLUSIVE check naming the closest seen agents
    instead (its other checks judge nothing), unless no agent ran at all and the caller accepts
    that (`allow_empty`); with `gate.unmatched_agents: fail`, agents seen but named by no spec
    entry add one FAIL check."""
    runs = runs_by_agent(report)
    accepted = allow_empty and not any(runs.values())
    missing = {} if accepted else {u.agent: u for u in agent_names.unmatched(spec, runs)}
    checks: list[Check] = []
    for agent, data in report["agents"].items():
        if agent in missing:
            checks.append(Check(agent, "runs.count", 0, {"minimum": 1}, INCONCLUSIVE,
                                missing.pop(agent).message()))
            continue
        aspec = spec.for_agent(agent)
        for item, result in zip(aspec.expect, data["expect"], strict=True):
            verdict, reason = (PASS, "") if result["passed"] else (FAIL, result["reason"])
            if item.target == PASS_RATE:
                verdict, reason = pass_rate_verdict(item, data["runs"], aspec) or (verdict, reason)
            checks.append(Check(agent, item.target, result["value"], item.schema, verdict, reason))
    checks += [Check(u.agent, "runs.count", 0, {"minimum": 1}, INCONCLUSIVE, u.message())
               for u in missing.values()]  # a report that did not list the spec's agents
    extra = agent_names.unlisted(spec, runs)
    if extra and spec.gate.unmatched_agents == "fail":
        checks.append(Check("*", UNMATCHED_TARGET, len(extra), {"maximum": 0}, FAIL,
                            agent_names.unlisted_message(extra)))
    return checks


INCOMPLETE_TARGET = "data.incomplete"


def incomplete(reasons: Sequence[str]) -> list[Check]:
    """One FAIL check per reason the inputs are known to miss runs (a data file marked
    incomplete: a worker that sent nothing, a session that never finished). Runs known to be
    missing are not undecidable, so --allow-inconclusive never lets them pass."""
    return [Check("*", INCOMPLETE_TARGET, 1, {"maximum": 0}, FAIL, reason)
            for reason in reasons]


DROPPED_TARGET = "data.dropped"


def dropped(lost: Mapping[str, int]) -> list[Check]:
    """One INCONCLUSIVE check when spans or decision events were dropped before they were
    judged (a full queue or buffer, an unreadable span: `state/losses.py`): nothing known failed,
    but any of them may have been a restricted call or a denial, so --allow-inconclusive never
    lets it pass (docs/gate.md#dropped-spans-and-events)."""
    why = losses.message(lost)
    return [Check("*", DROPPED_TARGET, sum(lost.values()), {"maximum": 0}, INCONCLUSIVE, why,
                  allowable=False)] if why else []


def warnings(report: Report, spec: CoverageSpec) -> list[str]:
    """What the gate reports on stderr without failing: agents no spec entry names, while
    `gate.unmatched_agents` is `warn` (the default); spans a spec conventions: entry tried to
    re-read away from a restricted tool (their restricted calls gate as any other)."""
    out = [fmt.overruled_line(report["spans"])] if fmt.overruled_line(report["spans"]) else []
    extra = agent_names.unlisted(spec, runs_by_agent(report))
    if extra and spec.gate.unmatched_agents == "warn":
        out.append(agent_names.unlisted_message(extra))
    return out


def _allowed(checks: Sequence[Check], allow_inconclusive: bool) -> bool:
    """Whether the checks' INCONCLUSIVE verdicts are allowed: asked for, and each allowable."""
    return allow_inconclusive and all(c.allowable for c in checks if c.verdict == INCONCLUSIVE)


def outcome(checks: Sequence[Check], allow_inconclusive: bool = False) -> int:
    """The exit code the checks call for: 0 pass, 1 fail, 3 inconclusive (verdicts.exit_code)."""
    return exit_code((c.verdict for c in checks), _allowed(checks, allow_inconclusive))


_STATUS = {EXIT_PASS: "PASSED", EXIT_FAIL: "FAILED", EXIT_INCONCLUSIVE: "INCONCLUSIVE"}


def status(checks: Sequence[Check], allow_inconclusive: bool = False) -> str:
    """PASSED, FAILED or INCONCLUSIVE: the gate's one word, as the table's summary prints it."""
    return _STATUS[outcome(checks, allow_inconclusive)]


def _value(value: float | int | None) -> str:
    if value is None:
        return "n/a"
    if isinstance(value, float):
        return f"{value:.4g}"
    return str(value)


def _matcher(schema: Mapping[str, Any]) -> str:
    return json.dumps(schema, separators=(", ", ": "), sort_keys=True)


def render_table(checks: Sequence[Check], allow_inconclusive: bool = False) -> str:
    """A fixed-width table, one row per check, and a one-line summary."""
    header = ("agent", "target", "value", "matcher", "verdict")
    rows = [
        (plain(c.agent), plain(c.target), _value(c.value), plain(_matcher(c.matcher)),
         c.verdict + (f"  ({plain(c.reason)})" if c.reason else ""))
        for c in checks
    ]
    widths = [max(len(r[i]) for r in (header, *rows)) for i in range(4)]
    lines = ["  ".join(f"{cell:<{w}}" for cell, w in zip(r, widths, strict=False)) + "  " + r[4]
             for r in (header, *rows)]
    counts = {v: sum(c.verdict == v for c in checks) for v in (PASS, FAIL, INCONCLUSIVE)}
    lines.append(
        f"gate {status(checks, allow_inconclusive)}: {counts[PASS]} passed, {counts[FAIL]} failed, "
        f"{counts[INCONCLUSIVE]} inconclusive"
        + (" (allowed)" if _allowed(checks, allow_inconclusive) and counts[INCONCLUSIVE] else "")
    )
    return "\n".join(line_safe(line.rstrip()) for line in lines) + "\n"


def contract_violations(report: Report) -> str:
    """Every violated contract behaviour with its severity, count and rate, one per line, so a
    failed gate says which rule broke (empty when nothing was violated)."""
    lines = [
        f"contract violated: {plain(agent)}: {plain(r.contract)}.{plain(r.behavior)} "
        f"({r.severity}, {r.kind}) "
        f"in {fmt.plural(r.violated, 'run')} of {r.violated + r.satisfied} decided, "
        f"rate {r.rate}" + (f", {r.unknown} unknown" if r.unknown else "")
        for agent, data in report["agents"].items()
        for r in fmt.contract_rows(data)
        if r.violated
    ]
    return "".join(line + "\n" for line in lines)


def junit_xml(
    checks: Sequence[Check], allow_inconclusive: bool = False, suite: str = "agentcov.gate"
) -> str:
    """JUnit XML: one testcase per agent x target. FAIL is a <failure>; INCONCLUSIVE is a
    <failure> too, or <skipped> when allowed, so the CI view matches the exit code. Names are
    escaped: XML 1.0 cannot carry most control characters at all."""
    suite_el = ET.Element("testsuite", name=suite)
    failures = skipped = 0
    for c in checks:
        case = ET.SubElement(suite_el, "testcase", classname=f"agentcov.{plain(c.agent)}",
                             name=plain(c.target), time="0")
        message = plain(f"value {_value(c.value)}, matcher {_matcher(c.matcher)}: {c.reason}")
        if c.verdict == FAIL or (c.verdict == INCONCLUSIVE and not (
                allow_inconclusive and c.allowable)):
            failures += 1
            ET.SubElement(case, "failure", message=message, type=c.verdict).text = message
        elif c.verdict == INCONCLUSIVE:
            skipped += 1
            ET.SubElement(case, "skipped", message=message)
    suite_el.set("tests", str(len(checks)))
    suite_el.set("failures", str(failures))
    suite_el.set("errors", "0")
    suite_el.set("skipped", str(skipped))
    root = ET.Element("testsuites", name="agentcov", tests=str(len(checks)),
                      failures=str(failures), errors="0", skipped=str(skipped))
    root.append(suite_el)
    ET.indent(root)
    return '<?xml version="1.0" encoding="utf-8"?>\n' + ET.tostring(root, encoding="unicode") + "\n"


def fail_under(report: Report, minimum_pct: float) -> str | None:
    """Why the report misses `--fail-under` (lowest agent overall coverage, in percent), or None.

    No agents, or an agent whose overall is n/a, counts as 0 %: nothing measured is not covered.
    """
    agents = report["agents"]
    if not agents:
        return f"no agent runs to measure; required {minimum_pct:g}%"
    name, overall = min(
        ((n, a["coverage"]["overall"] or 0.0) for n, a in agents.items()), key=lambda x: x[1]
    )
    pct = 100.0 * overall
    if pct >= minimum_pct:
        return None
    return (
        f"coverage {pct:.1f}% ({plain(name)}, lowest agent overall) is below fail-under "
        f"{minimum_pct:g}%"
    )
