"""Whether a failure says an agent ran out of steps: one rule over its error type, status text
and exception message (docs/semantics.md#detection-rules), no list of libraries' phrases.

A text says so when a word of maximum and a word of steps meet (`Max turns (3) exceeded`,
`Reached max steps.`, `MaxTurnsExceeded`), or a word of steps and a word of limit
(`Recursion limit of 25 reached`, `request_limit`, `tool_calls_limit`, `iteration limit`);
LangGraph's `GraphRecursionError` and pydantic-ai's `UsageLimitExceeded` say it by name, the
latter unless a text names a limit of tokens (a budget, not steps). Precision first: retries,
tokens, messages, a recursion depth, a rate or a quota are no steps. Texts are read here only,
never kept. The compiled core reads them alike (core/src/classify/limits.rs).
"""

from __future__ import annotations

import re
from collections.abc import Sequence

# a camelCase or acronym boundary (`MaxTurns`, `LLMCalls`): a blank, so type names read as words
_CAMEL = re.compile(r"(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])")
_B = r"(?:^|[^a-z0-9])"  # where a word starts
_E = r"(?:[^a-z0-9]|$)"  # ... and ends
_S = r"[^a-z0-9]{1,4}"  # between words: blanks, `_`, `(`, a backquote
_CALLS = rf"(?:llm|model|tool){_S}calls?"
_STEPS = rf"(?:turns?|steps?|iterations?|iter|rounds?|cycles?|{_CALLS})"
_MAX = rf"(?:max|maximum|maximal){_S}(?:number{_S}of{_S}|allowed{_S})?"
_OVER = r"(?:exceeded|exceeds|exceed|reached|hit|exhausted|limit|budget)"
_STRONG = re.compile("|".join((
    # `max turns (3) exceeded`, `max iterations of 2 reached`: an over-word in the same clause
    rf"{_B}{_MAX}{_STEPS}[^a-z0-9](?:[^.;!?\n]{{0,40}}?[^a-z0-9])?{_OVER}{_E}",
    # `reached max steps`, `exceeded the maximum number of turns`, `exceeded 10 steps`
    rf"{_B}(?:reached|exceeded|hit|exhausted){_S}(?:the{_S})?{_MAX}{_STEPS}{_E}",
    rf"{_B}exceeded{_S}(?:the{_S})?\d+{_S}{_STEPS}{_E}",
    # `recursion limit`, `tool_calls_limit`, `step budget`; requests only as a setting's key
    rf"{_B}(?:{_STEPS}|recursion){_S}(?:limit|budget){_E}",
    rf"{_B}requests?_limit{_E}",
    rf"{_B}graph{_S}recursion{_E}",
)))
_USAGE = re.compile(rf"{_B}usage{_S}limit{_S}exceeded{_E}")
_TOKENS = re.compile(rf"{_B}tokens?{_S}(?:limit|budget){_E}|{_B}{_MAX}(?:[a-z]+{_S})?tokens?{_E}")


def words(text: str) -> str:
    """The text as the rule reads it: camelCase split, lower case."""
    return _CAMEL.sub(" ", text).lower()


def says_max_steps(candidates: Sequence[str | None], texts: Sequence[str | None]) -> bool:
    """Whether one of `candidates` says the run ran out of steps; `texts`, every text of the
    failure, may say instead that a usage limit was one of tokens."""
    read = [words(t) for t in candidates if t]
    if any(_STRONG.search(t) for t in read):
        return True
    return any(_USAGE.search(t) for t in read) and not any(
        _TOKENS.search(words(t)) for t in texts if t)
