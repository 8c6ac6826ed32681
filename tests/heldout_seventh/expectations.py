"""What each scenario of the seventh held-out share did (issue 35), written from the recorders in
fixtures/record/heldout_seventh/ (which agent ran which model and tools, what failed, who handed
over to whom) and the requests the fake model server received (each recorder prints them), never
from the product's output. `benchmarks/heldout.py --set seventh` scores replays against these; the
share is kept apart from the earlier held-out sets, which have been read while the rules were
tuned.

The scenarios are those of tests/heldout/expectations.py: the same scripted models
(fixtures/record/_common.py) and the same app-level scenarios (call the model, run the tools it
asks for, send the results back, until it answers). Each recorder turns the stack's transport
retries off where the stack allows it, so one model call is one request (Quarkus LangChain4j's
exception is noted below). Step-level error types are left out: they are not scored
(benchmarks/heldout.py `score`).
"""

from __future__ import annotations

from pathlib import Path

from fixture_expectations import APP_LOOP, APP_LOOP_TOOL_ERROR_FAILS, Scenario

FIXTURES = Path(__file__).parent / "fixtures"

# Firebase Genkit, Go (go/record_genkit_go.go): each agent a Genkit flow named after it,
# generating with its model and tools, Genkit running the tool loop. Genkit does not hand a
# tool's error back to the model: lookup_order fails the generate call and the orders flow after
# one model call. Billing's flow runs inside the orchestrator's ask_billing tool; `handoff` runs
# triage (its transfer_to_billing tool only answers, then triage answers: two calls), then
# billing, in one request of the app (`serve`, a plain span, no agent); the HTTP 500 fails the
# weather flow on its first model call.
GENKIT_GO = APP_LOOP_TOOL_ERROR_FAILS

# JetBrains Koog, Kotlin (kotlin/src/main/kotlin/fixture/record_koog.kt): each agent a Koog
# AIAgent whose id is its name, on its model with its tools, Koog running the tool loop; Koog hands
# a tool's exception back to the model, which answers (two calls). Billing's agent runs inside the
# orchestrator's ask_billing tool; `handoff` runs triage (its transfer_to_billing tool only
# answers), then billing, in one request of the app (`serve`, a plain span, no agent); the HTTP
# 500 fails the weather run on its first model call. The app-level scenarios of
# fixture_expectations.APP_LOOP.
KOOG = APP_LOOP

# Quarkus LangChain4j, Java (quarkus/src/main/java/fixture/record_quarkus_langchain4j.java): each
# agent a LangChain4j AI service interface named after it, on its own model with its @Tool beans,
# LangChain4j running the tool loop and handing a tool's exception back to the model, which
# answers (two calls). Billing's service runs inside the orchestrator's ask_billing tool;
# `handoff` runs triage (its transfer_to_billing tool only answers), then billing, in one request
# of the app (`serve`, a plain span, no agent); the HTTP 500 fails the weather run on its first
# model call. Quarkus allows no fewer than one retry: the fake server received that one failing
# model call twice, both requests inside the one call LangChain4j made. The app-level scenarios of
# fixture_expectations.APP_LOOP.
QUARKUS_LANGCHAIN4J = APP_LOOP

EXPECTED: dict[str, dict[str, Scenario]] = {
    "genkit_go": GENKIT_GO,
    "koog": KOOG,
    "quarkus_langchain4j": QUARKUS_LANGCHAIN4J,
}
