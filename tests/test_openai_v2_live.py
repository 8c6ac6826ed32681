"""Live: the real openai client + python-contrib openai-v2 instrumentation against the fake
OpenAI-compatible server on 127.0.0.1, recorded and asserted in the same run.

It runs the fixture recorder's own scenarios (fixtures/record/record_openai_v2.py), so the
committed fixtures and this live path are held to the same expectations.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fixture_expectations import OPENAI_V2, replay_records

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "fixtures" / "record"))

from _common import Capture, FakeOpenAI, otlp_json  # noqa: E402
from record_openai_v2 import SERVICE, Recorder, handler  # noqa: E402


@pytest.fixture(scope="module")
def recorder() -> Iterator[Any]:
    with FakeOpenAI(handler) as server:
        rec = Recorder(server.base_url, Capture(service=SERVICE))
        yield rec
        rec.close()


@pytest.mark.parametrize("scenario", sorted(OPENAI_V2))
def test_live_openai_v2(recorder: Any, scenario: str) -> None:
    spans = recorder.scenarios()[scenario]()
    expected = OPENAI_V2[scenario]
    agents, errors, in_flight = replay_records(otlp_json(spans), f"live {scenario}")
    assert in_flight == 0
    assert agents == expected.agents
    assert errors == expected.error_types
