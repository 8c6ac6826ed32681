"""`agentcov` as a user runs it: a subprocess, its exit code and what it prints."""

from __future__ import annotations

import json
import subprocess
import sys
from typing import Any

import pytest


def agentcov(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "otel_agentcov.cli", *args],
        capture_output=True, text=True, timeout=120, check=False,
    )


def test_demo_prints_report_for_every_agent() -> None:
    proc = agentcov("demo", "--runs", "40")
    assert proc.returncode == 0, proc.stderr
    out = proc.stdout
    for agent in ("triage_agent", "research_agent", "billing_agent"):
        assert f"agent coverage: {agent} (" in out
    assert "Overall" in out and "Weakest dimension" in out
    assert "would fail the gate" in out  # the demo attempts restricted tools
    assert "Traceback" not in proc.stderr


@pytest.mark.slow
def test_demo_is_deterministic_per_seed_and_varies_across_seeds() -> None:
    a = json.loads(agentcov("demo", "--seed", "3", "--runs", "30", "--format", "json").stdout)
    b = json.loads(agentcov("demo", "--seed", "3", "--runs", "30", "--format", "json").stdout)
    c = json.loads(agentcov("demo", "--seed", "4", "--runs", "30", "--format", "json").stdout)
    assert a == b
    assert a != c
    triage = a["agents"]["triage_agent"]
    assert triage["runs"]["count"] == 30
    assert {d["to"] for d in triage["delegations"]} == {"research_agent", "billing_agent"}
    assert triage["boundaries"]["timeout"] and triage["boundaries"]["max_steps"]
    assert a["agents"]["billing_agent"]["edges"]["restricted"][0]["outcome"] == "denied"


def test_usage_error_is_one_line_exit_2() -> None:
    proc = agentcov("demo", "--runs", "zero")
    assert proc.returncode == 2
    assert proc.stderr.strip().count("\n") == 0
    assert "--runs" in proc.stderr and "Traceback" not in proc.stderr
    assert agentcov("nonsense").returncode == 2
    for bad in ("nan", "-1", "soon"):
        proc = agentcov("demo", "--duration", bad)
        assert proc.returncode == 2, bad
        assert "--duration" in proc.stderr and "Traceback" not in proc.stderr


@pytest.mark.slow
def test_demo_serve_keeps_metrics_up_while_running() -> None:
    """Waits on conditions, not on time: the demo serves until /metrics showed runs, then Ctrl-C
    ends it (a fixed --duration raced process start-up on a loaded machine)."""
    import signal
    import socket
    import time
    import urllib.request

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    proc = subprocess.Popen(
        [sys.executable, "-m", "otel_agentcov.cli", "demo", "--runs", "10",
         "--metrics", str(port), "--duration", "600"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )
    body = ""
    deadline = time.monotonic() + 120
    try:
        while time.monotonic() < deadline and 'agentcov_runs_total{agent="triage_agent"}' \
                not in body and proc.poll() is None:
            time.sleep(0.3)
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics",
                                            timeout=5) as resp:
                    body = resp.read().decode()
            except OSError:
                continue
    finally:
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=120)
    assert proc.returncode == 0, err
    assert 'agentcov_runs_total{agent="triage_agent"}' in body
    assert "agent coverage: triage_agent" in out


def test_port_out_of_range_is_a_usage_error() -> None:
    """`demo --serve 70000` used to reach socket.bind and end in an OverflowError traceback."""
    for args in (("demo", "--metrics", "70000"), ("serve", "--spec", "x.yaml", "--metrics", "-1")):
        proc = agentcov(*args)
        assert proc.returncode == 2, args
        assert proc.stderr.startswith("agentcov: argument --") and "port" in proc.stderr
        assert proc.stderr.count("\n") == 1 and "Traceback" not in proc.stderr


@pytest.mark.slow
def test_demo_serve_names_the_port_it_bound_or_could_not_bind() -> None:
    import socket

    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        proc = agentcov("demo", "--runs", "1", "--metrics", str(port))
        assert proc.returncode == 2
        assert proc.stderr == (
            f"agentcov: cannot serve /metrics on 127.0.0.1:{port}: Address already in use\n"
        )
    free = agentcov("demo", "--runs", "1", "--metrics", "0")
    assert free.returncode == 0, free.stderr
    assert "serving /metrics on http://127.0.0.1:" in free.stderr
    assert "127.0.0.1:0/" not in free.stderr


def test_version_is_the_package_version() -> None:
    import tomllib
    from pathlib import Path

    pyproject = Path(__file__).resolve().parents[1] / "pyproject.toml"
    version = tomllib.loads(pyproject.read_text())["project"]["version"]
    proc = agentcov("--version")
    assert (proc.returncode, proc.stdout, proc.stderr) == (0, f"agentcov {version}\n", "")


def test_bare_command_and_bare_subcommands_print_help() -> None:
    """Help, not an argparse complaint; still exit 2, so a CI line whose arguments expanded to
    nothing does not pass."""
    proc = agentcov()
    assert proc.returncode == 2 and proc.stderr == ""
    assert proc.stdout.startswith("usage: agentcov ")
    for command in ("coverage", "gate", "merge", "serve"):
        assert command in proc.stdout
        sub = agentcov(command)
        assert sub.returncode == 2 and sub.stderr == "", command
        assert sub.stdout.startswith(f"usage: agentcov {command} "), sub.stdout
        assert "options:" in sub.stdout


def test_merge_errors_are_one_line_like_the_others(tmp_path: Any) -> None:
    missing = tmp_path / "missing.json"
    proc = agentcov("merge", str(missing), "-o", str(tmp_path / "out.json"))
    assert (proc.returncode, proc.stderr) == (
        2, f"agentcov: {missing}: cannot read: No such file or directory\n")
    proc = agentcov("merge", str(tmp_path), "-o", str(tmp_path / "out.json"))
    assert (proc.returncode, proc.stderr) == (
        2, f"agentcov: {tmp_path}: cannot read: Is a directory\n")


@pytest.mark.slow
def test_ctrl_c_on_demo_prints_the_report_so_far() -> None:
    import re
    import signal
    import time
    import urllib.request

    proc = subprocess.Popen(
        [sys.executable, "-m", "otel_agentcov.cli", "demo", "--runs", "5", "--metrics", "0",
         "--duration", "300", "--format", "json"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )
    try:
        assert proc.stderr is not None
        url = re.findall(r"http://\S+", proc.stderr.readline())[0]
        body, deadline = "", time.monotonic() + 60
        while "agentcov_runs_total" not in body and time.monotonic() < deadline:
            time.sleep(0.2)  # polling until runs were measured, not a timed assertion
            with urllib.request.urlopen(url, timeout=5) as resp:
                body = resp.read().decode()
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=60)
    finally:
        proc.kill()
    assert proc.returncode == 0, err
    assert "interrupted; the report covers the requests finished so far" in err
    assert "Traceback" not in err
    assert json.loads(out)["agents"]["triage_agent"]["runs"]["count"] >= 1


@pytest.mark.slow
def test_demo_writes_its_workload_and_spec_for_every_other_command(tmp_path: Any) -> None:
    traces, spec = tmp_path / "demo.pb", tmp_path / "agentcov.yaml"
    demo = agentcov("demo", "--runs", "20", "--format", "json",
                    "--traces-out", str(traces), "--spec-out", str(spec))
    assert demo.returncode == 0, demo.stderr
    offline = agentcov("coverage", "--traces", str(traces), "--spec", str(spec),
                       "--format", "json")
    assert offline.returncode == 0, offline.stderr
    live, read = json.loads(demo.stdout), json.loads(offline.stdout)
    assert read["agents"] == live["agents"]  # the file holds exactly what the demo measured
    assert read["spans"]["by_kind"] == live["spans"]["by_kind"]
    assert read["agents"]["triage_agent"]["runs"]["count"] == 20
    gate = agentcov("gate", "--traces", str(traces), "--spec", str(spec))
    assert gate.returncode == 1  # the demo attempts restricted tools
    # and its declared must_call contract is violated: declared means gated
    assert "gate FAILED: 2 passed, 3 failed" in gate.stdout
    assert "contract must_call.called:search (high) violated" in gate.stdout


def test_a_required_option_claims_no_default() -> None:
    """`serve --spec` is required, yet its help named a default from [tool.agentcov]."""
    import argparse

    from otel_agentcov.cli import build_parser

    checked = 0
    for action in build_parser()._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                for option in sub._actions:
                    if option.required and option.option_strings:
                        checked += 1
                        assert "default" not in (option.help or ""), (name, option.dest)
    assert checked >= 2  # serve --spec and merge --output
