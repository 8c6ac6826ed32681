"""`agentcov` as a user runs it: a subprocess, its exit code and what it prints."""

from __future__ import annotations

import json
import subprocess
import sys


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
    assert "gate FAILED" in out  # the demo attempts restricted tools
    assert "Traceback" not in proc.stderr


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


def test_demo_serve_keeps_metrics_up_while_running() -> None:
    import socket
    import time
    import urllib.request

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    proc = subprocess.Popen(
        [sys.executable, "-m", "otel_agentcov.cli", "demo", "--runs", "10",
         "--serve", str(port), "--duration", "4"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )
    body = ""
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline and "agentcov_runs_total" not in body:
        time.sleep(0.3)
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=2) as resp:
                body = resp.read().decode()
        except OSError:
            continue
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == 0, err
    assert 'agentcov_runs_total{agent="triage_agent"}' in body
    assert "agent coverage: triage_agent" in out


def test_port_out_of_range_is_a_usage_error() -> None:
    """`demo --serve 70000` used to reach socket.bind and end in an OverflowError traceback."""
    for args in (("demo", "--serve", "70000"), ("serve", "--spec", "x.yaml", "--metrics", "-1")):
        proc = agentcov(*args)
        assert proc.returncode == 2, args
        assert proc.stderr.startswith("agentcov: argument --") and "port" in proc.stderr
        assert proc.stderr.count("\n") == 1 and "Traceback" not in proc.stderr


def test_demo_serve_names_the_port_it_bound_or_could_not_bind() -> None:
    import socket

    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        proc = agentcov("demo", "--runs", "1", "--serve", str(port))
        assert proc.returncode == 2
        assert proc.stderr == (
            f"agentcov: cannot serve /metrics on 127.0.0.1:{port}: Address already in use\n"
        )
    free = agentcov("demo", "--runs", "1", "--serve", "0")
    assert free.returncode == 0, free.stderr
    assert "serving /metrics on http://127.0.0.1:" in free.stderr
    assert "127.0.0.1:0/" not in free.stderr
