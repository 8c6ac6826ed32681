"""What each scenario of the sixth held-out share did (issue 35), written from the recorders in
fixtures/record/heldout_sixth/ (which agent ran which model and tools, what failed, who handed
over to whom) and the requests the fake model server received, never from the product's output.
`benchmarks/heldout.py --set sixth` scores replays against these; the share is kept apart from
the five earlier held-out sets, which have been read while the rules were tuned.

The scenarios are those of tests/heldout/expectations.py: the same scripted models
(fixtures/record/_common.py) and the same app-level scenarios (call the model, run the tools it
asks for, send the results back, until it answers). Each recorder turns the stack's transport
retries off, so one model call is one request. Step-level error types are left out: they are not
scored (benchmarks/heldout.py `score`).
"""

from __future__ import annotations

from pathlib import Path

from fixture_expectations import APP_LOOP, A, Scenario, b

FIXTURES = Path(__file__).parent / "fixtures"

# Langfuse JS (node/record_langfuse_js.mjs over node/langchain_app.mjs): each agent a LangChain.js
# `createAgent` named after it, on its own model, LangChain running the tool loop, traced by
# Langfuse's LangChain CallbackHandler. LangChain hands a tool's exception back to the model
# (the server got "Error: orders database unavailable" as the tool's result), which answers: two
# calls. Billing runs inside the orchestrator's ask_billing tool (one billing-model request
# between the orchestrator's two); `handoff` runs triage (its transfer_to_billing tool only
# answers, then triage answers: two calls), then billing, in one request of the app (`serve`, a
# plain span, no agent); the HTTP 500 fails the weather run on its first model call. The
# app-level scenarios of fixture_expectations.APP_LOOP.
LANGFUSE_JS = APP_LOOP

# Apache Burr (record_burr.py): each agent run a Burr application (call_model -> run_tools ->
# call_model ... -> respond) on its own model, observed by the app under the agent's name; its
# run_tools action runs each tool the model asked for in a Burr span and hands a tool's exception
# back to the model as the tool's result, which answers: two calls. lookup_order raised (through
# its Burr span, which Burr's bridge ends OK all the same): the tool failed. Billing runs inside the
# orchestrator's ask_billing tool; `handoff` runs triage (its transfer_to_billing tool only
# answers, then triage answers: two calls), then billing, in one request of the app (`serve`, a
# plain span, no agent); the HTTP 500 fails the weather run on its first model call. The
# app-level scenarios of fixture_expectations.APP_LOOP.
BURR = APP_LOOP

# Atomic Agents (record_atomic_agents.py): an Atomic Agent is one structured model call that names
# the tools to run; the app runs them and runs the agent again with their results, so every agent
# that uses a tool runs twice (two invoke_agent runs, one model call each), all in one request of
# the app (`serve`, a plain span, no agent). The tools are the agent's: the app runs exactly what
# its output named. lookup_order raises and the app hands the error back, as the tool's result;
# the orders agent then answers. Billing runs inside the orchestrator's ask_billing tool;
# `handoff` runs triage (its transfer_to_billing tool only answers, then triage answers), then
# billing; the HTTP 500 fails the weather run on its first model call (Instructor's retries off:
# one request).
ATOMIC_AGENTS = {
    "two_tools": Scenario({"weather": A(
        runs=2, llm=2, tools={"get_weather": (1, 0), "get_time": (1, 0)},
        models={"weather-model": 2})}),
    "tool_error": Scenario({"orders": A(
        runs=2, llm=2, tools={"lookup_order": (0, 1)}, models={"orders-model": 2},
        boundaries=b("tool_failure"))}),
    "agent_as_tool": Scenario({
        "orchestrator": A(runs=2, llm=2, tools={"ask_billing": (1, 0)},
                          models={"orchestrator-model": 2},
                          delegations=("orchestrator->billing",)),
        "billing": A(models={"billing-model": 1}),
    }),
    "handoff": Scenario({
        "triage": A(runs=2, llm=2, tools={"transfer_to_billing": (1, 0)},
                    models={"triage-model": 2}, delegations=("triage->billing",)),
        "billing": A(models={"billing-model": 1}),
    }),
    "http_500": APP_LOOP["http_500"],
}

EXPECTED: dict[str, dict[str, Scenario]] = {
    "atomic_agents": ATOMIC_AGENTS,
    "burr": BURR,
    "langfuse_js": LANGFUSE_JS,
}
