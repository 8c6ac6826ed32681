"""A spec's `conventions:` entries cannot hide a restricted tool (issue 37, "conventions
hijack"; docs/conventions.md#restricted-tools).

Real SDK spans (GenAI semantic conventions: `invoke_agent support` over `execute_tool
delete_account`), judged by `agentcov gate` in a subprocess and by the in-process processor.
Each entry below re-reads the restricted tool's span as something else; before, 7 of 9 such
entries turned the failing gate into PASS with no word said. Now the built-in reading wins for
that span, the restricted call fails the gate as any other, and every report counts it.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from _trace_files import json_text
from test_gate_declared import Run, gate, spans

from otel_agentcov import offline
from otel_agentcov.processor import AgentCoverageProcessor
from otel_agentcov.reporting import render
from otel_agentcov.spec import CoverageSpec

TOOL_SPANS = {"name": "execute_tool *"}
HIJACKS: dict[str, dict[str, Any]] = {
    "other": {"match": TOOL_SPANS, "kind": "other"},
    "llm": {"match": TOOL_SPANS, "kind": "llm"},
    "workflow": {"match": TOOL_SPANS, "kind": "workflow"},
    "handoff": {"match": TOOL_SPANS, "kind": "handoff", "handoff_to": {"value": "billing"}},
    "agent": {"match": TOOL_SPANS, "kind": "agent", "name": {"value": "helper"}},
    "another tool": {"match": TOOL_SPANS, "kind": "tool", "tool": {"value": "lookup_order"}},
    "missing key": {"match": TOOL_SPANS, "kind": "tool", "tool": "acme.no_such_key"},
    "hand-off tool": {"match": TOOL_SPANS, "kind": "tool", "tool": {"value": "transfer"},
                      "handoff_tool": True, "handoff_to": {"value": "billing"}},
    "by attribute": {"match": {"attributes": {"gen_ai.tool.name": "delete_account"}},
                     "kind": "other"},
}
RUNS: list[Run] = [("support", ["lookup_order", "delete_account"], None)] * 2
RESTRICTED = {"agents": [{"name": "support", "tool_edges": {"restricted": ["delete_account"]}}]}
OVERRULED = ("2 spans that a spec conventions: entry or inference re-read name a restricted "
             "tool: read as calls of it (a restricted tool cannot be hidden by configuration; "
             "agentcov docs conventions)")


@pytest.mark.parametrize("entry", HIJACKS.values(), ids=HIJACKS.keys())
def test_a_convention_cannot_hide_a_restricted_tool_from_the_gate(
        tmp_path: Path, entry: dict[str, Any]) -> None:
    proc = gate(tmp_path, RUNS, {**RESTRICTED, "conventions": [entry]}, "--allow-inconclusive")
    assert proc.returncode == 1, proc.stdout + proc.stderr
    [line] = [ln for ln in proc.stdout.splitlines()
              if ln.startswith("support ") and "edges.restricted_attempts" in ln]
    assert "restricted tool delete_account executed ×2" in line
    assert f"agentcov: {OVERRULED}\n" in proc.stderr


def test_every_report_says_so_and_the_processor_judges_alike() -> None:
    spec = CoverageSpec.from_dict({"version": 1, **RESTRICTED,
                                   "conventions": [HIJACKS["other"]]})
    processor = AgentCoverageProcessor(spec)
    for span in spans(RUNS):
        processor.on_end(span)
    processor.shutdown()
    snap = processor.snapshot()
    assert snap.agents["support"]["edges"]["restricted_attempts"] == 2
    assert not snap.gate_passed
    report = snap.to_dict()
    assert report["spans"]["conventions_overruled"] == 2
    for fmt in ("text", "markdown"):
        assert OVERRULED.split(":")[0] in render(report, fmt, spec)


def test_only_restricted_tools_are_guarded(tmp_path: Path) -> None:
    """An entry re-reading lookup_order as `other` holds (nothing counted for it), while the
    same kind of entry over delete_account is overruled: the guard reads only what it must."""
    entries = [{"match": {"name": "execute_tool lookup_order"}, "kind": "other"},
               {"match": {"name": "execute_tool delete_account"}, "kind": "other"}]
    spec = CoverageSpec.from_dict({"version": 1, **RESTRICTED, "conventions": entries})
    traces = tmp_path / "traces.json"
    traces.write_text(json_text(spans(RUNS)), encoding="utf-8")
    report = offline.report(offline.load(spec, traces=[str(traces)]))
    assert report["agents"]["support"]["tools"]["called"] == {  # lookup_order read as `other`
        "delete_account": {"ok": 2, "error": 0}}
    assert report["spans"]["by_kind"]["other"] == 2
    assert report["spans"]["conventions_overruled"] == 2
