"""What each scenario of the thirteenth held-out share did (issue 35), written from the recorders
in fixtures/record/heldout_thirteenth/ (which agent ran which model and tools, what failed, who
handed over to whom) and the requests the fake model server received (each recorder prints them,
per scenario), never from the product's output. `benchmarks/heldout.py --set thirteenth` scores
replays against these; the share is kept apart from the earlier held-out sets, which have been
read while the rules were tuned.

The scenarios are those of tests/heldout/expectations.py: the same scripted models
(fixtures/record/_common.py) and the same app-level scenarios (call the model, run the tools it
asks for, send the results back, until it answers). One model call is one request in every stack
here (the clients' transport retries off or absent). Step-level error types are left out: they
are not scored (benchmarks/heldout.py `score`).
"""

from __future__ import annotations

from pathlib import Path

from fixture_expectations import APP_LOOP_TOOL_ERROR_FAILS, A, Scenario, b

FIXTURES = Path(__file__).parent / "fixtures"

# CloudWeGo Eino, Go (go/record_eino.go): each agent an ADK ChatModelAgent named after it on
# eino-ext's OpenAI chat model of its model name, with its tools, run by an ADK Runner; Eino runs
# the tool loop, its callbacks made spans by the OpenTelemetry handler the app registers (one per
# component run). lookup_order's error fails the orders run after its one model call (one
# orders-model request: Eino does not send a tool's error back to the model). Billing's run is
# inside the orchestrator's ask_billing tool; `handoff` runs triage (its transfer_to_billing tool
# only answers), then billing, in one request of the app (`serve`, a plain span, no agent); the
# HTTP 500 fails the weather run on its one model call (one gpt-500 request), whose span names
# the model it was asked for.
EINO = APP_LOOP_TOOL_ERROR_FAILS

# Agents-Flex, Java (java/src/main/java/fixture/Record.java): each agent Agents-Flex's
# OpenAIChatModel of its model name with its Tools, the app running the tool loop itself; each
# scenario is one request of the app (`serve`, a plain span), every model call and tool call in
# it traced by Agents-Flex's own interceptors. Agents-Flex names no agent anywhere (no agent
# concept in what it traces, and the app adds none), so every step counts for the one service its
# SDK names, `agents-flex` (as the in-repo openai-v2 steps count for theirs): one run per
# scenario, the agents' model calls and tools together, no delegation (nothing tells one agent
# from another). lookup_order raised and the app sent its error back to the model, which answered
# (two orders-model requests). Billing's run is inside the orchestrator's ask_billing tool;
# `handoff` runs triage (its transfer_to_billing tool only answers), then billing. The HTTP 500:
# one gpt-500 request; Agents-Flex's chat model returns an error response rather than raising, so
# its model-call span ends without an error status (its HTTP client's span under it has one); the
# app fails the request (`serve` ends in error).
SERVICE = "agents-flex"
AGENTS_FLEX = {
    "two_tools": Scenario({SERVICE: A(
        llm=2, tools={"get_weather": (1, 0), "get_time": (1, 0)}, models={"weather-model": 2})}),
    "tool_error": Scenario({SERVICE: A(
        llm=2, tools={"lookup_order": (0, 1)}, models={"orders-model": 2},
        boundaries=b("tool_failure"))}),
    "agent_as_tool": Scenario({SERVICE: A(
        llm=3, tools={"ask_billing": (1, 0)},
        models={"orchestrator-model": 2, "billing-model": 1})}),
    "handoff": Scenario({SERVICE: A(
        llm=3, tools={"transfer_to_billing": (1, 0)},
        models={"triage-model": 2, "billing-model": 1})}),
    "http_500": Scenario({SERVICE: A(
        errors=1, models={"gpt-500": 1}, boundaries=b("error_path"))}),
}

# Pipecat, Python (record_pipecat.py): each agent run one text-only Pipecat pipeline (its
# OpenAILLMService of the agent's model, the tools its registered functions, which Pipecat runs
# between model calls), each scenario one request of the app (`serve`, a plain span). Pipecat
# traces conversations, turns and model calls only: it names no agent (the app's tracer provider
# names the bot, `support-bot`, as Pipecat's tracing setup does) and traces no function call, so
# every model call counts for that service, one run per scenario, and no tool, tool failure or
# delegation is told by any span (expected nowhere). lookup_order raised and the app's handler
# sent its error back to the model, which answered (two orders-model requests). Billing's run is
# inside the orchestrator's ask_billing function; `handoff` runs triage (its transfer_to_billing
# function only answers), then billing. The HTTP 500 fails the weather run on its one model call
# (one gpt-500 request), whose span ends in error.
BOT = "support-bot"
PIPECAT = {
    "two_tools": Scenario({BOT: A(llm=2, models={"weather-model": 2})}),
    "tool_error": Scenario({BOT: A(llm=2, models={"orders-model": 2})}),
    "agent_as_tool": Scenario({BOT: A(llm=3, models={"orchestrator-model": 2,
                                                      "billing-model": 1})}),
    "handoff": Scenario({BOT: A(llm=3, models={"triage-model": 2, "billing-model": 1})}),
    "http_500": Scenario({BOT: A(errors=1, models={"gpt-500": 1}, boundaries=b("error_path"))}),
}

EXPECTED: dict[str, dict[str, Scenario]] = {
    "eino": EINO,
    "agents_flex": AGENTS_FLEX,
    "pipecat": PIPECAT,
}
