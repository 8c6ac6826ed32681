"""OpenTelemetry metrics for a Snapshot: observable instruments read at each collection.

The numbers are the Prometheus exporter's (DESIGN §6) under OTel-style dotted names. One snapshot
serves a whole collection cycle: the first instrument registered (`agentcov.coverage.ratio`) takes
it and every other callback of the same cycle reuses it (the SDK calls a reader's observable
callbacks in registration order); a callback that finds no snapshot yet takes one itself.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterable, Mapping
from typing import Any

from opentelemetry.metrics import CallbackOptions, Meter, MeterProvider, Observation

from .prometheus import SnapshotSource

__all__ = ["install_otlp_metrics"]

_Rows = Callable[[Mapping[str, Any]], Iterable[Observation]]


class _Cycle:
    """Holds the snapshot of the current collection cycle."""

    def __init__(self, source: SnapshotSource) -> None:
        self._source = source
        self._lock = threading.Lock()
        self._data: Mapping[str, Any] | None = None

    def refresh(self) -> Mapping[str, Any]:
        data = self._source.snapshot().data
        with self._lock:
            self._data = data
        return data

    def current(self) -> Mapping[str, Any]:
        with self._lock:
            data = self._data
        return data if data is not None else self.refresh()


def _coverage(data: Mapping[str, Any]) -> Iterable[Observation]:
    for agent, rep in data["agents"].items():
        for dim, value in rep["coverage"].items():
            if dim in ("overall", "weakest", "insufficient_data", "excluded") or value is None:
                continue
            yield Observation(float(value), {"agent": agent, "dimension": dim})


def _overall(data: Mapping[str, Any]) -> Iterable[Observation]:
    for agent, rep in data["agents"].items():
        value = rep["coverage"].get("overall")
        if value is not None:
            yield Observation(float(value), {"agent": agent})


def _gate(data: Mapping[str, Any]) -> Iterable[Observation]:
    for agent, rep in data["agents"].items():
        yield Observation(int(rep["edges"]["gate_passed"]), {"agent": agent})


def _restricted(data: Mapping[str, Any]) -> Iterable[Observation]:
    for agent, rep in data["agents"].items():
        for r in rep["edges"]["restricted"]:
            attrs = {"agent": agent, "tool": r["tool"], "outcome": r["outcome"]}
            yield Observation(int(r["count"]), attrs)


def _tool_calls(data: Mapping[str, Any]) -> Iterable[Observation]:
    for agent, rep in data["agents"].items():
        for tool, counts in rep["tools"]["called"].items():
            for outcome in ("ok", "error"):
                attrs = {"agent": agent, "tool": tool, "outcome": outcome}
                yield Observation(int(counts.get(outcome, 0)), attrs)


def _runs(data: Mapping[str, Any]) -> Iterable[Observation]:
    for agent, rep in data["agents"].items():
        yield Observation(int(rep["runs"]["count"]), {"agent": agent})


def install_otlp_metrics(source: SnapshotSource, meter_provider: MeterProvider) -> Meter:
    """Register the agentcov observable instruments on `meter_provider`; returns the meter.

    Export goes wherever the provider's readers send it (e.g. `OTLPMetricExporter` behind a
    `PeriodicExportingMetricReader`). Counters report cumulative totals.
    """
    meter = meter_provider.get_meter("otel_agentcov")
    cycle = _Cycle(source)

    def callback(rows: _Rows, first: bool = False) -> Callable[[CallbackOptions], Any]:
        def observe(options: CallbackOptions) -> Iterable[Observation]:
            data = cycle.refresh() if first else cycle.current()
            return list(rows(data))

        return observe

    instruments: tuple[tuple[Callable[..., object], str, _Rows, str, str], ...] = (
        (meter.create_observable_gauge, "agentcov.coverage.ratio", _coverage, "1",
         "Coverage per agent and dimension."),
        (meter.create_observable_gauge, "agentcov.coverage.overall", _overall, "1",
         "Geometric mean of the measured coverage dimensions."),
        (meter.create_observable_counter, "agentcov.restricted_tool.attempts", _restricted,
         "{attempt}", "Attempts to call a restricted tool, by outcome."),
        (meter.create_observable_counter, "agentcov.tool.calls", _tool_calls, "{call}",
         "Tool calls by outcome."),
        (meter.create_observable_counter, "agentcov.runs", _runs, "{run}", "Completed runs."),
        (meter.create_observable_gauge, "agentcov.gate.passed", _gate, "1",
         "1 when no restricted tool was attempted."),
    )
    for index, (create, name, rows, unit, description) in enumerate(instruments):
        # the first instrument's callback takes the cycle's snapshot; the others reuse it
        create(name, callbacks=[callback(rows, first=index == 0)], unit=unit,
               description=description)
    return meter
