"""A scrape reads `measures()`: the report built without the sections no metric family reads
(recommendations, the expect list, contexts). It must be the full report minus exactly those
keys, and the exposition of either must be the same bytes, on every kind of report content."""

from __future__ import annotations

import pytest
from opentelemetry.sdk.trace import TracerProvider
from test_report_golden import fixture_files

from otel_agentcov import demo, offline
from otel_agentcov.assembler import AgentRun, RunContent
from otel_agentcov.engine import CoverageEngine
from otel_agentcov.exporters.prometheus import exposition
from otel_agentcov.judge import judge
from otel_agentcov.processor import AgentCoverageProcessor
from otel_agentcov.semconv.step import TOOL, Step
from otel_agentcov.spec import CoverageSpec

JUDGED_ONLY = {"recommendations", "expect", "contexts"}


def _fixture_corpus() -> CoverageEngine:
    return offline.load(CoverageSpec.empty(), traces=[str(p) for p in fixture_files()])


def _demo() -> CoverageEngine:
    """Delegations, restricted attempts, boundaries, several agents."""
    provider = TracerProvider()
    proc = AgentCoverageProcessor(CoverageSpec.from_dict(demo.DEMO_SPEC, source="<demo>"))
    provider.add_span_processor(proc)
    demo.run_workload(provider)
    provider.force_flush()
    provider.shutdown()
    return proc.engine


def _contracts_and_versions() -> CoverageEngine:
    """Contract verdicts of every result and two versions with a verdict between them."""
    spec = CoverageSpec.from_dict({"version": 1, "agents": [{"name": "a", "contracts": [
        {"name": "refund", "when": {"called": "issue_refund"}, "must": [
            {"behavior": "verifies", "before": {"first": "verify", "then": "issue_refund"}},
            {"behavior": "apologises", "output": {"contains": "sorry"}},
        ]},
    ]}]}, source="<test>")  # fmt: skip
    engine = CoverageEngine(spec)
    plans = [(["verify", "issue_refund"], "sorry", "v1"), (["issue_refund"], None, "v1"),
             (["search"], "ok", "v2"), (["verify", "issue_refund"], "no", "v2")]
    for i, (calls, output, version) in enumerate(plans * 5, start=1):
        steps = [Step(i, j, None, TOOL, j, j, "a", tool=t) for j, t in enumerate(calls, 1)]
        run = AgentRun("a", i, 0, 10 + i, steps=steps, version=version,
                       content=RunContent(output, None, {}))
        agent = spec.for_agent("a")
        engine.state.update(run, agent, judge(run, agent.checks))
    return engine


@pytest.mark.parametrize("make", [_fixture_corpus, _demo, _contracts_and_versions])
def test_measures_are_the_report_without_the_judged_sections(make: object) -> None:
    engine = make()  # type: ignore[operator]
    full = engine.snapshot().data
    measures = engine.measures()
    assert full["agents"], "the input made no agent report"
    assert measures["spans"] == full["spans"]
    assert list(measures["agents"]) == list(full["agents"])
    for name, report in full["agents"].items():
        assert JUDGED_ONLY & set(report)  # the full report has what measures leave out
        expected = {k: v for k, v in report.items() if k not in JUDGED_ONLY}
        assert measures["agents"][name] == expected, name
    assert exposition(measures) == exposition(full)
