"""A failure inside one judge never drops the run (issue 29, item 5).

A recursive JSON Schema on a deeply nested answer makes the validator recurse past Python's
limit. Before, that exception dropped the whole run (its restricted-tool attempt too): the gate
exited 0 and the only trace was `internal_errors=1`. Now the failing check is `unknown`, the
other checks and the run's coverage are folded, the error is counted, and the gate fails on the
restricted attempt. Real SDK spans through `agentcov gate`, as CI runs it."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

from _contract_runs import judged, make_run
from test_gate_declared import Run, gate

RECURSIVE: dict[str, Any] = {"$defs": {"node": {"type": "object", "properties": {
    "a": {"$ref": "#/$defs/node"}}}}, "$ref": "#/$defs/node"}
DEEP = '{"a":' * 900 + "{}" + "}" * 900  # parses as JSON; validating it recurses too deep
CONTRACT: dict[str, Any] = {"name": "answers", "must": [
    {"behavior": "shaped", "output": {"schema": RECURSIVE}},
    {"behavior": "polite", "output": {"contains": "{"}, "severity": "low"},
]}


def test_a_check_failing_inside_is_unknown_and_counted_the_others_still_judged() -> None:
    v = judged(make_run("lookup", output=DEEP), CONTRACT)
    assert [(c.behavior, c.result) for c in v.checks] == [
        ("shaped", "unknown"), ("polite", "satisfied")]
    assert v.errors == 1 and not v.fails_run


def test_the_run_is_folded_and_the_gate_sees_its_restricted_attempt(tmp_path: Path) -> None:
    runs: list[Run] = [("support", ["delete_repo"], DEEP)]
    spec = {"agents": [{"name": "support", "contracts": [CONTRACT],
                        "tool_edges": {"restricted": ["delete_repo"]}}]}
    proc = gate(tmp_path, runs, spec)
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert "delete_repo" in proc.stdout
    report = json.loads(subprocess.run(
        [sys.executable, "-m", "otel_agentcov.cli", "coverage", "--spec",
         str(tmp_path / "agentcov.yaml"), "--traces", str(tmp_path / "traces.json"),
         "--format", "json"], capture_output=True, text=True, timeout=120, check=False).stdout)
    agent = report["agents"]["support"]
    assert agent["runs"]["count"] == 1
    assert [r["tool"] for r in agent["edges"]["restricted"]] == ["delete_repo"]
    rows = {r["behavior"]: r for r in agent["contracts"]}
    assert rows["shaped"]["unknown"] == 1 and rows["polite"]["satisfied"] == 1
    assert report["spans"]["internal_errors"] == 1


def test_a_when_failing_inside_makes_every_behaviour_unknown_and_counts_each() -> None:
    contract = {"name": "answers", "when": {"output": {"schema": RECURSIVE}}, "must": [
        {"behavior": "looks_up", "called": "lookup"},
        {"behavior": "polite", "output": {"contains": "{"}, "severity": "low"},
    ]}
    v = judged(make_run("lookup", output=DEEP), contract)
    assert [(c.behavior, c.result) for c in v.checks] == [
        ("looks_up", "unknown"), ("polite", "unknown")]
    assert v.errors == 2 and not v.fails_run
