"""An in-house tracer's vocabulary, emitted through the real OpenTelemetry SDK: no built-in
convention reads it (docs/conventions.md maps it with `conventions:` entries)."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import ReadableSpan, Tracer, TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from opentelemetry.trace import Status, StatusCode

SCOPE = "acme.orchestrator"
SERVICE = "acme-svc"
CANARY = "do-not-report-7f3a"  # an attribute value: no report or explanation may show it


def acme_traffic(tracer: Tracer) -> None:
    """Two triage runs (one tool failing, one routing to billing), then billing's own run."""
    for failing in (False, True):
        with tracer.start_as_current_span("run", attributes={
            "acme.step": "agent", "acme.agent": "triage", "acme.note": CANARY,
        }):
            with tracer.start_as_current_span("complete", attributes={
                "acme.step": "completion", "acme.model": "acme-large",
                "acme.tokens.prompt": 12, "acme.tokens.reply": 5,
            }):
                pass
            with tracer.start_as_current_span("tool:lookup_order") as span:
                if failing:
                    span.set_attribute("acme.failure", "acme.errors.OrderMissing")
                    span.set_status(Status(StatusCode.ERROR))
            if failing:
                continue
            with tracer.start_as_current_span("route", attributes={
                "acme.step": "route", "acme.route.to": "billing",
            }):
                pass
    with tracer.start_as_current_span("run", attributes={"acme.step": "agent",
                                                          "acme.agent": "billing"}):
        with tracer.start_as_current_span("tool:refund"):
            pass


def finished_spans(traffic: Callable[[Tracer], None], scope: str = SCOPE,
                   service: str = SERVICE) -> Sequence[ReadableSpan]:
    """What `traffic` emits through a tracer of `scope`, as finished SDK spans."""
    exporter = InMemorySpanExporter()
    provider = TracerProvider(resource=Resource.create({"service.name": service}))
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    traffic(provider.get_tracer(scope))
    provider.shutdown()
    return exporter.get_finished_spans()


def acme_spans() -> Sequence[ReadableSpan]:
    """The traffic above as finished SDK spans."""
    return finished_spans(acme_traffic)
