"""A workload of spans and log records through the real OpenTelemetry SDK, measured by each front
door the event tests use: the in-process processor pair, the SDK's in-memory exporters (for
files), and the SDK's OTLP exporters aimed at an `agentcov serve`."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from opentelemetry import trace
from opentelemetry._logs import Logger
from opentelemetry.sdk._logs import LoggerProvider
from opentelemetry.sdk._logs.export import InMemoryLogRecordExporter, SimpleLogRecordProcessor
from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

from otel_agentcov import AgentCoverageProcessor, CoverageSpec, CoverageState

Workload = Callable[[trace.Tracer, Logger], None]


def _providers(resource: Resource) -> tuple[TracerProvider, LoggerProvider]:
    return TracerProvider(resource=resource), LoggerProvider(resource=resource)


def measured_in_process(spec: CoverageSpec, resource: Resource, workload: Workload
                        ) -> tuple[dict[str, Any], CoverageState]:
    """The report and state of the processor pair (spans and log records) after `workload`."""
    tracer_provider, logger_provider = _providers(resource)
    processor = AgentCoverageProcessor(spec)
    tracer_provider.add_span_processor(processor)
    logger_provider.add_log_record_processor(processor.log_processor())
    workload(tracer_provider.get_tracer("t"), logger_provider.get_logger("t"))
    processor.force_flush()
    report = processor.snapshot().to_dict()
    state = processor.engine.state
    processor.shutdown()
    return report, state


def recorded(resource: Resource, workload: Workload
             ) -> tuple[InMemorySpanExporter, InMemoryLogRecordExporter]:
    """The spans and log records `workload` made, as the SDK's in-memory exporters hold them."""
    tracer_provider, logger_provider = _providers(resource)
    spans, logs = InMemorySpanExporter(), InMemoryLogRecordExporter()
    tracer_provider.add_span_processor(SimpleSpanProcessor(spans))
    logger_provider.add_log_record_processor(SimpleLogRecordProcessor(logs))
    workload(tracer_provider.get_tracer("t"), logger_provider.get_logger("t"))
    return spans, logs


def otlp_exporters(service: Any, transport: str) -> tuple[Any, Any]:
    """The SDK's OTLP log and span exporters (protobuf) aimed at a running `agentcov serve`."""
    if transport == "grpc":
        from opentelemetry.exporter.otlp.proto.grpc._log_exporter import OTLPLogExporter
        from opentelemetry.exporter.otlp.proto.grpc.trace_exporter import OTLPSpanExporter

        target = f"127.0.0.1:{service.config.otlp_grpc}"
        return (OTLPLogExporter(endpoint=target, insecure=True),
                OTLPSpanExporter(endpoint=target, insecure=True))
    from opentelemetry.exporter.otlp.proto.http._log_exporter import (
        OTLPLogExporter as HttpLogExporter,
    )
    from opentelemetry.exporter.otlp.proto.http.trace_exporter import (
        OTLPSpanExporter as HttpSpanExporter,
    )

    base = f"http://127.0.0.1:{service.config.otlp_http}"
    return (HttpLogExporter(endpoint=f"{base}/v1/logs"),
            HttpSpanExporter(endpoint=f"{base}/v1/traces"))
