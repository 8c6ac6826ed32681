"""Versions on live traffic (docs/compare.md): runs carry their agent's version through the real SDK
and processor, state keeps the newest versions' counts, the report and /metrics give each
version's verdict against the one before it (checked against hand statistics)."""

from __future__ import annotations

import json
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest
from _hand_stats import fisher_hand, newcombe_hand
from _support import need_binary
from opentelemetry.sdk.metrics import MeterProvider
from opentelemetry.sdk.metrics.export import InMemoryMetricReader, NumberDataPoint
from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.trace import Status, StatusCode
from prometheus_client.parser import text_string_to_metric_families

from otel_agentcov import AgentCoverageProcessor, CoverageSpec
from otel_agentcov.exporters.otlp_metrics import install_otlp_metrics
from otel_agentcov.exporters.prometheus import render
from otel_agentcov.reporting import render as render_report
from otel_agentcov.state import CoverageState, Limits

SPEC = CoverageSpec.from_dict({"version": 1, "agents": [{"name": "triage", "tools": ["search"]}]})


def emit(provider: TracerProvider, version: str | None, passed: int, runs: int,
         agent: str = "triage") -> None:
    """`runs` real invoke_agent spans (one tool call each); those past `passed` end in error."""
    tracer = provider.get_tracer("versions-test")
    attrs: dict[str, str] = {"gen_ai.operation.name": "invoke_agent", "gen_ai.agent.name": agent}
    if version is not None:
        attrs["gen_ai.agent.version"] = version
    for i in range(runs):
        with tracer.start_as_current_span(f"invoke_agent {agent}", attributes=attrs) as span:
            with tracer.start_as_current_span(
                "execute_tool search",
                attributes={"gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": "search"},
            ):
                pass
            if i >= passed:
                span.set_attribute("error.type", "AgentFailed")
                span.set_status(Status(StatusCode.ERROR))


@pytest.fixture()
def canary() -> Iterator[AgentCoverageProcessor]:
    """Version 1.0 passes 190/200; then canary 1.1 passes 150/200."""
    provider = TracerProvider()
    processor = AgentCoverageProcessor(SPEC)
    provider.add_span_processor(processor)
    emit(provider, "1.0", 190, 200)
    emit(provider, "1.1", 150, 200)
    provider.force_flush()
    yield processor
    provider.shutdown()


def test_report_versions_with_verdict_against_previous(canary: AgentCoverageProcessor) -> None:
    versions = canary.snapshot().to_dict()["agents"]["triage"]["versions"]
    assert [(v["version"], v["runs"], v["passed"]) for v in versions] == [
        ("1.0", 200, 190), ("1.1", 200, 150)
    ]
    assert versions[0]["verdict_vs_previous"] is None
    _, upper = newcombe_hand(190, 200, 150, 200)
    assert upper >= 0.05 and fisher_hand(190, 200, 150, 200) < 0.05  # a drop shown: FAIL
    assert versions[1]["verdict_vs_previous"] == "FAIL"
    assert versions[1]["baseline_version"] == "1.0"
    assert versions[1]["pass_rate"] == 0.75
    assert versions[1]["tool_calls"] == {"search": 200}
    report = canary.snapshot().to_dict()
    line = "1.0 95% (200 runs) · 1.1 75% (200 runs, FAIL vs 1.0)"
    assert f"\nVersions            {line}\n" in render_report(report, "text")
    assert f"\nVersions: {line}\n" in render_report(report, "markdown")


def test_metrics_export_per_version_series_and_verdict(canary: AgentCoverageProcessor) -> None:
    text = render(canary).decode()
    got = {(s.name, tuple(sorted(s.labels.items()))): s.value
           for fam in text_string_to_metric_families(text) for s in fam.samples}
    assert got[("agentcov_version_verdict", (("agent", "triage"), ("baseline_version", "1.0"),
                                              ("version", "1.1")))] == -1
    assert got[("agentcov_version_runs_total", (("agent", "triage"), ("version", "1.1")))] == 200
    assert got[("agentcov_version_pass_rate_ratio",
                (("agent", "triage"), ("version", "1.0")))] == 0.95
    assert got[("agentcov_version_tool_calls_total",
                (("agent", "triage"), ("tool", "search"), ("version", "1.1")))] == 200
    # the first version has no baseline: no verdict series for it
    assert not [k for k in got if k[0] == "agentcov_version_verdict" and ("version", "1.0") in k[1]]
    check = subprocess.run([need_binary("promtool"), "check", "metrics"], input=text,
                           capture_output=True, text=True, timeout=60, check=False)
    assert check.returncode == 0, check.stdout + check.stderr


def test_equal_versions_are_not_a_regression() -> None:
    provider = TracerProvider()
    processor = AgentCoverageProcessor(SPEC)
    provider.add_span_processor(processor)
    emit(provider, "2.0", 30, 30)
    emit(provider, "2.1", 30, 30)
    provider.force_flush()
    versions = processor.snapshot().to_dict()["agents"]["triage"]["versions"]
    _, upper = newcombe_hand(30, 30, 30, 30)
    assert upper >= 0.05  # 30 runs cannot rule out a 5-point drop ...
    assert versions[1]["verdict_vs_previous"] == "INCONCLUSIVE"  # ... so not PASS, not FAIL
    provider.shutdown()


def test_service_version_is_the_fallback_and_unversioned_runs_are_not_counted() -> None:
    provider = TracerProvider(resource=Resource.create({"service.name": "svc",
                                                        "service.version": "7.1"}))
    processor = AgentCoverageProcessor(SPEC)
    provider.add_span_processor(processor)
    emit(provider, None, 3, 3)  # no gen_ai.agent.version: the resource's service.version
    emit(provider, "8.0", 2, 2)  # the agent's own version wins over the resource's
    provider.force_flush()
    report = processor.snapshot().to_dict()["agents"]["triage"]
    assert [(v["version"], v["runs"]) for v in report["versions"]] == [("7.1", 3), ("8.0", 2)]
    provider.shutdown()

    bare = TracerProvider(resource=Resource.create({"service.name": "svc"}))
    plain = AgentCoverageProcessor(SPEC)
    bare.add_span_processor(plain)
    emit(bare, None, 2, 2)
    bare.force_flush()
    report = plain.snapshot().to_dict()["agents"]["triage"]
    assert report["runs"]["count"] == 2 and report["versions"] == []
    bare.shutdown()


def test_only_the_newest_versions_are_kept_and_the_rest_counted(tmp_path: Path) -> None:
    provider = TracerProvider()
    processor = AgentCoverageProcessor(SPEC, limits=Limits(max_versions=2))
    provider.add_span_processor(processor)
    for n, version in enumerate(("1", "2", "3"), start=1):
        emit(provider, version, n, n)  # version k has k runs, emitted in order
    provider.force_flush()
    report = processor.snapshot().to_dict()
    assert [v["version"] for v in report["agents"]["triage"]["versions"]] == ["2", "3"]
    assert report["spans"]["label_overflow"]["version"] == 1  # version "1": one run folded
    provider.shutdown()


def test_state_round_trip_merge_and_old_files(tmp_path: Path) -> None:
    provider = TracerProvider()
    processor = AgentCoverageProcessor(SPEC)
    provider.add_span_processor(processor)
    emit(provider, "1.0", 4, 5)
    provider.force_flush()
    path = tmp_path / "a.state"
    processor.engine.state.save(path)
    provider.shutdown()

    merged = CoverageState()
    merged.merge(CoverageState.load(path))
    merged.merge(CoverageState.load(path))
    entry = merged.agents["triage"].versions.counts["1.0"]
    assert (entry.runs, entry.passed, entry.tools) == (10, 8, {"search": 10})

    doc = json.loads(path.read_text(encoding="utf-8"))
    del doc["agents"]["triage"]["versions"]  # a file written before versions were kept
    path.write_text(json.dumps(doc), encoding="utf-8")
    old = CoverageState.load(path)
    assert old.agents["triage"].outcomes.runs == 5 and old.agents["triage"].versions.counts == {}


def test_merge_is_order_free_below_the_cap() -> None:
    states = []
    for versions in (("1.0", "1.1"), ("1.1", "2.0")):
        provider = TracerProvider()
        processor = AgentCoverageProcessor(SPEC)
        provider.add_span_processor(processor)
        for k, version in enumerate(versions, start=2):
            emit(provider, version, k - 1, k)
        provider.force_flush()
        states.append(processor.engine.state.to_dict())
        provider.shutdown()
    ab, ba = CoverageState(), CoverageState()
    for target, order in ((ab, states), (ba, states[::-1])):
        for doc in order:
            target.merge(CoverageState.from_dict(doc))
    assert ab.to_dict() == ba.to_dict()
    counts = ab.agents["triage"].versions.counts
    # 1.1 came from both: 3 runs (2 passed) in the first state, 2 runs (1 passed) in the second
    assert {v: (c.runs, c.passed) for v, c in counts.items()} == {
        "1.0": (2, 1), "1.1": (5, 3), "2.0": (3, 2)
    }


def test_otlp_metrics_carry_the_version_verdict(canary: AgentCoverageProcessor) -> None:
    reader = InMemoryMetricReader()
    install_otlp_metrics(canary, MeterProvider(metric_readers=[reader]))
    data = reader.get_metrics_data()
    assert data is not None
    points = {
        (m.name, tuple(sorted(dict(p.attributes or {}).items()))): p.value
        for rm in data.resource_metrics for sm in rm.scope_metrics for m in sm.metrics
        for p in m.data.data_points if isinstance(p, NumberDataPoint)
    }
    labels = (("agent", "triage"), ("baseline_version", "1.0"), ("version", "1.1"))
    assert points[("agentcov.version.verdict", labels)] == -1
    assert points[("agentcov.version.runs", (("agent", "triage"), ("version", "1.0")))] == 200
