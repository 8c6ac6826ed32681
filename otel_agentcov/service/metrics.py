"""Self-metrics of `agentcov serve`: receiver outcomes by reason and durable-state health."""

from __future__ import annotations

from collections.abc import Iterable, Iterator

from prometheus_client.metrics_core import CounterMetricFamily, GaugeMetricFamily, Metric
from prometheus_client.registry import Collector

from ..exporters import families as F
from .grpc_receiver import GRPC_CODES
from .intake import HTTP_STATUS, Intake

# every outcome a transport can count, so each series exists (at 0) from the first scrape;
# derived from the reason maps so a new refusal reason cannot be left out here
OUTCOMES = {"grpc": ("accepted", *GRPC_CODES), "http": ("accepted", *HTTP_STATUS)}
RECOVERY_REASONS = (
    "snapshot_unreadable", "journal_unreadable", "journal_corrupt", "journal_torn_tail",
    "journal_without_snapshot",
)


def _family(family: F.Family) -> CounterMetricFamily | GaugeMetricFamily:
    """An empty Metric of a table family, to add this scrape's samples to."""
    kind = CounterMetricFamily if family.type == "counter" else GaugeMetricFamily
    return kind(family.name, family.help, labels=list(family.labels))


class ServiceCollector(Collector):
    """Reads the intake's and the store's counters at scrape time."""

    def __init__(self, intake: Intake) -> None:
        self._intake = intake

    def collect(self) -> Iterable[Metric]:
        intake, store = self._intake, self._intake.store
        requests = _family(F.RECEIVER_REQUESTS)
        seen = {(t, o): 0 for t, outcomes in OUTCOMES.items() for o in outcomes}
        for (transport, outcome), n in sorted((seen | dict(intake.requests)).items()):
            requests.add_metric([transport, outcome], n)
        spans = _family(F.RECEIVER_SPANS)
        counted = {(t, o): 0 for t in OUTCOMES for o in ("accepted", "rejected")}
        for (transport, outcome), n in sorted((counted | dict(intake.spans)).items()):
            spans.add_metric([transport, outcome], n)
        recoveries = _family(F.STATE_RECOVERIES)
        for reason in sorted(set(RECOVERY_REASONS) | set(store.recoveries)):
            recoveries.add_metric([reason], store.recoveries.get(reason, 0))
        out = [requests, spans, recoveries]
        for family, value in (
            (F.STATE_COMPACTIONS, store.compactions), (F.JOURNAL_FSYNCS, store.fsyncs),
            (F.JOURNAL_BYTES, store.journal_bytes),
            (F.STATE_RECOVERY_SECONDS, store.recovery_seconds),
            (F.RECEIVER_INFLIGHT_BYTES, intake.inflight_bytes),
        ):
            metric = _family(family)
            metric.add_metric([], value)
            out.append(metric)
        return out

    def describe(self) -> Iterator[Metric]:
        return iter(())
