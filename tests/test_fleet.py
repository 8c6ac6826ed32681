"""Fleet proof (benchmarks/fleet.py): three `agentcov serve` subprocesses fed by the real OTel
SDK OTLP exporters, a real Prometheus with the union recording rules, and a kill -9 restart."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from _support import need_binary

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "benchmarks"))

import fleet  # noqa: E402

pytestmark = pytest.mark.slow


@pytest.mark.timeout(240)
def test_fleet_coverage_equals_one_process_and_kill9_loses_nothing(tmp_path: Path) -> None:
    result = fleet.run(tmp_path, need_binary("prometheus"), log=lambda _: None)
    expected = {d: fleet.pytest_approx(v) for d, v in result["expected"].items()}
    assert {d: fleet.pytest_approx(v) for d, v in result["fleet"].items()} == expected
    assert expected["tool"] and expected["delegation"]
    # the union rules are needed: some replica alone reports less than the fleet
    local = [v for ratios in result["per_replica"].values() for v in ratios.values()]
    assert min(local) < max(expected["tool"].values())
    # every span reached exactly one replica
    assert sum(result["spans"]) == result["reference_spans"]
    kill = result["kill"]
    assert kill["acked_at_kill"] > 0
    assert kill["counted_after_restart"] >= kill["acked_at_kill"]
    assert kill["acked_total"] == kill["sent_total"]  # the exporter's retries got through
    assert kill["counted_final"] >= kill["acked_total"]
