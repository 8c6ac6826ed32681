"""What each scenario of the twenty-fifth held-out share did (issue 35), written from the recorder
in fixtures/record/heldout_twentyfifth/ (which agent ran which model and tools, what failed, who
handed over to whom) and the requests the fake model server received (the recorder prints them,
per scenario), never from the product's output. `benchmarks/heldout.py --set twentyfifth` scores
replays against these; the share is kept apart from the earlier held-out sets, which have been
read while the rules were tuned.

The scenarios are those of tests/heldout/expectations.py, as far as the stack can express them:
the same agents, tools and app-level scenarios (the customer writes to an agent, which runs the
tools its model asks for and answers). Step-level error types are left out: they are not scored
(benchmarks/heldout.py `score`).
"""

from __future__ import annotations

from pathlib import Path

from fixture_expectations import A, Scenario, b

FIXTURES = Path(__file__).parent / "fixtures"

# the two models Parlant's OpenAI service picks itself, by the step (the app names none)
GPT_4O = "gpt-4o-2024-08-06"
GPT_41 = "gpt-4.1"

# Parlant, Python (record_parlant.py): each agent a Parlant server of its own holding one agent of
# that name, its process named after it (Parlant's spans name no agent), on Parlant's OpenAI
# service, its tools on one guideline of its own; the customer's message goes to a session of the
# agent through Parlant's HTTP API. Parlant answers one message in steps, each one model call and
# one request (no retries but in http_500), on the model Parlant picks for the step: the
# guideline check, a preamble and the answer's check on gpt-4o-2024-08-06; a decision per tool
# that takes arguments and the message on gpt-4.1. A tool with no argument
# (transfer_to_billing) runs with no decision asked. Billing has no guideline: its turn is a
# preamble and the message. Each scenario's agents are one run each.
#  - two_tools: weather ran get_weather and get_time (one decision each), both results went to
#    the message: 6 calls (3 + 3).
#  - tool_error: lookup_order raised in Parlant's tool service; Parlant handed the error to the
#    message as the tool's result (the server got it) and the turn answered: 5 calls (3 + 2),
#    the tool failed (what happened, however the stack marks it).
#  - agent_as_tool: billing's turn ran inside the orchestrator's ask_billing tool, on billing's
#    own server, called through Parlant's HTTP API from the tool: nothing carries the trace
#    context across (Parlant starts each turn's trace afresh, and its client sends none), so no
#    span ties billing's run to the orchestrator's and no delegation is expected there. The
#    orchestrator: 5 calls (3 + 2); billing: 2 (1 + 1).
#  - handoff: triage's transfer_to_billing ran (its answer only says so) and the app then sent the
#    customer to billing, in one request of the app (`serve`, a plain span of the app's own, no
#    agent; Parlant's turns start traces of their own, not under it): triage hands over to
#    billing, as its tool's name says. Triage: 4 calls (3 + 1); billing: 2 (1 + 1).
#  - http_500: every model request of the weather turn got an HTTP 500 and the turn ended in an
#    error: four of Parlant's model calls, all on gpt-4o-2024-08-06 (three tries of the guideline
#    check, one preamble), each retried by the OpenAI client and by Parlant's own retry policy
#    before it failed (24 requests in all).
PARLANT = {
    "two_tools": Scenario({"weather": A(
        llm=6, tools={"get_weather": (1, 0), "get_time": (1, 0)},
        models={GPT_4O: 3, GPT_41: 3})}),
    "tool_error": Scenario({"orders": A(
        llm=5, tools={"lookup_order": (0, 1)}, models={GPT_4O: 3, GPT_41: 2},
        boundaries=b("tool_failure"))}),
    "agent_as_tool": Scenario({
        "orchestrator": A(llm=5, tools={"ask_billing": (1, 0)}, models={GPT_4O: 3, GPT_41: 2}),
        "billing": A(llm=2, models={GPT_4O: 1, GPT_41: 1}),
    }),
    "handoff": Scenario({
        "triage": A(llm=4, tools={"transfer_to_billing": (1, 0)}, models={GPT_4O: 3, GPT_41: 1},
                    delegations=("triage->billing",)),
        "billing": A(llm=2, models={GPT_4O: 1, GPT_41: 1}),
    }),
    "http_500": Scenario({"weather": A(errors=1, llm=4, models={GPT_4O: 4},
                                       boundaries=b("error_path"))}),
}

EXPECTED: dict[str, dict[str, Scenario]] = {
    "parlant": PARLANT,
}
