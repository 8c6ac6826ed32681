"""OpenTelemetry metrics for a Snapshot: observable instruments read at each collection.

The numbers are the Prometheus exporter's (docs/metrics.md): each instrument observes the rows of
one family of the metric table (`families.py`) that names an OTel-style dotted instrument.
One snapshot serves a whole collection cycle: the first instrument registered
(`agentcov.coverage.ratio`) takes it and every other callback of the same cycle reuses it (the
SDK calls a reader's observable callbacks in registration order); a callback that finds no
snapshot yet takes one itself.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from opentelemetry.metrics import CallbackOptions, Meter, MeterProvider, Observation

from .families import FAMILIES
from .prometheus import MeasuresSource, _collect, _Family

__all__ = ["install_otlp_metrics"]


class _Cycle:
    """The metric families of the current collection cycle's snapshot, by Prometheus name."""

    def __init__(self, source: MeasuresSource) -> None:
        self._source = source
        self._families: dict[str, _Family] | None = None

    def refresh(self) -> dict[str, _Family]:
        families = {f.name: f for f in _collect(self._source.measures())}
        self._families = families  # one reference swap: readers see the old cycle or the new
        return families

    def current(self) -> dict[str, _Family]:
        families = self._families
        return families if families is not None else self.refresh()


def install_otlp_metrics(source: MeasuresSource, meter_provider: MeterProvider) -> Meter:
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

    create = {"gauge": meter.create_observable_gauge, "counter": meter.create_observable_counter}
    instruments = [(f, f.otlp) for f in FAMILIES if f.otlp is not None]
    for index, (family, name) in enumerate(instruments):
        # the first instrument's callback takes the cycle's snapshot; the others reuse it
        value: Callable[[Any], float] = int if family.integer else float
        create[family.type](
            name, callbacks=[callback(family.name, value, first=index == 0)],
            unit=family.unit, description=family.help,
        )
    return meter
