"""Verdicts and the exit codes they map to, shared by every command that judges
(docs/semantics.md#the-gate-verdicts-and-exit-codes).

One place, so `gate`, `coverage`, `compare` and the pytest plugin cannot drift apart: a CI job
reads the same code for the same situation whichever command it ran.
"""

from __future__ import annotations

from collections.abc import Iterable

PASS, FAIL, INCONCLUSIVE = "PASS", "FAIL", "INCONCLUSIVE"

EXIT_PASS = 0
EXIT_FAIL = 1
EXIT_USAGE = 2  # bad input or usage, including "no agent runs found" without --allow-empty
EXIT_INCONCLUSIVE = 3


def exit_code(verdicts: Iterable[str], allow_inconclusive: bool = False) -> int:
    """1 when anything failed, else 3 when something could not be decided (0 if allowed), else 0.

    A failure outranks an undecided verdict: the run is known to be bad whatever the rest says."""
    seen = set(verdicts)
    if FAIL in seen:
        return EXIT_FAIL
    if INCONCLUSIVE in seen and not allow_inconclusive:
        return EXIT_INCONCLUSIVE
    return EXIT_PASS


def no_runs_message(inputs: Iterable[str], flag: str = "--allow-empty") -> str:
    """The one line for an input set that held no agent run: a mistyped path must not pass CI."""
    named = ", ".join(inputs) or "(no inputs)"
    return f"no agent runs found in {named} (give {flag} to accept this); {INSTRUMENT_HINT}"


# how to get agent runs at all, for every "no agent run" message (docs/quickstarts.md)
INSTRUMENT_HINT = (
    "instrument your agents on the tracer provider the processor is on: pydantic-ai "
    "Agent.instrument_all() with that provider global, OpenAI Agents SDK and LangGraph through "
    "OpenInference (agentcov docs quickstarts)"
)
