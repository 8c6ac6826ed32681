"""Cost per run in `agentcov compare` (docs/compare.md#cost-per-run): runs recorded through the
real OpenTelemetry SDK with `gen_ai.usage.cost.amount` / `.currency`, written by the real OTLP/JSON
encoder, compared side against side.

Expected values are worked by hand: means and sample variances of the listed run costs, Welch's
standard error and degrees of freedom, and two-sided 97.5 % t quantiles from a printed t table
(df 4: 2.776445, df 8: 2.306004, df 38: 2.024394; one-sided 0.9995 at df 8: 5.041).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest
from _trace_files import write_jsonl
from opentelemetry.sdk.trace import ReadableSpan, TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

from otel_agentcov import cli, offline
from otel_agentcov.compare import RENDERERS, Side, compare
from otel_agentcov.spec import CoverageSpec
from otel_agentcov.state.costs import Costs

Run = Sequence[tuple[float, str]]  # one run: the (amount, currency) of each of its chats


def run_spans(runs: Sequence[Run]) -> Sequence[ReadableSpan]:
    """One invoke_agent span of agent `support` per run, over one chat span per cost."""
    exporter = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    tracer = provider.get_tracer("t")
    for chats in runs:
        with tracer.start_as_current_span("invoke_agent support", attributes={
                "gen_ai.operation.name": "invoke_agent", "gen_ai.agent.name": "support"}):
            for amount, currency in chats:
                with tracer.start_as_current_span("chat m", attributes={
                        "gen_ai.operation.name": "chat", "gen_ai.request.model": "m",
                        "gen_ai.usage.cost.amount": amount,
                        "gen_ai.usage.cost.currency": currency}):
                    pass
    provider.shutdown()
    return exporter.get_finished_spans()


def side(path: Path, runs: Sequence[Run]) -> Side:
    write_jsonl(path, run_spans(runs))
    engine = offline.load_path(CoverageSpec.empty(), str(path))
    return Side(engine.state, offline.report(engine))


def eur(*amounts: float) -> list[Run]:
    """One run per amount, each one chat costing that many EUR."""
    return [[(a, "EUR")] for a in amounts]


def usd(*amounts: float) -> list[Run]:
    return [[(a, "USD")] for a in amounts]


def cost_of(tmp_path: Path, before: Sequence[Run], after: Sequence[Run]) -> dict[str, Any]:
    report = compare(side(tmp_path / "b.jsonl", before), side(tmp_path / "c.jsonl", after))
    agent: dict[str, Any] = report["agents"]["support"]
    return agent


def test_a_significant_rise_in_cost_per_run_fails_the_cost_verdict(tmp_path: Path) -> None:
    """1.0 1.2 0.8 1.0 1.0 EUR → 2.0 2.2 1.8 2.0 2.0: means 1 and 2, variances 0.02 each,
    se √(0.02/5 + 0.02/5) = 0.0894427, df 8, half-width 2.306004 × se = 0.206254; t = 11.18 is
    past the table's 5.041, so p < 0.0005 < α: FAIL, flagged on the agent, whose own verdict
    (5 passing runs a side: too few) stays the pass rate's."""
    agent = cost_of(tmp_path, eur(1.0, 1.2, 0.8, 1.0, 1.0), eur(2.0, 2.2, 1.8, 2.0, 2.0))
    eur_cost = agent["cost"]["currencies"]["EUR"]
    assert agent["cost"]["verdict"] == eur_cost["verdict"] == "FAIL"
    assert eur_cost["baseline"] == {"runs": 5, "mean": pytest.approx(1.0),
                                    "sd": pytest.approx(0.02 ** 0.5)}
    assert eur_cost["current"]["mean"] == pytest.approx(2.0)
    assert eur_cost["rise_ci95"] == pytest.approx([1 - 0.206254, 1 + 0.206254], abs=1e-5)
    assert eur_cost["p_value"] < 0.0005
    assert eur_cost["flags"] == [] and eur_cost["reason"] is None
    assert "cost_regression" in agent["flags"] and agent["verdict"] == "INCONCLUSIVE"


def test_a_rise_ruled_out_passes(tmp_path: Path) -> None:
    """20 runs a side alternating 1.00 / 1.02 EUR: mean 1.01, variance 20 × 0.01² / 19 =
    0.000105263, se √(2 × 0.000105263 / 20) = 0.00324443, df 38, half-width 2.024394 × se =
    0.006568: the upper bound 0.006568 is below 5 % of 1.01 = 0.0505, a PASS; the interval
    holds 0, so neither costlier nor cheaper."""
    runs = eur(*[1.0, 1.02] * 10)
    eur_cost = cost_of(tmp_path, runs, runs)["cost"]["currencies"]["EUR"]
    assert eur_cost["verdict"] == "PASS" and eur_cost["flags"] == []
    assert eur_cost["rise_ci95"] == pytest.approx([-0.006568, 0.006568], abs=1e-5)
    assert eur_cost["p_value"] == pytest.approx(0.5)


def test_a_small_rise_the_interval_cannot_rule_out_is_inconclusive(tmp_path: Path) -> None:
    """The first test's baseline against 1.1 1.3 0.9 1.1 1.1 EUR: a rise of 0.1 with the same
    se 0.0894427 and df 8, interval 0.1 ± 0.206254 = [-0.106254, 0.306254]. Its upper bound is
    over 5 % of the baseline mean (0.05), so no PASS; t = 1.118 lies between the t table's
    one-sided 0.85 (1.108) and 0.90 (1.397) quantiles at df 8, p in (0.10, 0.15) > α: neither
    a rise ruled out nor one shown."""
    agent = cost_of(tmp_path, eur(1.0, 1.2, 0.8, 1.0, 1.0), eur(1.1, 1.3, 0.9, 1.1, 1.1))
    eur_cost = agent["cost"]["currencies"]["EUR"]
    assert eur_cost["verdict"] == "INCONCLUSIVE" and eur_cost["reason"] is None
    assert eur_cost["rise_ci95"] == pytest.approx([0.1 - 0.206254, 0.1 + 0.206254], abs=1e-5)
    assert 0.10 < eur_cost["p_value"] < 0.15
    assert "cost_regression" not in agent["flags"]


def test_too_few_runs_to_rule_out_a_rise_is_inconclusive(tmp_path: Path) -> None:
    """1 2 3 EUR on both sides: no rise seen, but se √(1/3 + 1/3) = 0.816497, df 4, half-width
    2.776445 × se = 2.266956, far above 5 % of 2 = 0.1: undecided, never a pass."""
    agent = cost_of(tmp_path, eur(1, 2, 3), eur(1, 2, 3))
    eur_cost = agent["cost"]["currencies"]["EUR"]
    assert agent["cost"]["verdict"] == eur_cost["verdict"] == "INCONCLUSIVE"
    assert eur_cost["rise_ci95"] == pytest.approx([-2.266956, 2.266956], abs=1e-5)
    assert "cost_regression" not in agent["flags"]


@pytest.mark.parametrize(("before", "after", "reason"), [
    (eur(1, 2), usd(1, 2), "no_current_cost"),
    (usd(1, 2), eur(1, 2), "no_baseline_cost"),
    (eur(1), eur(1, 2), "fewer_than_2_runs"),
    (eur(1, 1, 1), eur(1, 1, 1), "no_spread"),
])
def test_undecidable_cost_comparisons_are_inconclusive(
        tmp_path: Path, before: list[Run], after: list[Run], reason: str) -> None:
    """A currency on one side only, one run, or identical costs (a point, not an interval):
    each undecided, with its reason, and the agent's cost verdict is INCONCLUSIVE."""
    agent = cost_of(tmp_path, before, after)
    reasons = {e["reason"] for e in agent["cost"]["currencies"].values()}
    assert reason in reasons and agent["cost"]["verdict"] == "INCONCLUSIVE"


def test_a_state_without_sums_of_squares_has_an_unknown_spread(tmp_path: Path) -> None:
    """A state written before the sums were kept ([total, runs]) reads, and its costs compare
    as INCONCLUSIVE (`spread_unknown`), not as a spread of 0."""
    old = side(tmp_path / "b.jsonl", eur(1, 2, 3))
    old_costs = old.state.agents["support"].costs
    old.state.agents["support"].costs = Costs.from_dict(
        {"costs": {c: [e.total, e.runs] for c, e in old_costs.by_currency.items()}})
    agent = compare(old, side(tmp_path / "c.jsonl", eur(1, 2, 3)))["agents"]["support"]
    assert agent["cost"]["currencies"]["EUR"]["reason"] == "spread_unknown"
    assert agent["cost"]["verdict"] == "INCONCLUSIVE"
    # merged with a state that has its sums (`agentcov merge`), the spread stays unknown
    merged = old.state.agents["support"].costs
    merged.merge(side(tmp_path / "d.jsonl", eur(4)).state.agents["support"].costs, old.state.caps)
    assert merged.to_dict() == {"costs": {"EUR": [10.0, 4, None]}}


def test_the_state_keeps_the_sum_of_squared_run_costs(tmp_path: Path) -> None:
    """Runs of 1.5 and 2 + 0.5 EUR (two chats): per run 1.5 and 2.5, squares 2.25 + 6.25."""
    write_jsonl(tmp_path / "t.jsonl", run_spans([*eur(1.5), [(2.0, "EUR"), (0.5, "EUR")]]))
    state = offline.load_path(CoverageSpec.empty(), str(tmp_path / "t.jsonl")).state
    assert state.agents["support"].costs.to_dict() == {"costs": {"EUR": [4.0, 2, 8.5]}}



def test_without_costs_there_is_no_cost_entry(tmp_path: Path) -> None:
    """Runs recording no cost (an amount of 0 is none): `cost` is null, nothing said of it."""
    report = compare(side(tmp_path / "b.jsonl", eur(0, 0)), side(tmp_path / "c.jsonl", eur(0)))
    assert all(a["cost"] is None for a in report["agents"].values())


def test_the_cli_prints_the_cost_line(tmp_path: Path) -> None:
    """Text and Markdown carry one cost line per currency with its verdict and flags; JSON
    the same numbers (through `agentcov compare` on two trace files)."""
    write_jsonl(tmp_path / "b.jsonl", run_spans(eur(1.0, 1.2, 0.8, 1.0, 1.0)))
    write_jsonl(tmp_path / "c.jsonl", run_spans(eur(2.0, 2.2, 1.8, 2.0, 2.0)))
    out = tmp_path / "out.json"
    cli.main(["compare", str(tmp_path / "b.jsonl"), str(tmp_path / "c.jsonl"),
              "--format", "json", "--output", str(out)])
    report = json.loads(out.read_text(encoding="utf-8"))
    assert report["agents"]["support"]["cost"]["verdict"] == "FAIL"
    text = RENDERERS["text"](report)
    line = next(x for x in text.splitlines() if "cost per run EUR" in x)
    assert line.strip().startswith("cost per run EUR: 1 (5 runs, sd 0.141) → 2 (5 runs, sd 0.141)")
    assert "rise +1 [+0.794, +1.21]" in line and line.endswith(": FAIL")
    assert "cost per run EUR" in RENDERERS["markdown"](report)
