"""`agentcov docs [TOPIC]`: messages and --help cite pages an installed user has (issue 36 item
11: they cited docs/*.md, which no installed package contains). The pages ship in the package as
otel_agentcov/docs/*.md; that the built wheel holds them is checked on a real build in
test_packaging.py::test_make_dist_builds_the_abi3_wheel_and_the_sdist.
"""

from __future__ import annotations

import ast
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from otel_agentcov import manual
from otel_agentcov.cli import main as cli

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "otel_agentcov"
CITED = re.compile(r"agentcov docs ([a-z][a-z_-]*)")


def _strings() -> list[tuple[str, int, str]]:
    """(file, line, text) of every string constant in the package but docstrings: what reaches
    a user (messages, --help, metric HELP, YAML comments written for them)."""
    out = []
    for path in sorted(PACKAGE.rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        docstrings = {
            id(node.body[0].value) for node in ast.walk(tree)
            if isinstance(node, ast.Module | ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef)
            and node.body and isinstance(node.body[0], ast.Expr)
            and isinstance(node.body[0].value, ast.Constant)}
        out += [(path.name, node.lineno, node.value) for node in ast.walk(tree)
                if isinstance(node, ast.Constant) and isinstance(node.value, str)
                and id(node) not in docstrings]
    return out


def test_no_message_cites_a_repository_path_an_installed_user_lacks() -> None:
    cited = [(f, line) for f, line, text in _strings() if re.search(r"docs/[\w-]+\.md", text)]
    assert cited == []


def test_every_page_a_message_cites_is_a_topic() -> None:
    topics = {name for name, _ in manual.topics()}
    cited = {m for _, _, text in _strings() for m in CITED.findall(text)}
    # the pages the messages cite today, written out: a citation dropped or renamed shows here
    assert cited == {"agentassay", "conventions", "evaluations", "faults", "gate", "guarantees",
                     "narrative", "quickstarts"}
    assert cited <= topics


def test_docs_lists_the_pages_with_their_titles(capsys: pytest.CaptureFixture[str]) -> None:
    assert cli(["docs"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert "gate              The gate: what fails CI" in out
    assert "state-format      State, journal and report formats" in out
    assert out[-2:] == ["", "read one with: agentcov docs TOPIC"]
    assert len(out) - 2 == len(list((ROOT / "docs").glob("*.md")))


def test_docs_topic_prints_the_page(capsys: pytest.CaptureFixture[str]) -> None:
    assert cli(["docs", "gate"]) == 0
    assert capsys.readouterr().out == (ROOT / "docs" / "gate.md").read_text(encoding="utf-8")


def test_an_unknown_topic_is_one_line_and_exit_2() -> None:
    """Through the installed console script, as a user types it."""
    script = Path(sys.executable).with_name("agentcov")
    proc = subprocess.run([str(script), "docs", "gates"], capture_output=True, text=True,
                          timeout=60, check=False, env={**os.environ, "NO_COLOR": "1"})
    assert proc.returncode == 2
    assert proc.stdout == ""
    assert proc.stderr.startswith("agentcov: no documentation topic 'gates'; topics: "
                                  "agentassay, architecture, ci, cli, ")
    assert proc.stderr.count("\n") == 1 and " gate, " in proc.stderr


def test_the_package_links_every_page_and_nothing_else() -> None:
    """otel_agentcov/docs/ holds one link per docs/*.md (`make docs` keeps them): a page added
    without its link would be missing from the wheel."""
    links = {p.name: os.readlink(p) for p in (PACKAGE / "docs").iterdir()}
    assert links == {p.name: f"../../docs/{p.name}" for p in (ROOT / "docs").glob("*.md")}
