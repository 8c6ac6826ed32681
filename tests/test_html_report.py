"""HTML report: rendered from the demo workload's report, then opened in headless Chromium.

The browser part uses Debian's `chromium` (installed by `make test`): no console message on any
page (the pages carry no script, and their Content-Security-Policy turns any attempted fetch
into a console error), every agent shown, and a screenshot taken. With
AGENTCOV_UPDATE_SCREENSHOT=1 the screenshots are copied to docs/ for docs/html-report.md.
"""

from __future__ import annotations

import copy
import os
import re
import subprocess
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import pytest
from _support import need_binary
from markupsafe import escape
from opentelemetry.sdk.trace import TracerProvider

from otel_agentcov import AgentCoverageProcessor, CoverageSpec
from otel_agentcov.demo import DEMO_SPEC, run_workload
from otel_agentcov.reporting import write_html
from otel_agentcov.reporting.html import page_name

DOCS = Path(__file__).resolve().parent.parent / "docs"
HOSTILE = '<script>alert("agent")</script> & "quoted" \'single\''
HOSTILE_TOOL = '"><img src=x onerror=alert(1)>'
PNG = b"\x89PNG\r\n\x1a\n"


@pytest.fixture(scope="module")
def demo_report() -> dict[str, Any]:
    provider = TracerProvider()
    processor = AgentCoverageProcessor(CoverageSpec.from_dict(DEMO_SPEC, source="<demo>"))
    provider.add_span_processor(processor)
    run_workload(provider, seed=7, runs=60)
    processor.force_flush()
    report = processor.snapshot().to_dict()
    provider.shutdown()
    return report


@pytest.fixture(scope="module")
def hostile_report(demo_report: dict[str, Any]) -> dict[str, Any]:
    """The demo report plus an agent whose names try to break out of the markup."""
    report = copy.deepcopy(demo_report)
    agent = copy.deepcopy(report["agents"]["triage_agent"])
    agent["tools"]["called"][HOSTILE_TOOL] = {"ok": 1, "error": 0}
    agent["tools"]["undeclared"].append(HOSTILE_TOOL)
    agent["delegations"].append({"from": HOSTILE, "to": HOSTILE_TOOL, "count": 1})
    report["agents"][HOSTILE] = agent
    return report


class _Text(HTMLParser):
    """Visible text and the href/src attributes of a page."""

    def __init__(self) -> None:
        super().__init__()
        self.text: list[str] = []
        self.links: list[tuple[str, str]] = []
        self.ids: set[str] = set()

    def handle_data(self, data: str) -> None:
        self.text.append(data)

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.links += [(k, v or "") for k, v in attrs if k in ("href", "src")]
        self.ids.update(v for k, v in attrs if k == "id" and v)


def _parse(html: str) -> _Text:
    parser = _Text()
    parser.feed(html)
    return parser


def test_every_agent_has_a_page_linked_from_the_index(
    hostile_report: dict[str, Any], tmp_path: Path
) -> None:
    index = write_html(hostile_report, tmp_path / "out")
    assert index == tmp_path / "out" / "index.html"
    parsed = _parse(index.read_text())
    for name in hostile_report["agents"]:
        assert ("href", page_name(name)) in parsed.links
        page = _parse((index.parent / page_name(name)).read_text())
        assert name in "".join(page.text)
    # Nothing but the pages themselves is referenced: the report opens offline. In-page links
    # (a graph's tool node to its row) point at an element of the same page.
    pages = {"index.html", *(page_name(n) for n in hostile_report["agents"])}
    for path in index.parent.iterdir():
        page = _parse(path.read_text())
        for _, target in page.links:
            if target.startswith("#"):
                assert target[1:] in page.ids, (path.name, target)
            else:
                assert target in pages, (path.name, target)


def test_untrusted_names_are_escaped(hostile_report: dict[str, Any], tmp_path: Path) -> None:
    index = write_html(hostile_report, tmp_path)
    for path in [index, tmp_path / page_name(HOSTILE)]:
        html = path.read_text()
        assert "<script" not in html and "<img" not in html
        assert "&lt;script&gt;alert(&#34;agent&#34;)&lt;/script&gt; &amp; &#34;quoted&#34;" in html
    page = (tmp_path / page_name(HOSTILE)).read_text()
    assert "&#34;&gt;&lt;img src=x onerror=alert(1)&gt;" in page


def test_page_names_are_safe_and_distinct() -> None:
    names = ["../../etc/passwd", "a/b", "a_b", "", "é" * 100, HOSTILE]
    files = [page_name(n) for n in names]
    assert len(set(files)) == len(names)
    assert all(re.fullmatch(r"agent-[A-Za-z0-9_.-]+-[0-9a-f]{10}\.html", f) for f in files)
    assert not any(".." in f.removeprefix("agent-") for f in files)


def test_report_sections(demo_report: dict[str, Any], tmp_path: Path) -> None:
    write_html(demo_report, tmp_path)
    triage = "".join(_parse((tmp_path / page_name("triage_agent")).read_text()).text)
    for section in ("Tools: called vs declared", "Restricted attempts", "Boundary conditions",
                    "most common", "rarest", "Agent graph", "Next steps", "95% interval"):
        assert section in triage
    assert "research_agent" in triage and "billing_agent" in triage  # delegation graph nodes
    rarest = demo_report["agents"]["triage_agent"]["paths"]["rarest"]
    assert rarest and rarest[0]["count"] <= rarest[-1]["count"]
    index = "".join(_parse((tmp_path / "index.html").read_text()).text)
    assert "STRONG" in index and "MODERATE" in index


def test_empty_report_says_so(tmp_path: Path) -> None:
    index = write_html({"version": 1, "agents": {}, "spans": {"processed": 0}}, tmp_path)
    assert "no agent runs recorded" in index.read_text()


def _chromium(page: Path, tmp_path: Path, *args: str) -> tuple[str, list[str]]:
    """Open `page` in headless Chromium; returns stdout and every console message logged."""
    result = subprocess.run(
        [need_binary("chromium"), "--headless", "--no-sandbox", "--disable-gpu",
         "--hide-scrollbars", f"--user-data-dir={tmp_path / 'profile'}",
         "--enable-logging=stderr", "--v=0", *args, page.as_uri()],
        capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    console = [line for line in result.stderr.splitlines() if ":CONSOLE" in line]
    return result.stdout, console


@pytest.mark.slow
@pytest.mark.timeout(180)
def test_report_in_headless_chromium(
    demo_report: dict[str, Any], hostile_report: dict[str, Any], tmp_path: Path
) -> None:
    need_binary("chromium")
    # The check has teeth: a page that logs an error or fetches something is caught.
    control = tmp_path / "control.html"
    control.write_text("<!DOCTYPE html><script>console.error('control')</script>")
    assert _chromium(control, tmp_path, "--dump-dom")[1]

    index = write_html(hostile_report, tmp_path / "report")
    shot = tmp_path / "index.png"
    _, console = _chromium(index, tmp_path, f"--screenshot={shot}", "--window-size=1200,520")
    assert console == []
    assert shot.read_bytes().startswith(PNG) and shot.stat().st_size > 10_000

    dom, console = _chromium(index, tmp_path, "--dump-dom")
    assert console == []
    shown = "".join(_parse(dom).text)
    for name in hostile_report["agents"]:
        assert name in shown, name
    for name in hostile_report["agents"]:
        dom, console = _chromium(index.parent / page_name(name), tmp_path, "--dump-dom")
        assert console == [], name
        assert name in "".join(_parse(dom).text)

    if os.environ.get("AGENTCOV_UPDATE_SCREENSHOT") == "1":
        clean = write_html(demo_report, tmp_path / "docs")
        DOCS.mkdir(exist_ok=True)
        _chromium(clean, tmp_path, f"--screenshot={DOCS / 'html-report.png'}",
                  "--window-size=1200,480")
        agent_page = clean.parent / page_name("triage_agent")
        _chromium(agent_page, tmp_path, f"--screenshot={DOCS / 'html-report-agent.png'}",
                  "--window-size=1200,2500")


def test_screenshot_is_committed() -> None:
    assert (DOCS / "html-report.png").read_bytes().startswith(PNG)


def test_next_steps_show_code_not_backticks_and_expectations_say_why(tmp_path: Path) -> None:
    """Recommendations are written with `backticks` for terminals; the HTML page showed them
    literally. A failed expectation now carries its reason (what failed) on the page too."""
    from otel_agentcov.reporting.html import report_meta

    processor = AgentCoverageProcessor(CoverageSpec.from_dict(DEMO_SPEC))
    provider = TracerProvider()
    provider.add_span_processor(processor)
    run_workload(provider, seed=7, runs=20)
    provider.shutdown()
    report = processor.snapshot().to_dict()
    index = write_html(report, tmp_path / "html", report_meta(["demo"], None))
    pages = [p.read_text() for p in index.parent.glob("*.html") if p != index]
    steps = [m.group(1) for p in pages for m in re.finditer(r'<ol class="steps">(.*?)</ol>', p,
                                                            re.S)]
    assert any("<code>" in s for s in steps) and not any("`" in s for s in steps)
    failed = [e for a in report["agents"].values() for e in a["expect"] if not e["passed"]]
    assert failed and all(str(escape(e["reason"])) in "".join(pages) for e in failed)


def test_agent_pages_show_versions(tmp_path: Path) -> None:
    """The text and Markdown reports had a Versions line; the HTML pages had nothing of it."""
    processor = AgentCoverageProcessor(CoverageSpec.from_dict(DEMO_SPEC))
    provider = TracerProvider()
    provider.add_span_processor(processor)
    run_workload(provider, seed=7, runs=20)  # the second half runs as the canary version
    provider.shutdown()
    report = processor.snapshot().to_dict()
    index = write_html(report, tmp_path / "html")
    for name, agent in report["agents"].items():
        page = (index.parent / page_name(name)).read_text()
        assert agent["versions"] and "<h2>Versions</h2>" in page
        for v in agent["versions"]:
            assert f'<td class="name">{v["version"]}</td><td class="num">{v["runs"]}</td>' in page


def _index_row(html: str, agent: str) -> str:
    """The default table's row of `agent` on the index page (the default table comes last)."""
    start = html.rindex(f'<a href="{page_name(agent)}">')
    return html[start: html.index("</tr>", start)]


def test_index_shows_contracts_and_narrative(demo_report: dict[str, Any], tmp_path: Path) -> None:
    """The index showed coverage, restricted attempts and the gate, nothing of contracts or of the
    narrative check: an agent with violated contracts or claimed-but-not-called actions looked
    like any other until its page was opened."""
    report = copy.deepcopy(demo_report)
    billing = report["agents"]["billing_agent"]
    billing["narrative"] = {
        "declared": True, "runs": {"consistent": 5, "divergent": 3, "unverifiable": 1},
        "divergences": [
            {"tool": "issue_refund", "kind": "claimed_not_called", "count": 2},
            {"tool": "lookup_invoice", "kind": "called_not_claimed", "count": 1},
            {"tool": "lookup_invoice", "kind": "claimed_not_called", "count": 1},
        ],
    }
    report["agents"]["research_agent"]["narrative"]["declared"] = True
    html = write_html(report, tmp_path).read_text()
    triage = report["agents"]["triage_agent"]
    violated = sum(r["violated"] for r in triage["contracts"])
    assert violated > 0  # the demo's must_call is violated
    exercised = round(100 * triage["coverage"]["contracts"])
    row = _parse(_index_row(html, "triage_agent")).text
    assert f"{violated} violations · {exercised}% exercised" in "".join(row)
    assert "not checked" in "".join(row)  # triage declares no narrative check
    row = "".join(_parse(_index_row(html, "billing_agent")).text)
    assert "none declared" in row  # billing declares no contracts
    assert "called_not_claimed ×1, claimed_not_called ×3" in row
    row = "".join(_parse(_index_row(html, "research_agent")).text)
    assert "no divergence in 0 checked runs" in row  # declared, nothing checked: not "consistent"


def test_expectations_show_each_matcher_from_the_spec(demo_report: dict[str, Any],
                                                      tmp_path: Path) -> None:
    """The Expectations tables gave target, value and result, not what the value was held to.
    The report rows carry no matcher (the golden reports keep their shape), so it comes from the
    spec the report was made with; without one, or with a spec whose expect list does not line
    up with the report's, no matcher is shown rather than a wrong one."""
    from otel_agentcov.reporting import render

    spec = CoverageSpec.from_dict(DEMO_SPEC)
    # DEMO_SPEC's triage_agent: restricted_attempts maximum 0, allowed_pct minimum 80, and the
    # default contract check (maximum 0) its must_call adds.
    rows = [("edges.restricted_attempts", "<= 0"), ("edges.allowed_pct", ">= 80"),
            ("contracts.violations_at_or_above_fail_on", "<= 0")]
    page = (write_html(demo_report, tmp_path / "spec", None, spec).parent
            / page_name("triage_agent")).read_text()
    for target, matcher in rows:
        assert f"<tr><td>{target}</td><td>{escape(matcher)}</td>" in page
    markdown = render(demo_report, "markdown", spec)
    for target, matcher in rows:
        assert f"| {target} | \\{matcher} |" in markdown
    for other in (None, CoverageSpec.empty()):
        page = (write_html(demo_report, tmp_path / "other", None, other).parent
                / page_name("triage_agent")).read_text()
        assert "<th>matcher</th>" not in page and "&lt;= 0" not in page
        assert "| target | value | result |" in render(demo_report, "markdown", other)
