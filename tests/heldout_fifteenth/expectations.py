"""What each scenario of the fifteenth held-out share did (issue 35), written from the recorders
in fixtures/record/heldout_fifteenth/ (which agent ran which model and tools, what failed, who
handed over to whom) and the requests the fake model server received (each recorder prints them,
per scenario), never from the product's output. `benchmarks/heldout.py --set fifteenth` scores
replays against these; the share is kept apart from the earlier held-out sets, which have been
read while the rules were tuned.

The scenarios are those of tests/heldout/expectations.py: the same scripted models
(fixtures/record/_common.py) and the same app-level scenarios (call the model, run the tools it
asks for, send the results back, until it answers). One model call is one request in every stack
here (the clients' transport retries off). Step-level error types are left out: they are not
scored (benchmarks/heldout.py `score`).
"""

from __future__ import annotations

from pathlib import Path

from fixture_expectations import APP_LOOP, A, Scenario, b, without_models, without_tools

FIXTURES = Path(__file__).parent / "fixtures"




# Guardrails AI, Python (record_guardrails.py): each agent one Guard named after it (with one
# validator of the app's), the app running the tool loop itself, each model call one guarded call
# of that guard, which Guardrails makes through LiteLLM's completion (`openai/<model>`) and traces
# itself; each scenario one request of the app (`serve`, a plain span). Guardrails accepts only
# text messages, so the app sends a tool-calling turn back as its calls' JSON and each result as a
# tool message (the fake server got the results, not the names: `?`). A raising tool's error goes
# back to the model, which answers (two orders-model requests). Billing's run is inside the
# orchestrator's ask_billing tool; `handoff` runs triage (its transfer_to_billing tool only
# answers), then billing; the HTTP 500 fails the weather run on its one model call (one gpt-500
# request; Guardrails raises its own error around LiteLLM's, the guarded call's spans end in
# error). Each agent ran once per scenario (one guard, one loop), whatever number of guarded calls
# it made. Guardrails traces no tool call (the app's tools run between guarded calls; the model's
# requests for them are only in the model calls' recorded replies), so no tool nor tool failure
# is expected (as for the earlier shares' stacks that span none: fast_agent, traceloop_node);
# and its spans carry the model a call was made with only inside the serialized keyword arguments
# of the call (no attribute of its own names it), so no model is expected either (as patronus).
# The hand-off and the agent-as-tool delegation stay, as runs and model calls tell them.
GUARDRAILS = without_models(without_tools(APP_LOOP))

# The BeeAI Framework for TypeScript, 0.1.2 (node/record_beeai_js.mjs): each agent the app's tool
# loop over BeeAI's OpenAIChatModel of its model name, with its tools as BeeAI DynamicTools, which
# the app runs and whose results (a raising tool's error too) it sends back as tool messages;
# each scenario one request of the app (`serve`, a plain span), every model call and tool run in
# it traced by BeeAI's own telemetry middleware. BeeAI names no agent anywhere (the app runs no
# BeeAgent, whose ReAct text format the scripted models do not speak, and adds none), so every
# step counts for the one service the app's tracer provider names, `support-app` (as the
# thirteenth share's agents_flex steps count for theirs): one run per scenario, the agents' model
# calls and tool runs together, no delegation (nothing tells one agent from another). BeeAI names
# a tool's spans after the tool's name camel-cased (its emitter's namespace,
# `tool.dynamic.<name>`): the tools are expected as BeeAI spells them. The model a call was made
# with is only inside a serialized event payload of the call (no attribute of its own names it),
# so no model is expected (as for Guardrails above). lookup_order raised and the app sent its
# error back to the model, which answered (two orders-model requests). Billing's run is inside the
# orchestrator's ask_billing tool; `handoff` runs triage (its transfer_to_billing tool only
# answers), then billing. The HTTP 500: one gpt-500 request (the AI SDK's retries off); the model
# call's spans end in error and the run fails.
SERVICE = "support-app"
BEEAI_JS = {
    "two_tools": Scenario({SERVICE: A(llm=2, tools={"getWeather": (1, 0), "getTime": (1, 0)})}),
    "tool_error": Scenario({SERVICE: A(llm=2, tools={"lookupOrder": (0, 1)},
                                       boundaries=b("tool_failure"))}),
    "agent_as_tool": Scenario({SERVICE: A(llm=3, tools={"askBilling": (1, 0)})}),
    "handoff": Scenario({SERVICE: A(llm=3, tools={"transferToBilling": (1, 0)})}),
    "http_500": Scenario({SERVICE: A(errors=1, boundaries=b("error_path"))}),
}

# Spring AI Alibaba, Java (java/src/main/java/fixture/Record.java): each agent a ReactAgent of the
# agent framework on Spring AI's OpenAI chat model of its model name, with its @Tool methods, its
# graph running the tool loop; Spring AI Alibaba's graph observations (one per graph execution
# and per node: the model node, the tool node, its hooks) and the Spring AI chat client and chat
# model observations under them, all on one Micrometer registry traced through the OpenTelemetry
# bridge. Spring AI Alibaba names no agent in any attribute (the agent's name is the builder's
# only: every graph execution is named alike), so every step counts for the one service the
# app's tracer provider names, `fixture-recorder` (as the thirteenth share's agents_flex steps
# count for theirs): one run per scenario (each scenario is one trace: billing's graph execution
# inside the orchestrator's tool node, `handoff`'s two inside the app's `serve`), the agents'
# model calls together, no delegation (nothing tells one agent from another). Its tool node runs
# all the tools of a round in one span that names none of them (the tools' names and results are
# only in state dumps), so no tool nor tool failure is expected (nothing executed counts them, as
# without_tools above). The chat model spans name the model asked for. lookup_order raised and
# the framework handed its error back to the model, which answered (two orders-model requests).
# `handoff` runs triage (its transfer_to_billing tool only answers), then billing. The HTTP 500:
# one gpt-500 request (Spring AI's retries off); the framework ends its model node with an
# "Exception: ..." reply rather than an error, and the app fails the run on that reply inside it
# (a model interceptor of its own), so the model call's and the run's spans end in error.
RECORDER = "fixture-recorder"
SPRING_AI_ALIBABA = {
    "two_tools": Scenario({RECORDER: A(llm=2, models={"weather-model": 2})}),
    "tool_error": Scenario({RECORDER: A(llm=2, models={"orders-model": 2})}),
    "agent_as_tool": Scenario({RECORDER: A(llm=3, models={"orchestrator-model": 2,
                                                           "billing-model": 1})}),
    "handoff": Scenario({RECORDER: A(llm=3, models={"triage-model": 2, "billing-model": 1})}),
    "http_500": Scenario({RECORDER: A(errors=1, models={"gpt-500": 1},
                                      boundaries=b("error_path"))}),
}

EXPECTED: dict[str, dict[str, Scenario]] = {
    "guardrails": GUARDRAILS,
    "beeai_js": BEEAI_JS,
    "spring_ai_alibaba": SPRING_AI_ALIBABA,
}
