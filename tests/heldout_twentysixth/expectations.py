"""What each scenario of the twenty-sixth held-out share did (issue 35), written from the
recorders in fixtures/record/heldout_twentysixth/ (which agent ran which model and tools, what
failed, who handed over to whom) and the requests the fake model server received (each recorder
prints them, per scenario), never from the product's output. `benchmarks/heldout.py --set
twentysixth` scores replays against these; the share is kept apart from the earlier held-out sets,
which have been read while the rules were tuned.

The scenarios are those of tests/heldout/expectations.py: the same scripted models
(fixtures/record/_common.py) and the same app-level scenarios (call the model, run the tools it
asks for, send the results back, until it answers). One model request is one request to the fake
server (the client's transport retries off). Step-level error types are left out: they are not
scored (benchmarks/heldout.py `score`).
"""

from __future__ import annotations

from pathlib import Path

from fixture_expectations import A, Scenario, b

FIXTURES = Path(__file__).parent / "fixtures"

# Ingenimax's Agent SDK for Go (go/record_agent_sdk_go.go): each agent an `agent.NewAgent` on the
# SDK's OpenAI client of its model name, with its tools and a conversation-buffer memory, traced
# as the SDK's tracing example sets it up (its OTel tracer on the agent, its LLM and memory
# middleware); each agent's tracer has the agent's name as its service name, as the SDK's spans
# name no agent. The SDK runs the whole tool loop of a run inside one call of its LLM interface
# (`GenerateWithTools`), which its LLM middleware traces as one model exchange naming the model:
# the two requests a tool-using run makes to the server (the tool results sent back in the
# second) are one traced call, and no span tells them apart, so one LLM call (and the model once)
# is expected per run. The SDK spans no tool it runs inside that loop (the tools' names are only
# in the list offered to the model; its memory middleware spans the stored tool messages without
# naming the tool), so no plain tool nor tool failure is expected: lookup_order raised and the SDK
# handed its error back to the model (the server got it), which answered, the run ending well.
# Billing is the orchestrator's sub-agent, which the SDK offers the model as the tool
# `billing_agent` and spans itself when the model calls it (naming the sub-agent and that tool):
# one billing_agent call, the delegation orchestrator->billing, billing's own run and its one
# billing-model request inside. `handoff` runs triage (its transfer_to_billing tool only answers,
# a tool the SDK does not span), then billing, in one request of the app (`serve`, a plain span,
# no agent): the hand-off stays, as the runs and their order tell it (as for the earlier shares'
# stacks that span no tool). The HTTP 500 fails the weather run on its one model call (one
# gpt-500 request): the SDK records the error on the model exchange's span as an exception event
# but sets no span's status to error (neither that span's nor the run's); the run failed all the
# same.
AGENT_SDK_GO = {
    "two_tools": Scenario({"weather": A(models={"weather-model": 1})}),
    "tool_error": Scenario({"orders": A(models={"orders-model": 1})}),
    "agent_as_tool": Scenario({
        "orchestrator": A(tools={"billing_agent": (1, 0)}, models={"orchestrator-model": 1},
                          delegations=("orchestrator->billing",)),
        "billing": A(models={"billing-model": 1}),
    }),
    "handoff": Scenario({
        "triage": A(models={"triage-model": 1}, delegations=("triage->billing",)),
        "billing": A(models={"billing-model": 1}),
    }),
    "http_500": Scenario(
        {"weather": A(errors=1, models={"gpt-500": 1}, boundaries=b("error_path"))}),
}

EXPECTED: dict[str, dict[str, Scenario]] = {
    "agent_sdk_go": AGENT_SDK_GO,
}
