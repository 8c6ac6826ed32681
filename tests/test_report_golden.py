"""Speed work must not change what is reported: every fixture trace file and a varied trials file
give the JSON reports recorded in tests/golden/ by the code before the speed changes.

One deliberate difference: run durations are now summed exactly (stats.LogHistogram), so their
sum and mean no longer depend on the order runs arrive in (`--jobs` merges per-process sums);
they may differ from the old float-by-float sums in the last bit, and are compared to 1e-15.

Issue 17 grafted two differences into the golden file (the rest is as recorded): every agent
report gained its `versions` section, and a Wilson bound at 0 or n successes is now exactly 0 or
1 (one report had 5.55e-17 for 0 of 1).

Issue 30 grafted one more: every agent's `coverage` gained `contracts` (contract coverage), null
here since no spec of the corpus declares contracts; the not-exercised counts live in the
`contracts` rows, which these reports have none of.

Issue 39 grafted one more: every agent report gained `faults`; in the trials report the
per-tool failure rows (`faults.tools`, `failure_paths_pct`) come from the trial fold, as the
trial-by-trial route counts them (tests/test_trials_core.py holds the two equal).

`python tests/test_report_golden.py --write` rewrites the golden file from whichever
`otel_agentcov` it imports; do that only from code whose reports are known good (the golden
file's history says which commit wrote it), never to make this test pass.
"""

from __future__ import annotations

import json
import random
import sys
from pathlib import Path
from typing import Any

import pytest

from otel_agentcov import offline
from otel_agentcov.spec import CoverageSpec

HERE = Path(__file__).parent
FIXTURES = HERE / "fixtures"
GOLDEN = HERE / "golden" / "reports.json"
TOOLS = ["search", "fetch", "summarize", "book"]
MODELS = ["gpt-4o", "gpt-4o-mini", "claude"]


def fixture_files() -> list[Path]:
    """The fixture files the golden file recorded: fixtures recorded since (each replayed against
    its hand-written expectations by test_fixture_replay) leave this corpus as it was."""
    names = [name for name in json.loads(GOLDEN.read_text()) if not name.startswith("<")]
    return sorted(FIXTURES / name for name in names)


def trials_doc(seed: int = 11, n: int = 300) -> dict[str, Any]:
    """AgentAssay trials of every shape the trials reader maps: llm/tool/unknown actions, steps
    named only by a model or a tool, step errors, failed trials with and without an error,
    costs, two agents, empty traces. No trace-level `model` (its counting changed on purpose)."""
    rng = random.Random(seed)
    results = []
    for i in range(n):
        steps: list[dict[str, Any]] = []
        for k in range(rng.randint(0, 7)):
            roll = rng.random()
            step: dict[str, Any] = {"step_index": k, "duration_ms": round(rng.uniform(0, 900), 3)}
            if roll < 0.35:
                step.update(action="llm_response", model=rng.choice([*MODELS, "other-model"]))
            elif roll < 0.7:
                step.update(action="tool_call", tool_name=rng.choice([*TOOLS, "unlisted"]))
            elif roll < 0.8:
                step.update(tool_name=rng.choice(TOOLS))  # no action: a tool by its name
            elif roll < 0.87:
                step.update(model=rng.choice(MODELS))  # no action: a model call by its model
            elif roll < 0.93:
                step.update(action=rng.choice(["llm", "chat", "generation", "tool", "tool_use"]),
                            tool_name=rng.choice(TOOLS), model=rng.choice(MODELS))
            else:
                step.update(action=rng.choice(["think", "", "observe"]))
            if rng.random() < 0.08:
                step["metadata"] = {"error": rng.choice(["TimeoutError", "ValueError"])}
            steps.append(step)
        failed = rng.random() < 0.15
        trace: dict[str, Any] = {
            "steps": steps, "success": not failed or rng.random() < 0.3,
            "error": rng.choice(["AssertionError", None]) if failed else None,
            "total_duration_ms": round(rng.uniform(0, 5000), 3),
            "total_cost_usd": rng.choice([0.0, 0.01, 0.2]),
            "metadata": {"agent": rng.choice(["planner", "booker"])} if i % 5 else {},
        }
        results.append({"trial_id": i, "passed": not failed, "trace": trace})
    return {"results": results}


def corpus_reports(tmp: Path) -> dict[str, Any]:
    """One report per fixture file, one for the whole corpus at once, one for the trials."""
    reports: dict[str, Any] = {}
    files = fixture_files()
    for path in files:
        engine = offline.load(CoverageSpec.empty(), traces=[str(path)])
        reports[str(path.relative_to(FIXTURES))] = offline.report(engine)
    engine = offline.load(CoverageSpec.empty(), traces=[str(p) for p in files])
    reports["<all fixtures>"] = offline.report(engine)
    trials = tmp / "trials.json"
    trials.write_text(json.dumps(trials_doc()))
    spec = CoverageSpec.empty().with_inventory(TOOLS, MODELS)
    reports["<trials>"] = offline.report(offline.load(spec, results=[str(trials)]))
    # JSON round trip: the golden file holds what `--format json` would print
    return dict(json.loads(json.dumps(reports)))


_EXACT_SUMS = {"duration_histogram.sum", "duration_s.mean"}


def _same(new: Any, old: Any, where: str) -> None:
    """Equal, key for key; the exactly summed duration fields to 1e-15 (see the docstring)."""
    if isinstance(old, dict):
        assert isinstance(new, dict) and sorted(new) == sorted(old), where
        for key in old:
            _same(new[key], old[key], f"{where}.{key}")
    elif isinstance(old, list):
        assert isinstance(new, list) and len(new) == len(old), where
        for n, (a, b) in enumerate(zip(new, old, strict=True)):
            _same(a, b, f"{where}[{n}]")
    elif isinstance(old, float) and ".".join(where.split(".")[-2:]) in _EXACT_SUMS:
        assert new == pytest.approx(old, rel=1e-15, abs=0), where
    else:
        assert new == old and type(new) is type(old), where


def test_reports_match_the_golden_file(tmp_path: Path) -> None:
    golden = json.loads(GOLDEN.read_text())
    reports = corpus_reports(tmp_path)
    assert sorted(reports) == sorted(golden)
    for name, report in reports.items():
        _same(report, golden[name], name)


if __name__ == "__main__" and sys.argv[1:] == ["--write"]:
    import tempfile

    with tempfile.TemporaryDirectory() as tmp:
        GOLDEN.parent.mkdir(exist_ok=True)
        GOLDEN.write_text(json.dumps(corpus_reports(Path(tmp)), indent=1, sort_keys=True) + "\n")
