"""Static HTML report: an index of agents and one page per agent, viewable offline.

Like coverage.py's HTML report: plain files, inline CSS, no scripts, no network at view time (a
Content-Security-Policy forbids any fetch). Agent and tool names come from traces and are
untrusted, so rendering goes through Jinja2 with autoescaping on for every template.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, NamedTuple

from jinja2 import Environment, PackageLoader, StrictUndefined

from otel_agentcov.reporting import _format as fmt

__all__ = ["write_html"]

_UNSAFE = re.compile(r"[^A-Za-z0-9_.-]+")
# Delegation graph geometry (px): row pitch, top/bottom margin, width, node half-width.
_NODE_GAP, _MARGIN, _GRAPH_WIDTH, _HALF = 48, 24, 760, 85
_LABEL_MAX = 22  # characters that fit a node at 12px


def _environment() -> Environment:
    env = Environment(
        loader=PackageLoader("otel_agentcov.reporting", "templates"),
        autoescape=True,  # every template, whatever its name: names in traces are untrusted
        undefined=StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
    )
    env.globals.update(
        percent=fmt.percent,
        percent_of_100=fmt.percent_of_100,
        number=fmt.number,
        plural=fmt.plural,
        status=fmt.status,
        width=_width,
        status_class=_status_class,
    )
    return env


def _width(ratio: float | None) -> float:
    """CSS width in percent for a 0..1 ratio, rounded like the text bars (no full bar unless 1)."""
    return 0.0 if ratio is None else fmt.scaled(ratio, 1000) / 10


def _status_class(overall: float | None) -> str:
    return fmt.status(overall).lower().replace("/", "")


def page_name(agent: str) -> str:
    """A file name for an agent's page that is safe whatever the name, and unique per name."""
    digest = hashlib.sha256(agent.encode("utf-8", "surrogatepass")).hexdigest()[:10]
    slug = _UNSAFE.sub("_", agent)[:40].strip("._") or "agent"
    return f"agent-{slug}-{digest}.html"


class Node(NamedTuple):
    x: float
    y: float
    label: str  # shortened for display; `name` is the full one
    name: str
    own: bool


class Edge(NamedTuple):
    x1: float
    y1: float
    x2: float
    y2: float
    calls: int
    declared: bool


class Graph(NamedTuple):
    width: int
    height: int
    half: int  # node half-width
    nodes: list[Node]
    edges: list[Edge]


def _short(name: str) -> str:
    return name if len(name) <= _LABEL_MAX else name[: _LABEL_MAX - 1] + "…"


def delegation_graph(name: str, report: Mapping[str, Any]) -> Graph | None:
    """Callers on the left, the agent in the middle, callees on the right: every delegation edge
    touching `name`, observed (with its count) or only declared (dashed, count 0)."""
    observed: dict[tuple[str, str], int] = {}
    declared: set[tuple[str, str]] = set()
    for agent in report["agents"].values():
        for d in agent["delegations"]:
            key = (d["from"], d["to"])
            observed[key] = observed.get(key, 0) + d["count"]
        declared.update((d["from"], d["to"]) for d in agent["edges"].get("delegation_declared", ()))
    edges = sorted(e for e in observed.keys() | declared if name in e)
    if not edges:
        return None
    callers = sorted({a for a, b in edges if b == name})
    callees = sorted({b for a, b in edges if a == name})
    rows = max(len(callers), len(callees), 1)
    height = rows * _NODE_GAP + 2 * _MARGIN
    middle = height / 2

    def column(names: Sequence[str], x: float) -> dict[str, tuple[float, float]]:
        top = middle - (len(names) - 1) * _NODE_GAP / 2
        return {n: (x, top + i * _NODE_GAP) for i, n in enumerate(names)}

    left = column(callers, _HALF + 10)
    right = column(callees, _GRAPH_WIDTH - _HALF - 10)
    own = (_GRAPH_WIDTH / 2, middle)
    nodes = [Node(*own, _short(name), name, True)]
    nodes += [Node(x, y, _short(n), n, False) for n, (x, y) in [*left.items(), *right.items()]]
    lines = []
    for a, b in edges:
        (x1, y1), (x2, y2) = (left[a], own) if b == name else (own, right[b])
        count = observed.get((a, b), 0)
        lines.append(Edge(x1 + _HALF, y1, x2 - _HALF, y2, count, (a, b) in declared))
    return Graph(_GRAPH_WIDTH, int(height), _HALF, nodes, lines)


def _agent_view(name: str, agent: Mapping[str, Any], report: Mapping[str, Any]) -> dict[str, Any]:
    """What a page shows about one agent, phrased by the shared formatting helpers."""
    coverage = agent["coverage"]
    overall = coverage["overall"]
    return {
        "name": name,
        "page": page_name(name),
        "agent": agent,
        "dimensions": [
            (d, coverage[d], fmt.dimension_detail(agent, d)) for d in fmt.DIMENSIONS
        ],
        "overall": overall,
        "overall_detail": fmt.status(overall)
        if overall is not None
        else fmt.excluded_reason(agent, "overall"),
        "weakest": fmt.weakest_summary(coverage),
        "edges_summary": fmt.edges_summary(agent["edges"]),
        "tools": fmt.tool_rows(agent),
        "concerns": [fmt.concern_text(c) for c in agent["concerns"]],
        "narrative": fmt.narrative_summary(agent.get("narrative")),
        "graph": delegation_graph(name, report),
        "insufficient": fmt.INSUFFICIENT_NOTE if coverage["insufficient_data"] else None,
    }


def write_html(report: Mapping[str, Any], out_dir: Path) -> Path:
    """Write the report dict (DESIGN §6) as `index.html` plus one page per agent into `out_dir`
    (created if missing); returns the index path."""
    env = _environment()
    out_dir.mkdir(parents=True, exist_ok=True)
    views = [_agent_view(name, agent, report) for name, agent in report["agents"].items()]
    spans = fmt.spans_summary(report["spans"])
    for view in views:
        html = env.get_template("agent.html").render(view=view, spans=spans)
        (out_dir / view["page"]).write_text(html, encoding="utf-8")
    index = out_dir / "index.html"
    html = env.get_template("index.html").render(
        views=views, spans=spans, dimensions=fmt.DIMENSIONS, no_runs=fmt.NO_RUNS
    )
    index.write_text(html, encoding="utf-8")
    return index
