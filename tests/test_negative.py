"""Telemetry that is no agent's gives no agent (issue 35: "no name that is not an agent becomes
one"): eight ordinary services recorded with the real OpenTelemetry SDK and instrumentation
libraries, their domains using agent stacks' words in their everyday sense (tests/negative/
README.md). No LLM runs in any of them, so the engine must find no agent run, no model call and
no tool call in any fixture, out of the box (benchmarks/negative.py measures the same)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from fixture_expectations import replay_records
from negative.apps import HELD_OUT, TUNING

FIXTURES = Path(__file__).parent / "negative" / "fixtures"
SCENARIOS = sorted(p for app in (*TUNING, *HELD_OUT) for p in (FIXTURES / app).glob("*.json")
                   if p.name != "versions.json")


def test_every_app_is_recorded_and_named_once() -> None:
    assert sorted((*TUNING, *HELD_OUT)) == sorted(p.name for p in FIXTURES.iterdir())
    assert len(set(TUNING) | set(HELD_OUT)) == 8
    assert {p.parent.name for p in SCENARIOS} == {*TUNING, *HELD_OUT}


@pytest.mark.parametrize("path", SCENARIOS, ids=lambda p: f"{p.parent.name}/{p.stem}")
def test_no_agent_model_call_or_tool_call_is_found(path: Path) -> None:
    document = json.loads(path.read_text())
    assert sum(len(s["spans"]) for rs in document["resourceSpans"] for s in rs["scopeSpans"]) > 0
    agents, _, _ = replay_records(document, str(path))
    assert agents == {}
