"""What each held-out scenario did (issue 35), written from the recorders in
fixtures/record/heldout/ (which agent ran which model and tools, what failed, who handed over to
whom), never from the product's output. benchmarks/heldout.py scores replays against these.

The scenarios are those of tests/fixture_expectations.py: the same scripted models
(fixtures/record/_common.py) and, for the Python SDKs, the same app-written tool loop
(fixtures/record/_app_loop.py TracedApp) with each SDK's own decorators on agents and tools.
Step-level error types are left out: they are not scored (benchmarks/heldout.py `score`).
"""

from __future__ import annotations

from pathlib import Path

from fixture_expectations import AGENT_AS_TOOL, APP_LOOP, TWO_TOOLS, A, Scenario, b

FIXTURES = Path(__file__).parent / "fixtures"

# Genkit (node/record_genkit.mjs): each agent is a flow named after it running `ai.generate`
# with its tools. Genkit does not hand a tool's exception back to the model: `generate` and the
# flow fail after one model call. The billing flow runs inside the orchestrator's ask_billing
# tool. Models are the scripted ones (Genkit prefixes them with its plugin's name, `local/`).
GENKIT = {
    "two_tools": TWO_TOOLS,
    "tool_error": Scenario(
        {"orders": A(errors=1, tools={"lookup_order": (0, 1)}, models={"orders-model": 1},
                     boundaries=b("tool_failure", "error_path"))}),
    "agent_as_tool": AGENT_AS_TOOL,
    "http_500": APP_LOOP["http_500"],
}

# The OpenAI Agents SDK (record_lmnr_agents.py): the SDK hands a tool's exception back to the
# model, which answers; triage's handoff to billing is the SDK's handoff (not a function tool),
# billing answering in the same run; billing.as_tool() runs billing inside ask_billing.
LMNR_AGENTS = {
    "two_tools": TWO_TOOLS,
    "tool_error": APP_LOOP["tool_error"],
    "handoff": Scenario({
        "triage": A(models={"triage-model": 1}, delegations=("triage->billing",)),
        "billing": A(models={"billing-model": 1}),
    }),
    "agent_as_tool": AGENT_AS_TOOL,
    "http_500": APP_LOOP["http_500"],
}

EXPECTED: dict[str, dict[str, Scenario]] = {
    "lmnr": APP_LOOP,  # record_lmnr.py: Laminar's observe() and its OpenAI instrumentation
    "lmnr_agents": LMNR_AGENTS,  # record_lmnr_agents.py: Laminar over the OpenAI Agents SDK
    "agentops": APP_LOOP,  # record_agentops.py: @agent/@tool under a @trace per scenario
    "agenta": APP_LOOP,  # record_agenta.py: ag.instrument() on agents, tools and model calls
    "genkit": GENKIT,
}
