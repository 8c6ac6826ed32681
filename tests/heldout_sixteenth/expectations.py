"""What each scenario of the sixteenth held-out share did (issue 35), written from the recorders in
fixtures/record/heldout_sixteenth/ (which agent ran which model and tools, what failed, who handed
over to whom) and the requests the fake model server received (each recorder prints them, per
scenario), never from the product's output. `benchmarks/heldout.py --set sixteenth` scores
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

EXPECTED: dict[str, dict[str, Scenario]] = {
    "swarms": SWARMS,
}
