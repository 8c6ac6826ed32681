"""Self-metrics of `agentcov serve`: receiver outcomes by reason and durable-state health."""

from __future__ import annotations

from collections.abc import Iterable, Iterator

from prometheus_client.metrics_core import CounterMetricFamily, GaugeMetricFamily, Metric
from prometheus_client.registry import Collector

from .grpc_receiver import GRPC_CODES
from .intake import HTTP_STATUS, Intake

# every outcome a transport can count, so each series exists (at 0) from the first scrape;
# derived from the reason maps so a new refusal reason cannot be left out here
OUTCOMES = {"grpc": ("accepted", *GRPC_CODES), "http": ("accepted", *HTTP_STATUS)}
RECOVERY_REASONS = (
    "snapshot_unreadable", "journal_unreadable", "journal_corrupt", "journal_torn_tail",
    "journal_without_snapshot",
)


class ServiceCollector(Collector):
    """Reads the intake's and the store's counters at scrape time."""

    def __init__(self, intake: Intake) -> None:
        self._intake = intake

    def collect(self) -> Iterable[Metric]:
        intake, store = self._intake, self._intake.store
        requests = CounterMetricFamily(
            "agentcov_receiver_requests", "OTLP export requests by transport and outcome.",
            labels=["transport", "outcome"],
        )
        seen = {(t, o): 0 for t, outcomes in OUTCOMES.items() for o in outcomes}
        for (transport, outcome), n in sorted((seen | dict(intake.requests)).items()):
            requests.add_metric([transport, outcome], n)
        spans = CounterMetricFamily(
            "agentcov_receiver_spans", "Spans received, accepted or rejected (partial success).",
            labels=["transport", "outcome"],
        )
        counted = {(t, o): 0 for t in OUTCOMES for o in ("accepted", "rejected")}
        for (transport, outcome), n in sorted((counted | dict(intake.spans)).items()):
            spans.add_metric([transport, outcome], n)
        recoveries = CounterMetricFamily(
            "agentcov_state_recoveries", "State files set aside or repaired at start, by reason.",
            labels=["reason"],
        )
        for reason in sorted(set(RECOVERY_REASONS) | set(store.recoveries)):
            recoveries.add_metric([reason], store.recoveries.get(reason, 0))
        compactions = CounterMetricFamily(
            "agentcov_state_compactions", "Snapshots written (journal folded in)."
        )
        compactions.add_metric([], store.compactions)
        fsyncs = CounterMetricFamily("agentcov_journal_fsyncs", "Journal fsyncs (group commits).")
        fsyncs.add_metric([], store.fsyncs)
        journal = GaugeMetricFamily("agentcov_journal_bytes", "Size of the journal since the "
                                    "last snapshot.")
        journal.add_metric([], store.journal_bytes)
        inflight = GaugeMetricFamily(
            "agentcov_receiver_inflight_bytes", "Request bytes held in memory now (wire + "
            "inflated), against --max-inflight-bytes."
        )
        inflight.add_metric([], intake.inflight_bytes)
        recovery = GaugeMetricFamily(
            "agentcov_state_recovery_seconds", "Time the last start took to restore state."
        )
        recovery.add_metric([], store.recovery_seconds)
        return [requests, spans, recoveries, compactions, fsyncs, journal, recovery, inflight]

    def describe(self) -> Iterator[Metric]:
        return iter(())
