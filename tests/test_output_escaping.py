"""Hostile names in the outputs CI reads (issue 14, item 14): JUnit stays well-formed XML, the
text report and gate table never let a name start a line (where `::error::` or `##vso[` would be
a CI command) nor carry a control character, and Markdown turns no name into a mention, an issue
reference or a link. Names go through the real engine, as spans would bring them.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from typing import Any

from _builders import agent_run, ingest

from otel_agentcov import gate
from otel_agentcov.engine import CoverageEngine
from otel_agentcov.pytest_reports import terminal_table
from otel_agentcov.reporting import render
from otel_agentcov.spec import CoverageSpec
from otel_agentcov.textsafe import line_safe, plain

AGENTS = ["evil\n::error file=x::pwned", "##vso[task.setvariable]x", "@alice see #12",
          "bidi\u202eevil", "nul\x00bell\x07esc\x1b[31m"]
TOOLS = ["t\r\n::warning::w", "https://example.com/x", "www.example.com", "vt\x0bff\x0c",
         "\x85next\u2028line"]
CONTROL = re.compile("[\x00-\x09\x0b-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069]")


def _report() -> tuple[dict[str, Any], CoverageSpec]:
    spec = CoverageSpec.from_dict({"version": 1,
                                   "defaults": {"tool_edges": {"restricted": TOOLS[:2]}}})
    engine = CoverageEngine(spec)
    for n, agent in enumerate(AGENTS):
        trace = 100 + n
        ingest(engine, agent_run(trace, agent, TOOLS))
    report = engine.snapshot().to_dict()
    assert set(report["agents"]) == set(AGENTS)  # the names really are hostile in the report
    return report, spec


def _no_command_lines(text: str) -> None:
    for line in text.split("\n"):
        assert not line.lstrip().startswith(("::", "##")), line
    assert not CONTROL.search(text), repr(CONTROL.search(text))


def test_junit_is_well_formed_and_keeps_the_names_readable() -> None:
    report, spec = _report()
    xml = gate.junit_xml(gate.evaluate(report, spec))
    root = ET.fromstring(xml.encode("utf-8"))  # expat refuses control characters
    classnames = {case.get("classname") for case in root.iter("testcase")}
    assert classnames == {f"agentcov.{plain(a)}" for a in AGENTS}
    assert "agentcov.nul\\x00bell\\x07esc\\x1b[31m" in classnames
    assert not CONTROL.search(xml)


def test_text_report_and_gate_table_never_start_a_line_with_a_name() -> None:
    report, spec = _report()
    text = render(report, "text")
    table = gate.render_table(gate.evaluate(report, spec))
    terminal = terminal_table(report, missing=True)  # the pytest plugin's summary
    for output in (text, table, terminal):
        _no_command_lines(output)
    assert "\\##vso[task.setvariable]x" in terminal
    assert "evil\\n::error file=x::pwned" in table  # escaped, on the agent's own row
    assert "\\##vso[task.setvariable]x" in table  # a row that would begin with ##vso[
    assert len(table.splitlines()) == 1 + len(AGENTS) + 1  # header, one row each, summary


def test_markdown_makes_no_mention_reference_or_link() -> None:
    report, _ = _report()
    markdown = render(report, "markdown")
    assert not re.search(r"@\w", markdown)
    assert not re.search(r"#\d", markdown)
    assert "://" not in markdown and "www." not in markdown
    assert not CONTROL.search(markdown)
    # the summary table has exactly one row per agent: no name broke a row
    rows = [line for line in markdown.splitlines() if line.startswith("| ")]
    summary = rows[1 : 1 + len(AGENTS)]
    assert len(summary) == len(AGENTS) and all(r.count(" | ") >= 10 for r in summary)


def test_line_safe_leaves_ordinary_lines_alone() -> None:
    assert line_safe("agent  target") == "agent  target"
    assert line_safe("  ::error::x") == "  \\::error::x"
    assert plain("caf\u00e9 \U0001f600 tab\there") == "caf\u00e9 \U0001f600 tab\\there"
