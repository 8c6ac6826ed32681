"""`agentcov serve --evaluations-otlp-endpoint`: the evaluation events of the runs it judges, sent
as OTLP/HTTP logs (protobuf) to a Collector or backend (docs/evaluations.md).

The engine fills a bounded `EvaluationQueue` as runs fold; this thread takes batches from it and
sends each with the SDK's OTLP/HTTP log exporter, which retries transient failures (429, 502-504,
connection errors) with exponential backoff within its timeout. A batch that still fails is
dropped and counted (`export_failed`), as is what overflows the queue while sends are slow
(`queue_full`): both are in `/metrics` (`agentcov_evaluation_events_total`).
"""

from __future__ import annotations

import threading
from urllib.parse import urlsplit, urlunsplit

from ..evaluations import Encoder, EvaluationQueue

BATCH = 512  # records a request
LOGS_PATH = "/v1/logs"


def logs_url(url: str) -> str:
    """The logs endpoint of `url`: as given, or with /v1/logs when it names no path; ValueError
    (one line) when it is not an http(s) URL."""
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise ValueError(f"--evaluations-otlp-endpoint {url!r}: not an http:// or https:// URL")
    if parts.path in ("", "/"):
        parts = parts._replace(path=LOGS_PATH)
    return urlunsplit(parts)


class EvaluationSender:
    """Every `interval_s`, sends what the queue holds, `BATCH` records a request."""

    def __init__(
        self, queue: EvaluationQueue, endpoint: str, *, token: str | None = None,
        ca_file: str | None = None, timeout_s: float = 10.0, interval_s: float = 1.0,
    ) -> None:
        from opentelemetry.exporter.otlp.proto.http._log_exporter import OTLPLogExporter

        self.queue = queue
        headers = {"Authorization": f"Bearer {token}"} if token else None
        self._exporter = OTLPLogExporter(endpoint=logs_url(endpoint), certificate_file=ca_file,
                                         headers=headers, timeout=timeout_s)
        self._encoder = Encoder()
        self._interval_s = interval_s
        self._stopping = threading.Event()
        self._thread = threading.Thread(target=self._run, name="agentcov-evaluations",
                                        daemon=True)

    def start(self) -> None:
        self._thread.start()

    def _run(self) -> None:
        while not self._stopping.wait(self._interval_s):
            self._send_queued()
        self._send_queued()  # what the last folds queued

    def _send_queued(self) -> None:
        from opentelemetry.sdk._logs.export import LogRecordExportResult

        while batch := self.queue.take(BATCH):
            try:
                ok = self._exporter.export(
                    self._encoder.readable(batch)) is LogRecordExportResult.SUCCESS
            except Exception:  # noqa: BLE001 - a failed send is a counted drop, never fatal
                ok = False
            self.queue.count(None if ok else "export_failed", len(batch))

    def stop(self, timeout_s: float) -> None:
        """Send what is queued for at most `timeout_s`, then shut the exporter down (OTel's
        shutdown: its retries end at once, later exports fail fast) and count what was not
        sent as `shutdown`. A send still in flight is left to its daemon thread: shutdown
        never waits past its budget for a slow or silent sink."""
        self._stopping.set()
        if self._thread.is_alive():
            self._thread.join(timeout_s)
        self._exporter.shutdown()  # type: ignore[no-untyped-call]
        left = self.queue.take()
        if left:
            self.queue.count("shutdown", len(left))
