"""What each recorded scenario did, per library (fixtures/record/*.py), as coverage should see it.

Written from the recorder scripts (which agent was asked to call which tool, what failed, who
handed over to whom), not copied from the output. `replay()` turns a fixture into the same shape.
"""

from __future__ import annotations

import importlib.util
import json
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import yaml

from otel_agentcov import engine as engine_module
from otel_agentcov.engine import CoverageEngine
from otel_agentcov.explain import pinned_spec
from otel_agentcov.readers.otlp import in_end_order, records_from_json
from otel_agentcov.records import SpanRecord
from otel_agentcov.semconv import Classifier
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
    open_traces: int = 0  # traces whose root span the instrumentation never ended


def b(*names: str) -> frozenset[str]:
    return frozenset(names)


@contextmanager
def tables_off() -> Iterator[None]:
    """Inside it, engines and `replay_records` classify without the built-in tables: what
    inference alone reads (benchmarks/inference.py, tests/test_inference.py)."""
    global Classifier
    original = Classifier

    def without_tables(conventions: Any = (), **kw: Any) -> Classifier:
        return original(conventions, builtin_tables=False, **kw)

    Classifier = engine_module.Classifier = without_tables  # type: ignore[attr-defined,misc,assignment]
    try:
        yield
    finally:
        Classifier = engine_module.Classifier = original  # type: ignore[attr-defined,misc]


def explain_pins(paths: list[Path]) -> list[Any]:
    """The `conventions:` entries `agentcov explain --write` pins for these files, the built-in
    tables off (what inference alone read)."""
    with tables_off():
        engine = CoverageEngine(CoverageSpec.empty(), shapes=True)
        for path in paths:
            for record in in_end_order(records_from_json(json.loads(path.read_text()),
                                                         str(path))):
                engine.ingest(record)
        engine.flush_all()
        pinned = yaml.safe_load(pinned_spec(engine))
    CoverageSpec.from_dict(pinned)  # the file loads as it is
    return list(pinned.get("conventions") or [])


def replay_records(document: Any, where: str, spec: dict[str, Any] | None = None) -> Any:
    """Feed an OTLP/JSON document through the engine, in the order the readers use; returns
    (agents, error types, traces in flight before the final flush)."""
    return replay_in_order(in_end_order(records_from_json(document, where)), spec)


def replay_in_order(records: list[SpanRecord], spec: dict[str, Any] | None = None) -> Any:
    """`replay_records` for records already in the order they are to be ingested."""
    parsed = CoverageSpec.from_dict(spec) if spec else None
    engine = CoverageEngine(parsed)
    classify = Classifier(parsed.conventions if parsed else ()).classify  # as the engine does
    errors: set[str] = set()
    for record in records:
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
# The app-written tool loop (fixtures/record/_app_loop.py TracedApp, the held-out sets' app-level
# stacks): a raising tool's error goes back to the model, which answers (two model calls); the
# HTTP 500 fails the run on its first call; `handoff` runs triage, whose `transfer_to_billing`
# tool only answers, then billing, in one request.
APP_LOOP = {
    "two_tools": TWO_TOOLS,
    "tool_error": Scenario(
        {"orders": A(llm=2, tools={"lookup_order": (0, 1)}, models={"orders-model": 2},
                     boundaries=b("tool_failure"))}),
    "agent_as_tool": AGENT_AS_TOOL,
    "handoff": Scenario({
        "triage": A(llm=2, tools={"transfer_to_billing": (1, 0)}, models={"triage-model": 2},
                    delegations=("triage->billing",)),
        "billing": A(models={"billing-model": 1}),
    }),
    "http_500": Scenario(
        {"weather": A(errors=1, models={"gpt-500": 1}, boundaries=b("error_path"))}),
}
# The same app for a stack that does not hand a raising tool's error back to the model: lookup_order
# fails the orders run after its first model call.
APP_LOOP_TOOL_ERROR_FAILS = {**APP_LOOP, "tool_error": Scenario(
    {"orders": A(errors=1, tools={"lookup_order": (0, 1)}, models={"orders-model": 1},
                 boundaries=b("tool_failure", "error_path"))})}


def with_models(scenarios: dict[str, Scenario], spell: str) -> dict[str, Scenario]:
    """`scenarios` with every model name spelled as the app named it (`spell` formats it: a
    held-out stack that names models through a router, `openai/<model>`)."""
    return {name: replace(s, agents={agent: replace(a, models={
        spell.format(m): n for m, n in a.models.items()}) for agent, a in s.agents.items()})
        for name, s in scenarios.items()}


def without_models(scenarios: dict[str, Scenario]) -> dict[str, Scenario]:
    """`scenarios` with no model name expected for any agent: for a held-out stack whose spans
    never name the model a call was made with in an attribute of its own (nothing can tell it)."""
    return {name: replace(s, agents={agent: replace(a, models={})
                                     for agent, a in s.agents.items()})
            for name, s in scenarios.items()}


def without_tools(scenarios: dict[str, Scenario]) -> dict[str, Scenario]:
    """`scenarios` with no tool call (nor `tool_failure`) expected for any agent: for a held-out
    stack that spans no tool call of its own (nothing executed can count them)."""
    return {name: replace(s, agents={agent: replace(a, tools={}, boundaries=a.boundaries - {
        "tool_failure"}) for agent, a in s.agents.items()}) for name, s in scenarios.items()}


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

# an app-written tool loop over the OpenAI client (fixtures/record/record_openai.py); with
# OpenInference the app marks its agents and tools with OpenInference's tracer decorators
OPENAI_OPENINFERENCE = {
    "two_tools": TWO_TOOLS,
    "streaming": TWO_TOOLS,
    "tool_error": Scenario(  # the app catches the error and sends it back as the tool result
        {"orders": A(llm=2, tools={"lookup_order": (0, 1)}, models={"orders-model": 2},
                     boundaries=b("tool_failure"))},
        b("RuntimeError"),
    ),
    "http_500": Scenario(  # the failed call's model comes from its invocation parameters
        {"weather": A(errors=1, models={"gpt-500": 1}, boundaries=b("error_path"))},
        b("InternalServerError"),
    ),
    "agent_as_tool": AGENT_AS_TOOL,
    # triage's `transfer_to_billing` tool, then the app runs billing as triage's sibling
    "handoff": Scenario({
        "triage": A(llm=2, tools={"transfer_to_billing": (1, 0)}, models={"triage-model": 2},
                    delegations=("triage->billing",)),
        "billing": A(models={"billing-model": 1}),
    }),
}

# Traceloop's OpenAI instrumentation alone: chat spans under the app's request span, so the
# steps count for the resource's service.name
_APP_TWO_CALLS = Scenario({"support-app": A(llm=2, models={"weather-model": 2})})
OPENAI_TRACELOOP = {
    "two_tools": _APP_TWO_CALLS,
    "streaming": _APP_TWO_CALLS,
    "http_500": Scenario(
        {"support-app": A(errors=1, models={"gpt-500": 1}, boundaries=b("error_path"))},
        b("InternalServerError"),
    ),
}

# the same app loop over the Anthropic Messages API (`tool_use` blocks), Traceloop's instrumentation
ANTHROPIC_TRACELOOP = {
    **OPENAI_TRACELOOP,
    "http_500": Scenario(
        {"support-app": A(errors=1, models={"claude-500": 1}, boundaries=b("error_path"))},
        b("InternalServerError"),
    ),
}

# OpenAI Agents SDK (OpenInference bridge) with its tools on a stdio MCP server: the SDK's tool
# span, mcp's `MCP send tools/call X` and the server's `tools/call X` are one call; listings
# (`mcp_tools`, `tools/list`) are not calls; the server process is not an agent
MCP = {
    "two_tools": TWO_TOOLS,
    # the server raised: an `isError` result, marked only on the server's span (`tool_error`);
    # the SDK hands the text to the model, which answers
    "tool_error": Scenario(
        {"orders": A(llm=2, tools={"lookup_order": (0, 1)}, models={"orders-model": 2},
                     boundaries=b("tool_failure"))},
        b("tool_error"),
    ),
    "max_turns": _openai_agents("_OTHER")["max_turns"],
    "http_500": Scenario(  # the bridge keeps only the status text
        {"weather": A(errors=1, models={"gpt-500": 1}, boundaries=b("error_path"))},
        b("_OTHER"),
    ),
}

# Logfire (send_to_logfire=False) instrumenting pydantic-ai over the OpenAI client: pydantic-ai's
# `chat m` span holds Logfire's `Chat Completion with ...` span (one call, counted once); when
# streaming, Logfire's `streaming response ... took` log records repeat the call's GenAI
# attributes and are not calls. The Agents SDK runs (`agents_*`) are Logfire's own rendering.
_LOGFIRE_AGENTS = _openai_agents("_OTHER")
LOGFIRE = {
    "two_tools": TWO_TOOLS,
    "streaming": TWO_TOOLS,
    "tool_error": PYDANTIC_AI["tool_error"],
    "max_steps": PYDANTIC_AI["max_steps"],
    "http_500": Scenario(  # pydantic-ai wraps the client's error in its own
        {"weather": A(errors=1, models={"gpt-500": 1}, boundaries=b("error_path"))},
        b("ModelServerError", "InternalServerError"),
    ),
    "agent_as_tool": AGENT_AS_TOOL,
    "agents_two_tools": TWO_TOOLS,
    "agents_tool_error": _LOGFIRE_AGENTS["tool_error"],
    # the `error` attribute's message says "Max turns exceeded"
    "agents_max_turns": _LOGFIRE_AGENTS["max_turns"],
    "agents_handoff": _LOGFIRE_AGENTS["handoff"],  # a `Handoff: triage → billing` span
    "agents_agent_as_tool": AGENT_AS_TOOL,
}

# OpenLIT over the OpenAI client (app-written loop: chat spans only) and the Agents SDK (its
# `chat` spans sit in nameless per-turn `invoke_agent` wrappers; the hand-off is an
# `invoke_agent billing` span naming `gen_ai.agent.source`; error.type holds the message)
_OPENLIT_AGENTS = _openai_agents("_OTHER")
OPENLIT = {
    "two_tools": _APP_TWO_CALLS,
    "streaming": _APP_TWO_CALLS,
    "http_500": OPENAI_TRACELOOP["http_500"],
    "agents_two_tools": TWO_TOOLS,
    "agents_tool_error": _OPENLIT_AGENTS["tool_error"],
    "agents_max_turns": _OPENLIT_AGENTS["max_turns"],  # status text "Max turns exceeded"
    "agents_handoff": _OPENLIT_AGENTS["handoff"],
    "agents_agent_as_tool": AGENT_AS_TOOL,
}

# Vercel AI SDK 7 (Node), generateText/streamText with multi-step tools, through @ai-sdk/otel's
# `OpenTelemetry` (GenAI shapes, agent named by functionId; the span name says the model id) and
# `LegacyOpenTelemetry` (`ai.*` operations). The SDK writes its spans after the fact, so a
# sub-agent run inside a tool starts its own trace: no orchestrator -> billing edge to see.
VERCEL_AI = {
    "two_tools": TWO_TOOLS,
    "streaming": TWO_TOOLS,
    "tool_error": Scenario(  # the error goes back to the model as the tool's result
        {"orders": A(llm=2, tools={"lookup_order": (0, 1)}, models={"orders-model": 2},
                     boundaries=b("tool_failure"))},
        b("Error"),
    ),
    # stopWhen: stepCountIs(2) ends the run without an error; its last finish reason is
    # `tool-calls`, i.e. the model still wanted tools
    "max_steps": Scenario(
        {"looper": A(llm=2, tools={"get_weather": (2, 0)}, models={"loop-model": 2},
                     boundaries=b("max_steps"))}),
    "http_500": Scenario(
        {"weather": A(errors=1, models={"gpt-500": 1}, boundaries=b("error_path"))},
        b("AI_APICallError"),
    ),
    "agent_as_tool": Scenario({
        "orchestrator": A(llm=2, tools={"ask_billing": (1, 0)}, models={"orchestrator-model": 2}),
        "billing": A(models={"billing-model": 1}),
    }),
    # no functionId: the span says `invoke_agent weather-model`, which names no agent, so the
    # run counts for the resource's service.name
    "anonymous": Scenario({"vercel-app": A(
        llm=2, tools={"get_weather": (1, 0), "get_time": (1, 0)}, models={"weather-model": 2})}),
}

# Mastra (Node) through @mastra/observability's OpenTelemetry exporter: GenAI shapes plus its
# own operations (`model_generation`, `agent_step`, `model_chunk`: not calls). maxSteps ends the
# run silently (the last model turn asked for tools); errors say `error.type=unknown`, the
# exception event names the type. The agent-as-tool passes its tracing context on.
MASTRA = {
    **{name: VERCEL_AI[name] for name in ("two_tools", "streaming", "tool_error", "max_steps")},
    "http_500": Scenario(
        {"weather500": A(errors=1, models={"gpt-500": 1}, boundaries=b("error_path"))},
        b("Error"),
    ),
    "agent_as_tool": AGENT_AS_TOOL,
    # a supervisor's `agents: { billing }`: Mastra's `agent-billing` tool runs billing inside it
    "sub_agents": Scenario({
        "supervisor": A(llm=2, tools={"agent-billing": (1, 0)}, models={"supervisor-model": 2},
                        delegations=("supervisor->billing",)),
        "billing": A(models={"billing-model": 1}),
    }),
}



SMOLAGENTS = {
    # `final_answer` (how a ToolCallingAgent answers) is no tool call
    "two_tools": TWO_TOOLS,
    "streaming": TWO_TOOLS,
    # the tool's error goes back to the model, which answers next step
    "tool_error": Scenario(
        {"orders": A(llm=2, tools={"lookup_order": (0, 1)}, models={"orders-model": 2},
                     boundaries=b("tool_failure"))},
        b("RuntimeError"),
    ),
    # max_steps=2: two steps, then one answer call past the budget; no error anywhere
    "max_steps": Scenario(
        {"looper": A(llm=3, tools={"get_weather": (2, 0)}, models={"loop-model": 3},
                     boundaries=b("max_steps"))}),
    # the managed agent's run nests straight under the manager's step (no tool span)
    "managed_agent": Scenario({
        "orchestrator": A(llm=2, models={"orchestrator-model": 2},
                          delegations=("orchestrator->billing",)),
        "billing": A(models={"billing-model": 1}),
    }),
    # the failed run's `<agent>.run` span is never ended (the run raises past the wrapper):
    # its step and model spans are all there is, so they count for service.name; a failed
    # model span carries no model name
    "http_500": Scenario(
        {"smolagents-app": A(errors=1, boundaries=b("error_path"))},
        b("InternalServerError"),
        open_traces=1,
    ),
}


LLAMA_INDEX = {
    # no agent spans: `setup_agent` steps (the name read from their input event) start turns;
    # `achat` inside `achat` and `_prepare_chat_with_tools` are one model call
    "two_tools": TWO_TOOLS,
    "not_streaming": TWO_TOOLS,
    "tool_error": Scenario(  # the error goes back to the model, which answers
        {"orders": A(llm=2, tools={"lookup_order": (0, 1)}, models={"orders-model": 2},
                     boundaries=b("tool_failure"))},
        b("RuntimeError"),
    ),
    # max_iterations=2: the workflow raises "Max iterations of 2 reached!" on its root span
    "max_iterations": Scenario(
        {"looper": A(errors=1, llm=2, tools={"get_weather": (1, 0)}, models={"loop-model": 2},
                     boundaries=b("max_steps", "error_path"))},
    ),  # no step-level error: the failure is the workflow's, which fails looper's run
    # AgentWorkflow: the `handoff` tool, then billing's turn under the same workflow span
    "handoff": Scenario({
        "triage": A(tools={"handoff": (1, 0)}, models={"triage-model": 1},
                    delegations=("triage->billing",)),
        "billing": A(models={"billing-model": 1}),
    }),
    "agent_as_tool": AGENT_AS_TOOL,
    "http_500": Scenario(
        {"weather": A(errors=1, models={"broken-model": 1}, boundaries=b("error_path"))},
        b("InternalServerError"),
    ),
}



# LlamaIndex with inputs hidden: no turn names any agent, so nothing is guessed: the work counts
# for service.name (and the hand-off has no target to name)
LLAMA_INDEX_HIDDEN_INPUTS = {
    "two_tools": Scenario({"llama-index-app": TWO_TOOLS.agents["weather"]}),
    "handoff": Scenario({"llama-index-app": A(
        llm=2, tools={"handoff": (1, 0)}, models={"triage-model": 1, "billing-model": 1})}),
}

# CrewAI: agents are roles; the crew's kickoff is a workflow; "Delegate work to coworker" names
# its coworker only in its arguments. The default wrappers emit no model spans (no models, no
# LLM counts) and no span for the coworker's work; the event listener has both, with errors as
# status only (`_OTHER`). `max_iter` is signalled by neither: at the limit CrewAI asks for a
# final answer (a third model call for max_iter=2), so only the spec's max_steps sees it.
CREWAI = {
    "two_tools": Scenario(
        {"weather": A(llm=0, tools={"get_weather": (1, 0), "get_time": (1, 0)})}),
    "streaming": Scenario(
        {"weather": A(llm=0, tools={"get_weather": (1, 0), "get_time": (1, 0)})}),
    "tool_error": Scenario(
        {"orders": A(llm=0, tools={"lookup_order": (0, 1)}, boundaries=b("tool_failure"))},
        b("RuntimeError"),
    ),
    "max_iter": Scenario({"looper": A(llm=0, tools={"get_weather": (2, 0)})}),
    "delegation": Scenario({"triage": A(
        llm=0, tools={"Delegate work to coworker": (1, 0)}, delegations=("triage->billing",))}),
    # the manager agent CrewAI creates for a hierarchical crew is named "Crew Manager"
    "hierarchical": Scenario({"Crew Manager": A(
        llm=0, tools={"Delegate work to coworker": (1, 0)},
        delegations=("Crew Manager->billing",))}),
    # CrewAI retries a failed task inside one `_execute_core`
    "http_500": Scenario({"weather": A(errors=1, llm=0, boundaries=b("error_path"))},
                         b("InternalServerError")),
}
CREWAI_EVENTS = {
    "two_tools": TWO_TOOLS,
    "streaming": TWO_TOOLS,
    "tool_error": Scenario(
        {"orders": A(llm=2, tools={"lookup_order": (0, 1)}, models={"orders-model": 2},
                     boundaries=b("tool_failure"))},
        b("_OTHER"),
    ),
    "max_iter": Scenario(
        {"looper": A(llm=3, tools={"get_weather": (2, 0)}, models={"loop-model": 3},
                     boundaries=b("max_steps"))},
        spec={"version": 1, "defaults": {"boundaries": {"max_steps": 3}}},
    ),
    # the coworker's run nests under the delegate tool: one edge, not two
    "delegation": Scenario({
        "triage": A(llm=2, tools={"delegate_work_to_coworker": (1, 0)},
                    models={"triage-model": 2}, delegations=("triage->billing",)),
        "billing": A(models={"billing-model": 1}),
    }),
    "hierarchical": Scenario({
        "Crew Manager": A(llm=2, tools={"delegate_work_to_coworker": (1, 0)},
                          models={"triage-model": 2}, delegations=("Crew Manager->billing",)),
        "billing": A(models={"billing-model": 1}),
    }),
    # each of CrewAI's three attempts at the task is its own agent span
    "http_500": Scenario(
        {"weather": A(runs=3, errors=3, llm=3, models={"broken-model": 3},
                      boundaries=b("error_path"))},
        b("_OTHER"),
    ),
}


# AutoGen AgentChat: GenAI `invoke_agent`/`execute_tool` spans, `create_agent` spans as their own
# traces, runtime `autogen create/send/publish/process` spans (no agents); autogen-ext's model
# client emits no model spans (no models, no LLM counts) and no limit is signalled.
_AG_WEATHER = A(llm=0, tools={"get_weather": (1, 0), "get_time": (1, 0)})
AUTOGEN = {
    "two_tools": Scenario({"weather": _AG_WEATHER}),
    "streaming": Scenario({"weather": _AG_WEATHER}),
    "tool_error": Scenario(
        {"orders": A(llm=0, tools={"lookup_order": (0, 1)}, boundaries=b("tool_failure"))},
        b("RuntimeError"),
    ),
    # max_tool_iterations=2 ends the tool loop quietly (a reflection answer follows)
    "max_tool_iterations": Scenario({"looper": A(llm=0, tools={"get_weather": (2, 0)})}),
    # Swarm: `transfer_to_billing`; billing's invoke_agent is in another runtime trace
    "swarm": Scenario({
        "triage": A(llm=0, tools={"transfer_to_billing": (1, 0)},
                    delegations=("triage->billing",)),
        "billing": A(llm=0),
    }),
    # a round-robin group chat takes turns: no agent hands over to another
    "round_robin": Scenario({"weather": _AG_WEATHER, "billing": A(llm=0)}),
    # AgentTool: the tool is named after the agent, whose run nests under it
    "agent_as_tool": Scenario({
        "orchestrator": A(llm=0, tools={"billing": (1, 0)},
                          delegations=("orchestrator->billing",)),
        "billing": A(llm=0),
    }),
    "http_500": Scenario({"weather": A(errors=1, llm=0, boundaries=b("error_path"))},
                         b("InternalServerError")),
}



# AutoGen with python-contrib openai-v2 added: the same runs, now with their model calls
AUTOGEN_OPENAI_V2 = {
    "two_tools": TWO_TOOLS,
    "streaming": TWO_TOOLS,
    "tool_error": Scenario(
        {"orders": A(llm=2, tools={"lookup_order": (0, 1)}, models={"orders-model": 2},
                     boundaries=b("tool_failure"))},
        b("RuntimeError"),
    ),
    # two tool rounds, then the reflection call (no tools offered) answers: only the spec's
    # max_steps (model calls) sees the limit
    "max_tool_iterations": Scenario(
        {"looper": A(llm=3, tools={"get_weather": (2, 0)}, models={"loop-model": 3},
                     boundaries=b("max_steps"))},
        spec={"version": 1, "defaults": {"boundaries": {"max_steps": 3}}},
    ),
    "swarm": Scenario({  # the hand-off ends triage's turn: one model call
        "triage": A(tools={"transfer_to_billing": (1, 0)}, models={"triage-model": 1},
                    delegations=("triage->billing",)),
        "billing": A(models={"billing-model": 1}),
    }),
    "round_robin": Scenario({"weather": TWO_TOOLS.agents["weather"],
                             "billing": A(models={"billing-model": 1})}),
    "agent_as_tool": Scenario({
        "orchestrator": A(llm=2, tools={"billing": (1, 0)}, models={"orchestrator-model": 2},
                          delegations=("orchestrator->billing",)),
        "billing": A(models={"billing-model": 1}),
    }),
    "http_500": Scenario(
        {"weather": A(errors=1, models={"broken-model": 1}, boundaries=b("error_path"))},
        b("InternalServerError"),
    ),
}

# Microsoft Agent Framework, sensitive data off and on (content attributes change nothing here)
AGENT_FRAMEWORK = {
    "two_tools": TWO_TOOLS,
    "streaming": TWO_TOOLS,
    "tool_error": Scenario(  # the error goes back to the model, which answers
        {"orders": A(llm=2, tools={"lookup_order": (0, 1)}, models={"orders-model": 2},
                     boundaries=b("tool_failure"))},
        b("RuntimeError"),
    ),
    # max_iterations=2: two tool rounds, then one call with tools disallowed answers; no span
    # says the limit was hit, so only the spec's max_steps (model calls) sees it
    "max_iterations": Scenario(
        {"looper": A(llm=3, tools={"get_weather": (2, 0)}, models={"loop-model": 3},
                     boundaries=b("max_steps"))},
        spec={"version": 1, "defaults": {"boundaries": {"max_steps": 3}}},
    ),
    # HandoffBuilder: the `handoff_to_billing` call leaves no tool span; the workflow's
    # `edge_group.process` from triage to billing is the edge
    "handoff": Scenario({
        "triage": A(models={"triage-model": 1}, delegations=("triage->billing",)),
        "billing": A(models={"billing-model": 1}),
    }),
    # GroupChatBuilder, round-robin: the orchestrator routes turns; no agent hands over
    "group_chat": Scenario({
        "weather": TWO_TOOLS.agents["weather"],
        "billing": A(models={"billing-model": 1}),
    }),
    "agent_as_tool": AGENT_AS_TOOL,
    "http_500": Scenario(
        {"weather": A(errors=1, models={"broken-model": 1}, boundaries=b("error_path"))},
        b("ChatClientException"),
    ),
}


# Semantic Kernel (experimental GenAI diagnostics): functions are `<plugin>-<function>`; a
# payload lists the tool spans' scope after the agent's, so replay goes in end-time order
_SK_WEATHER = A(llm=2, tools={"Weather-get_weather": (1, 0), "Weather-get_time": (1, 0)},
                models={"weather-model": 2})
SEMANTIC_KERNEL = {
    "two_tools": Scenario({"weather": _SK_WEATHER}),
    "streaming": Scenario({"weather": _SK_WEATHER}),
    "tool_error": Scenario(
        {"orders": A(llm=2, tools={"Orders-lookup_order": (0, 1)}, models={"orders-model": 2},
                     boundaries=b("tool_failure"))},
        b("RuntimeError"),
    ),
    # maximum_auto_invoke_attempts=2: two tool rounds, then an answer with no tool allowed;
    # no span says so, only the spec's max_steps (model calls) sees it
    "max_auto_invoke": Scenario(
        {"looper": A(llm=3, tools={"Weather-get_weather": (2, 0)}, models={"loop-model": 3},
                     boundaries=b("max_steps"))},
        spec={"version": 1, "defaults": {"boundaries": {"max_steps": 3}}},
    ),
    # an agent in another agent's plugins: the function is `<agent>-<agent>`, its run nested
    "agent_as_plugin": Scenario({
        "orchestrator": A(llm=2, tools={"billing-billing": (1, 0)},
                          models={"orchestrator-model": 2}, delegations=("orchestrator->billing",)),
        "billing": A(models={"billing-model": 1}),
    }),
    # HandoffOrchestration: each agent runs in its own runtime trace; `Handoff-transfer_to_billing`
    # names the target; billing ends the task with `Handoff-complete_task`
    "handoff": Scenario({
        "triage": A(tools={"Handoff-transfer_to_billing": (1, 0)}, models={"triage-model": 1},
                    delegations=("triage->billing",)),
        "billing": A(tools={"Handoff-complete_task": (1, 0)}, models={"billing-model": 1}),
    }),
    # GroupChatOrchestration, round-robin manager: turns, not hand-overs
    "group_chat": Scenario({"weather": _SK_WEATHER, "billing": A(models={"billing-model": 1})}),
    "http_500": Scenario(
        {"weather": A(errors=1, models={"broken-model": 1}, boundaries=b("error_path"))},
        b("ServiceResponseException"),
    ),
}

# Tracers the app applies by hand over its own tool loop (fixtures/record/_app_loop.py
# TracedApp): MLflow's `@mlflow.trace` with the OpenAI client autologged, Langfuse's
# `@observe(as_type=...)` with its OpenAI drop-in. The loop gives up after two model calls in
# `max_steps` (nothing says so: only the spec's max_steps sees it); `handoff` runs triage, whose
# `transfer_to_billing` tool only answers, then billing, in one request span.
def traced_app(tool_error: str, http_500: str) -> dict[str, Scenario]:
    return {
        "two_tools": TWO_TOOLS,
        "streaming": TWO_TOOLS,
        "tool_error": Scenario(  # the app sends the error back as the tool's result
            {"orders": A(llm=2, tools={"lookup_order": (0, 1)}, models={"orders-model": 2},
                         boundaries=b("tool_failure"))},
            b(tool_error),
        ),
        "max_steps": Scenario(
            {"looper": A(llm=2, tools={"get_weather": (2, 0)}, models={"loop-model": 2},
                         boundaries=b("max_steps"))},
            spec={"version": 1, "defaults": {"boundaries": {"max_steps": 2}}},
        ),
        "http_500": Scenario(
            {"weather": A(errors=1, models={"gpt-500": 1}, boundaries=b("error_path"))},
            b(http_500),
        ),
        "agent_as_tool": AGENT_AS_TOOL,
        "handoff": OPENAI_OPENINFERENCE["handoff"],
    }


# LangChain's `create_agent` over ChatOpenAI (fixtures/record/_langchain_app.py), traced through
# LangChain's callbacks: the agent is the graph, named by `name=`. Its tool node re-raises a
# tool's exception (the run fails); recursion_limit=4 stops the looper after two model and two
# tool steps with GraphRecursionError; langchain-openai re-raises the HTTP 500 as its own
# `OpenAIAPIError`. No hand-off tool exists in create_agent: agent-as-tool is its delegation.
# `react_agent` runs the same two tools through LangGraph's older prebuilt agent.
def _langchain_app(errors: dict[str, str]) -> dict[str, Scenario]:
    return {
        "two_tools": TWO_TOOLS,
        "react_agent": TWO_TOOLS,  # LangGraph's prebuilt create_react_agent, named `weather`
        "streaming": TWO_TOOLS,
        "tool_error": Scenario(
            {"orders": A(errors=1, tools={"lookup_order": (0, 1)}, models={"orders-model": 1},
                         boundaries=b("tool_failure", "error_path"))},
            b(errors["tool_error"]),
        ),
        "max_steps": Scenario(
            {"looper": A(errors=1, llm=2, tools={"get_weather": (2, 0)},
                         models={"loop-model": 2}, boundaries=b("max_steps", "error_path"))},
            b(errors["max_steps"]),
        ),
        "http_500": Scenario(
            {"weather": A(errors=1, models={"gpt-500": 1}, boundaries=b("error_path"))},
            b(errors["http_500"]),
        ),
        "agent_as_tool": AGENT_AS_TOOL,
    }


# MLflow's export records exceptions as events (their class names); Langfuse keeps the status
# message only (and `langfuse.observation.level=ERROR`)
MLFLOW_TRACE = traced_app("RuntimeError", "InternalServerError")
LANGFUSE_OBSERVE = traced_app("_OTHER", "_OTHER")
MLFLOW_LANGCHAIN = _langchain_app({"tool_error": "RuntimeError",
                                   "max_steps": "GraphRecursionError",
                                   "http_500": "OpenAIAPIError"})
LANGFUSE_LANGCHAIN = _langchain_app(dict.fromkeys(("tool_error", "max_steps", "http_500"),
                                                  "_OTHER"))

# Haystack's `Agent` as a named Pipeline component (fixtures/record/record_haystack.py).
# Its own tracer (content tracing off): the component's name is on `haystack.component.run`,
# the agent's steps under `haystack.agent.run`; model steps carry no model name; a tool error
# handed back to the model (raise_on_tool_invocation_failure=False) leaves the tool span OK; the
# agent span carries its budget and the steps taken (max_agent_steps=2 reached: the limit). The
# billing Agent run by a ComponentTool has no component and so no name: its model call is the
# tool's work, inside the orchestrator's run.
_HS_WEATHER = A(llm=2, tools={"get_weather": (1, 0), "get_time": (1, 0)})
HAYSTACK = {
    "two_tools": Scenario({"weather": _HS_WEATHER}),
    "streaming": Scenario({"weather": _HS_WEATHER}),
    "tool_error": Scenario({"orders": A(llm=2, tools={"lookup_order": (1, 0)})}),
    "max_steps": Scenario(
        {"looper": A(llm=2, tools={"get_weather": (2, 0)}, boundaries=b("max_steps"))}),
    "http_500": Scenario(  # the pipeline wraps the client's error in its own
        {"weather": A(errors=1, boundaries=b("error_path"))},
        b("InternalServerError", "PipelineRuntimeError"),
    ),
    "agent_as_tool": Scenario({"orchestrator": A(llm=3, tools={"ask_billing": (1, 0)})}),
}
# OpenInference's Haystack instrumentation: `Agent.run` CHAIN spans that name no agent (the
# component name is only in the pipeline's input content), generator LLM spans with models, no
# tool spans (the Agent's tool invoker is no pipeline component) and no limit: the work counts
# for the resource's service.name
_HS_APP = "haystack-app"
HAYSTACK_OPENINFERENCE = {
    "two_tools": Scenario({_HS_APP: A(llm=2, models={"weather-model": 2})}),
    "streaming": Scenario({_HS_APP: A(llm=2, models={"weather-model": 2})}),
    "tool_error": Scenario({_HS_APP: A(llm=2, models={"orders-model": 2})}),
    "max_steps": Scenario({_HS_APP: A(llm=2, models={"loop-model": 2})}),
    "http_500": Scenario(  # the failed generator span has no model name
        {_HS_APP: A(errors=1, boundaries=b("error_path"))},
        b("InternalServerError"),
    ),
    "agent_as_tool": Scenario({_HS_APP: A(
        llm=3, models={"orchestrator-model": 2, "billing-model": 1})}),
}

# LangSmith's OpenTelemetry mode over the same create_agent runs: every exception is recorded as
# type `Exception` (the class is only in the message, which also says the recursion limit)
LANGSMITH = _langchain_app(dict.fromkeys(("tool_error", "max_steps", "http_500"), "Exception"))

# DSPy: each agent is a named dspy.Module running a ReAct (fixtures/record/record_dspy.py).
# A ReAct step is one model call; `finish` is ReAct's own way to stop, not a tool; the closing
# extract step is one more model call. ReAct hands a tool's exception back to the model;
# max_iters=2 ends the looper's tool steps quietly (only the spec's max_steps sees it); DSPy
# re-raises the HTTP 500 as its LMServerError.
_DSPY_WEATHER = Scenario({"Weather": A(
    llm=4, tools={"get_weather": (1, 0), "get_time": (1, 0)}, models={"weather-model": 4})})
DSPY_OPENINFERENCE = {
    "two_tools": _DSPY_WEATHER,
    "streaming": _DSPY_WEATHER,  # dspy.streamify with a listener on the answer
    "tool_error": Scenario(
        {"Orders": A(llm=3, tools={"lookup_order": (0, 1)}, models={"orders-model": 3},
                     boundaries=b("tool_failure"))},
        b("RuntimeError"),
    ),
    "max_steps": Scenario(
        {"Looper": A(llm=3, tools={"get_weather": (2, 0)}, models={"loop-model": 3},
                     boundaries=b("max_steps"))},
        spec={"version": 1, "defaults": {"boundaries": {"max_steps": 3}}},
    ),
    "http_500": Scenario(
        {"Weather": A(errors=1, models={"broken-model": 1}, boundaries=b("error_path"))},
        b("LMServerError"),
    ),
    # the billing module runs inside the orchestrator's `ask_billing` tool
    "agent_as_tool": Scenario({
        "Orchestrator": A(llm=3, tools={"ask_billing": (1, 0)}, models={"orchestrator-model": 3},
                          delegations=("Orchestrator->Billing",)),
        "Billing": A(llm=2, models={"billing-model": 2}),
    }),
}

# BeeAI's RequirementAgent (fixtures/record/record_beeai.py): one tool call per model turn
# (parallel calls are off by default) and the answer through its `final_answer` tool, which
# OpenInference also wraps in a `final_answer` AGENT span: neither is a tool call or an agent.
# Failures add an `error` span inside the failed one (not another call). max_iterations=2: the
# agent makes the model answer on its last iteration (no error; only the spec's max_steps sees
# it). Delegation is a HandoffTool named `billing`, the billing agent running inside it.
_BEEAI_WEATHER = Scenario({"weather": A(
    llm=3, tools={"get_weather": (1, 0), "get_time": (1, 0)}, models={"weather-model": 3})})
BEEAI_OPENINFERENCE = {
    "two_tools": _BEEAI_WEATHER,
    "streaming": _BEEAI_WEATHER,  # one `new_token` span per streamed chunk: not calls
    "tool_error": Scenario(
        {"orders": A(llm=2, tools={"lookup_order": (0, 1)}, models={"orders-model": 2},
                     boundaries=b("tool_failure"))},
        b("ToolError"),
    ),
    "max_steps": Scenario(
        {"looper": A(llm=3, tools={"get_weather": (1, 0)}, models={"loop-model": 3},
                     boundaries=b("max_steps"))},
        spec={"version": 1, "defaults": {"boundaries": {"max_steps": 3}}},
    ),
    "http_500": Scenario(
        {"weather": A(errors=1, models={"broken-model": 1}, boundaries=b("error_path"))},
        b("ChatModelError"),
    ),
    "handoff": Scenario({
        "triage": A(llm=2, tools={"billing": (1, 0)}, models={"triage-model": 2},
                    delegations=("triage->billing",)),
        "billing": A(models={"billing-model": 1}),
    }),
}

# The same LlamaIndex runs through Traceloop's instrumentation: `<Class>.task` spans that name
# no agent; as with OpenInference, a step whose recorded output names `current_agent_name`
# starts that agent's turn; GenAI chat spans; the tool's name as `tool.name` on the workflow's
# call-tool step (`handoff` its hand-off tool). No span marks a failed tool or the iteration
# limit (only the spec's max_steps sees it); with the HTTP 500 the failed model span carries no
# GenAI attributes and the workflow span is never ended: nothing to count, one trace left open.
LLAMA_INDEX_TRACELOOP = {
    "two_tools": TWO_TOOLS,
    "not_streaming": TWO_TOOLS,
    "tool_error": Scenario({"orders": A(llm=2, tools={"lookup_order": (1, 0)},
                                        models={"orders-model": 2})}),
    "max_iterations": Scenario(
        {"looper": A(llm=2, tools={"get_weather": (1, 0)}, models={"loop-model": 2},
                     boundaries=b("max_steps"))},
        spec={"version": 1, "defaults": {"boundaries": {"max_steps": 2}}},
    ),
    "handoff": LLAMA_INDEX["handoff"],
    "agent_as_tool": AGENT_AS_TOOL,
    "http_500": Scenario({}, open_traces=1),
}

# Agno (fixtures/record/record_agno.py): agents, and a Team whose leader `triage` delegates with
# Agno's `delegate_task_to_member` tool (the member's run follows, under the team's span). Agno
# hands a tool's exception back to the model; past tool_call_limit=2 it refuses the model's third
# call and the model answers (four model calls, nothing fails: only the spec's max_steps sees
# it); an HTTP 500 ends the run with status `error`, nothing raised.
_AGNO_TEAM = Scenario({
    "triage": A(llm=2, tools={"delegate_task_to_member": (1, 0)}, models={"triage-model": 2},
                delegations=("triage->billing",)),
    "billing": A(models={"billing-model": 1}),
})
_AGNO_MAX_STEPS = Scenario(
    {"looper": A(llm=4, tools={"get_weather": (2, 0)}, models={"loop-model": 4},
                 boundaries=b("max_steps"))},
    spec={"version": 1, "defaults": {"boundaries": {"max_steps": 4}}},
)
AGNO_OPENINFERENCE = {
    "two_tools": TWO_TOOLS,
    "streaming": TWO_TOOLS,
    "tool_error": Scenario(  # the tool span keeps the status text only
        {"orders": A(llm=2, tools={"lookup_order": (0, 1)}, models={"orders-model": 2},
                     boundaries=b("tool_failure"))},
        b("_OTHER"),
    ),
    "max_steps": _AGNO_MAX_STEPS,
    "http_500": Scenario(  # the agent span says `run status: error`
        {"weather": A(errors=1, models={"gpt-500": 1}, boundaries=b("error_path"))},
        b("ModelProviderError", "_OTHER"),
    ),
    "team": _AGNO_TEAM,
    "agent_as_tool": AGENT_AS_TOOL,
}
# Traceloop's Agno instrumentation with its OpenAI one (as Traceloop's SDK sets them up): the
# team is a `triage.team` workflow span; a tool error handed back to the model leaves the tool
# span OK; the failed run's agent span stays OK (only the model span failed), so the run is not
# failed. Streaming: the agent span is no parent of its model and tool spans, each of which is a
# trace of its own, so they count for the resource's service.name, one run per trace.
AGNO_TRACELOOP = {
    "two_tools": TWO_TOOLS,
    "streaming": Scenario({
        "weather": A(llm=0),
        "agno-app": A(runs=4, llm=2, tools={"get_weather": (1, 0), "get_time": (1, 0)},
                      models={"weather-model": 2}),
    }),
    "tool_error": Scenario({"orders": A(llm=2, tools={"lookup_order": (1, 0)},
                                        models={"orders-model": 2})}),
    "max_steps": _AGNO_MAX_STEPS,
    "http_500": Scenario({"weather": A(models={"gpt-500": 1}, boundaries=b("error_path"))},
                         b("InternalServerError")),
    "team": _AGNO_TEAM,
    "agent_as_tool": AGENT_AS_TOOL,
}

# LiteLLM's OpenTelemetry callback (one `litellm_request` span per call, GenAI attributes, a
# `raw_gen_ai_request` child that is no second call) under the app's request span: the app's
# own tool loop, so the calls count for the resource's service.name, as with Traceloop's OpenAI.
# A streamed call is logged after the stream ends, outside the caller's context: each is a trace
# of its own (two runs)
LITELLM = {
    "two_tools": _APP_TWO_CALLS,
    "streaming": Scenario({"support-app": A(runs=2, llm=2, models={"weather-model": 2})}),
    "http_500": OPENAI_TRACELOOP["http_500"],
}

# google-genai's automatic function calling, python-contrib's instrumentation: one
# `generate_content` span for the SDK's whole tool loop (its model requests are not spans of their
# own), `execute_tool` spans inside it; no agent, so the work counts for service.name. The limit
# (maximum_remote_calls=2) is not carried; a failed call's error.type is the HTTP status.
_GG = "genai-app"
_GG_WEATHER = Scenario({_GG: A(tools={"get_weather": (1, 0), "get_time": (1, 0)},
                               models={"weather-model": 1})})
GOOGLE_GENAI = {
    "two_tools": _GG_WEATHER,
    "streaming": _GG_WEATHER,
    "tool_error": Scenario(
        {_GG: A(tools={"lookup_order": (0, 1)}, models={"orders-model": 1},
                boundaries=b("tool_failure"))},
        b("RuntimeError"),
    ),
    "max_steps": Scenario({_GG: A(tools={"get_weather": (1, 0)}, models={"loop-model": 1})}),
    "http_500": Scenario(
        {_GG: A(errors=1, models={"broken-model": 1}, boundaries=b("error_path"))}, b("500")),
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
    "smolagents": SMOLAGENTS,
    "llama_index": LLAMA_INDEX,
    "llama_index_hidden_inputs": LLAMA_INDEX_HIDDEN_INPUTS,
    "crewai": CREWAI,
    "crewai_events": CREWAI_EVENTS,
    "autogen": AUTOGEN,
    "autogen_openai_v2": AUTOGEN_OPENAI_V2,
    "agent_framework": AGENT_FRAMEWORK,
    "agent_framework_sensitive": AGENT_FRAMEWORK,
    "semantic_kernel": SEMANTIC_KERNEL,
    "openai_openinference": OPENAI_OPENINFERENCE,
    "openai_traceloop": OPENAI_TRACELOOP,
    "anthropic_traceloop": ANTHROPIC_TRACELOOP,
    "mcp": MCP,
    # Traceloop's MCP instrumentation (mcp 1.x FastMCP): its client `<tool>.tool` span marks the
    # isError result (`error.type=tool_error`) inside the SDK's tool span: the same coverage
    "mcp_traceloop": MCP,
    "logfire": LOGFIRE,
    "openlit": OPENLIT,
    "vercel_ai": VERCEL_AI,
    "vercel_ai_legacy": VERCEL_AI,
    "mastra": MASTRA,
    "mlflow_trace": MLFLOW_TRACE,
    "mlflow_langchain": MLFLOW_LANGCHAIN,
    "langfuse_observe": LANGFUSE_OBSERVE,
    "langfuse_langchain": LANGFUSE_LANGCHAIN,
    "haystack": HAYSTACK,
    "haystack_openinference": HAYSTACK_OPENINFERENCE,
    "langsmith": LANGSMITH,
    "dspy_openinference": DSPY_OPENINFERENCE,
    "beeai_openinference": BEEAI_OPENINFERENCE,
    "llama_index_traceloop": LLAMA_INDEX_TRACELOOP,
    "agno_openinference": AGNO_OPENINFERENCE,
    "agno_traceloop": AGNO_TRACELOOP,
    "litellm": LITELLM,
    "google_genai": GOOGLE_GENAI,
}


# ------------------------------------------------------------------ scoring
# One definition of "core %" for the in-repo stacks (benchmarks/inference.py) and the held-out
# ones (benchmarks/heldout.py).


def score(expected: Scenario, got_agents: Mapping[str, A]) -> tuple[int, int]:
    """(items met, items) of one scenario's replay against its expectations: per expected
    agent, its runs, each tool's (ok, error) counts, its models, delegations, boundaries, model
    calls and errors; a missing agent fails them all (benchmarks/heldout.py)."""
    met = total = 0
    for name, want in expected.agents.items():
        got = got_agents.get(name)
        checks = [got is not None and got.runs == want.runs]
        checks += [got is not None and got.tools.get(tool) == counts
                   for tool, counts in want.tools.items()]
        if got is None:
            checks += [False] * 5
        else:
            checks += [
                set(got.models) == set(want.models),
                sorted(got.delegations) == sorted(want.delegations),
                got.boundaries == want.boundaries,
                got.llm == want.llm,
                got.errors == want.errors,
            ]
        met += sum(checks)
        total += len(checks)
    return met, total


def heldout_expectations(directory: Path) -> dict[str, dict[str, Scenario]]:
    """A held-out set's EXPECTED (`<directory>/expectations.py`, tests/heldout/ or
    tests/heldout_fresh/), loaded by path: every set's module has that name, and `heldout` is
    also benchmarks/heldout.py."""
    spec = importlib.util.spec_from_file_location(f"{directory.name}_expectations",
                                                  directory / "expectations.py")
    if spec is None or spec.loader is None:
        raise SystemExit(f"{directory}: no expectations.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    expected: dict[str, dict[str, Scenario]] = module.EXPECTED
    return expected


def extra_agents(expected: Scenario, got_agents: Mapping[str, A]) -> int:
    """Agents the replay found that the scenario did not run."""
    return len(set(got_agents) - set(expected.agents))
