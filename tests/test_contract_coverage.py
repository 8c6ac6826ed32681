"""The `not_exercised` verdict and contract coverage, in the state and in every report.

Three behaviours are declared; two runs are judged (worked out by hand from docs/contracts.md):
  R1 search                   -> refund.verifies, refund.one_refund: `when` never occurred;
                                 hygiene.logs_reads: its trigger never occurred (all vacuous)
  R2 verify, issue_refund     -> refund.verifies and refund.one_refund satisfied;
                                 hygiene.logs_reads vacuous again
So every behaviour has one not-exercised run, hygiene.logs_reads has nothing else: contract
coverage is 2 of 3, logs_reads is the untested behaviour, and no run fails.
"""

from __future__ import annotations

import html
from typing import Any

import pytest
from prometheus_client.parser import text_string_to_metric_families

from otel_agentcov.assembler import AgentRun
from otel_agentcov.exporters.prometheus import exposition
from otel_agentcov.judge import judge
from otel_agentcov.reporting import render
from otel_agentcov.reporting.html import html_pages, page_name
from otel_agentcov.semconv.step import TOOL, Step
from otel_agentcov.snapshot import compute_snapshot
from otel_agentcov.spec import CoverageSpec
from otel_agentcov.state import CoverageState

CONTRACTS: list[dict[str, Any]] = [
    {"name": "refund", "when": {"called": "issue_refund"}, "must": [
        {"behavior": "verifies", "before": {"first": "verify", "then": "issue_refund"}},
        {"behavior": "one_refund", "calls": {"tool": "issue_refund", "max": 1}},
    ]},
    {"name": "hygiene", "must": [
        {"behavior": "logs_reads", "after": {"trigger": "read_secrets", "then": "audit"}},
    ]},
]
RUNS = [("test_search", ["search"]), ("test_refund", ["verify", "issue_refund"])]


def _state(contracts: list[dict[str, Any]], expect: list[dict[str, Any]] | None = None,
           runs: list[tuple[str, list[str]]] = RUNS) -> tuple[CoverageSpec, CoverageState]:
    entry: dict[str, Any] = {"name": "a", "tools": ["search", "verify", "issue_refund"],
                             "contracts": contracts}
    if expect is not None:
        entry["expect"] = expect
    spec = CoverageSpec.from_dict({"version": 1, "agents": [entry]})
    state = CoverageState()
    for i, (context, calls) in enumerate(runs, start=1):
        steps = [Step(i, j, None, TOOL, j, j, "a", tool=t) for j, t in enumerate(calls, 1)]
        run = AgentRun("a", i, 0, 10, steps=steps, context=context)
        state.update(run, spec.for_agent("a"), judge(run, spec.for_agent("a")))
    return spec, state


def _report(contracts: list[dict[str, Any]] = CONTRACTS, **kw: Any) -> dict[str, Any]:
    spec, state = _state(contracts, **kw)
    return compute_snapshot(state, spec, contexts=True).to_dict()


def test_counts_and_contract_coverage_in_the_json_report() -> None:
    agent = _report()["agents"]["a"]
    rows = {f"{r['contract']}.{r['behavior']}": r for r in agent["contracts"]}
    counts = {k: (r["satisfied"], r["violated"], r["unknown"], r["not_exercised"])
              for k, r in rows.items()}
    assert counts == {"refund.verifies": (1, 0, 0, 1), "refund.one_refund": (1, 0, 0, 1),
                      "hygiene.logs_reads": (0, 0, 0, 2)}
    assert rows["hygiene.logs_reads"]["violation_rate"] is None  # never decided
    assert agent["coverage"]["contracts"] == pytest.approx(2 / 3)
    assert agent["runs"]["passed"] == 2  # not exercised is never a violation
    # a vacuous run tests nothing: R1's context decided no behaviour
    contexts = agent["contexts"]
    assert contexts["by_test"]["test_search"]["behaviors"] == []
    assert contexts["by_test"]["test_refund"]["behaviors"] == ["refund.one_refund",
                                                               "refund.verifies"]
    assert contexts["untested"]["behaviors"] == ["hygiene.logs_reads"]
    steps = [s for s in agent["recommendations"] if s["kind"] == "unexercised_behavior"]
    assert [s["subject"] for s in steps] == ["hygiene.logs_reads"]


def test_contract_coverage_stays_out_of_the_overall_score() -> None:
    with_contracts = _report()["agents"]["a"]["coverage"]
    without = _report([])["agents"]["a"]["coverage"]
    assert without["contracts"] is None
    assert with_contracts["overall"] == without["overall"]
    assert with_contracts["weakest"] == without["weakest"]


def test_contract_coverage_is_a_gate_target() -> None:
    agent = _report(expect=[{"target": "coverage.contracts",
                              "matcher": {"schema": {"minimum": 0.9}}}])["agents"]["a"]
    result = {e["target"]: e for e in agent["expect"]}["coverage.contracts"]
    assert result["value"] == pytest.approx(2 / 3) and result["passed"] is False


def test_every_report_format_shows_not_exercised_and_contract_coverage() -> None:
    report = _report()
    text = render(report, "text")
    assert "Contract coverage   67% of behaviours exercised" in text
    line = next(x for x in text.splitlines() if "hygiene.logs_reads" in x and "violated" in x)
    assert "unknown 0 · not exercised 2 · rate n/a" in line
    md = render(report, "markdown")
    assert "| not exercised |" in md and "Contract coverage: 67% of behaviours exercised" in md
    row = next(x for x in md.splitlines() if "logs\\_reads" in x or "logs_reads" in x)
    assert row.split("|")[5:10] == [" 0 ", " 0 ", " 0 ", " 2 ", " n/a "]
    page = html.unescape(html_pages(report)[page_name("a")])
    assert "<th class=\"num\">not exercised</th>" in page
    assert "Contract coverage: 67% of behaviours exercised" in page


def test_prometheus_counts_not_exercised_in_the_contract_family() -> None:
    samples = {
        (s.labels["contract"], s.labels["behavior"], s.labels["result"]): s.value
        for family in text_string_to_metric_families(exposition(_report()).decode())
        if family.name == "agentcov_contract_checks"
        for s in family.samples if s.name.endswith("_total")
    }
    assert samples[("hygiene", "logs_reads", "not_exercised")] == 2
    assert samples[("refund", "verifies", "not_exercised")] == 1
    assert samples[("refund", "verifies", "satisfied")] == 1
    ratio = [s.value for family in text_string_to_metric_families(exposition(_report()).decode())
             if family.name == "agentcov_contract_coverage_ratio" for s in family.samples]
    assert ratio == [pytest.approx(2 / 3)]


def test_violations_first_each_gated_by_its_own_contracts_fail_on() -> None:
    """Four contracts, each gated by its own `fail_on` (docs/contracts.md), over two runs:
      R1 search ×2, verify ×2, issue_refund   -> a_lax and c_lax violated
      R2 search, verify ×2, issue_refund ×2   -> c_lax and b_strict violated
    Rows, most violations first, then by severity: c_lax (2 of 2 decided, rate 1), b_strict
    (high, 1 of 2: 0.5), a_lax (medium, 1 of 2: 0.5), d_lax (never violated). a_lax's runs split
    1 satisfied / 1 violated: decided both times, so every behaviour is exercised (coverage 1).
    Gated (severity at or above the row's own contract's fail_on): c_lax and a_lax (medium >=
    low), not b_strict (high < critical): 2 + 1 = 3 violations, the reason naming those two;
    d_lax gates too but has no violation to name."""
    def calls(contract: str, fail_on: str, behavior: str, tool: str, most: int) -> dict[str, Any]:
        return {"name": contract, "fail_on": fail_on, "must": [
            {"behavior": behavior, "calls": {"tool": tool, "max": most}, "severity": "medium"
             if fail_on == "low" else "high"}]}

    contracts = [calls("b_strict", "critical", "one_refund", "issue_refund", 1),
                 calls("a_lax", "low", "one_search", "search", 1),
                 calls("c_lax", "low", "one_verify", "verify", 1),
                 calls("d_lax", "low", "few_searches", "search", 2)]
    runs = [("t1", ["search", "search", "verify", "verify", "issue_refund"]),
            ("t2", ["search", "verify", "verify", "issue_refund", "issue_refund"])]
    spec, state = _state(contracts, runs=runs)
    agent = compute_snapshot(state, spec).to_dict()["agents"]["a"]
    rows = [(f"{r['contract']}.{r['behavior']}", r["severity"], r["satisfied"], r["violated"],
             r["violation_rate"]) for r in agent["contracts"]]
    assert rows == [("c_lax.one_verify", "medium", 0, 2, 1.0),
                    ("b_strict.one_refund", "high", 1, 1, 0.5),
                    ("a_lax.one_search", "medium", 1, 1, 0.5),
                    ("d_lax.few_searches", "medium", 2, 0, 0.0)]
    assert agent["coverage"]["contracts"] == 1.0
    gate = {e["target"]: e for e in agent["expect"]}["contracts.violations_at_or_above_fail_on"]
    assert (gate["value"], gate["passed"]) == (3, False)
    assert gate["reason"] == (
        "3 is greater than the maximum of 0: contract c_lax.one_verify (medium) violated ×2, "
        "contract a_lax.one_search (medium) violated ×1")
