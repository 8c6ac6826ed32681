"""What each scenario of the twenty-ninth held-out share did (issue 35), written from the
recorders in fixtures/record/heldout_twentyninth/ (which agent ran which model and tools, what
failed, who handed over to whom) and the requests the fake model server received (each recorder
prints them, per scenario), never from the product's output. `benchmarks/heldout.py --set
twentyninth` scores replays against these; the share is kept apart from the earlier held-out
sets, which have been read while the rules were tuned.

The scenarios are those of tests/heldout/expectations.py: the same scripted models
(fixtures/record/_common.py) and the same app-level scenarios (call the model, run the tools it
asks for, send the results back, until it answers). One model call is one request here (the
clients' retries off). Step-level error types are left out: they are not scored
(benchmarks/heldout.py `score`).
"""

from __future__ import annotations

from pathlib import Path

from fixture_expectations import APP_LOOP, A, Scenario

FIXTURES = Path(__file__).parent / "fixtures"

# The A2A SDK (record_a2a.py): each agent an A2A agent server of the app's (its own agent card and
# JSON-RPC endpoint, its own request handler), whose executor (`<Agent>AgentExecutor`, traced
# with A2A's `trace_class`) runs the tool loop itself on the agent's model (the model call and
# each tool traced with A2A's `trace_function`, the model asked for set on the call's span), and
# each agent run one A2A SendMessage from the app's A2A client. lookup_order raised and the
# executor handed its error back to the model (the server got the tool result), which answers:
# two calls; the tool failed. A2A propagates no trace context over its HTTP calls (and the app
# instruments no HTTP library), so each agent run's server side is a trace of its own, apart from
# the client call that sent it: billing's run, sent by the orchestrator's ask_billing tool (an A2A
# call from inside the orchestrator's run), is tied to the orchestrator's run by no span, and
# `handoff`'s two runs (triage, whose transfer_to_billing tool only answers, then billing) are
# tied by no span to each other nor to the app's request (`serve`, whose spans are only the A2A
# client's two calls): no delegation is expected in either. The HTTP 500 fails the weather run on
# its one model call (one gpt-500 request; the executor raises and A2A fails the call).
A2A = {
    **APP_LOOP,
    "agent_as_tool": Scenario({
        "orchestrator": A(llm=2, tools={"ask_billing": (1, 0)},
                          models={"orchestrator-model": 2}),
        "billing": A(models={"billing-model": 1}),
    }),
    "handoff": Scenario({
        "triage": A(llm=2, tools={"transfer_to_billing": (1, 0)}, models={"triage-model": 2}),
        "billing": A(models={"billing-model": 1}),
    }),
}

# ADK-TS, IQ AI's Agent Development Kit for TypeScript (node/record_iqai_adk.mjs): each agent an
# ADK-TS LlmAgent of its name, on its model through ADK-TS's OpenAI model (its `openai` client, no
# retries), with its tools (`createTool`), each run an InMemoryRunner's on a new session, ADK-TS
# running the tool loop and tracing it itself (its telemetry service, exported by the NodeSDK it
# starts). The weather model asked for get_weather and get_time in one turn: ADK-TS ran both, but
# its OpenAI conversion sends back only a turn's first function call and first function response,
# so the server's second request carried get_weather's result alone; the model answered all the
# same: two calls, both tools ran. lookup_order raised and ADK-TS (`createTool`) handed its error
# back to the model as the tool's result, which answers: two calls; the tool failed. Billing's run
# is inside the orchestrator's ask_billing tool (the same process, under the tool's execution), and
# `handoff` runs triage (its transfer_to_billing tool only answers), then billing, in one request
# of the app (`serve`). The HTTP 500 fails the weather run on its one model call (one gpt-500
# request). The app-level scenarios of fixture_expectations.APP_LOOP.
IQAI_ADK = APP_LOOP

EXPECTED: dict[str, dict[str, Scenario]] = {
    "a2a": A2A,
    "iqai_adk": IQAI_ADK,
}
