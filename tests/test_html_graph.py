"""The HTML agent graph, rendered by headless Chromium (Debian's `chromium`, installed by
`make test`) and read back pixel by pixel: the restricted-attempt edge is red, the declared but
never observed edge is dashed, an observed declared edge is solid. The graph is cut out of the
agent page as written and drawn at 1:1 scale, so pixel positions are the SVG's coordinates."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path
from typing import Any

import png
import pytest
from _builders import agent_run, ingest
from _support import need_binary

from otel_agentcov.engine import CoverageEngine
from otel_agentcov.reporting import write_html
from otel_agentcov.reporting.html import page_name
from otel_agentcov.spec import CoverageSpec

pytestmark = pytest.mark.slow

WHITE = (255, 255, 255)


def _report() -> dict[str, Any]:
    spec = CoverageSpec.from_dict({"version": 1, "agents": [{
        "name": "a", "tools": ["search", "fetch"],
        "tool_edges": {"restricted": ["rm_rf"], "delegation": [{"from": "a", "to": "b"}]},
    }]})
    engine = CoverageEngine(spec)
    for trace, tools in ((1, ["search", "rm_rf"]), (2, ["search"])):
        ingest(engine, agent_run(trace, "a", tools))
    report: dict[str, Any] = engine.snapshot().to_dict()
    return report


def _edges(svg: str) -> dict[str, tuple[float, float, float, float]]:
    """The edges by style (one of each style in this report, plus the tools' own)."""
    found = {}
    for m in re.finditer(r'<line class="edge (\w+)" x1="([\d.]+)" y1="([\d.]+)" '
                         r'x2="([\d.]+)" y2="([\d.]+)"', svg):
        found.setdefault(m.group(1), tuple(float(v) for v in m.group(2, 3, 4, 5)))
    return found  # type: ignore[return-value]


def _pixels(path: Path) -> tuple[int, list[list[int]]]:
    width, _, rows, info = png.Reader(filename=str(path)).asRGBA8()
    return width, [list(r) for r in rows]


def _samples(line: tuple[float, float, float, float], image: list[list[int]]
             ) -> list[tuple[int, int, int]]:
    """Colours along the first third of the line: clear of the arrowhead and the count label."""
    x1, y1, x2, y2 = line
    out = []
    for i in range(8, 60):
        t = i / 200
        x, y = round(x1 + (x2 - x1) * t), round(y1 + (y2 - y1) * t)
        row = image[y]
        out.append((row[4 * x], row[4 * x + 1], row[4 * x + 2]))
    return out


def _inked(rgb: tuple[int, int, int]) -> bool:
    return sum(WHITE) - sum(rgb) > 150


@pytest.mark.timeout(120)
def test_graph_edges_in_headless_chromium(tmp_path: Path) -> None:
    chromium = need_binary("chromium")
    index = write_html(_report(), tmp_path / "report")
    page = (index.parent / page_name("a")).read_text()
    svg = page[page.index("<svg"): page.index("</svg>") + len("</svg>")]
    width, height = (int(v) for v in re.search(r'width="(\d+)" height="(\d+)"', svg).groups())
    graph = tmp_path / "graph.html"
    graph.write_text(f'<!DOCTYPE html><html><body style="margin:0;background:#fff">{svg}'
                     "</body></html>", encoding="utf-8")
    shot = tmp_path / "graph.png"
    subprocess.run(
        [chromium, "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
         "--force-device-scale-factor=1", f"--user-data-dir={tmp_path / 'profile'}",
         f"--window-size={width},{height}", f"--screenshot={shot}", graph.as_uri()],
        capture_output=True, timeout=60, check=True,
    )
    _, image = _pixels(shot)
    edges = _edges(svg)
    assert {"restricted", "never", "covered"} <= set(edges)

    red = _samples(edges["restricted"], image)
    assert all(r - g > 80 and r - b > 80 for r, g, b in red if _inked((r, g, b)))
    assert sum(_inked(p) for p in red) > 0.9 * len(red)

    solid = _samples(edges["covered"], image)
    assert all(_inked(p) for p in solid)  # no gap anywhere

    dashed = _samples(edges["never"], image)
    gaps = sum(not _inked(p) for p in dashed)
    assert 0.2 * len(dashed) < gaps < 0.7 * len(dashed)  # 5 px dash, 4 px gap
