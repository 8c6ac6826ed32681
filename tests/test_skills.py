"""Skills beside tools (docs/semantics.md#skills), recorded through the real OpenTelemetry SDK:
`gen_ai.skill.definitions` on the agent span, the `load_skill` / `read_skill_resource`
refinements of `execute_tool` naming `gen_ai.skill.name`, read in-process by the processor and
offline from the files the SDK's encoders write (OTLP/JSON and protobuf).

The workload, and what it should give (worked out by hand, not from a run):

- researcher (spec: skills pdf-reading, web-search, charting; tools load_skill,
  read_skill_resource, search), two runs:
  - run 1: offered pdf-reading, web-search, charting and a "name" that is free text (dropped);
    load_skill pdf-reading (ok), read_skill_resource pdf-reading forms.md (ok), search (ok);
  - run 2: load_skill web-search, which fails (not loaded).
  Skills: loaded {pdf-reading: 1 load, 1 resource read}; known = declared, 1 of 3 loaded
  (coverage 1/3), unloaded charting and web-search, none undeclared; declared, so in the
  overall. Tools are counted as before: load_skill 1 ok + 1 error, read_skill_resource 1,
  search 1 (a skill load is a tool call too).
- writer (no skills declared), one run: offered style-guide and citations, loads citations:
  discovered, 1 of 2 (0.5), not in the overall.
- helper, one run with a chat only: no skills section, no skill coverage.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from _otel_events import measured_in_process, recorded
from opentelemetry import trace
from opentelemetry.exporter.otlp.json.common.trace_encoder import encode_spans
from opentelemetry.exporter.otlp.proto.common.trace_encoder import encode_spans as encode_pb
from opentelemetry.sdk.resources import Resource
from opentelemetry.trace import Status, StatusCode

from otel_agentcov import CoverageSpec
from otel_agentcov.exporters.prometheus import exposition
from otel_agentcov.offline import load
from otel_agentcov.reporting import render_markdown, render_text
from otel_agentcov.reporting.html import html_pages
from otel_agentcov.state import STATE_VERSION, CoverageState

SPEC = CoverageSpec.from_dict({"version": 1, "agents": [
    {"name": "researcher", "skills": ["pdf-reading", "web-search", "charting"],
     "tools": ["load_skill", "read_skill_resource", "search"]},
    {"name": "writer"}, {"name": "helper"}]}, source="<test>")
RESOURCE = Resource.create({"service.name": "svc"})
CANARY = "CANARY-91c4-skill-text-do-not-store"


def _definitions(*names: str) -> str:
    return json.dumps([{"name": n, "description": f"{CANARY} how to {n}",
                        "source_uri": f"file:///skills/{n}/SKILL.md"} for n in names])


def _agent(tracer: trace.Tracer, name: str, offered: str | None = None) -> Any:
    attributes = {"gen_ai.operation.name": "invoke_agent", "gen_ai.agent.name": name}
    if offered is not None:
        attributes["gen_ai.skill.definitions"] = offered
    return tracer.start_as_current_span(f"invoke_agent {name}", attributes=attributes)


def _tool(tracer: trace.Tracer, tool: str, skill: str | None = None,
          resource: str | None = None, fail: bool = False) -> None:
    attributes = {"gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": tool}
    if skill is not None:
        attributes |= {"gen_ai.skill.name": skill, "gen_ai.skill.description": CANARY}
    if resource is not None:
        attributes["gen_ai.skill.resource.name"] = resource
    with tracer.start_as_current_span(" ".join(filter(None, ("execute_tool", tool, skill))),
                                      attributes=attributes) as span:
        if fail:
            span.set_attribute("error.type", "FileNotFoundError")
            span.set_status(Status(StatusCode.ERROR))


def workload(tracer: trace.Tracer) -> None:
    """The four runs of the module docstring."""
    offered = json.loads(_definitions("pdf-reading", "web-search", "charting"))
    offered.append({"name": f"Not a name {CANARY}", "description": "free text"})
    with _agent(tracer, "researcher", json.dumps(offered)):
        _tool(tracer, "load_skill", "pdf-reading")
        _tool(tracer, "read_skill_resource", "pdf-reading", "forms.md")
        _tool(tracer, "search")
    with _agent(tracer, "researcher"):
        _tool(tracer, "load_skill", "web-search", fail=True)
    with _agent(tracer, "writer", _definitions("style-guide", "citations")):
        _tool(tracer, "load_skill", "citations")
    with _agent(tracer, "helper"), tracer.start_as_current_span("chat m1", attributes={
            "gen_ai.operation.name": "chat", "gen_ai.request.model": "m1"}):
        pass


def in_process(spec: CoverageSpec = SPEC) -> tuple[dict[str, Any], CoverageState]:
    return measured_in_process(spec, RESOURCE, lambda tracer, _: workload(tracer))


def offline(tmp_path: Path, fmt: str) -> tuple[dict[str, Any], CoverageState]:
    spans = recorded(RESOURCE, lambda tracer, _: workload(tracer))[0].get_finished_spans()
    path = tmp_path / f"traces.{fmt}"
    if fmt == "json":
        path.write_text(encode_spans(spans).to_json(), encoding="utf-8")
    else:
        path.write_bytes(encode_pb(spans).SerializeToString())
    engine = load(SPEC, traces=[str(path)])
    return engine.snapshot().to_dict(), engine.state


@pytest.fixture(params=["in_process", "offline_json", "offline_pb"])
def measured(request: pytest.FixtureRequest, tmp_path: Path
             ) -> tuple[dict[str, Any], CoverageState]:
    if request.param == "in_process":
        return in_process()
    return offline(tmp_path, request.param.removeprefix("offline_"))


def test_declared_skills_are_counted_as_tools_are(
        measured: tuple[dict[str, Any], CoverageState]) -> None:
    researcher = measured[0]["agents"]["researcher"]
    assert researcher["skills"] == {
        "known": ["charting", "pdf-reading", "web-search"], "discovered": False,
        "loaded": {"pdf-reading": {"loads": 1, "resources": 1}},
        "unloaded": ["charting", "web-search"], "undeclared": [], "coverage": pytest.approx(1 / 3)}
    coverage = researcher["coverage"]
    assert coverage["skill"] == pytest.approx(1 / 3)
    assert "skill" in coverage["counted"]


def test_a_skill_load_stays_one_tool_call(
        measured: tuple[dict[str, Any], CoverageState]) -> None:
    tools = measured[0]["agents"]["researcher"]["tools"]
    assert tools["called"] == {"load_skill": {"ok": 1, "error": 1},
                               "read_skill_resource": {"ok": 1, "error": 0},
                               "search": {"ok": 1, "error": 0}}
    assert tools["undeclared"] == []


def test_offered_skills_are_reported_but_not_in_the_overall(
        measured: tuple[dict[str, Any], CoverageState]) -> None:
    writer = measured[0]["agents"]["writer"]
    assert writer["skills"]["known"] == ["citations", "style-guide"]
    assert writer["skills"]["discovered"] is True
    assert writer["coverage"]["skill"] == 0.5
    assert "skill" not in writer["coverage"]["counted"]
    assert writer["coverage"]["excluded"]["skill"] == (
        "not in the overall: no `skills:` declared for this agent")


def test_an_agent_without_skills_reports_as_before(
        measured: tuple[dict[str, Any], CoverageState]) -> None:
    helper = measured[0]["agents"]["helper"]
    assert "skills" not in helper
    assert "skill" not in helper["coverage"]
    assert "skill" not in render_text({"version": 1, "agents": {"helper": helper},
                                       "spans": measured[0]["spans"]}).lower()


def test_every_report_shows_skill_coverage_and_no_skill_text(
        measured: tuple[dict[str, Any], CoverageState]) -> None:
    report, state = measured
    text = render_text(report)
    assert "1/3 skills, never loaded: charting, web-search" in text
    assert "1/2 offered skills, never loaded: style-guide" in text
    assert "| skill | 33% | 1/3 skills, never loaded: charting, web-search |" in (
        render_markdown(report))
    html = "".join(html_pages(report).values())
    assert "1/3 skills, never loaded: charting, web-search" in html
    metrics = exposition(report).decode()
    assert ('agentcov_skill_loads_total{agent="researcher",kind="load",skill="pdf-reading"} 1.0'
            in metrics)
    assert ('agentcov_skill_loads_total{agent="researcher",kind="resource",skill="pdf-reading"}'
            ' 1.0' in metrics)
    assert 'agentcov_coverage_ratio{agent="writer",dimension="skill"} 0.5' in metrics
    for output in (json.dumps(report), text, render_markdown(report), html, metrics,
                   json.dumps(state.to_dict())):
        assert CANARY[:20] not in output
        assert "forms.md" not in output  # a resource's name is not kept either


def test_state_files_keep_skills_and_merge_them(
        measured: tuple[dict[str, Any], CoverageState]) -> None:
    """Version 8 writes them; they read back and merge (two copies: counts doubled)."""
    document = json.loads(json.dumps(measured[1].to_dict()))
    assert document["version"] == STATE_VERSION == 8
    assert document["agents"]["researcher"]["skills"] == {
        "definitions": ["charting", "pdf-reading", "web-search"],
        "loads": {"pdf-reading": [1, 1]}}
    assert "skills" not in document["agents"]["helper"]
    merged = CoverageState.from_dict(document)
    merged.merge(CoverageState.from_dict(document))
    assert merged.agents["researcher"].skills.loads == {"pdf-reading": [2, 2]}
    assert merged.agents["writer"].skills.definitions == {"citations", "style-guide"}


def test_a_version_7_state_reads_with_no_skills() -> None:
    old = {"format": "otel_agentcov.state", "version": 7, "incomplete": [], "dropped": {},
           "overflow": {}, "agents": {}}
    assert CoverageState.from_dict(old).agents == {}


def test_an_expect_on_skill_coverage_gates_it() -> None:
    spec = CoverageSpec.from_dict({"version": 1, "agents": [
        {"name": "researcher", "skills": ["pdf-reading", "web-search", "charting"],
         "expect": [{"target": "coverage.skill", "matcher": {"schema": {"minimum": 0.5}}}]},
        {"name": "helper",
         "expect": [{"target": "coverage.skill", "matcher": {"schema": {"minimum": 0}}}]}]},
        source="<test>")
    agents = in_process(spec)[0]["agents"]
    def skill_check(agent: str) -> tuple[Any, bool]:
        row = next(e for e in agents[agent]["expect"] if e["target"] == "coverage.skill")
        return row["value"], row["passed"]

    assert skill_check("researcher") == (pytest.approx(1 / 3), False)  # 1/3 < 0.5
    assert skill_check("helper") == (None, False)  # n/a never passes
