"""`agentcov serve`: OTLP/gRPC + OTLP/HTTP receivers feeding one CoverageEngine, `/metrics`,
and durable state (journal + snapshots). Layout: intake (shared request handling), one module
per receiver, store + journal (durability), metrics (self-metrics), server (wiring)."""

from .server import ServeConfig, Service, run

__all__ = ["ServeConfig", "Service", "run"]
