"""OpenTelemetry metrics for a Snapshot: observable instruments read at each collection.

The numbers are the Prometheus exporter's (docs/metrics.md): each instrument observes the rows of
one of its metric families, under an OTel-style dotted name. One snapshot serves a whole collection
cycle: the first instrument registered (`agentcov.coverage.ratio`) takes it and every other
callback of the same cycle reuses it (the SDK calls a reader's observable callbacks in
registration order); a callback that finds no snapshot yet takes one itself.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from opentelemetry.metrics import CallbackOptions, Meter, MeterProvider, Observation

from .prometheus import SnapshotSource, _collect, _Family

__all__ = ["install_otlp_metrics"]

# (create, OTel name, Prometheus family it observes, value type, unit, description)
_Instrument = tuple[Callable[..., object], str, str, Callable[[Any], float], str, str]


class _Cycle:
    """The metric families of the current collection cycle's snapshot, by Prometheus name."""

    def __init__(self, source: SnapshotSource) -> None:
        self._source = source
        self._families: dict[str, _Family] | None = None

    def refresh(self) -> dict[str, _Family]:
        families = {f.name: f for f in _collect(self._source.snapshot().data)}
        self._families = families  # one reference swap: readers see the old cycle or the new
        return families

    def current(self) -> dict[str, _Family]:
        families = self._families
        return families if families is not None else self.refresh()


def install_otlp_metrics(source: SnapshotSource, meter_provider: MeterProvider) -> Meter:
    """Register the agentcov observable instruments on `meter_provider`; returns the meter.

    Export goes wherever the provider's readers send it (e.g. `OTLPMetricExporter` behind a
    `PeriodicExportingMetricReader`). Counters report cumulative totals.
    """
    meter = meter_provider.get_meter("otel_agentcov")
    cycle = _Cycle(source)

    def callback(
        family: str, value: Callable[[Any], float], first: bool
    ) -> Callable[[CallbackOptions], Iterable[Observation]]:
        def observe(options: CallbackOptions) -> Iterable[Observation]:
            fam = (cycle.refresh() if first else cycle.current())[family]
            return [
                Observation(value(v), dict(zip(fam.labels, labels, strict=True)))
                for labels, v in fam.rows
            ]

        return observe

    gauge, counter = meter.create_observable_gauge, meter.create_observable_counter
    instruments: tuple[_Instrument, ...] = (
        (gauge, "agentcov.coverage.ratio", "agentcov_coverage_ratio", float, "1",
         "Coverage per agent and dimension."),
        (gauge, "agentcov.coverage.overall", "agentcov_coverage_overall_ratio", float, "1",
         "Geometric mean of the measured coverage dimensions."),
        (counter, "agentcov.restricted_tool.attempts", "agentcov_restricted_tool_attempts", int,
         "{attempt}", "Attempts to call a restricted tool, by outcome."),
        (counter, "agentcov.tool.calls", "agentcov_tool_calls", int, "{call}",
         "Tool calls by outcome."),
        (counter, "agentcov.runs", "agentcov_runs", int, "{run}", "Completed runs."),
        (gauge, "agentcov.gate.passed", "agentcov_gate_passed", int, "1",
         "1 when no restricted tool was attempted."),
        (counter, "agentcov.narrative.runs", "agentcov_narrative_runs", int, "{run}",
         "Runs whose story was checked, by result."),
        (counter, "agentcov.narrative.divergences", "agentcov_narrative_divergences", int,
         "{run}", "Runs whose story diverged from the trace, by tool and kind."),
        (counter, "agentcov.contract.checks", "agentcov_contract_checks", int, "{check}",
         "Contract behaviour verdicts on runs, by result."),
        (counter, "agentcov.version.runs", "agentcov_version_runs", int, "{run}",
         "Completed runs per agent version."),
        (gauge, "agentcov.version.verdict", "agentcov_version_verdict", int, "1",
         "A version against the one before it: 1 pass, 0 inconclusive, -1 fail."),
    )  # fmt: skip
    for index, (create, name, family, value, unit, description) in enumerate(instruments):
        # the first instrument's callback takes the cycle's snapshot; the others reuse it
        create(name, callbacks=[callback(family, value, first=index == 0)], unit=unit,
               description=description)
    return meter
