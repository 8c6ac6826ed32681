"""What each scenario of the twenty-third held-out share did (issue 35), written from the recorders
in fixtures/record/heldout_twentythird/ (which agent ran which model and tools, what failed, who
handed over to whom) and the requests the fake model server received (each recorder prints them,
per scenario), never from the product's output. `benchmarks/heldout.py --set twentythird` scores
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

from fixture_expectations import APP_LOOP, Scenario

FIXTURES = Path(__file__).parent / "fixtures"

# OpenAI's Codex CLI (record_codex.py): each agent run one `codex exec` process on the agent's
# model (the Responses API), its tools a stdio MCP server of the app's (offered to the model in
# the namespace `mcp__app`), Codex running the tool loop and tracing it itself. Codex names no
# agent: the app runs each agent in a Codex home of its own whose telemetry `environment` is the
# agent's name, so the agents are expected by those names. lookup_order raised and Codex handed
# its error back to the model (the server got the tool result), which answers: two calls; the
# tool failed. Billing's run is inside the orchestrator's ask_billing tool, run by the tool
# server: Codex hands the trace context to its MCP calls, the `mcp` library's span of the
# server's side is a child of Codex's call, and billing's process starts under it (TRACEPARENT),
# so billing's run sits inside the orchestrator's tool call. `handoff` runs triage (its
# transfer_to_billing tool only answers), then billing, in one request of the app (`serve`, a
# plain span, handed to each process as TRACEPARENT). The HTTP 500 scenario is not recorded:
# Codex exits on the failed turn without flushing its exporters, so it exports no span of that
# run (the recorder runs it and checks that, one gpt-500 request).
CODEX = {name: scenario for name, scenario in APP_LOOP.items() if name != "http_500"}

EXPECTED: dict[str, dict[str, Scenario]] = {
    "codex": CODEX,
}
