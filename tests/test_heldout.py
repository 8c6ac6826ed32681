"""The held-out set (issue 35) is whole: every scenario its expectations name was recorded, every
recorded file parses as OTLP/JSON and is expected, and every stack pins what recorded it.

Only the set's integrity is tested here; how well the product reads it is a benchmark
(benchmarks/heldout.py), not a pass/fail test.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from fixture_expectations import Scenario

from otel_agentcov.readers.otlp import records_from_json

# tests/heldout/expectations.py, imported by path: `heldout` is also benchmarks/heldout.py, which
# other tests put on sys.path
sys.path.insert(0, str(Path(__file__).parent / "heldout"))
from expectations import EXPECTED, FIXTURES  # noqa: E402

CASES = [(stack, name) for stack, scenarios in EXPECTED.items() for name in scenarios]


@pytest.mark.parametrize(("stack", "scenario"), CASES, ids=[f"{a}/{b}" for a, b in CASES])
def test_scenario_file_parses(stack: str, scenario: str) -> None:
    path = FIXTURES / stack / f"{scenario}.json"
    records = records_from_json(json.loads(path.read_text()), str(path))
    assert records, f"{path}: no spans"
    assert isinstance(EXPECTED[stack][scenario], Scenario)
    assert EXPECTED[stack][scenario].agents, f"{stack}/{scenario}: expects no agent"


def test_every_file_is_expected_and_versioned() -> None:
    on_disk = {(p.parent.name, p.stem) for p in FIXTURES.glob("*/*.json") if p.stem != "versions"}
    assert on_disk == set(CASES)
    for stack in EXPECTED:
        versions = json.loads((FIXTURES / stack / "versions.json").read_text())
        assert versions["hand_built"] is False and versions["versions"], stack


def test_the_set_is_at_least_four_stacks_of_two_ecosystems() -> None:
    node = FIXTURES.parents[2] / "fixtures" / "record" / "heldout" / "node"
    in_node = {stack for stack in EXPECTED if (node / f"record_{stack}.mjs").exists()}
    assert len(EXPECTED) >= 4
    assert in_node and set(EXPECTED) - in_node, "JavaScript and Python stacks"
