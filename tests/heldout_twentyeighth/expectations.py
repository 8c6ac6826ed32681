"""What each scenario of the twenty-eighth held-out share did (issue 35), written from the
recorders in fixtures/record/heldout_twentyeighth/ (which agent ran which model and tools, what
failed, who handed over to whom) and the requests the fake model server received (each recorder
prints them, per scenario), never from the product's output. `benchmarks/heldout.py --set
twentyeighth` scores replays against these; the share is kept apart from the earlier held-out
sets, which have been read while the rules were tuned.

The scenarios are those of tests/heldout/expectations.py: the same scripted models
(fixtures/record/_common.py) and the same app-level scenarios (call the model, run the tools it
asks for, send the results back, until it answers). One model call is one request here (the
clients' retries off; Qwen Code's own retries of a failed model call are model calls of their
own). Step-level error types are left out: they are not scored (benchmarks/heldout.py `score`).
"""

from __future__ import annotations

from pathlib import Path

from fixture_expectations import APP_LOOP, APP_LOOP_TOOL_ERROR_FAILS, A, Scenario, b

FIXTURES = Path(__file__).parent / "fixtures"

# Qwen Code (record_qwen_code.py): each agent run one non-interactive `qwen -p` process on the
# agent's model (the chat completions API, through its OpenAI auth), none of its built-in tools,
# no background memory extraction, the agent's tools a stdio MCP server of the app's (offered to
# the model as `mcp__app__<tool>`), Qwen Code running the tool loop and tracing it itself. The app
# names each agent's process after the agent (OTEL_SERVICE_NAME, the resource's service.name), so
# the agents are expected by those names. lookup_order raised and Qwen Code handed its error back
# to the model (the server got the tool result), which answers: two calls; the tool failed. Qwen
# Code reads no trace context from its environment and hands none to its stdio MCP calls, so every
# process's spans are traces of their own: billing's run, inside the orchestrator's ask_billing
# tool (run by the tool server, another `qwen -p`), is tied to the orchestrator's run by no span,
# and `handoff`'s two runs (triage, whose transfer_to_billing tool only answers, then billing) are
# tied by no span to each other nor to the app's request (`serve`, a plain span of the app's own
# provider): no delegation is expected in either. The HTTP 500 fails the weather run, but only
# after Qwen Code's own retry policy (six retries of a 5xx, which no setting turns off; the OpenAI
# client's own retries are off) called the model seven times: seven gpt-500 requests, each a call
# of its content generator anew, one failed run.
QWEN_CODE = {
    "two_tools": APP_LOOP["two_tools"],
    "tool_error": APP_LOOP["tool_error"],
    "agent_as_tool": Scenario({
        "orchestrator": A(llm=2, tools={"ask_billing": (1, 0)},
                          models={"orchestrator-model": 2}),
        "billing": A(models={"billing-model": 1}),
    }),
    "handoff": Scenario({
        "triage": A(llm=2, tools={"transfer_to_billing": (1, 0)}, models={"triage-model": 2}),
        "billing": A(models={"billing-model": 1}),
    }),
    "http_500": Scenario({"weather": A(
        errors=1, llm=7, models={"gpt-500": 7}, boundaries=b("error_path"))}),
}

# Eclipse LMOS ARC, Kotlin (kotlin/src/main/kotlin/fixture/record_lmos_arc.kt): each agent an ARC
# ChatAgent of its name (ARC's agent DSL), on its model through ARC's OpenAI client
# (arc-azure-client, no retries) with its tools (ARC functions), ARC running the tool loop and
# tracing it through its AgentTracer (ARC's own OtelTracer, copied into the app: the registry here
# serves no ARC release that ships one). ARC does not hand a tool's exception back to the model: it
# fails the model-call loop, so lookup_order fails the orders run after its one model call (the
# server got one orders-model request, no tool result); the app's `ask` gets the failed run as
# ARC's failure result. Billing's agent runs inside the orchestrator's ask_billing tool (the same
# coroutine, so under its span); `handoff` runs triage (its transfer_to_billing tool only answers,
# then triage answers: two calls), then billing, in one request of the app (`serve`, a plain
# span, no agent); the HTTP 500 fails the weather run on its one model call (one gpt-500
# request). The app-level scenarios of fixture_expectations.APP_LOOP_TOOL_ERROR_FAILS.
LMOS_ARC = APP_LOOP_TOOL_ERROR_FAILS

EXPECTED: dict[str, dict[str, Scenario]] = {
    "qwen_code": QWEN_CODE,
    "lmos_arc": LMOS_ARC,
}
