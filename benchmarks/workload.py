"""A path-diverse agent workload for the ingestion benchmarks: one plan, two encodings.

The demo workload repeats a few hundred paths; coverage state grows with distinct paths, so the
ingestion and AgentAssay sections use random tool sequences instead: AGENTS agents, each with
TOOLS tools and three models, 3-5 turns of one model call then one or two tool calls (4 % fail).
With `granularity: tool` nearly every trace is a new path (~100 k distinct over 1 M spans).
Each plan is emitted as real SDK spans (GenAI conventions) or as an AgentAssay trial, so both
tools read the same traces.
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from opentelemetry import trace
from opentelemetry.trace import SpanKind, Status, StatusCode

AGENTS = [f"agent_{i}" for i in range(5)]
TOOLS = [f"tool_{i:02d}" for i in range(24)]
MODELS = ["gpt-4o", "gpt-4o-mini", "claude-sonnet-4-5"]
_EPOCH_NS = 1_735_689_600 * 10**9
_MS = 1_000_000


@dataclass
class Step:
    tool: str | None  # None: a model call
    model: str
    error: str | None
    duration_ms: float


@dataclass
class Plan:
    agent: str
    model: str
    steps: list[Step]
    failed: bool


def spec(max_depth: int = 10) -> dict[str, Any]:
    """The agentcov spec for this workload (paths by tool name, so sequences are distinct)."""
    return {
        "version": 1,
        "defaults": {"paths": {"granularity": "tool", "max_depth": max_depth}},
        "agents": [{"name": a, "tools": TOOLS, "models": MODELS} for a in AGENTS],
    }


def plans(seed: int, agents: list[str] = AGENTS) -> Iterator[Plan]:
    """An endless, seeded stream of traces."""
    rng = random.Random(seed)
    while True:
        model = rng.choice(MODELS)
        steps: list[Step] = []
        for _ in range(rng.randint(3, 5)):
            steps.append(Step(None, model, None, rng.uniform(300, 2500)))
            for tool in rng.sample(TOOLS, 2 if rng.random() < 0.25 else 1):
                error = "RuntimeError" if rng.random() < 0.04 else None
                steps.append(Step(tool, model, error, rng.uniform(20, 800)))
        yield Plan(rng.choice(agents), model, steps, failed=rng.random() < 0.03)


def emit(tracer: trace.Tracer, plan: Plan, now_ns: int) -> int:
    """The plan as SDK spans on a synthetic clock; returns the clock after the trace."""
    root_attrs = {"gen_ai.operation.name": "invoke_agent", "gen_ai.agent.name": plan.agent,
                  "gen_ai.request.model": plan.model}
    start = now_ns
    with tracer.start_as_current_span(f"invoke_agent {plan.agent}", attributes=root_attrs,
                                      start_time=start, end_on_exit=False) as root:
        for step in plan.steps:
            now_ns += _MS
            end = now_ns + int(step.duration_ms * _MS)
            if step.tool is None:
                attrs = {"gen_ai.operation.name": "chat", "gen_ai.request.model": step.model,
                         "gen_ai.response.model": step.model,
                         "gen_ai.usage.input_tokens": 800, "gen_ai.usage.output_tokens": 60}
                name, kind = f"chat {step.model}", SpanKind.CLIENT
            else:
                attrs = {"gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": step.tool,
                         "gen_ai.tool.type": "function"}
                name, kind = f"execute_tool {step.tool}", SpanKind.INTERNAL
            span = tracer.start_span(name, kind=kind, attributes=attrs, start_time=now_ns)
            if step.error:
                span.set_attribute("error.type", step.error)
                span.set_status(Status(StatusCode.ERROR, f"{step.tool} failed"))
            span.end(end_time=end)
            now_ns = end
        if plan.failed:
            root.set_attribute("error.type", "AgentError")
            root.set_status(Status(StatusCode.ERROR, "agent failed"))
        now_ns += _MS
        root.end(end_time=now_ns)
    return now_ns + 50 * _MS


def trial(plan: Plan, n: int) -> dict[str, Any]:
    """The plan as an AgentAssay TrialResult-shaped object (ExecutionTrace under `trace`)."""
    steps = [
        {"step_index": i, "action": "llm_response" if s.tool is None else "tool_call",
         "tool_name": s.tool, "model": s.model if s.tool is None else None,
         "duration_ms": round(s.duration_ms, 3),
         "metadata": {"error": s.error} if s.error else {}}
        for i, s in enumerate(plan.steps)
    ]
    total = round(sum(s.duration_ms for s in plan.steps) + 1, 3)
    return {
        "trial_id": f"trial-{n}",
        "passed": not plan.failed,
        "trace": {
            "trace_id": f"t{n}", "scenario_id": "bench", "steps": steps,
            "input_data": {}, "output_data": None, "success": not plan.failed,
            "error": "AgentError" if plan.failed else None, "total_duration_ms": total,
            "total_cost_usd": 0.0, "model": plan.model, "framework": "custom",
        },
    }
