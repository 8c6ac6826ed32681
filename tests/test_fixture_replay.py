"""Replay the recorded OTLP/JSON fixtures of every library through the engine (issue 4).

Fixtures come from `make fixtures` (fixtures/record/*.py running each library offline); each
scenario must give the agents, tools with ok/error counts, models, delegation edges, run
counts, errors and boundaries the scenario produced.
"""

from __future__ import annotations

import json

import pytest
from fixture_expectations import EXPECTED, FIXTURES, replay, replay_in_order

CASES = [(lib, name) for lib, scenarios in EXPECTED.items() for name in scenarios]


@pytest.mark.parametrize(("library", "scenario"), CASES, ids=[f"{a}/{b}" for a, b in CASES])
def test_fixture(library: str, scenario: str) -> None:
    expected = EXPECTED[library][scenario]
    agents, errors, in_flight = replay(library, scenario, expected.spec)
    assert in_flight == expected.open_traces
    assert agents == expected.agents
    assert errors == expected.error_types


def test_every_fixture_is_asserted_and_versioned() -> None:
    on_disk = {
        (p.parent.name, p.stem) for p in FIXTURES.glob("*/*.json") if p.stem != "versions"
    }
    assert on_disk == set(CASES)
    for library in EXPECTED:
        versions = json.loads((FIXTURES / library / "versions.json").read_text())
        assert versions["versions"], library
        assert isinstance(versions["hand_built"], bool)


def test_the_service_reads_a_batch_grouped_by_scope_like_the_file_reader() -> None:
    """OpenLIT's workflow root is in an earlier scope block than its chat spans: an OTLP request
    holding both must still give each agent its model calls."""
    from otel_agentcov.service.store import JSON, decode_records

    payload = (FIXTURES / "openlit" / "agents_handoff.json").read_bytes()
    agents, _, in_flight = replay_in_order(decode_records(JSON, payload, "request"))
    assert in_flight == 0
    assert agents == EXPECTED["openlit"]["agents_handoff"].agents
