"""The HTML report as a new user meets it, measured by the layout engine of a real headless
Chromium (tests/_chromium.py): the index fits a 1400 px window; a failed gate says why, at the top
of the agent's page; the graph's edge counts neither overlap nor sit under an edge; backticked
names are code, in HTML and in the Markdown PR comment.

Before: the index was 1,6xx px wide at 1400; "gate FAILED" gave no reason and the reasons were at
the bottom of the page; each count sat on its edge's midpoint, where edges fanning out of one node
cross; `boundaries.conditions` showed with its backticks (and as \\`...\\` in Markdown).
"""

from __future__ import annotations

import os
import re
import shutil
from pathlib import Path
from typing import Any

import pytest
from _chromium import Browser

from otel_agentcov import CoverageSpec
from otel_agentcov.demo import DEMO_SPEC
from otel_agentcov.reporting import render
from otel_agentcov.reporting.html import page_name, write_html

pytestmark = pytest.mark.slow
SCREENS = os.environ.get("AGENTCOV_SCREENS")  # a directory to keep the screenshots in


@pytest.fixture(scope="module")
def report() -> dict[str, Any]:
    from opentelemetry.sdk.trace import TracerProvider

    from otel_agentcov.demo import run_workload
    from otel_agentcov.processor import AgentCoverageProcessor

    provider = TracerProvider()
    coverage = AgentCoverageProcessor(CoverageSpec.from_dict(DEMO_SPEC))
    provider.add_span_processor(coverage)
    run_workload(provider, runs=60)
    coverage.force_flush()
    data = coverage.snapshot().to_dict()
    provider.shutdown()
    return data


@pytest.fixture(scope="module")
def site(report: dict[str, Any], tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("html")
    write_html(report, out, spec=CoverageSpec.from_dict(DEMO_SPEC))
    return out


def keep(shot: Path) -> None:
    if SCREENS:
        shutil.copy(shot, Path(SCREENS) / shot.name)


def test_the_index_fits_a_1400_px_window(site: Path, tmp_path: Path) -> None:
    with Browser(1400, 700) as browser:
        browser.open(site / "index.html")
        width = browser.evaluate("document.documentElement.scrollWidth")
        widest = browser.evaluate("Math.max(...[...document.querySelectorAll('table')]"
                                  ".map(t => t.getBoundingClientRect().right))")
        browser.screenshot(tmp_path / "index-1400.png")
    keep(tmp_path / "index-1400.png")
    assert width <= 1400 and widest <= 1400, (width, widest)


def test_a_failed_gate_says_why_first(site: Path, report: dict[str, Any], tmp_path: Path) -> None:
    failing = [n for n, a in report["agents"].items() if not all(e["passed"] for e in a["expect"])]
    assert "triage_agent" in failing  # the demo's delete_repo attempts
    with Browser(1400, 900) as browser:
        browser.open(site / "index.html")
        why = browser.evaluate("[...document.querySelectorAll('table.default td.gate')]"
                               ".map(td => td.innerText)")
        browser.open(site / page_name("triage_agent"))
        gate_top = browser.evaluate("document.getElementById('gate').getBoundingClientRect().top")
        coverage_top = browser.evaluate("[...document.querySelectorAll('h2')].find(h => "
                                        "h.innerText === 'Coverage').getBoundingClientRect().top")
        listed = browser.evaluate("document.getElementById('gate').innerText")
        browser.screenshot(tmp_path / "agent-gate.png", full_page=False)
    keep(tmp_path / "agent-gate.png")
    triage = next(w for w in why if "edges.restricted_attempts" in w)
    assert triage.startswith("FAILED") and "delete_repo" in listed
    assert gate_top < coverage_top  # the failures come before everything else
    failed = [e for e in report["agents"]["triage_agent"]["expect"] if not e["passed"]]
    assert f"{len(failed)} check" in listed and all(e["target"] in listed for e in failed)


def _crosses(line: tuple[float, float, float, float], box: dict[str, float]) -> bool:
    """Whether the segment passes through the rectangle (sampled every half pixel)."""
    x1, y1, x2, y2 = line
    steps = int(max(abs(x2 - x1), abs(y2 - y1)) * 2) + 1
    return any(box["x"] < x1 + (x2 - x1) * i / steps < box["x"] + box["width"]
               and box["y"] < y1 + (y2 - y1) * i / steps < box["y"] + box["height"]
               for i in range(steps + 1))


def test_edge_counts_neither_overlap_nor_sit_under_an_edge(site: Path, tmp_path: Path) -> None:
    with Browser(1400, 900) as browser:
        browser.open(site / page_name("triage_agent"))
        labels = browser.evaluate("[...document.querySelectorAll('svg text.count')].map(t => {"
                                  "const b = t.getBBox(); return {x: b.x, y: b.y,"
                                  " width: b.width, height: b.height, text: t.textContent}})")
        lines = browser.evaluate("[...document.querySelectorAll('svg line.edge')].map(l => "
                                 "['x1','y1','x2','y2'].map(a => l[a].baseVal.value))")
        browser.evaluate("document.querySelector('svg').scrollIntoView()")
        browser.screenshot(tmp_path / "agent-graph.png", full_page=False)
    keep(tmp_path / "agent-graph.png")
    assert len(labels) == len(lines) >= 8
    for i, a in enumerate(labels):
        for b in labels[i + 1:]:
            apart = (a["x"] + a["width"] <= b["x"] or b["x"] + b["width"] <= a["x"]
                     or a["y"] + a["height"] <= b["y"] or b["y"] + b["height"] <= a["y"])
            assert apart, (a, b)
        assert not [line for line in lines if _crosses(tuple(line), a)], a


def test_backticks_are_code_in_html_and_markdown(report: dict[str, Any], site: Path) -> None:
    page = (site / page_name("triage_agent")).read_text(encoding="utf-8")
    assert "`" not in re.sub(r"<[^>]+>", "", page.split("<main>")[1])
    assert "<code>" in page
    markdown = render(report, "markdown")
    assert "\\`" not in markdown
    steps = [line for line in markdown.splitlines() if re.match(r"\d+\. ", line)]
    assert any(re.search(r"`[a-z_]+`", line) for line in steps), steps
