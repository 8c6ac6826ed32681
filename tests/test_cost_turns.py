"""`gen_ai.usage.cost.amount` / `.currency` and `gen_ai.agent.turn.count` (the 2026 GenAI
conventions) through the real SDK into the processor: sums per currency, the `cost_limit` and
`max_steps` boundaries at their declared limits, the cost metric. Expected values by hand."""

from __future__ import annotations

from typing import Any

import pytest
from opentelemetry.sdk.trace import TracerProvider

from otel_agentcov import AgentCoverageProcessor, CoverageSpec
from otel_agentcov.exporters.prometheus import exposition


def spec(**boundaries: Any) -> CoverageSpec:
    return CoverageSpec.from_dict({"version": 1, "agents": [
        {"name": "support", "boundaries": {"cost_limit_tokens": None, **boundaries}}]},
        source="<test>")


def report(cover: CoverageSpec, costs: list[tuple[float, str | None]], turns: int | None = None
           ) -> dict[str, Any]:
    """One run: an agent span (with `turns`) over one chat span per (amount, currency)."""
    provider = TracerProvider()
    processor = AgentCoverageProcessor(cover)
    provider.add_span_processor(processor)
    tracer = provider.get_tracer("t")
    agent_attributes: dict[str, Any] = {"gen_ai.operation.name": "invoke_agent",
                                        "gen_ai.agent.name": "support"}
    if turns is not None:
        agent_attributes["gen_ai.agent.turn.count"] = turns
    with tracer.start_as_current_span("invoke_agent support", attributes=agent_attributes):
        for amount, currency in costs:
            attributes: dict[str, Any] = {"gen_ai.operation.name": "chat",
                                          "gen_ai.request.model": "m",
                                          "gen_ai.usage.cost.amount": amount}
            if currency is not None:
                attributes["gen_ai.usage.cost.currency"] = currency
            with tracer.start_as_current_span("chat m", attributes=attributes):
                pass
    processor.force_flush()
    got = processor.snapshot().to_dict()
    processor.shutdown()
    return got


def hits(got: dict[str, Any]) -> dict[str, int]:
    counts: dict[str, int] = got["agents"]["support"]["boundary_hits"]
    return counts


def test_cost_is_summed_per_currency() -> None:
    """2.0 + 2.5 EUR, 1.25 USD, 0.5 with no currency: three sums, one run each."""
    got = report(spec(), [(2.0, "EUR"), (2.5, "EUR"), (1.25, "USD"), (0.5, None)])
    assert got["agents"]["support"]["runs"]["cost"] == {
        "EUR": {"total": 4.5, "runs": 1, "mean": 4.5},
        "USD": {"total": 1.25, "runs": 1, "mean": 1.25},
        "unknown": {"total": 0.5, "runs": 1, "mean": 0.5},
    }


@pytest.mark.parametrize(("amounts", "hit"), [((2.0, 2.5), 1), ((2.0, 2.4), 0)])
def test_cost_limit_fires_at_ninety_percent_of_the_declared_budget(
        amounts: tuple[float, float], hit: int) -> None:
    """Budget 5 EUR: 4.5 EUR is 90 % (hit), 4.4 EUR is not; 100 USD never counts toward it."""
    got = report(spec(cost_limit_amount=5, cost_limit_currency="EUR"),
                 [(a, "EUR") for a in amounts] + [(100.0, "USD")])
    assert hits(got).get("cost_limit", 0) == hit


@pytest.mark.parametrize(("turns", "hit"), [(10, 1), (9, 0)])
def test_turn_count_reaches_max_steps(turns: int, hit: int) -> None:
    """max_steps 10, one model call: 10 turns hit it, 9 do not."""
    got = report(spec(max_steps=10), [(0.1, "USD")], turns=turns)
    assert hits(got).get("max_steps", 0) == hit


def test_cost_metric_has_the_currency_label() -> None:
    got = report(spec(), [(2.0, "EUR")])
    text = exposition(got).decode()
    assert 'agentcov_run_cost_total{agent="support",currency="EUR"} 2.0' in text
