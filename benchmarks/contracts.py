"""Per-span cost of behaviour contracts: classify + assemble + judge + fold, in process.

The same real SDK spans (a support agent: input/output messages on the agent and chat spans,
arguments on every tool span) go through a CoverageEngine under three specs: no contracts,
docs/contracts.md's refund policy without content detectors (ordering and counts only), and the full
policy (an `output` regex and an `args` selector, so classify also reads content). CPU time
per span, median over rounds, interleaved so machine noise hits every spec alike.
"""

from __future__ import annotations

import json
import time
from typing import Any

from harness import Row, Section
from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

from otel_agentcov.engine import CoverageEngine
from otel_agentcov.records import SpanRecord, from_readable_span
from otel_agentcov.spec import CoverageSpec

RUNS = 2000
ORDER = {"behavior": "verifies", "before": {"first": "verify_customer", "then": "issue_refund"},
         "severity": "critical"}
COUNT = {"behavior": "one_refund", "calls": {"tool": "issue_refund", "max": 1}}
SEQUENCE = {"behavior": "exfiltration", "sequence": {"tools": ["read_secrets", "http_*"]}}
OUTPUT = {"behavior": "leaks", "output": {"regex": "ACCT-[0-9]{8}"}, "severity": "critical"}
ARGS = {"behavior": "big_refund", "called": {"tool": "issue_refund",
                                              "args": {"amount": "^[0-9]{4,}$"}}}


def spec(must: list[Any], must_not: list[Any]) -> CoverageSpec:
    """No `contracts:` key at all when there are none, so a pre-contracts checkout reads it."""
    entry: dict[str, Any] = {"name": "support"}
    if must or must_not:
        entry["contracts"] = [{"name": "refund_policy", "when": {"called": "issue_refund"},
                               "must": must, "must_not": must_not}]
    return CoverageSpec.from_dict({"version": 1, "agents": [entry]})


def specs() -> dict[str, CoverageSpec]:
    return {
        "no contracts": spec([], []),
        "contracts, no content detector": spec([ORDER, COUNT], [SEQUENCE]),
        "contracts with output + args detectors": spec([ORDER, COUNT], [SEQUENCE, OUTPUT, ARGS]),
    }


def _text(role: str, text: str) -> str:
    return json.dumps([{"role": role, "parts": [{"type": "text", "content": text}]}])


def records() -> list[SpanRecord]:
    """RUNS support-agent runs as SpanRecords from the real SDK (converted once, up front)."""
    exporter = InMemorySpanExporter()
    provider = TracerProvider(resource=Resource.create({"service.name": "support"}))
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    tracer = provider.get_tracer("bench")
    for i in range(RUNS):
        user = _text("user", f"please refund order {i} " + "x" * 200)
        answer = _text("assistant", f"Sorry, refund {i} issued. " + "y" * 400)
        with tracer.start_as_current_span("invoke_agent support", attributes={
            "gen_ai.operation.name": "invoke_agent", "gen_ai.agent.name": "support",
            "gen_ai.input.messages": user, "gen_ai.output.messages": answer,
        }):
            for tool in ("verify_customer", "issue_refund", "search_kb")[: 1 + i % 3]:
                with tracer.start_as_current_span("chat m", attributes={
                    "gen_ai.operation.name": "chat", "gen_ai.request.model": "m",
                    "gen_ai.input.messages": user, "gen_ai.output.messages": answer,
                    "gen_ai.usage.input_tokens": 100, "gen_ai.usage.output_tokens": 20,
                }):
                    pass
                with tracer.start_as_current_span(f"execute_tool {tool}", attributes={
                    "gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": tool,
                    "gen_ai.tool.call.arguments": json.dumps({"amount": 20 * i, "order": i}),
                }):
                    pass
    provider.shutdown()
    return [from_readable_span(s) for s in exporter.get_finished_spans()]


def cpu_ns_per_span(spec: CoverageSpec, recs: list[SpanRecord]) -> float:
    engine = CoverageEngine(spec)
    start = time.process_time_ns()
    for rec in recs:
        engine.ingest(rec)
    engine.flush_all()
    elapsed = time.process_time_ns() - start
    assert engine.counters.internal_errors == 0
    return elapsed / len(recs)


def section(rounds: int) -> Section:
    recs = records()
    variants = specs()
    samples: dict[str, list[float]] = {name: [] for name in variants}
    for _ in range(max(rounds, 3)):
        for name, variant in variants.items():
            samples[name].append(cpu_ns_per_span(variant, recs))
    base = samples["no contracts"]
    rows = [Row(f"{name}: CPU per span", s, "ns/span") for name, s in samples.items()]
    rows += [
        Row("contracts without content / no contracts",
            [a / b for a, b in zip(samples["contracts, no content detector"], base, strict=True)],
            "ratio"),
        Row("contracts with content / no contracts",
            [a / b for a, b in zip(samples["contracts with output + args detectors"], base,
                                   strict=True)], "ratio"),
    ]
    notes = [
        f"{len(recs):,} spans ({RUNS:,} runs: agent span, 1-3 chat + tool pairs; ~0.2-0.4 KB "
        "of messages per LLM/agent span, JSON arguments per tool span) through "
        "CoverageEngine.ingest + flush_all; CPU time of the loop only.",
    ]
    return Section("Behaviour contracts (in process, per span)", rows, notes)
