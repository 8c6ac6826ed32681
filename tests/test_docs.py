"""The user docs stand on their own: the README is a front page linking every docs/ page, no
page points at a file outside the repository, and docs/semantics.md defines every term a report
prints."""

from __future__ import annotations

import argparse
import importlib.util
import re
import subprocess
from pathlib import Path
from types import ModuleType

from _builders import agent_run, ingest

from otel_agentcov.cli import build_parser
from otel_agentcov.demo import main as demo
from otel_agentcov.engine import CoverageEngine, EngineCounters
from otel_agentcov.reporting import render
from otel_agentcov.service.journal import MAGIC
from otel_agentcov.snapshot import REPORT_VERSION
from otel_agentcov.snapshot.sections import REPORT_KEYS
from otel_agentcov.spec import EXPECT_TARGETS, SPEC_SCHEMA, CoverageSpec
from otel_agentcov.state import STATE_FORMAT, STATE_VERSION, AgentState, CoverageState
from otel_agentcov.state.coverage_state import READABLE_VERSIONS

ROOT = Path(__file__).resolve().parents[1]
README = (ROOT / "README.md").read_text(encoding="utf-8")
SEMANTICS = ROOT / "docs" / "semantics.md"


def _repo_files() -> list[str]:
    listed = subprocess.run(["git", "ls-files", "--cached", "--others", "--exclude-standard"],
                            cwd=ROOT, capture_output=True, text=True, check=True)
    return listed.stdout.splitlines()


def _links(text: str) -> list[str]:
    return [t for t in re.findall(r"\]\(([^)\s]+)\)", text)
            if not t.startswith(("http://", "https://", "#"))]


def test_readme_points_only_at_files_in_the_repository() -> None:
    files = set(_repo_files())
    links = _links(README)
    assert "docs/semantics.md" in links
    for target in links:
        assert target.split("#")[0] in files, target
    names = {Path(f).name for f in files}
    for doc in set(re.findall(r"\b[A-Z][A-Z_]+\.md\b", README)):  # RUNBOOK.md, ...
        assert doc in names, f"README names {doc}, which is not in the repository"


def test_docs_pages_point_only_at_files_in_the_repository() -> None:
    files = set(_repo_files())
    names = {Path(f).name for f in files}
    for page in sorted((ROOT / "docs").glob("*.md")):
        text = page.read_text(encoding="utf-8")
        for target in _links(text):
            resolved = (page.parent / target.split("#")[0]).resolve().relative_to(ROOT)
            assert str(resolved) in files, f"{page.name} links {target}"
        for doc in set(re.findall(r"\b[A-Z][A-Z_]+\.md\b", text)):
            assert doc in names, f"{page.name} names {doc}, which is not in the repository"


def test_readme_is_a_front_page_linking_every_docs_page() -> None:
    lines = README.splitlines()
    assert len(lines) <= 300, f"README.md has {len(lines)} lines: move sections into docs/"
    assert lines[2].startswith("<!-- docs-test: skip")  # tests/test_docs_examples.py's marker
    assert lines[3] == "```sh" and lines[4].startswith("make demo")  # it opens with the two
    assert lines[6].startswith("make test")                            # commands
    linked = {t.split("#")[0] for t in _links(README)}
    pages = {f"docs/{p.name}" for p in (ROOT / "docs").glob("*.md")}
    assert pages - linked == set(), "README's documentation index misses these pages"


def test_readme_gate_example_is_a_valid_spec(tmp_path: Path) -> None:
    block = README.split("## The CI gate", 1)[1].split("```yaml\n", 1)[1].split("```")[0]
    path = tmp_path / "agentcov.yaml"
    path.write_text(block, encoding="utf-8")
    spec = CoverageSpec.from_yaml(path)
    agent = spec.for_agent("triage_agent")
    assert agent.restricted == ("delete_repo", "force_push")
    # restricted tools declared: the restricted-tool check joins the two targets the list names
    assert [e.target for e in agent.expect] == [
        "edges.allowed_pct", "runs.pass_rate", "edges.restricted_attempts"]


# Every label and phrase the text report prints, with the words docs/semantics.md defines it by.
TERMS = {
    "Tool coverage": "tool", "Path coverage": "path", "State coverage": "state",
    "Boundary coverage": "boundary", "Model coverage": "model", "Overall": "overall",
    "paths seen of ~": "Chao1", "estimated": "Chao1 estimate", "STRONG": "STRONG",
    "MODERATE": "MODERATE", "Weakest dimension": "Weakest dimension",
    "Tool edges": "Tool edges", "allowed": "allowed", "delegation": "delegation",
    "restricted attempts": "restricted attempts", "would fail the gate": "would fail the gate",
    "Concerns": "Concerns", "pass rate": "pass rate", "point estimate": "point estimate",
    "95% interval": "Wilson 95 % interval", "behaviour consistency": "behaviour consistency",
    "run score std": "run score std", "fewer runs than min_runs": "Insufficient data",
    "processed": "processed", "dropped": "dropped", "Next steps": "Next steps",
    "never hit": "boundary conditions never hit", "looks destructive": "look destructive",
    "more runs": "more runs", "path sample coverage": "path sample coverage",
    "pass-rate interval": "pass-rate interval",
}


def test_semantics_defines_every_term_a_report_prints() -> None:
    import io

    out = io.StringIO()
    demo(runs=30, out=out)  # the demo's report shows every row, concern and footer
    # ... and a run calling an undeclared destructive tool, which the demo's spec never leaves
    engine = CoverageEngine(CoverageSpec.empty())
    ingest(engine, agent_run(1, "a", ["delete_user"]))
    report = out.getvalue() + render(engine.snapshot().to_dict(), "text")
    docs = " ".join(SEMANTICS.read_text(encoding="utf-8").split())  # line breaks are spaces
    for printed, defined in TERMS.items():
        assert printed in report, f"{printed!r} is no longer printed: update TERMS"
        assert defined.lower() in docs.lower(), f"docs/semantics.md does not define {defined!r}"
    assert "issue" not in docs.lower().replace("issue_", "")  # user docs, not project notes


def _generator() -> ModuleType:
    path = ROOT / "docs" / "generate_pages.py"
    spec = importlib.util.spec_from_file_location("generate_pages", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_generated_pages_are_current() -> None:
    for path, text in _generator().pages().items():
        assert path.read_text(encoding="utf-8") == text, (
            f"{path.relative_to(ROOT)} is stale: run `make docs` and commit the result")


def test_cli_page_lists_every_option_of_every_command() -> None:
    """Independent of the generator: walk argparse's help output for the option names."""
    page = (ROOT / "docs" / "cli.md").read_text(encoding="utf-8")
    sub = next(a for a in build_parser()._actions if isinstance(a, argparse._SubParsersAction))
    for name, command in sub.choices.items():
        section = page.split(f"### `agentcov {name}`", 1)[1].split("\n### ", 1)[0]
        heads = [re.split(r"\s{2,}", line.strip())[0]
                 for line in command.format_help().splitlines() if line.startswith("  -")]
        flags = {f for head in heads for f in re.findall(r"(?:^|, )(--?[a-z][\w-]*)", head)}
        assert {"-h", "--help"} <= flags, name  # the walk reads the option lines
        for flag in flags - {"-h", "--help"}:
            assert f"`{flag}`" in section, f"docs/cli.md: agentcov {name} {flag} missing"


def test_state_format_page_names_every_key_and_version() -> None:
    page = (ROOT / "docs" / "state-format.md").read_text(encoding="utf-8")
    for key in AgentState().to_dict():
        assert f"`{key}`" in page, f"docs/state-format.md does not describe the state key {key!r}"
    for key in CoverageState().to_dict():
        assert f'"{key}"' in page
    for key in EngineCounters().to_dict():  # what `serve` keeps beside the state
        assert f"`{key}`" in page, f"docs/state-format.md does not describe serve's {key!r}"
    assert f'"format": "{STATE_FORMAT}", "version": {STATE_VERSION}' in page
    assert all(f"**{v}**" in page for v in READABLE_VERSIONS)
    assert MAGIC.decode().strip() in page and f'`"version": {REPORT_VERSION}`' in page


def test_spec_page_lists_every_key_and_target() -> None:
    page = (ROOT / "docs" / "spec.md").read_text(encoding="utf-8")
    top = SPEC_SCHEMA["properties"]
    assert all(f"| `{key}`" in page for key in top)
    for key in top["agents"]["items"]["properties"]:
        assert f"| `agents[].{key}`" in page, f"docs/spec.md does not list agents[].{key}"
    assert all(f"`{target}`" in page for target in EXPECT_TARGETS)


def test_architecture_page_places_every_top_level_module() -> None:
    """A module the page does not mention has no documented place in the layers."""
    page = (ROOT / "docs" / "architecture.md").read_text(encoding="utf-8")
    package = ROOT / "otel_agentcov"
    names = {p.stem for p in package.glob("*.py") if p.stem != "__init__"}
    names |= {p.name for p in package.iterdir() if (p / "__init__.py").exists()}
    missing = sorted(n for n in names if f"`{n}`" not in page and f"{n}.py" not in page
                     and f"{n}/" not in page)
    assert missing == [], f"docs/architecture.md does not place {missing}"


def test_report_page_describes_every_section() -> None:
    page = (ROOT / "docs" / "report.md").read_text(encoding="utf-8")
    for key in REPORT_KEYS:
        assert f"`{key}`" in page, f"docs/report.md does not describe the report section {key!r}"
    assert f'{{"version": {REPORT_VERSION},' in page


def test_the_readme_sample_report_is_what_the_named_demo_command_prints() -> None:
    """The front page's sample says which command printed it; each of its lines is a line of
    that command's report (trimmed, never edited), so it cannot drift from the code."""
    import io

    found = re.search(r"A report, per agent \(from `agentcov demo --runs (\d+)`, trimmed\):\n\n"
                      r"```\n(.*?)```", README, re.S)
    assert found, "the README's sample report must name the demo command that prints it"
    out = io.StringIO()
    demo(runs=int(found.group(1)), out=out)
    printed = set(out.getvalue().splitlines())
    sample = found.group(2).splitlines()
    assert sample and [line for line in sample if line not in printed] == []
