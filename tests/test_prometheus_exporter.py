"""Prometheus exporter (docs/metrics.md): lint-clean exposition equal to the snapshot.

The demo workload runs through the real SDK; every sample must equal the value in the snapshot
taken alongside it, `promtool check metrics` must accept the text, and the HTTP server must serve
the same text on loopback.
"""

from __future__ import annotations

import subprocess
import threading
import urllib.request
from collections.abc import Iterator
from typing import Any

import pytest
from _builders import agent_run, ingest
from _support import demo_processor, free_port, need_binary
from opentelemetry.sdk.trace import TracerProvider
from prometheus_client.parser import text_string_to_metric_families

from otel_agentcov import demo
from otel_agentcov.engine import CoverageEngine
from otel_agentcov.exporters.prometheus import (
    CoverageCollector,
    make_registry,
    render,
)
from otel_agentcov.processor import AgentCoverageProcessor
from otel_agentcov.snapshot import DIMENSIONS
from otel_agentcov.spec import CoverageSpec
from otel_agentcov.state import Limits

Key = tuple[str, tuple[tuple[str, str], ...]]


@pytest.fixture(scope="module")
def processor() -> Iterator[AgentCoverageProcessor]:
    with demo_processor() as proc:
        yield proc


def samples(text: str) -> dict[Key, float]:
    out: dict[Key, float] = {}
    for family in text_string_to_metric_families(text):
        for s in family.samples:
            key = (s.name, tuple(sorted(s.labels.items())))
            assert key not in out, f"duplicate series {key}"
            out[key] = s.value
    return out


def series(name: str, **labels: str) -> Key:
    return name, tuple(sorted(labels.items()))


def test_promtool_check_metrics_accepts_exposition(processor: AgentCoverageProcessor) -> None:
    promtool = need_binary("promtool")
    proc = subprocess.run(
        [promtool, "check", "metrics"],
        input=render(processor),
        capture_output=True,
        timeout=60,
        check=False,
    )
    output = (proc.stdout + proc.stderr).decode().strip()
    assert proc.returncode == 0, output
    assert output == ""


def test_every_sample_equals_the_snapshot(processor: AgentCoverageProcessor) -> None:
    text = render(processor).decode()
    report = processor.snapshot().to_dict()  # nothing new ingested: same numbers
    got = samples(text)
    expected: dict[Key, float] = {}
    for agent, rep in report["agents"].items():
        cov = rep["coverage"]
        for dim in DIMENSIONS:
            if cov[dim] is not None:
                expected[series("agentcov_coverage_ratio", agent=agent, dimension=dim)] = cov[dim]
        expected[series("agentcov_coverage_overall_ratio", agent=agent)] = cov["overall"]
        expected[series("agentcov_gate_passed", agent=agent)] = rep["edges"]["gate_passed"]
        for r in rep["edges"]["restricted"]:
            key = series(
                "agentcov_restricted_tool_attempts_total",
                agent=agent, tool=r["tool"], outcome=r["outcome"],
            )  # fmt: skip
            expected[key] = r["count"]
        for tool, c in rep["tools"]["called"].items():
            for outcome in ("ok", "error"):
                key = series("agentcov_tool_calls_total", agent=agent, tool=tool, outcome=outcome)
                expected[key] = c[outcome]
        runs = rep["runs"]
        expected[series("agentcov_runs_total", agent=agent)] = runs["count"]
        expected[series("agentcov_runs_passed_total", agent=agent)] = runs["passed"]
        expected[series("agentcov_run_errors_total", agent=agent)] = runs["errors"]
        for key, value in expected.items():
            assert got[key] == pytest.approx(value), key

    # the demo's restricted delete_repo attempts are visible and fail the gate
    triage = report["agents"]["triage_agent"]
    attempts = sum(
        v
        for (name, labels), v in got.items()
        if name == "agentcov_restricted_tool_attempts_total"
        and ("tool", "delete_repo") in labels
    )
    assert attempts == triage["edges"]["restricted_attempts"] > 0
    assert got[series("agentcov_gate_passed", agent="triage_agent")] == 0

    # null values emit no sample: research_agent declares no delegations
    assert series("agentcov_edges_delegation_ratio", agent="research_agent") not in got
    # declared inventories
    for tool in triage["tools"]["known"]:
        assert got[series("agentcov_tool_declared_info", agent="triage_agent", tool=tool)] == 1
    edge = series(
        "agentcov_delegation_declared_info",
        agent="triage_agent", from_agent="triage_agent", to_agent="billing_agent",
    )  # fmt: skip
    assert got[edge] == 1
    # self-metrics always present, zero when absent
    for reason in ("queue_full", "malformed", "invalid_ids", "end_before_start", "after_shutdown"):
        assert series("agentcov_spans_dropped_total", reason=reason) in got
    assert got[series("agentcov_internal_errors_total")] == 0


def test_histogram_buckets_are_cumulative(processor: AgentCoverageProcessor) -> None:
    report = processor.snapshot().to_dict()
    for family in text_string_to_metric_families(render(processor).decode()):
        if family.name != "agentcov_run_duration_seconds":
            continue
        assert family.type == "histogram"
        per_agent: dict[str, list[tuple[float, float]]] = {}
        counts: dict[str, float] = {}
        for s in family.samples:
            agent = s.labels["agent"]
            if s.name.endswith("_bucket"):
                per_agent.setdefault(agent, []).append((float(s.labels["le"]), s.value))
            elif s.name.endswith("_count"):
                counts[agent] = s.value
        assert set(per_agent) == set(report["agents"])
        for agent, buckets in per_agent.items():
            bounds = [b for b, _ in buckets]
            values = [v for _, v in buckets]
            assert bounds == sorted(bounds) and bounds[-1] == float("inf")
            assert values == sorted(values), f"{agent} buckets not cumulative"
            assert values[-1] == counts[agent] == report["agents"][agent]["runs"]["count"]
        return
    pytest.fail("agentcov_run_duration_seconds missing")


def test_serve_metrics_over_http_on_loopback(processor: AgentCoverageProcessor) -> None:
    port = free_port()
    server, thread = processor.serve_metrics(port=port)
    try:
        assert server.server_address[0] == "127.0.0.1"
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=5) as resp:
            body = resp.read()
            assert resp.status == 200
        served = samples(body.decode())
        coverage = samples(render(processor).decode())
        assert {k: v for k, v in served.items() if k in coverage} == coverage
        runtime = {name for name, _ in set(served) - set(coverage)}  # served with the coverage
        assert runtime and all(n.startswith(("process_", "python_", "agentcov_build_info"))
                               for n in runtime), runtime
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=5)


def test_wsgi_app_serves_exposition(processor: AgentCoverageProcessor) -> None:
    app = processor.metrics_app()
    status: list[str] = []

    def start_response(s: str, headers: list[tuple[str, str]], exc: Any = None) -> None:
        status.append(s)

    environ = {"REQUEST_METHOD": "GET", "PATH_INFO": "/metrics", "QUERY_STRING": ""}
    body = b"".join(app(environ, start_response))
    assert status == ["200 OK"]
    assert b"agentcov_coverage_ratio" in body


def test_collector_uses_its_own_registry() -> None:
    from prometheus_client import REGISTRY

    engine = CoverageEngine()
    registry = make_registry(engine)
    assert registry is not REGISTRY
    assert not any(
        isinstance(c, CoverageCollector)
        for c in REGISTRY._collector_to_names  # noqa: SLF001 - checking the global stays clean
    )


def _tool_run(engine: CoverageEngine, trace_id: int, agent: str, tools: list[str]) -> None:
    ingest(engine, agent_run(trace_id, agent, tools))


def test_label_overflow_counter_has_label_values() -> None:
    engine = CoverageEngine(limits=Limits(max_tools=2))
    _tool_run(engine, 1, "a", ["t1", "t2", "t3", "t4"])
    got = samples(render(engine).decode())
    for label in ("agent", "tool", "model", "path", "state"):
        assert series("agentcov_label_overflow_total", label=label) in got
    assert got[series("agentcov_label_overflow_total", label="tool")] >= 1
    assert got[series("agentcov_label_overflow_total", label="agent")] == 0


def test_scrape_during_concurrent_ingestion_is_consistent() -> None:
    provider = TracerProvider()
    proc = AgentCoverageProcessor(CoverageSpec.from_dict(demo.DEMO_SPEC, source="<demo>"))
    provider.add_span_processor(proc)
    errors: list[BaseException] = []

    def produce() -> None:
        try:
            for seed in range(4):
                demo.run_workload(provider, seed=seed, runs=30)
        except BaseException as exc:  # pragma: no cover - reported below
            errors.append(exc)

    writer = threading.Thread(target=produce)
    writer.start()
    scrapes = 0
    try:
        while writer.is_alive() or scrapes < 3:
            got = samples(render(proc).decode())
            scrapes += 1
            for (name, labels), value in got.items():
                if name != "agentcov_runs_total":
                    continue
                passed = got[("agentcov_runs_passed_total", labels)]
                errs = got[("agentcov_run_errors_total", labels)]
                assert value >= passed and value >= errs
                inf = [
                    v for (n, ls), v in got.items()
                    if n == "agentcov_run_duration_seconds_bucket"
                    and ls == tuple(sorted((*labels, ("le", "+Inf"))))
                ]  # fmt: skip
                assert inf == [value]
    finally:
        writer.join(timeout=120)
        provider.shutdown()
    assert not errors
    assert scrapes >= 3
