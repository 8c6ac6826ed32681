"""What each scenario of the sixteenth held-out share did (issue 35), written from the recorders in
fixtures/record/heldout_sixteenth/ (which agent ran which model and tools, what failed, who handed
over to whom) and the requests the fake model server received (each recorder prints them, per
scenario), never from the product's output. `benchmarks/heldout.py --set sixteenth` scores
replays against these; the share is kept apart from the earlier held-out sets, which have been
read while the rules were tuned.

The scenarios are those of tests/heldout/expectations.py: the same scripted models
(fixtures/record/_common.py) and the same app-level scenarios (call the model, run the tools it
asks for, send the results back, until it answers). One model call is one request in every stack
here (the clients' transport retries off), except Letta's HTTP 500 (below). Step-level error types
are left out: they are not scored (benchmarks/heldout.py `score`).
"""

from __future__ import annotations

from pathlib import Path

from fixture_expectations import A, Scenario, b

FIXTURES = Path(__file__).parent / "fixtures"

# Swarms, Python (record_swarms.py): each agent a Swarms Agent named after it on its own model
# through Swarms' LiteLLM wrapper, which the app names `openai/<model>` (LiteLLM's name for an
# OpenAI-compatible model; the model a call was made with is expected as the app named it), with
# its tools; Swarms runs the loop, one model call per loop, and the app stops it once the model
# answers in text. Swarms traces each agent's run and model calls, never a tool call of its own
# (the tools run between model calls; their names are only in the recorded requests and replies),
# so no tool is expected (as the earlier shares' stacks that span none: without_tools there).
# lookup_order raised; Swarms records the failed round of tool calls on a span of the orders run
# ending in error, then sends the error back to the model as the tool's result (the server got
# it), which answers: two calls, the run ends well; the tool's failure is expected, not the tool.
# Billing's run is inside the orchestrator's ask_billing tool, but Swarms runs a round's tools on a
# worker thread the tracing context is not carried to: billing's run starts a trace of its own,
# and nothing in the spans links it to the orchestrator's (one billing-model request between the
# orchestrator's two), so no delegation is expected there. `handoff` runs triage (its
# transfer_to_billing tool only answers, then triage answers: two calls), then billing, in one
# request of the app (`serve`, a plain span, no agent). The HTTP 500 fails the weather run on its
# one model call (one gpt-500 request: LiteLLM's retries off); the model call's span and the run's
# end in error.
SWARMS = {
    "two_tools": Scenario({"weather": A(llm=2, models={"openai/weather-model": 2})}),
    "tool_error": Scenario({"orders": A(llm=2, models={"openai/orders-model": 2},
                                        boundaries=b("tool_failure"))}),
    "agent_as_tool": Scenario({
        "orchestrator": A(llm=2, models={"openai/orchestrator-model": 2}),
        "billing": A(models={"openai/billing-model": 1}),
    }),
    "handoff": Scenario({
        "triage": A(llm=2, models={"openai/triage-model": 2}, delegations=("triage->billing",)),
        "billing": A(models={"openai/billing-model": 1}),
    }),
    "http_500": Scenario({"weather": A(errors=1, models={"openai/gpt-500": 1},
                                       boundaries=b("error_path"))}),
}

# Letta 0.11, Python (record_letta.py): Letta's server embedded in the app's process, each agent a
# Letta agent (react_agent) named after it on its model with the app's tools and Letta's
# send_message, each run one LettaAgent.step; Letta runs the loop, one tool call per model call,
# and the model answers by calling send_message, a tool Letta runs and traces like the app's
# (expected beside them). The scripted models speak that protocol (record_letta.letta_handler),
# so weather's two tool calls are two model calls and its answer a third (three weather-model
# requests), and each agent's answer is a send_message call. (Every request also carries the
# send_message result of the greeting Letta seeds an agent's history with: not a call of the
# scenario.) Letta names an agent only by its id, on its step bookkeeping's spans, and by name
# only inside the serialized agent state a span carries, so every step counts for the one service
# the app's tracer provider names, `fixture-recorder` (as the fifteenth share's
# spring_ai_alibaba steps count for theirs): one run per scenario (each scenario is one trace:
# billing's run inside the orchestrator's tool, `handoff`'s two inside the app's `serve`), the
# agents' model calls and tool runs together, no delegation (nothing tells one agent from
# another). lookup_order raised in Letta's sandbox and Letta sent its error back to the model as
# the tool's result (the server got it), which answered: two orders-model requests; but every
# span of that tool call ends OK with no error attribute or event (the error is only in the
# tool's return to the model), so neither that call's outcome nor a tool failure is expected (as
# the tenth share's adk_js). The agent-as-tool: the orchestrator's ask_billing is Letta's
# multi-agent tool, send_message_to_agent_and_wait_for_reply, which ran billing's agent (one
# billing-model request between the orchestrator's two). `handoff` runs triage (its
# transfer_to_billing tool only answers), then billing. The HTTP 500 fails the weather run on its
# one model call; Letta's OpenAI client keeps the OpenAI SDK's retries (Letta sets none and the
# app cannot), so the server got three gpt-500 requests of that one call, one model-call span;
# it and the run's span end in error. The model of each call is named by Letta's run-level span
# (its LLM config) and inside each call's serialized request: expected as the app named it.
RECORDER = "fixture-recorder"
SEND = "send_message"
LETTA = {
    "two_tools": Scenario({RECORDER: A(
        llm=3, tools={"get_weather": (1, 0), "get_time": (1, 0), SEND: (1, 0)},
        models={"weather-model": 3})}),
    "tool_error": Scenario({RECORDER: A(llm=2, tools={SEND: (1, 0)},
                                        models={"orders-model": 2})}),
    "agent_as_tool": Scenario({RECORDER: A(
        llm=3, tools={"send_message_to_agent_and_wait_for_reply": (1, 0), SEND: (2, 0)},
        models={"orchestrator-model": 2, "billing-model": 1})}),
    "handoff": Scenario({RECORDER: A(
        llm=3, tools={"transfer_to_billing": (1, 0), SEND: (2, 0)},
        models={"triage-model": 2, "billing-model": 1})}),
    "http_500": Scenario({RECORDER: A(errors=1, models={"gpt-500": 1},
                                      boundaries=b("error_path"))}),
}

EXPECTED: dict[str, dict[str, Scenario]] = {
    "swarms": SWARMS,
    "letta": LETTA,
}
