"""What each scenario of the twenty-seventh held-out share did (issue 35), written from the
recorders in fixtures/record/heldout_twentyseventh/ (which agent ran which model and tools, what
failed, who handed over to whom) and the requests the fake model server received (each recorder
prints them, per scenario), never from the product's output. `benchmarks/heldout.py --set
twentyseventh` scores replays against these; the share is kept apart from the earlier held-out
sets, which have been read while the rules were tuned.

The scenarios are those of tests/heldout/expectations.py: the same scripted models
(fixtures/record/_common.py) and the same app-level scenarios (call the model, run the tools it
asks for, send the results back, until it answers). One model call is one request here (the
clients' retries off; OpenCode's own retries of a failed model step are model calls of their
own). Step-level error types are left out: they are not scored
(benchmarks/heldout.py `score`).
"""

from __future__ import annotations

from pathlib import Path

from fixture_expectations import APP_LOOP, A, Scenario, b

FIXTURES = Path(__file__).parent / "fixtures"

# Google's Gemini CLI (record_gemini_cli.py): each agent run one non-interactive `gemini -p`
# process on the agent's model (the Gemini API, streamed), none of its built-in tools, the
# agent's tools a stdio MCP server of the app's (offered to the model as `mcp_app_<tool>`), Gemini
# CLI running the tool loop and tracing it itself. Gemini CLI names no agent (every process is
# `gemini-cli`): the app names each agent's process after the agent (OTEL_SERVICE_NAME, the
# resource's service.name), so the agents are expected by those names. lookup_order raised and
# Gemini CLI handed its error back to the model (the server got the tool result), which answers:
# two calls; the tool failed. Gemini CLI reads no trace context from its environment and hands
# none to its MCP calls, so every process's spans are traces of their own: billing's run, inside
# the orchestrator's ask_billing tool (run by the tool server, another `gemini -p`), is tied to
# the orchestrator's run by no span, and `handoff`'s two runs (triage, whose transfer_to_billing
# tool only answers, then billing) are tied by no span to each other nor to the app's request
# (`serve`, a plain span of the app's own provider): no delegation is expected in either. The HTTP
# 500 scenario is not recorded: Gemini CLI ends the failed run without flushing its exporters, so
# it exports no span of that run (the recorder runs it and checks that, one gpt-500 request).
GEMINI_CLI = {
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
}

# OpenCode (record_opencode.py): each agent run one `opencode run` process with an OpenCode agent
# of the agent's name on the agent's model (the chat completions API, through OpenCode's bundled
# OpenAI-compatible provider), none of OpenCode's built-in tools, the agent's tools a stdio MCP
# server of the app's (offered to the model as `app_<tool>`), OpenCode running the tool loop and
# tracing itself, its AI SDK spans on. OpenCode names every process `opencode` (the environment
# cannot rename it) and puts no agent's name on any span, so nothing tells one agent from
# another: every step counts for the one service it names, `opencode` (as the thirteenth share's
# agents_flex steps count for theirs), one run per `opencode run` process, the agents' model calls
# and tool calls together, no delegation. lookup_order raised and OpenCode handed its error back
# to the model (the server got the tool result), which answers: two calls; the tool failed.
# Billing's run is inside the orchestrator's ask_billing tool (run by the tool server, another
# `opencode run`), `handoff` runs triage (its transfer_to_billing tool only answers), then
# billing, in one request of the app (`serve`, a plain span of the app's own provider): two runs
# each. The HTTP 500 fails the weather run, but only after OpenCode's own retry policy (five
# retries of a 5xx, which no setting turns off) called the model six times: six gpt-500 requests,
# each a model call of its own (OpenCode runs the model step anew each time), one failed run.
SERVICE = "opencode"
OPENCODE = {
    "two_tools": Scenario({SERVICE: A(
        llm=2, tools={"get_weather": (1, 0), "get_time": (1, 0)}, models={"weather-model": 2})}),
    "tool_error": Scenario({SERVICE: A(
        llm=2, tools={"lookup_order": (0, 1)}, models={"orders-model": 2},
        boundaries=b("tool_failure"))}),
    "agent_as_tool": Scenario({SERVICE: A(
        runs=2, llm=3, tools={"ask_billing": (1, 0)},
        models={"orchestrator-model": 2, "billing-model": 1})}),
    "handoff": Scenario({SERVICE: A(
        runs=2, llm=3, tools={"transfer_to_billing": (1, 0)},
        models={"triage-model": 2, "billing-model": 1})}),
    "http_500": Scenario({SERVICE: A(
        errors=1, llm=6, models={"gpt-500": 6}, boundaries=b("error_path"))}),
}

EXPECTED: dict[str, dict[str, Scenario]] = {
    "gemini_cli": GEMINI_CLI,
    "opencode": OPENCODE,
}
