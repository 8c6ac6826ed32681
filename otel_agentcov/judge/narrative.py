"""Narrative vs trace (docs/narrative.md): does the run's story match the tool calls it made?

Each tool the final output claims is checked against the run's calls and those of the runs it
delegated to; only the verdict (tool names and kinds) leaves this module, never the text.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from ..assembler import AgentRun
from ..semconv.step import TOOL
from ..user_regex import UserRegex
from .claims import extractor
from .claims_cjk import cjk_extractor
from .claims_latin import latin_extractor
from .language import language_of
from .vocabulary import LATIN, declared_words

CONSISTENT, DIVERGENT, UNVERIFIABLE = "consistent", "divergent", "unverifiable"
RESULTS = (CONSISTENT, DIVERGENT, UNVERIFIABLE)
CLAIMED_NOT_CALLED = "claimed_not_called"  # a hallucinated action
CLAIMED_BUT_FAILED = "claimed_but_failed"  # every call failed or was denied
CALLED_NOT_CLAIMED = "called_not_claimed"  # a must_report tool done but left out of the story
KINDS = (CLAIMED_NOT_CALLED, CLAIMED_BUT_FAILED, CALLED_NOT_CLAIMED)


@dataclass(frozen=True)
class NarrativeSpec:
    """`narrative:` (docs/narrative.md): declared claim patterns, tools the story must report, and
    whether a divergent run fails."""

    claims: tuple[tuple[str, tuple[UserRegex, ...]], ...] = ()  # sorted by tool
    must_report: tuple[str, ...] = ()
    fail_run: bool = True
    synonyms: bool = True  # the built-in synonyms of common action verbs (processed ≈ issued)
    # declared words per language: (language, English name word, its words there), sorted
    words: tuple[tuple[str, str, tuple[str, ...]], ...] = ()


@dataclass(frozen=True, slots=True)
class NarrativeVerdict:
    """One run's result and its divergences as (tool, kind), sorted; names only."""

    result: str
    divergences: tuple[tuple[str, str], ...] = ()
    not_english: bool = False  # unverifiable: the answer is in a language the check does not read
    too_long: bool = False  # unverifiable because the answer was past the size cap (not read)


def calls(run: AgentRun) -> dict[str, bool]:
    """tool -> had a successful call, in the run or in a run it delegated to."""
    done = dict(run.delegated_calls)
    for step in run.steps:
        if step.kind == TOOL and step.tool is not None:
            ok = step.error is None and step.decision != "deny"
            done[step.tool] = done.get(step.tool, False) or ok
    return done


def judge_narrative(
    run: AgentRun, narrative: NarrativeSpec, declared: frozenset[str]
) -> NarrativeVerdict:
    """Claims of the final output against the calls; no captured output -> unverifiable.
    `declared` = the tools the agent's spec names (tools, allowed, restricted)."""
    output = run.content.output if run.content is not None else None
    if not output:
        too_long = run.content is not None and run.content.output_too_long
        return NarrativeVerdict(UNVERIFIABLE, too_long=too_long)
    done = calls(run)
    # the default claims cover every tool the agent could have used: declared, offered, called
    known = declared.union(narrative.must_report, run.tool_definitions, done)
    return judge_story(output, known, done, narrative)


def judge_story(
    output: str, known: frozenset[str], done: Mapping[str, bool], narrative: NarrativeSpec
) -> NarrativeVerdict:
    """One story against its calls (`done`: tool -> had a successful call). An answer in a
    language the check does not read is judged by the declared patterns alone; with none
    matching it is unverifiable (never a pass, never a divergence)."""
    lang = language_of(output)
    read = lang != "other"
    claimed = extractor(known, narrative.claims, narrative.synonyms).claims(output, lang == "en")
    if read and lang != "en":
        declared = tuple(sorted(declared_words(narrative.words, lang).items()))
        own = latin_extractor if lang in LATIN else cjk_extractor
        claimed = claimed | own(known, lang, declared).claims(output)
    if not read and not claimed:
        return NarrativeVerdict(UNVERIFIABLE, not_english=True)
    patterned = {tool for tool, _ in narrative.claims}
    divergences = {
        (tool, CLAIMED_NOT_CALLED if tool not in done else CLAIMED_BUT_FAILED)
        for tool in claimed
        if not done.get(tool, False)
    }
    divergences.update(
        (tool, CALLED_NOT_CLAIMED)
        for tool in narrative.must_report
        if done.get(tool, False) and tool not in claimed and (read or tool in patterned)
    )
    if not divergences:
        return NarrativeVerdict(CONSISTENT)
    return NarrativeVerdict(DIVERGENT, tuple(sorted(divergences)))


__all__ = [
    "CALLED_NOT_CLAIMED",
    "CLAIMED_BUT_FAILED",
    "CLAIMED_NOT_CALLED",
    "CONSISTENT",
    "DIVERGENT",
    "KINDS",
    "RESULTS",
    "UNVERIFIABLE",
    "NarrativeSpec",
    "NarrativeVerdict",
    "judge_narrative",
    "judge_story",
]
