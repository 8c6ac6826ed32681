"""The data file `.agentcov` can be trusted by the gate that reads it (issues 36 and 37):

- it records the spec its runs were judged under, so `agentcov coverage .agentcov` without
  `--spec` reports what the session reported, and another spec is refused;
- a pytest-xdist worker that sent nothing, or a session that died before its final write,
  leaves a file marked incomplete, and `agentcov gate` fails on it;
- a state file past the 80 MiB input cap is refused in one line, unread.

Real pytest sessions (pydantic-ai TestModel, offline) and the real CLI, in subprocesses. Before:
the data-file report counted the restricted tool as covered (tool 67 % where the session said
50 %), a crashed worker's file passed `agentcov gate`, a killed session left the last
session's passing file, and a state of any size was parsed whole.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from _support import run_agentcov
from test_pytest_plugin import XDIST_SPEC, _plugin_args, _project

from otel_agentcov.state import MAX_STATE_BYTES, CoverageState

pytestmark = pytest.mark.slow

pytest_plugins = ["pytester"]

ROOT = Path(__file__).resolve().parents[1]


def agentcov(cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return run_agentcov(cwd, *args)


SEARCH_AND_DELETE = {
    "test_flow": "from agents import run\n\ndef test_flow():\n    run(['search'], 1)\n"
                 "    run(['search', 'delete_repo'], 1)\n",
}


def test_the_data_file_is_read_with_the_spec_it_was_made_with(
        pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> None:
    """The spec declares search and lookup and restricts delete_repo; the session calls search
    and delete_repo. Tool coverage: search of {search, lookup} = 50 %. Read without the spec,
    the file's tools were discovered: search and delete_repo of the three defined = 67 %."""
    _project(pytester, monkeypatch, SEARCH_AND_DELETE, XDIST_SPEC)
    session = pytester.runpytest_subprocess(*_plugin_args(), "--agentcov=agentcov.yaml",
                                            "--agentcov-report=json:session.json",
                                            "-p", "no:xdist")
    assert session.ret == 1  # the restricted call fails the gate
    here = pytester.path
    reported = json.loads((here / "session.json").read_text())["agents"]
    assert reported["support"]["coverage"]["tool"] == 0.5
    assert reported["support"]["edges"]["restricted_attempts"] == 1
    bare = agentcov(here, "coverage", ".agentcov", "--contexts", "--format", "json")
    assert bare.returncode == 0, bare.stderr
    assert json.loads(bare.stdout)["agents"] == reported
    assert agentcov(here, "gate", ".agentcov").returncode == 1
    same = agentcov(here, "coverage", ".agentcov", "--spec", "agentcov.yaml", "--format", "json")
    assert same.returncode == 0, same.stderr
    (here / "other.yaml").write_text(json.dumps({"version": 1}))
    other = agentcov(here, "gate", ".agentcov", "--spec", "other.yaml")
    assert other.returncode == 2
    assert other.stderr == (
        "agentcov: .agentcov: made with spec agentcov.yaml (as recorded in .agentcov), not "
        "other.yaml: its runs were judged under that spec (restricted tools, contracts, "
        "boundaries), so no other can read it; drop --spec to read it with its own, or re-run "
        "the session\n")
    # compare judges each side under the spec it was made with, and says so
    cmp = agentcov(here, "compare", ".agentcov", ".agentcov", "--spec", "other.yaml",
                   "--format", "json")
    assert cmp.returncode == 3, cmp.stderr  # 2 runs a side: undecided
    assert ".agentcov: read with the spec it was made with, agentcov.yaml" in cmp.stderr
    assert agentcov(here, "merge", ".agentcov", ".agentcov", "-o", "two.agentcov").returncode == 0
    assert CoverageState.load(here / "two.agentcov").recorded_spec == \
        CoverageState.load(here / ".agentcov").recorded_spec
    session_spec = CoverageState.load(here / ".agentcov").recorded_spec
    assert session_spec is not None and session_spec["document"] == XDIST_SPEC


def test_a_crashed_worker_leaves_an_incomplete_file_the_gate_fails_on(
        pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> None:
    """Issue 37: the worker running test_b calls the restricted delete_repo, then dies; the
    session failed, but `.agentcov` lacked its runs, bore no mark, and `agentcov gate` passed."""
    _project(pytester, monkeypatch, {
        "test_a": "from agents import run\n\ndef test_a():\n    run(['search'], 1)\n",
        "test_b": "import os\nfrom agents import run\n\ndef test_b():\n"
                  "    run(['delete_repo'], 1)\n    os._exit(1)\n",
    }, XDIST_SPEC)
    session = pytester.runpytest_subprocess(*_plugin_args(), "--agentcov=agentcov.yaml",
                                            "-n", "2", "--dist", "loadfile",
                                            "--max-worker-restart", "0")
    assert session.ret == 1, session.stdout.str()
    state = CoverageState.load(pytester.path / ".agentcov")
    [reason] = state.incomplete  # one worker may have run test_a too before test_b killed it
    assert re.fullmatch(r"pytest-xdist worker gw[01] sent no coverage data \(it crashed or was "
                        r"stopped\): the agent runs of its (1 test|2 tests) are missing "
                        r"\((test_a\.py::test_a, )?test_b\.py::test_b\)", reason), reason
    for flags in ((), ("--allow-inconclusive",)):
        gate = agentcov(pytester.path, "gate", ".agentcov", *flags)
        assert gate.returncode == 1, gate.stdout + gate.stderr
        [line] = [ln for ln in gate.stdout.splitlines() if "data.incomplete" in ln]
        assert line.startswith("*") and "FAIL" in line and reason in line
        assert f"agentcov: incomplete data: {reason}\n" in gate.stderr
    merged = agentcov(pytester.path, "merge", ".agentcov", ".agentcov", "-o", "m.agentcov")
    assert merged.returncode == 0
    assert CoverageState.load(pytester.path / "m.agentcov").incomplete == [reason]


def test_a_session_killed_before_its_final_write_leaves_a_file_the_gate_fails_on(
        pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> None:
    """A passing session writes `.agentcov`; the next one is killed mid-run (SIGKILL, no hook
    runs). Before, the first session's file stayed and `agentcov gate` passed on it."""
    _project(pytester, monkeypatch, {
        "test_a": "from agents import run\n\ndef test_a():\n    run(['search'], 1)\n"}, XDIST_SPEC)
    first = pytester.runpytest_subprocess(*_plugin_args(), "--agentcov=agentcov.yaml",
                                          "-p", "no:xdist")
    assert first.ret == 0, first.stdout.str()
    assert agentcov(pytester.path, "gate", ".agentcov").returncode == 0
    pytester.makepyfile(test_b="import os, signal\nfrom agents import run\n\ndef test_b():\n"
                               "    run(['delete_repo'], 1)\n"
                               "    os.kill(os.getpid(), signal.SIGKILL)\n")
    killed = pytester.runpytest_subprocess(*_plugin_args(), "--agentcov=agentcov.yaml",
                                           "-p", "no:xdist")
    assert killed.ret == -9
    gate = agentcov(pytester.path, "gate", ".agentcov")
    assert gate.returncode == 2, gate.stdout + gate.stderr
    assert gate.stderr == (
        "agentcov: .agentcov: incomplete data: the pytest session writing this file never "
        "finished (it crashed or was killed before its final write, or is still running): its "
        "agent runs are missing\n")


def _peak_rss_kib(cwd: Path, *args: str) -> tuple[int, str, int]:
    """(exit code, stderr, peak RSS in KiB) of one CLI run, measured by wait4."""
    err = cwd / "stderr.txt"
    with open(err, "w") as fh:
        proc = subprocess.Popen([sys.executable, "-m", "otel_agentcov.cli", *args], cwd=cwd,
                                stdout=subprocess.DEVNULL, stderr=fh,
                                env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"})
        _, status, usage = os.wait4(proc.pid, 0)
    proc.returncode = os.waitstatus_to_exitcode(status)
    return proc.returncode, err.read_text(), usage.ru_maxrss


def test_a_state_file_past_the_cap_is_refused_unread(tmp_path: Path) -> None:
    """Issue 37: a valid 171 MiB state took `coverage`/`gate`/`merge`/`compare` to 4.5 GB.
    A valid state padded to one byte past the 80 MiB cap (whitespace, still valid JSON) is
    refused in one line by every verb, with the RSS of a small state's run."""
    state = CoverageState()
    state.agent("support").outcomes.runs = 1
    small = tmp_path / "small.agentcov"
    state.save(small)
    text = small.read_bytes()
    big = tmp_path / "big.agentcov"
    with open(big, "wb") as fh:  # written in chunks: the test never holds 80 MiB
        fh.write(text[:-1])
        pad = MAX_STATE_BYTES + 1 - len(text)
        chunk = b" " * (1 << 20)
        while pad > 0:
            fh.write(chunk[:pad])
            pad -= len(chunk)
        fh.write(b"}")
    assert big.stat().st_size == MAX_STATE_BYTES + 1
    code, _, baseline = _peak_rss_kib(tmp_path, "coverage", "small.agentcov")
    assert code == 0
    refused = ("agentcov: big.agentcov: larger than 80 MiB, the most a state file may hold; "
               "refused unread (agentcov docs guarantees)\n")
    for args in (("coverage", "big.agentcov"), ("gate", "--state", "big.agentcov"),
                 ("merge", "big.agentcov", "-o", "out.agentcov"),
                 ("compare", "small.agentcov", "big.agentcov")):
        code, err, peak = _peak_rss_kib(tmp_path, *args)
        assert (code, err) == (2, refused), args
        assert peak < baseline + 20 * 1024, (args, peak, baseline)  # never read: no +80 MiB
