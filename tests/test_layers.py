"""Layering that the import contracts (`make lint`) cannot see: what a module loads at run time."""

from __future__ import annotations

import subprocess
import sys

_SNAPSHOT_IN_PROCESS = """
import sys
from otel_agentcov.engine import CoverageEngine
from otel_agentcov.records import SpanRecord

engine = CoverageEngine()
for trace in (1, 2):
    engine.ingest(SpanRecord(trace, 2, 1, "execute_tool lookup", start_ns=1, end_ns=2, attributes={
        "gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": "lookup"}))
    engine.ingest(SpanRecord(trace, 1, None, "invoke_agent a", start_ns=0, end_ns=3, attributes={
        "gen_ai.operation.name": "invoke_agent", "gen_ai.agent.name": "a",
        "gen_ai.agent.version": "v1"}))
report = engine.snapshot().to_dict()
assert report["agents"]["a"]["runs"]["count"] == 2, report["agents"]
print(" ".join(m for m in ("numpy", "scipy") if m in sys.modules))
"""


def test_a_snapshot_in_process_loads_neither_numpy_nor_scipy() -> None:
    """The statistics load numpy and scipy only when a test runs (two versions to compare): an
    application's in-process processor must not pay for them on every snapshot."""
    proc = subprocess.run([sys.executable, "-c", _SNAPSHOT_IN_PROCESS],
                          capture_output=True, text=True, timeout=60, check=True)
    assert proc.stdout.strip() == ""
