"""What each scenario of the twenty-first held-out share did (issue 35), written from the recorders
in fixtures/record/heldout_twentyfirst/ (which agent ran which model and tools, what failed, who
handed over to whom) and the requests the fake model server received (each recorder prints them,
per scenario), never from the product's output. `benchmarks/heldout.py --set twentyfirst` scores
replays against these; the share is kept apart from the earlier held-out sets, which have been
read while the rules were tuned.

The scenarios are those of tests/heldout/expectations.py: the same scripted models
(fixtures/record/_common.py) and the same app-level scenarios (call the model, run the tools it
asks for, send the results back, until it answers). One model call is one request in every stack
here (the clients' retries off). Step-level error types are left out: they are not scored
(benchmarks/heldout.py `score`).
"""

from __future__ import annotations

from pathlib import Path

from fixture_expectations import APP_LOOP, A, Scenario

FIXTURES = Path(__file__).parent / "fixtures"

# AgentScope Java (java/src/main/java/fixture/record_agentscope_java.java): each agent a ReActAgent
# named after it on AgentScope's OpenAIChatModel of its model name (its retries off), with its
# @Tool methods in its Toolkit; AgentScope runs the tool loop. lookup_order raised and AgentScope
# handed its error back to the model as the tool's result (the server got it), which answers: two
# calls; the tool failed (what happened, however the stack marks it). Billing's run is inside the
# orchestrator's ask_billing tool; `handoff` runs triage (its transfer_to_billing tool only
# answers), then billing, in one request of the app (`serve`, a plain span, no agent). The HTTP
# 500 fails the weather run on its one model call (one gpt-500 request). The app-level scenarios
# of fixture_expectations.APP_LOOP.
AGENTSCOPE_JAVA = APP_LOOP

# Anthropic's Claude Agent SDK, Python (record_claude_agent_sdk.py): each agent run one query(),
# one process of the Claude Code CLI the SDK bundles, on the agent's model, no built-in tool, the
# agent's tools an in-process SDK MCP server (offered to the model as `mcp__app__<tool>`), Claude
# Code running the tool loop and tracing it itself. Claude Code names no agent: the app names each
# agent's process after the agent (its service.name), so the agents are expected by those names.
# lookup_order raised and Claude Code handed its error back to the model (the server got the tool
# result), which answers: two calls; the tool failed. `handoff` runs triage (its
# transfer_to_billing tool only answers), then billing, in one request of the app (`serve`, a
# plain span of the app's own provider, handed to each CLI process as its parent). Billing's run
# is inside the orchestrator's ask_billing tool, which runs in the app's process, not Claude
# Code's: Claude Code hands no trace context to an MCP tool, so billing's process starts under
# the span the `mcp` library makes for the server's side of that call, in a trace of its own,
# and no span ties it to the orchestrator's run: no delegation is expected there. The HTTP 500
# fails the weather run on its one model call (one gpt-500 request: Claude Code's retries off).
CLAUDE_AGENT_SDK = {**APP_LOOP, "agent_as_tool": Scenario({
    "orchestrator": A(llm=2, tools={"ask_billing": (1, 0)}, models={"orchestrator-model": 2}),
    "billing": A(models={"billing-model": 1}),
})}

EXPECTED: dict[str, dict[str, Scenario]] = {
    "agentscope_java": AGENTSCOPE_JAVA,
    "claude_agent_sdk": CLAUDE_AGENT_SDK,
}
