"""Exporters that publish a Snapshot: Prometheus exposition and OpenTelemetry metrics."""
