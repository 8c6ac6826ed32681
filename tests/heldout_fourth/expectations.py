"""What each scenario of the fourth held-out share did (issue 35), written from the recorders in
fixtures/record/heldout_fourth/ (which agent ran which model and tools, what failed, who handed
over to whom), never from the product's output. `benchmarks/heldout.py --set fourth` scores
replays against these; the share is kept apart from tests/heldout/, tests/heldout_fresh/ and
tests/heldout_third/, which have been read while the rules were tuned.

The scenarios are those of tests/heldout/expectations.py: the same scripted models
(fixtures/record/_common.py) and the same app-level scenarios (fixtures/record/_app_loop.py
TracedApp's: call the model, run the tools it asks for, send the results back, until it answers;
a tool's exception goes back to the model, which answers).
Step-level error types are left out: they are not scored (benchmarks/heldout.py `score`).
"""

from __future__ import annotations

from pathlib import Path

from fixture_expectations import APP_LOOP, A, Scenario

FIXTURES = Path(__file__).parent / "fixtures"

# AgentScope (record_agentscope.py): each agent an AgentScope Agent named after it, one reply
# per run; its tools FunctionTools (lookup_order raises: AgentScope hands the error back to the
# model, which answers); billing runs inside the orchestrator's ask_billing tool; `handoff` runs
# triage (its transfer_to_billing tool only answers), then billing, in one request (`serve`, a
# plain span of the app, no agent); the HTTP 500 fails the weather agent's run on its first
# model call. The app-level scenarios of fixture_expectations.APP_LOOP.
AGENTSCOPE = APP_LOOP

# AG2 (record_ag2.py): each agent an AG2 Agent named after it (its TelemetryMiddleware given that
# name), one ask per run; its tools plain functions (lookup_order raises: AG2 hands the error back
# to the model, which answers); billing runs inside the orchestrator's ask_billing tool;
# `handoff` runs triage (its transfer_to_billing tool only answers), then billing, in one request
# (`serve`, a plain span of the app, no agent); the HTTP 500 fails the weather agent's run on its
# first model call. The app-level scenarios of fixture_expectations.APP_LOOP.
AG2 = APP_LOOP

# Traceloop for Node (node/record_traceloop_node.mjs): each agent run a `withAgent` named after
# it, each tool call a `withTool` named after the tool, the request of `handoff` a `withWorkflow`
# named `serve` (no agent); the model calls by Traceloop's OpenAI instrumentation. The app-level
# scenarios, except two things the SDK (0.27.0) never exports, so that nothing can count them:
# its `withTool`/`withAgent` end their span only when the function's promise resolves, so the
# failing lookup_order call leaves no tool span (the orders agent, whose own function resolves,
# still shows its two model calls), and the HTTP 500 run leaves no span at all (not recorded).
TRACELOOP_NODE = {
    "two_tools": APP_LOOP["two_tools"],
    "tool_error": Scenario({"orders": A(llm=2, models={"orders-model": 2})}),
    "agent_as_tool": APP_LOOP["agent_as_tool"],
    "handoff": APP_LOOP["handoff"],
}

EXPECTED: dict[str, dict[str, Scenario]] = {
    "ag2": AG2,
    "agentscope": AGENTSCOPE,
    "traceloop_node": TRACELOOP_NODE,
}
