"""gc_bulk: bulk ingestion runs the cyclic collector less often, never not at all."""

from __future__ import annotations

import gc
import weakref
from pathlib import Path

import pytest

from otel_agentcov import offline
from otel_agentcov.gc_bulk import BULK_THRESHOLD, bulk_ingestion, collect_less
from otel_agentcov.spec import CoverageSpec

FIXTURES = Path(__file__).parent.parent / "fixtures"


@pytest.fixture
def thresholds():
    before = gc.get_threshold()
    gc.set_threshold(700, 10, 10)
    yield
    gc.set_threshold(*before)


class _Node:
    def __init__(self) -> None:
        self.other: object = self


def test_offline_load_reads_with_the_higher_threshold_and_restores_it(
        thresholds: None, monkeypatch: pytest.MonkeyPatch) -> None:
    seen: list[tuple[int, int, int]] = []
    real = offline._ingest

    def ingest(*args: object) -> None:
        seen.append(gc.get_threshold())
        real(*args)  # type: ignore[arg-type]

    monkeypatch.setattr(offline, "_ingest", ingest)
    trace = next(FIXTURES.rglob("*.json"))
    offline.load(CoverageSpec.empty(), traces=[str(trace)], keep_going=True)
    assert seen and all(t == (BULK_THRESHOLD, 10, 10) for t in seen)
    assert gc.get_threshold() == (700, 10, 10)


def test_cycles_are_still_collected_automatically_inside_bulk_ingestion(
        thresholds: None) -> None:
    assert gc.isenabled()
    with bulk_ingestion():
        node = _Node()
        gone = weakref.ref(node)
        del node  # a cycle: only the collector frees it
        keep = [[] for _ in range(3 * BULK_THRESHOLD)]  # net new containers: a young pass runs
        assert gone() is None
        del keep
    assert gc.get_threshold() == (700, 10, 10)


def test_a_higher_threshold_or_collection_off_is_kept(thresholds: None) -> None:
    gc.set_threshold(0, 10, 10)
    collect_less()
    assert gc.get_threshold() == (0, 10, 10)
    gc.set_threshold(10 * BULK_THRESHOLD, 5, 5)
    with bulk_ingestion():
        assert gc.get_threshold() == (10 * BULK_THRESHOLD, 5, 5)
    assert gc.get_threshold() == (10 * BULK_THRESHOLD, 5, 5)
