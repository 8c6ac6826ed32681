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
