"""What each recorded scenario did, per library (fixtures/record/*.py), as coverage should see it.

Written from the recorder scripts (which agent was asked to call which tool, what failed, who
handed over to whom), not copied from the output. `replay()` turns a fixture into the same shape.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from otel_agentcov.engine import CoverageEngine
from otel_agentcov.readers.otlp import records_from_json
from otel_agentcov.semconv import classify
from otel_agentcov.spec import CoverageSpec

FIXTURES = Path(__file__).parent / "fixtures"


@dataclass(frozen=True)
class A:
    """One agent's coverage state after the scenario: runs, tools (ok, error), models, ..."""

    runs: int = 1
    errors: int = 0
    llm: int = 1  # LLM calls counted for this agent (its own, not its callees')
    tools: dict[str, tuple[int, int]] = field(default_factory=dict)
    models: dict[str, int] = field(default_factory=dict)
    delegations: tuple[str, ...] = ()  # "from->to", once per occurrence
    boundaries: frozenset[str] = frozenset()


@dataclass(frozen=True)
class Scenario:
    agents: dict[str, A]
    error_types: frozenset[str] = frozenset()  # step-level error names, short class names
    spec: dict[str, Any] | None = None


def b(*names: str) -> frozenset[str]:
    return frozenset(names)


def replay_records(document: Any, where: str, spec: dict[str, Any] | None = None) -> Any:
    """Feed an OTLP/JSON document through the engine; returns (agents, error types, traces in
    flight before the final flush)."""
    engine = CoverageEngine(CoverageSpec.from_dict(spec) if spec else None)
    errors: set[str] = set()
    for record in records_from_json(document, where):
        step = classify(record)
        if step.error is not None and step.kind in ("llm", "tool", "agent"):
            errors.add(step.error)
        engine.ingest(record)
    in_flight = engine.assembler.traces_in_flight  # every run's root span was in the fixture
    engine.flush_all()
    agents = {
        name: A(
            runs=st.outcomes.runs,
            errors=st.outcomes.errors,
            llm=sum(n * st.diversity.path_tokens[key].count("llm")
                    for key, n in st.diversity.paths.items()),
            tools={t: (ok, err) for t, (ok, err) in st.inventory.tools.items()},
            models=dict(st.inventory.models),
            delegations=tuple(
                f"{src}->{dst}" for (src, dst), n in sorted(st.edges.delegations.items())
                for _ in range(n)
            ),
            boundaries=frozenset(st.edges.boundaries),
        )
        for name, st in engine.state.agents.items()
    }
    return agents, frozenset(errors), in_flight


def replay(library: str, scenario: str, spec: dict[str, Any] | None = None) -> Any:
    path = FIXTURES / library / f"{scenario}.json"
    return replay_records(json.loads(path.read_text()), str(path), spec)


# ------------------------------------------------------------------ per family

# The scripted models (fixtures/record/_common.py; pydantic-ai's FunctionModels follow the same
# script) make these two runs identical wherever the framework reports model names and the
# agent-as-tool is a plain `ask_billing` tool: one definition, so the frameworks must agree.
TWO_TOOLS = Scenario({"weather": A(
    llm=2, tools={"get_weather": (1, 0), "get_time": (1, 0)}, models={"weather-model": 2})})
AGENT_AS_TOOL = Scenario({
    "orchestrator": A(llm=2, tools={"ask_billing": (1, 0)}, models={"orchestrator-model": 2},
                      delegations=("orchestrator->billing",)),
    "billing": A(models={"billing-model": 1}),
})

OPENAI_V2 = {
    # the app runs the tool loop itself: openai-v2 emits chat spans only, no tool or agent spans,
    # so the steps count for the resource's service.name
    "two_tools": Scenario({"support-app": A(llm=2, models={"gpt-tools": 2})}),
    "http_500": Scenario(
        {"support-app": A(errors=1, models={"gpt-500": 1}, boundaries=b("error_path"))},
        b("InternalServerError"),
    ),
    "http_429": Scenario(
        {"support-app": A(errors=1, models={"gpt-429": 1}, boundaries=b("error_path"))},
        b("RateLimitError"),
    ),
    "timeout": Scenario(
        {"support-app": A(errors=1, models={"gpt-slow": 1},
                          boundaries=b("error_path", "timeout"))},
        b("APITimeoutError"),
    ),
}


def _openai_agents(tool_error: str) -> dict[str, Scenario]:
    """The same five runs through each bridge must give the same coverage."""
    return {
        "two_tools": TWO_TOOLS,
        "tool_error": Scenario(
            {"orders": A(llm=2, tools={"lookup_order": (0, 1)}, models={"orders-model": 2},
                         boundaries=b("tool_failure"))},  # non-fatal: the run recovers
            b(tool_error),
        ),
        "max_turns": Scenario(
            {"looper": A(errors=1, llm=2, tools={"get_weather": (2, 0)}, models={"loop-model": 2},
                         boundaries=b("max_steps", "error_path"))},
            b("_OTHER"),  # the agent span: "Max turns exceeded" is status text only
        ),
        "handoff": Scenario({
            "triage": A(models={"triage-model": 1}, delegations=("triage->billing",)),
            "billing": A(models={"billing-model": 1}),
        }),
        "agent_as_tool": AGENT_AS_TOOL,
    }


def _langgraph(tool_error: str) -> dict[str, Scenario]:
    # the fake chat model has no model name (Traceloop reports "unknown"): no models
    return {
        "two_tools": Scenario(
            {"weather": A(llm=2, tools={"get_weather": (1, 0), "get_time": (1, 0)})}),
        "tool_error": Scenario(
            {"orders": A(llm=2, tools={"lookup_order": (0, 1)}, boundaries=b("tool_failure"))},
            b(tool_error),
        ),
        # recursion_limit=4: create_react_agent answers "Sorry, need more steps" without any
        # error; only the spec's max_steps (LLM calls per run) can see the boundary
        "max_steps": Scenario(
            {"looper": A(llm=2, tools={"get_weather": (1, 0)}, boundaries=b("max_steps"))},
            spec={"version": 1, "defaults": {"boundaries": {"max_steps": 2}}},
        ),
        "agent_as_tool": Scenario({
            "orchestrator": A(llm=2, tools={"ask_billing": (1, 0)},
                              delegations=("orchestrator->billing",)),
            "billing": A(),
        }),
    }


STRANDS = {
    "two_tools": TWO_TOOLS,
    "tool_error": Scenario(  # ERROR + gen_ai.tool.status=error + exception event
        {"orders": A(llm=2, tools={"lookup_order": (0, 1)}, models={"orders-model": 2},
                     boundaries=b("tool_failure"))},
        b("RuntimeError"),
    ),
    # Swarm: `handoff_to_agent` (target only in its arguments), then billing's invoke_agent as
    # a sibling under invoke_swarm; the triage model answers once more after handing off
    "handoff": Scenario({
        "triage": A(llm=2, tools={"handoff_to_agent": (1, 0)}, models={"triage-model": 2},
                    delegations=("triage->billing",)),
        "billing": A(models={"billing-model": 1}),
    }),
    "agent_as_tool": AGENT_AS_TOOL,
}

ADK = {
    # parallel calls add the synthetic `execute_tool (merged)` span: not a third tool call
    "two_tools": TWO_TOOLS,
    # ADK re-raises the tool's exception: the run fails after one LLM call
    "tool_error": Scenario(
        {"orders": A(errors=1, tools={"lookup_order": (0, 1)}, models={"orders-model": 1},
                     boundaries=b("tool_failure", "error_path"))},
        b("RuntimeError"),
    ),
    # `transfer_to_agent`, then billing's invoke_agent as a sibling under invoke_workflow
    "handoff": Scenario({
        "triage": A(tools={"transfer_to_agent": (1, 0)}, models={"triage-model": 1},
                    delegations=("triage->billing",)),
        "billing": A(models={"billing-model": 1}),
    }),
    # AgentTool: the tool is named after the agent; billing's run nests under it
    "agent_as_tool": Scenario({
        "orchestrator": A(llm=2, tools={"billing": (1, 0)}, models={"orchestrator-model": 2},
                          delegations=("orchestrator->billing",)),
        "billing": A(models={"billing-model": 1}),
    }),
}

PYDANTIC_AI = {
    "two_tools": TWO_TOOLS,
    "tool_error": Scenario(  # an unexpected exception ends the run
        {"orders": A(errors=1, tools={"lookup_order": (0, 1)}, models={"orders-model": 1},
                     boundaries=b("tool_failure", "error_path"))},
        b("RuntimeError"),
    ),
    "tool_retry": Scenario(  # ModelRetry once, then the call succeeds and the model answers
        {"orders": A(llm=3, tools={"lookup_order": (1, 1)}, models={"orders-model": 3},
                     boundaries=b("tool_failure"))},
        b("ToolRetryError"),
    ),
    "max_steps": Scenario(  # UsageLimits(request_limit=2)
        {"looper": A(errors=1, llm=2, tools={"get_weather": (2, 0)}, models={"loop-model": 2},
                     boundaries=b("max_steps", "error_path"))},
        b("UsageLimitExceeded"),
    ),
    "agent_as_tool": AGENT_AS_TOOL,
}


EXPECTED: dict[str, dict[str, Scenario]] = {
    "openai_v2": OPENAI_V2,
    "openai_v2_legacy": OPENAI_V2,
    # OpenInference and contrib keep only the status text for tool errors; Traceloop too
    "openai_agents_openinference": _openai_agents("_OTHER"),
    "openai_agents_contrib": _openai_agents("_OTHER"),
    "openai_agents_traceloop": _openai_agents("_OTHER"),
    "langgraph_openinference": _langgraph("RuntimeError"),
    "langgraph_traceloop": _langgraph("RuntimeError"),
    "strands": STRANDS,
    "adk": ADK,
    "pydantic_ai": PYDANTIC_AI,
}
