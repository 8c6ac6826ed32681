"""gate.py in process, every expected line written out by hand (docs/gate.md).

These are the assertions a mutation audit found missing (issue 43): which agent `--fail-under`
names, a clean stderr on a clean gate, the exact summary line with and without "(allowed)", the
JUnit counts, and no runs never meeting `--fail-under`. `make mutation` scores gate.py with them.
"""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from typing import Any

from _builders import agent_run, ingest

from otel_agentcov import gate
from otel_agentcov.engine import CoverageEngine
from otel_agentcov.gate import Check
from otel_agentcov.spec import CoverageSpec
from otel_agentcov.stats.verdicts import FAIL, INCONCLUSIVE, PASS


def _report(**overall: float | None) -> Any:
    """A report holding only what fail_under reads: each agent's overall coverage."""
    return {"agents": {name: {"coverage": {"overall": value}} for name, value in overall.items()}}


def test_fail_under_names_the_lowest_agent_even_when_it_does_not_sort_first() -> None:
    report = _report(alpha=0.9, mike=0.6, zulu=0.25)  # the lowest sorts last
    assert gate.fail_under(report, 80) == (
        "coverage 25.0% (zulu, lowest agent overall) is below fail-under 80%")
    assert gate.fail_under(report, 25) is None  # 25.0 >= 25: met exactly
    assert gate.fail_under(report, 25.5) == (
        "coverage 25.0% (zulu, lowest agent overall) is below fail-under 25.5%")


def test_fail_under_counts_an_unmeasured_agent_as_zero() -> None:
    report = _report(alpha=1.0, beta=None)
    assert gate.fail_under(report, 0.5) == (
        "coverage 0.0% (beta, lowest agent overall) is below fail-under 0.5%")
    assert gate.fail_under(report, 0) is None


def test_fail_under_with_no_agent_runs_fails_whatever_the_minimum() -> None:
    """`--allow-empty --fail-under` over no runs: nothing measured is not covered."""
    assert gate.fail_under(_report(), 10) == "no agent runs to measure; required 10%"
    assert gate.fail_under(_report(), 0) == "no agent runs to measure; required 0%"


def _checks() -> list[Check]:
    return [
        Check("support", "tools.coverage", 0.5, {"minimum": 0.4}, PASS, ""),
        Check("support", "runs.pass_rate", 0.75, {"minimum": 0.9}, INCONCLUSIVE,
              "4 runs, fewer than min_runs 20"),
        Check("triage", "edges.restricted_attempts", 2, {"maximum": 0}, FAIL, "2 > 0"),
        Check("triage", "runs.count", None, {"minimum": 1}, PASS, ""),
    ]


def test_render_table_exact_rows_and_summary() -> None:
    table = gate.render_table(_checks()).splitlines()
    assert table == [
        "agent    target                     value  matcher           verdict",
        "support  tools.coverage             0.5    {\"minimum\": 0.4}  PASS",
        "support  runs.pass_rate             0.75   {\"minimum\": 0.9}  INCONCLUSIVE"
        "  (4 runs, fewer than min_runs 20)",
        "triage   edges.restricted_attempts  2      {\"maximum\": 0}    FAIL  (2 > 0)",
        "triage   runs.count                 n/a    {\"minimum\": 1}    PASS",
        "gate FAILED: 2 passed, 1 failed, 1 inconclusive",
    ]


def test_the_allowed_suffix_only_when_allowed_and_something_was_inconclusive() -> None:
    inconclusive = [c for c in _checks() if c.verdict != FAIL]
    summary = {allow: gate.render_table(inconclusive, allow).splitlines()[-1]
               for allow in (False, True)}
    assert summary == {False: "gate INCONCLUSIVE: 2 passed, 0 failed, 1 inconclusive",
                       True: "gate PASSED: 2 passed, 0 failed, 1 inconclusive (allowed)"}
    passing = [c for c in _checks() if c.verdict == PASS]
    assert gate.render_table(passing, True).splitlines()[-1] == (
        "gate PASSED: 2 passed, 0 failed, 0 inconclusive")  # nothing was allowed


def test_status_and_outcome_follow_the_exit_codes() -> None:
    checks = _checks()
    assert (gate.outcome(checks), gate.status(checks)) == (1, "FAILED")
    undecided = [c for c in checks if c.verdict != FAIL]
    assert (gate.outcome(undecided), gate.status(undecided)) == (3, "INCONCLUSIVE")
    assert (gate.outcome(undecided, True), gate.status(undecided, True)) == (0, "PASSED")


def _suites(xml: str) -> tuple[dict[str, str], dict[str, str], dict[str, ET.Element]]:
    root = ET.fromstring(xml)
    (suite,) = root
    return dict(root.attrib), dict(suite.attrib), {
        f"{c.get('classname')}::{c.get('name')}": c for c in suite}


def test_junit_counts_failures_and_skipped_with_and_without_allowing() -> None:
    strict_root, strict, cases = _suites(gate.junit_xml(_checks()))
    assert strict_root == {"name": "agentcov", "tests": "4", "failures": "2", "errors": "0",
                           "skipped": "0"}
    assert strict == {"name": "agentcov.gate", "tests": "4", "failures": "2", "errors": "0",
                      "skipped": "0"}
    assert [child.tag for case in cases.values() for child in case] == ["failure", "failure"]
    rate = cases["agentcov.support::runs.pass_rate"].find("failure")
    assert rate is not None and rate.attrib == {
        "message": 'value 0.75, matcher {"minimum": 0.9}: 4 runs, fewer than min_runs 20',
        "type": "INCONCLUSIVE"}
    allowed_root, allowed, cases = _suites(gate.junit_xml(_checks(), allow_inconclusive=True))
    assert allowed_root["failures"] == allowed["failures"] == "1"
    assert allowed_root["skipped"] == allowed["skipped"] == "1"
    assert allowed_root["tests"] == allowed["tests"] == "4"
    skipped = cases["agentcov.support::runs.pass_rate"].find("skipped")
    assert skipped is not None and skipped.get("message") == (
        'value 0.75, matcher {"minimum": 0.9}: 4 runs, fewer than min_runs 20')
    restricted = cases["agentcov.triage::edges.restricted_attempts"].find("failure")
    assert restricted is not None and restricted.attrib == {
        "message": 'value 2, matcher {"maximum": 0}: 2 > 0', "type": "FAIL"}
    assert [len(case) for case in cases.values()] == [0, 1, 1, 0]


def test_junit_judges_a_decoded_verdict_like_its_constant() -> None:
    """A Check's verdict may be text read back from JSON (a new string equal to INCONCLUSIVE,
    not the constant): the JUnit writer that gate and compare share still makes it a failure,
    or a skipped case when inconclusive is allowed."""
    decoded = json.loads('"INCONCLUSIVE"')
    check = Check("a", "runs.pass_rate", 0.5, {"minimum": 0.9}, decoded, "3 runs")
    _, strict, _ = _suites(gate.junit_xml([check]))
    _, allowed, _ = _suites(gate.junit_xml([check], allow_inconclusive=True))
    assert (strict["failures"], strict["skipped"]) == ("1", "0")
    assert (allowed["failures"], allowed["skipped"]) == ("0", "1")


def test_the_value_column_rounds_floats_to_four_significant_digits() -> None:
    checks = [Check("a", "t", 2 / 3, {}, PASS, ""), Check("a", "u", 12345.678, {}, PASS, ""),
              Check("a", "v", 7, {}, PASS, "")]
    rows = gate.render_table(checks).splitlines()[1:4]
    assert [row.split()[2] for row in rows] == ["0.6667", "1.235e+04", "7"]


def _engine(spec: dict[str, Any], *agents: str) -> CoverageEngine:
    engine = CoverageEngine(CoverageSpec.from_dict({"version": 1, **spec}))
    for trace, agent in enumerate(agents, start=1):
        ingest(engine, agent_run(trace, agent, ["search"]))
    return engine


def test_no_warning_when_every_agent_that_ran_is_named() -> None:
    spec = {"agents": [{"name": "support"}]}
    engine = _engine(spec, "support", "support")
    report = engine.snapshot().to_dict()
    assert gate.warnings(report, CoverageSpec.from_dict({"version": 1, **spec})) == []


def test_one_warning_names_the_agents_no_entry_names() -> None:
    spec = {"agents": [{"name": "support"}]}
    report = _engine(spec, "support", "stranger", "zed").snapshot().to_dict()
    assert gate.warnings(report, CoverageSpec.from_dict({"version": 1, **spec})) == [
        "2 agents ran but no spec entry names them: 'stranger', 'zed' (judged by the spec "
        "defaults; add entries or a '*' entry)"]
    failing = {"gate": {"unmatched_agents": "fail"}, **spec}
    assert gate.warnings(report, CoverageSpec.from_dict({"version": 1, **failing})) == []


def test_evaluate_a_named_agent_that_never_ran_is_one_inconclusive_check() -> None:
    spec = CoverageSpec.from_dict({"version": 1, "agents": [
        {"name": "support"}, {"name": "triage", "expect": [
            {"target": "runs.count", "matcher": {"schema": {"minimum": 1}}}]}]})
    engine = CoverageEngine(spec)
    ingest(engine, agent_run(1, "support", ["search"]))
    checks = gate.evaluate(engine.snapshot().to_dict(), spec)
    triage = [c for c in checks if c.agent == "triage"]
    assert triage == [Check(
        "triage", "runs.count", 0, {"minimum": 1}, INCONCLUSIVE,
        "no run matched spec agent 'triage'; no seen agent name is close (mark the entry "
        "`optional: true` if it may not run)")]
    assert gate.outcome(checks) == 3


def test_evaluate_allow_empty_accepts_no_runs_at_all_but_not_a_missing_agent() -> None:
    spec = CoverageSpec.from_dict({"version": 1, "agents": [{"name": "support"}]})
    empty = CoverageEngine(spec).snapshot().to_dict()
    assert [c.verdict for c in gate.evaluate(empty, spec)] == [INCONCLUSIVE]
    accepted = gate.evaluate(empty, spec, allow_empty=True)
    assert INCONCLUSIVE not in [c.verdict for c in accepted]
    other = _engine({"agents": [{"name": "support"}]}, "stranger").snapshot().to_dict()
    missing = [c for c in gate.evaluate(other, spec, allow_empty=True) if c.agent == "support"]
    assert [(c.target, c.verdict) for c in missing] == [("runs.count", INCONCLUSIVE)]


def test_evaluate_unmatched_agents_fail_adds_one_fail_check_counting_them() -> None:
    spec = CoverageSpec.from_dict({"version": 1, "gate": {"unmatched_agents": "fail"},
                                   "agents": [{"name": "support"}]})
    report = _engine({}, "support", "stranger", "zed").snapshot().to_dict()
    unmatched = [c for c in gate.evaluate(report, spec) if c.agent == "*"]
    assert unmatched == [Check(
        "*", "spec.unmatched_agents", 2, {"maximum": 0}, FAIL,
        "2 agents ran but no spec entry names them: 'stranger', 'zed' (judged by the spec "
        "defaults; add entries or a '*' entry)")]


def test_contract_violations_one_exact_line_per_violated_behaviour() -> None:
    rows = [
        {"contract": "refunds", "behavior": "verify_first", "kind": "must", "severity": "high",
         "satisfied": 6, "violated": 2, "unknown": 1, "not_exercised": 3,
         "violation_rate": None, "violation_rate_ci95": None},
        {"contract": "refunds", "behavior": "no_leak", "kind": "must_not",
         "severity": "critical", "satisfied": 9, "violated": 1, "unknown": 0, "not_exercised": 0,
         "violation_rate": None, "violation_rate_ci95": None},
        {"contract": "refunds", "behavior": "polite", "kind": "must", "severity": "low",
         "satisfied": 4, "violated": 0, "unknown": 0, "not_exercised": 0,
         "violation_rate": None, "violation_rate_ci95": None},
    ]
    report: Any = {"agents": {"support": {"contracts": rows}}}
    assert gate.contract_violations(report) == (
        "contract violated: support: refunds.verify_first (high, must) in 2 runs of 8 decided, "
        "rate n/a, 1 unknown\n"
        "contract violated: support: refunds.no_leak (critical, must not) in 1 run of 10 "
        "decided, rate n/a\n")
    assert gate.contract_violations({"agents": {"support": {"contracts": rows[2:]}}}) == ""


def test_evaluate_judges_a_pass_rate_by_its_interval_not_the_report_point() -> None:
    """One passing run of `minimum: 0.9`, min_runs 1: Wilson [0.207, 1] straddles 0.9, so the
    check is INCONCLUSIVE (exit 3), never the report's plain FAIL (exit 1) nor a PASS."""
    spec = CoverageSpec.from_dict({"version": 1, "agents": [{
        "name": "support", "min_runs": 1,
        "expect": [{"target": "runs.pass_rate", "matcher": {"schema": {"minimum": 0.9}}}]}]})
    engine = CoverageEngine(spec)
    ingest(engine, agent_run(1, "support", ["search"]))
    (check,) = [c for c in gate.evaluate(engine.snapshot().to_dict(), spec)
                if c.target == "runs.pass_rate"]
    assert (check.verdict, check.reason, check.value) == (
        INCONCLUSIVE, "pass rate 100.0%, 95% interval [20.7%, 100.0%] straddles 0.9", 1.0)


def test_an_incomplete_input_is_one_failing_check_per_reason_that_allows_none() -> None:
    checks = gate.incomplete(["a.bin: marked incomplete", "b.bin: marked incomplete"])
    assert checks == [
        Check("*", "data.incomplete", 1, {"maximum": 0}, FAIL, "a.bin: marked incomplete"),
        Check("*", "data.incomplete", 1, {"maximum": 0}, FAIL, "b.bin: marked incomplete"),
    ]
    # runs known to be missing are not undecidable: --allow-inconclusive does not pass them
    assert gate.outcome(checks, allow_inconclusive=True) == 1
    assert gate.incomplete([]) == []


def test_an_agent_the_report_lists_without_a_run_is_one_inconclusive_check() -> None:
    """A report (a state file) may list an agent whose runs were never folded (only a late
    decision of it arrived): named by the spec and without a run, it is the same one
    INCONCLUSIVE check, expecting at least one run, as an agent missing from the report."""
    from otel_agentcov.snapshot import compute_snapshot
    from otel_agentcov.state import CoverageState

    spec = CoverageSpec.from_dict({"version": 1, "agents": [{"name": "triage"}]})
    state = CoverageState()
    state.agent("triage", 0)
    checks = gate.evaluate(compute_snapshot(state, spec).to_dict(), spec)
    assert [_fields(c)[:5] for c in checks] == [
        ("triage", "runs.count", 0, {"minimum": 1}, INCONCLUSIVE)]
    assert 'triage  runs.count  0      {"minimum": 1}  INCONCLUSIVE' in gate.render_table(checks)


def _fields(c: Check) -> tuple[Any, ...]:
    return (c.agent, c.target, c.value, c.matcher, c.verdict, c.reason)


def test_dropped_spans_are_one_check_expecting_none_that_allows_none() -> None:
    """Two spans dropped from a full queue: one INCONCLUSIVE check whose matcher says none may
    be dropped (maximum 0), not passed even with --allow-inconclusive."""
    checks = gate.dropped({"spans.queue_full": 2})
    assert [_fields(c)[:5] for c in checks] == [
        ("*", "data.dropped", 2, {"maximum": 0}, INCONCLUSIVE)]
    assert checks[0].reason.startswith("2 spans (queue_full 2) dropped before they were judged")
    assert gate.outcome(checks, allow_inconclusive=True) == 3
    assert gate.dropped({}) == []


def test_the_summary_counts_verdicts_read_back_from_json() -> None:
    """A check's verdict is a string, counted by its value: a verdict read back from JSON
    (an equal string, not the same object) counts like the module's own."""
    import json

    checks = [Check("a", "runs.count", 1, {"minimum": 1}, json.loads(f'"{v}"'), "")
              for v in (PASS, PASS, FAIL)]
    assert gate.render_table(checks).splitlines()[-1] == (
        "gate FAILED: 2 passed, 1 failed, 0 inconclusive")
