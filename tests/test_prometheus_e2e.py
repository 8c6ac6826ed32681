"""End to end with a real Prometheus server (Debian's `prometheus`, installed by `make test`).

The demo workload runs through the real SDK with the processor serving `/metrics`; Prometheus
scrapes it every second with the shipped rules loaded. The restricted-tool alert must fire and
the scraped coverage must equal `processor.snapshot()`. A second processor, checking narratives,
serves a support agent whose answers claim a refund it never issued: AgentCovHallucinatedAction
must fire for it. A canary version with a worse pass rate must fire AgentCovVersionRegression.
"""

from __future__ import annotations

import json
import urllib.parse
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from _support import free_port, get_json, poll, prometheus
from opentelemetry.sdk.trace import TracerProvider
from test_versions import SPEC, emit  # the canary workload of the version tests

from otel_agentcov import AgentCoverageProcessor, CoverageSpec
from otel_agentcov.demo import DEMO_SPEC, run_workload

pytestmark = pytest.mark.slow

RULES = Path(__file__).resolve().parent.parent / "dashboards" / "prometheus"


@pytest.fixture()
def served() -> Iterator[tuple[AgentCoverageProcessor, int]]:
    provider = TracerProvider()
    processor = AgentCoverageProcessor(CoverageSpec.from_dict(DEMO_SPEC, source="<demo>"))
    provider.add_span_processor(processor)
    run_workload(provider, seed=7, runs=60)
    processor.force_flush()
    port = free_port()
    server, _ = processor.serve_metrics(port=port)
    yield processor, port
    server.shutdown()
    provider.shutdown()


NARRATIVE_SPEC = {
    "version": 1,
    "agents": [{"name": "support", "tools": ["lookup_order", "issue_refund"], "narrative": {}}],
}


@pytest.fixture()
def storyteller() -> Iterator[int]:
    """A processor checking narratives: two answers claim a refund no tool call made."""
    provider = TracerProvider()
    processor = AgentCoverageProcessor(CoverageSpec.from_dict(NARRATIVE_SPEC))
    provider.add_span_processor(processor)
    tracer = provider.get_tracer("storyteller")
    for calls, answer in [
        (["lookup_order"], "I looked up your order and issued a refund."),
        (["lookup_order", "issue_refund"], "I looked up your order and issued a refund."),
        ([], "Your refund has been issued."),
    ]:
        message = {"role": "assistant", "parts": [{"type": "text", "content": answer}]}
        attrs = {"gen_ai.operation.name": "invoke_agent", "gen_ai.agent.name": "support",
                 "gen_ai.output.messages": json.dumps([message])}
        with tracer.start_as_current_span("invoke_agent support", attributes=attrs):
            for name in calls:
                tool = {"gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": name}
                with tracer.start_as_current_span(f"execute_tool {name}", attributes=tool):
                    pass
    processor.force_flush()
    port = free_port()
    server, _ = processor.serve_metrics(port=port)
    yield port
    server.shutdown()
    provider.shutdown()


@pytest.mark.timeout(120)
def test_prometheus_scrapes_and_restricted_alert_fires(
    served: tuple[AgentCoverageProcessor, int], storyteller: int, tmp_path: Path
) -> None:
    processor, metrics_port = served
    rules = [RULES / "agentcov-alerts.yaml", RULES / "agentcov-rules.yaml"]
    targets = [f"127.0.0.1:{metrics_port}", f"127.0.0.1:{storyteller}"]
    with prometheus(tmp_path, targets, rules) as api:

        def hallucination_alerts() -> list[dict[str, Any]]:
            return [
                a for a in get_json(f"{api}/alerts")["data"]["alerts"]
                if a["labels"]["alertname"] == "AgentCovHallucinatedAction"
                and a["state"] == "firing"
            ]

        def restricted_alerts() -> list[dict[str, Any]]:
            return [
                a for a in get_json(f"{api}/alerts")["data"]["alerts"]
                if a["labels"]["alertname"] == "AgentCovRestrictedToolAttempt"
                and a["state"] == "firing"
            ]

        firing = poll(restricted_alerts, 60)
        assert firing, "AgentCovRestrictedToolAttempt never fired"
        assert {a["labels"]["tool"] for a in firing} >= {"delete_repo", "issue_credit"}
        assert all(a["labels"]["severity"] == "critical" for a in firing)

        told = poll(hallucination_alerts, 60)
        assert [(a["labels"]["agent"], a["labels"]["tool"], a["labels"]["severity"])
                for a in told] == [("support", "issue_refund", "critical")]
        assert float(told[0]["value"]) == 2.0  # two runs claimed it (a new non-zero series)

        report = processor.snapshot().to_dict()
        query = urllib.parse.quote(f'agentcov_coverage_ratio{{instance="{targets[0]}"}}')
        result = get_json(f"{api}/query?query={query}")["data"]["result"]
        scraped = {(r["metric"]["agent"], r["metric"]["dimension"]): float(r["value"][1])
                   for r in result}
        expected = {(agent, dim): value
                    for agent, data in report["agents"].items()
                    for dim, value in data["coverage"].items()
                    if dim in ("tool", "path", "state", "boundary", "model") and value is not None}
        assert scraped.keys() == expected.keys()
        for key, value in expected.items():
            assert scraped[key] == pytest.approx(value, abs=1e-9), key
        query = urllib.parse.quote(
            f'agentcov_restricted_tool_attempts_total{{instance="{targets[0]}"}}'
        )
        attempts = get_json(f"{api}/query?query={query}")
        got = {(r["metric"]["agent"], r["metric"]["tool"], r["metric"]["outcome"]):
               float(r["value"][1]) for r in attempts["data"]["result"]}
        want = {(agent, e["tool"], e["outcome"]): float(e["count"])
                for agent, data in report["agents"].items() for e in data["edges"]["restricted"]}
        assert got == want


@pytest.mark.timeout(120)
def test_canary_version_with_worse_pass_rate_fires_version_regression(tmp_path: Path) -> None:
    """Version 1.0 passes 190/200 runs, then canary 1.1 passes 150/200 (real SDK spans): the
    scraped verdict is -1 and AgentCovVersionRegression fires."""
    provider = TracerProvider()
    processor = AgentCoverageProcessor(SPEC)
    provider.add_span_processor(processor)
    emit(provider, "1.0", 190, 200)
    emit(provider, "1.1", 150, 200)
    processor.force_flush()
    port = free_port()
    server, _ = processor.serve_metrics(port=port)
    try:
        with prometheus(tmp_path, [f"127.0.0.1:{port}"], [RULES / "agentcov-alerts.yaml"]) as api:

            def regression() -> list[dict[str, Any]]:
                return [
                    a for a in get_json(f"{api}/alerts")["data"]["alerts"]
                    if a["labels"]["alertname"] == "AgentCovVersionRegression"
                    and a["state"] == "firing"
                ]

            firing = poll(regression, 60)
            assert firing, "AgentCovVersionRegression never fired"
            (alert,) = firing
            assert (alert["labels"]["agent"], alert["labels"]["version"],
                    alert["labels"]["baseline_version"]) == ("triage", "1.1", "1.0")
            query = urllib.parse.quote("agentcov_version_verdict")
            result = get_json(f"{api}/query?query={query}")["data"]["result"]
            assert [(r["metric"]["version"], float(r["value"][1])) for r in result] == [
                ("1.1", -1.0)
            ]
    finally:
        server.shutdown()
        provider.shutdown()
