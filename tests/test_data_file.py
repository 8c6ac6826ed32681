"""The data file `.agentcov` and the pytest-cov habits (docs/ci.md): a pytest session writes its
merged state (serially and under xdist), every CLI verb reads it (positional, or by default),
`[tool.agentcov]` is read by the plugin and the CLI alike, old option spellings still work.

Real pytest sessions (pydantic-ai TestModel, offline) in subprocesses; before this, the plugin
wrote no data file, `agentcov coverage FILE` was refused and `compare` refused a JSON report.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest
from _support import run_agentcov
from test_pytest_contexts import SPEC, SUITE

from otel_agentcov.state import CoverageState

pytest_plugins = ["pytester"]

ROOT = Path(__file__).resolve().parents[1]
RUNS = 2  # SUITE's test_search and test_both run the agent once each


def _project(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch,
             pyproject: str = "") -> None:
    monkeypatch.setenv("PYTHONPATH", str(ROOT))
    pytester.makepyfile(test_agent=SUITE)
    (pytester.path / "agentcov.yaml").write_text(json.dumps(SPEC))
    if pyproject:
        pytester.makefile(".toml", pyproject=pyproject)


def agentcov(cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return run_agentcov(cwd, *args)


def test_pytest_writes_the_data_file_every_verb_reads(pytester: pytest.Pytester,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    _project(pytester, monkeypatch)
    result = pytester.runpytest_subprocess("--agentcov=agentcov.yaml", "-p", "no:xdist")
    assert result.ret == 0, result.stdout.str()
    data = pytester.path / ".agentcov"
    result.stdout.fnmatch_lines([f"agentcov: data file written to {data}"])
    state = CoverageState.load(str(data))
    assert state.agents["support"].outcomes.runs == RUNS
    here = pytester.path
    cmp = agentcov(here, "compare", ".agentcov", ".agentcov", "--format", "json")
    assert cmp.returncode == 3, cmp.stderr  # a version against itself: never a pass at 2 runs
    assert json.loads(cmp.stdout)["agents"]["support"]["verdict"] == "INCONCLUSIVE"
    positional = agentcov(here, "coverage", ".agentcov", "--format", "json")
    assert positional.returncode == 0, positional.stderr
    assert json.loads(positional.stdout)["agents"]["support"]["runs"]["count"] == RUNS
    bare = agentcov(here, "coverage", "--format", "json")  # like `coverage report`
    assert json.loads(bare.stdout) == json.loads(positional.stdout)
    assert agentcov(here, "gate").returncode == 0
    merged = agentcov(here, "merge", ".agentcov", ".agentcov", "-o", "double.agentcov")
    assert merged.returncode == 0
    doubled = CoverageState.load(str(here / "double.agentcov"))
    assert doubled.agents["support"].outcomes.runs == 2 * RUNS


def test_xdist_writes_the_merged_data_file(pytester: pytest.Pytester,
                                           monkeypatch: pytest.MonkeyPatch) -> None:
    _project(pytester, monkeypatch)
    serial = pytester.runpytest_subprocess("--agentcov=agentcov.yaml", "-p", "no:xdist",
                                           "--agentcov-data-file=serial.agentcov")
    parallel = pytester.runpytest_subprocess("--agentcov=agentcov.yaml", "-n", "2",
                                             "--agentcov-data-file=xdist.agentcov")
    assert serial.ret == parallel.ret == 0, parallel.stdout.str()
    states = [CoverageState.load(str(pytester.path / f))
              for f in ("serial.agentcov", "xdist.agentcov")]
    assert [s.agents["support"].outcomes.runs for s in states] == [RUNS, RUNS]
    serial_tools, xdist_tools = (s.agents["support"].inventory.tools for s in states)
    assert xdist_tools == serial_tools
    assert not (pytester.path / ".agentcov").exists()


def test_pyproject_keys_and_html_default(pytester: pytest.Pytester,
                                         monkeypatch: pytest.MonkeyPatch) -> None:
    _project(pytester, monkeypatch, '''
[tool.agentcov]
spec = "agentcov.yaml"
show_missing = true
report = ["term-missing", "html"]
fail_under = 99
data_file = "out/session.agentcov"
''')
    result = pytester.runpytest_subprocess("--agentcov", "-p", "no:xdist")
    assert result.ret == 1  # overall coverage is far below 99 %
    result.stdout.fnmatch_lines(["agentcov: html report written to agentcov-html/index.html",
                                 "*Required agent coverage not reached*99%*"])
    assert (pytester.path / "out/session.agentcov").is_file()
    cli = agentcov(pytester.path, "coverage", "out/session.agentcov")
    assert cli.returncode == 1 and "below fail-under 99%" in cli.stderr  # the CLI reads it too


def test_unknown_pyproject_keys_list_the_valid_ones(pytester: pytest.Pytester,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    _project(pytester, monkeypatch, '[tool.agentcov]\nfail_unde = 80\n')
    result = pytester.runpytest_subprocess("--agentcov")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*[[]tool.agentcov[]] has unknown key(s) fail_unde; valid keys: "
                                 "spec, report, fail_under, show_missing, data_file*"])
    cli = agentcov(pytester.path, "coverage", "x.json")
    assert cli.returncode == 2 and "valid keys: spec, report" in cli.stderr


def test_old_spellings_work_with_a_deprecation_note(tmp_path: Path) -> None:
    traces = tmp_path / "t.pb"
    demo = agentcov(tmp_path, "demo", "--runs", "5", "--traces-out", str(traces))
    assert demo.returncode == 0
    old = agentcov(tmp_path, "coverage", "--traces", str(traces), "--state-file", "old.st")
    new = agentcov(tmp_path, "coverage", str(traces), "--data-file", "new.st")
    assert old.returncode == new.returncode == 0
    assert "--state-file is deprecated" in old.stderr and "use --data-file" in old.stderr
    assert old.stdout == new.stdout
    assert (tmp_path / "old.st").read_bytes() == (tmp_path / "new.st").read_bytes()
    cmp = agentcov(tmp_path, "compare", "old.st", "new.st", "--allow-inconclusive")
    assert cmp.returncode == 0, cmp.stdout  # INCONCLUSIVE allowed, as `gate` spells it
