"""One definition of "overall" (docs/semantics.md#overall) on every surface: the JSON, text,
Markdown and HTML reports, the exported `agentcov_coverage_overall_ratio` and what the alert
rules make of the exposition, the Grafana panel's query, and `--fail-under`.

Two agents with the same runs, by hand: two runs each calling `search` once, spec tools
[search, write], expected path [tool] (seen), no LLM call and no model declared:
tool 1/2, path 1/1, state: one state seen twice, Chao1 = 1 + 0 = 1 → 1/1; boundary: none of the
six conditions hit → 0. `planner` declares no boundaries, so its overall leaves boundary out:
(0.5 · 1 · 1)^(1/3) = 0.7937; `writer` declares `boundaries:` → 0 is counted → overall 0.
Before, both were 0 in the reports and on /metrics while the alert rule took planner's as 0.79.
"""

from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path

import pytest
import yaml
from _builders import agent_run, ingest
from _support import need_binary

from otel_agentcov.engine import CoverageEngine
from otel_agentcov.exporters.prometheus import render as exposition
from otel_agentcov.gate import fail_under
from otel_agentcov.reporting import render
from otel_agentcov.reporting.html import html_pages
from otel_agentcov.spec import CoverageSpec

ROOT = Path(__file__).resolve().parents[1]
PLANNER = 0.5 ** (1 / 3)  # 0.7937
RUNBOOK = "dashboards/prometheus/RUNBOOK.md#"
SPEC = {
    "version": 1,
    "defaults": {"tools": ["search", "write"], "paths": {"expected": [["tool"]]}},
    "agents": [{"name": "planner"}, {"name": "writer", "boundaries": {"max_steps": 25}}],
}


@pytest.fixture(scope="module")
def engine() -> CoverageEngine:
    engine = CoverageEngine(CoverageSpec.from_dict(SPEC))
    for trace, agent in enumerate(["planner", "planner", "writer", "writer"], 1):
        ingest(engine, agent_run(trace, agent, ["search"]))
    engine.flush_all()
    return engine


def test_the_report_counts_boundary_only_where_declared(engine: CoverageEngine) -> None:
    agents = engine.snapshot().to_dict()["agents"]
    planner, writer = agents["planner"]["coverage"], agents["writer"]["coverage"]
    for coverage in (planner, writer):
        assert (coverage["tool"], coverage["path"], coverage["state"], coverage["boundary"]) == (
            0.5, 1.0, 1.0, 0.0)
    assert planner["overall"] == pytest.approx(PLANNER)
    assert planner["counted"] == ["tool", "path", "state"]
    assert "boundaries" in planner["excluded"]["boundary"]
    assert planner["weakest"] == "tool"
    assert (writer["overall"], writer["weakest"]) == (0.0, "boundary")
    assert writer["counted"] == ["tool", "path", "state", "boundary"]


def test_text_markdown_and_html_show_that_overall(engine: CoverageEngine) -> None:
    data = engine.snapshot().to_dict()
    text = render(data, "text")
    assert re.findall(r"^Overall\s+\S+\s+(\d+)%", text, re.M) == ["79", "0"]
    markdown = render(data, "markdown")
    assert re.findall(r"^\| (planner|writer) \| 2 \| (\d+)% \|", markdown, re.M) == [
        ("planner", "79"), ("writer", "0")]
    index = html_pages(data)["index.html"]
    default = index[index.index('<table class="agents default"'):]
    rows = re.findall(r'<td class="name"><a [^>]*>(\w+)</a></td>.*?</tr>', default, re.S)
    assert rows == ["planner", "writer"]
    cells = re.findall(r"<tr>\s*<td class=\"name\">.*?</tr>", default, re.S)
    # the five dimensions' bars, then the overall's
    overall = [re.findall(r'class="pct[^"]*">([^<]+)<', c)[5] for c in cells]
    assert overall == ["79%", "0%"]


def _series(engine: CoverageEngine) -> dict[str, float]:
    body = exposition(engine).decode()
    wanted = ("agentcov_coverage_overall_ratio", "agentcov_coverage_ratio",
              "agentcov_boundary_declared_info")
    return {line.rsplit(" ", 1)[0]: float(line.rsplit(" ", 1)[1]) for line in body.splitlines()
            if line.startswith(wanted)}


def test_metrics_export_the_same_overall(engine: CoverageEngine) -> None:
    series = _series(engine)
    assert series['agentcov_coverage_overall_ratio{agent="planner"}'] == pytest.approx(PLANNER)
    assert series['agentcov_coverage_overall_ratio{agent="writer"}'] == 0.0
    declared = {k for k in series if k.startswith("agentcov_boundary_declared_info")}
    assert declared and all('agent="writer"' in k for k in declared)


def test_the_alert_rules_agree_on_the_exported_series(engine: CoverageEngine,
                                                      tmp_path: Path) -> None:
    """promtool evaluates the real rules over the real exposition's series: the overall alert
    fires for writer (0 < 50 %) and not planner (79 %), and the weak-dimension alert does not
    take planner's uncounted boundary for a weak dimension."""
    promtool = need_binary("promtool")
    inputs = [{"series": k.replace('{', '{job="agentcov",instance="r1",', 1), "values": f"{v}x60"}
              for k, v in _series(engine).items()]
    alert = {"severity": "warning", "job": "agentcov", "instance": "r1"}
    test = {
        "rule_files": [str(ROOT / "dashboards/prometheus/agentcov-alerts.yaml")],
        "evaluation_interval": "1m",
        "tests": [{"interval": "1m", "input_series": inputs, "alert_rule_test": [
            {"eval_time": "35m", "alertname": "AgentCovOverallCoverageLow",
             "exp_alerts": [{"exp_labels": {**alert, "agent": "writer"}, "exp_annotations": {
                 "summary": "Overall agent coverage is below 50%.",
                 "description": "Overall coverage of agent writer is 0% (threshold 50%) on r1.",
                 "runbook_url": RUNBOOK + "agentcovoverallcoveragelow"}}]},
            {"eval_time": "35m", "alertname": "AgentCovDimensionWeak",
             "exp_alerts": [{"exp_labels": {**alert, "agent": "writer", "dimension": "boundary"},
                             "exp_annotations": {
                 "summary": "A coverage dimension of an agent is below 30%.",
                 "description": "boundary coverage of agent writer is 0% (threshold 30%) on r1.",
                 "runbook_url": RUNBOOK + "agentcovdimensionweak"}}]},
        ]}],
    }
    (tmp_path / "t.yaml").write_text(yaml.safe_dump(test), encoding="utf-8")
    proc = subprocess.run([promtool, "test", "rules", str(tmp_path / "t.yaml")],
                          capture_output=True, text=True, timeout=120, check=False)
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_grafana_reads_the_exported_overall_and_recomputes_nothing() -> None:
    fleet = json.loads((ROOT / "dashboards/grafana/agentcov-fleet.json").read_text())
    exprs = [t.get("expr", "") for p in fleet["panels"] for t in p.get("targets", [])]
    overall = [e for e in exprs if "overall" in e]
    assert overall and all("agentcov_coverage_overall_ratio" in e for e in overall)
    assert not any("ln(agentcov_coverage_ratio" in e for e in exprs)


def test_fail_under_judges_the_same_overall(engine: CoverageEngine) -> None:
    data = engine.snapshot().to_dict()
    assert fail_under(data, 50) is not None and "writer" in (fail_under(data, 50) or "")
    only_planner = {**data, "agents": {"planner": data["agents"]["planner"]}}
    assert fail_under(only_planner, 79) is None  # 79.4 %
    assert fail_under(only_planner, 80) is not None
