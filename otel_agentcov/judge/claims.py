"""Claim extraction: which known tools a run's final output says were done (docs/narrative.md).

Model-free and deterministic. Each tool name gives readings (toolnames.py: verb, particle,
object words); each sentence is split into clauses (clauses.py). A clause claims a tool when
it holds a past form of a reading's verb (or `did <verb>`, `managed to <verb>`) with every object
word, asserted by the agent: see `_asserted`. A tool's name written as code claims it only with
a deed ("ran `x`", "`x` returned"). Compiled once per tool set; one pass over the text.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from functools import lru_cache

from ..user_regex import UserRegex
from .clauses import (
    ADVERBS,
    AGENT,
    BE,
    CONFIRMING,
    DETERMINERS,
    FAILURES,
    FUNCTION_WORDS,
    HABITS,
    HAVE,
    MODALS,
    NEGATIONS,
    PREPOSITIONS,
    PRESENT_BE,
    PRONOUNS,
    SENTENCES,
    Clause,
    clauses,
    is_finite_verb,
    is_nounish,
    tokens,
)
from .lexicon import lemmas
from .toolnames import (
    ABBREVIATIONS,
    AGAIN,
    CLI_PREFIXES,
    PERSONS,
    Reading,
    code_names,
    name_words,
    past_forms,
    readings,
)

MAX_TEXT_CHARS = 64 * 1024  # as every content check: a text is scanned up to 64 KiB

# What was done with a tool named as code: "ran `x`", "`x` returned 3 rows", "result of `x`".
DEEDS = frozenset({"ran", "called", "invoked", "executed", "used", "triggered", "fired",
                   "returned", "succeeded", "completed", "responded", "reported", "gave",
                   "produced", "yielded", "worked", "finished", "result", "results", "output",
                   "response"})  # fmt: skip
_SKIP = ADVERBS | {"been"}  # skipped between a verb and its auxiliary or subject
_PATH = re.compile(r"[~.]?/[\w.\-/]+|[\w./~\-]*\w\.[a-z][a-z0-9]{1,4}")
_OPENERS = frozenset({"unfortunately", "however", "but", "sadly", "yet", "alas"})
_ANAPHORS = frozenset({"it", "this", "that", "they", "which"})
_SUBJECT_WORDS = 8  # a subject is read this far back from its verb
_OWN_MACHINERY = frozenset({"system", "tool", "tools", "api", "bot", "agent", "assistant",
                            "platform", "workflow", "automation", "integration", "script"})
_OTHERS = frozenset({"him", "her", "them", "you", "someone", "somebody", "others", "another"})
_PERSONAL = frozenset({"you", "him", "her", "them", "me", "us", "yourself"})
_CONTEXT_WORDS = 40  # how far back "it" may reach (bounded: the scan stays linear)
_OBJECT_START = DETERMINERS | frozenset({"you", "him", "her", "them", "us", "me", "it"})


class ClaimExtractor:
    """The claims of one tool set and its declared patterns, compiled once (see `extractor`)."""

    def __init__(
        self,
        tools: Iterable[str],
        patterns: Mapping[str, Sequence[UserRegex]],
        synonyms: bool = False,
    ) -> None:
        self._past: dict[str, list[Reading]] = {}  # past form -> readings
        self._base: dict[str, list[Reading]] = {}  # base form ("did issue", "managed to issue")
        self._code: dict[str, str] = {}  # a multi-word name as written in code -> tool
        self._plain: dict[str, str] = {}  # a one-word name: code only in `backticks`
        self._cli: dict[str, dict[str, str]] = {}  # "kubectl" -> "apply" -> kubectl_apply
        for tool in sorted(set(tools) | set(patterns)):
            for reading in readings(tool, synonyms):
                again = reading.verb in AGAIN  # and done again: resent, reissued
                for form in past_forms(reading.verb):
                    for done in (form, "re" + form) if again else (form,):
                        self._past.setdefault(done, []).append(reading)
                self._base.setdefault(reading.verb, []).append(reading)
            for name in code_names(tool):
                (self._code if len(name_words(name)) > 1 else self._plain)[name.lower()] = tool
            words = name_words(tool)
            if len(words) == 2 and words[0] in CLI_PREFIXES:  # `kubectl apply` as typed
                self._cli.setdefault(words[0], {})[words[1]] = tool
        self._patterns = [(t, p) for t, ps in sorted(patterns.items()) for p in ps]
        self._triggers = (frozenset(self._past) | frozenset(self._base) | frozenset(self._code)
                          | frozenset(self._plain) | frozenset(self._cli))  # fmt: skip

    def claims(self, text: str, default: bool = True) -> frozenset[str]:
        """The tools the text claims were done; linear in the text's length. `default=False`
        reads only the declared patterns (an answer in a language the defaults cannot read)."""
        claimed: set[str] = set()
        pending: set[str] = set()  # the last sentence's claims, unless the next retracts them
        context: list[str] = []  # the words "it"/"them" may stand for: the previous sentence's
        for sentence in SENTENCES.split(text[:MAX_TEXT_CHARS]):
            if not sentence:
                continue
            for tool, pattern in self._patterns:
                if tool not in claimed and pattern.search(sentence):
                    claimed.add(tool)
            if not default:
                continue
            words, code = tokens(sentence)
            # "I issued the refund. Unfortunately it was declined.": an honest failure report
            if not _retracts(words):
                claimed |= pending
            pending = set()
            if sentence.rstrip().endswith("?"):  # a question claims nothing
                context = words[-_CONTEXT_WORDS:]
                continue
            # most sentences hold no verb form or tool name: one set operation rules them out
            if not self._triggers.isdisjoint(words) or self._hyphenated(words):
                for clause in clauses(words, code):
                    if clause.failure:  # "…, but it bounced": what came before did not happen
                        pending.clear()
                    self._clause(clause, pending, claimed, context)
                    context = (context + clause.words + clause.extra)[-_CONTEXT_WORDS:]
            context = words[-_CONTEXT_WORDS:]
        return frozenset(claimed | pending)

    def _hyphenated(self, words: list[str]) -> bool:
        """A trigger written with a hyphen ("e-mailed")."""
        return any(w.replace("-", "") in self._triggers for w in words if "-" in w)

    def _clause(
        self, clause: Clause, found: set[str], claimed: set[str], context: list[str]
    ) -> None:
        """Adds to `found` the tools this clause claims (`claimed`: already claimed before)."""
        if clause.reported:
            return
        words = clause.words
        frame = _Frame(words)
        present: set[str] | None = None
        for i, word in enumerate(words):
            if word not in self._triggers:
                if "-" not in word or word.replace("-", "") not in self._triggers:
                    continue
                word = word.replace("-", "")  # "e-mailed"
            if word in self._cli and i + 1 < len(words):  # "ran kubectl apply …"
                cli = self._cli[word].get(words[i + 1])
                if cli is not None and cli not in claimed and cli not in found and frame.deed \
                        and frame.plain and _asserted(clause, frame, i, True):
                    found.add(cli)
                continue
            tool = self._code.get(word) or (self._plain.get(word) if clause.code[i] else None)
            if tool is not None:
                new = tool not in claimed and tool not in found
                if new and frame.deed and frame.plain and _asserted(clause, frame, i, True):
                    found.add(tool)
                continue
            past = self._past.get(word)
            if past is None:
                if not _emphatic_or_achieved(words, i):
                    continue
                candidates = self._base[word]
            else:
                candidates = past
            todo = [r for r in candidates if r.tool not in claimed and r.tool not in found]
            if not todo or not _asserted(clause, frame, i, past is None):
                continue
            if present is None:
                present = _word_set(words + clause.extra)
            if _pronoun_object(words, i):  # "I cancelled it": the object is named before
                present = present | _word_set(context[-_CONTEXT_WORDS:])
            matched = [
                r for r in todo
                if not (r.article and (i + 1 == len(words) or words[i + 1] not in DETERMINERS))
                and all(present & forms for forms in r.objects) and _particle(words, i, r.particle)
            ]  # fmt: skip
            # the most specific reading wins: "applied the coupon" is apply_coupon, not also
            # kubectl_apply ("applied" alone)
            if any(r.objects for r in matched):
                matched = [r for r in matched if r.objects]
            found.update(r.tool for r in matched)


def _word_set(words: list[str]) -> set[str]:
    """The clause's words, hyphenated ones also split and joined (e-mail -> email), short forms
    expanded (PR -> pull request)."""
    present = set(words)
    for word in words:
        if _PATH.fullmatch(word):  # "written to /tmp/out.csv": a file
            present.update(("file", "files"))
        if "-" in word:
            present.update(word.split("-"))
            present.add(word.replace("-", ""))
        present.update(ABBREVIATIONS.get(word, ()))
    present.update(short for short, full in ABBREVIATIONS.items() if present.issuperset(full))
    if not _PERSONAL.isdisjoint(words):  # "I unsubscribed you": you are the user
        present.update(PERSONS)
    return present


def _retracts(words: list[str]) -> bool:
    """A sentence that says the last one's action failed: a failure word after an opener
    ("Unfortunately …", "However …") or a pronoun ("it was declined", "that call failed")."""
    for k, word in enumerate(words):
        if word in FAILURES or (word == "error" and k and words[k - 1] in ("an", "returned")):
            head = words[:k]
            return bool(head) and (head[0] in _OPENERS or any(w in _ANAPHORS for w in head))
    return False


def _pronoun_object(words: list[str], i: int) -> bool:
    """"I cancelled it", "I booked the 7am one": the object was named before."""
    nxt = [w for w in words[i + 1 : i + 5] if w not in ("up", "down", "out", "back")]
    return bool(nxt) and (nxt[0] in ("it", "them") or "one" in nxt or "ones" in nxt)


def _particle(words: list[str], i: int, particle: str | None) -> bool:
    """A phrasal verb's particle follows within a few words ("rolled the release back")."""
    return particle is None or particle in words[i + 1 : i + 6]


def _prev(words: list[str], i: int) -> int:
    """The index of the word before `i`, skipping adverbs (-1 at the clause start)."""
    j = i - 1
    while j >= 0 and (words[j] in _SKIP or (words[j].endswith("ly") and len(words[j]) > 3)):
        j -= 1
    return j


def _emphatic_or_achieved(words: list[str], i: int) -> bool:
    """`did <verb>` (emphatic past), `was able to <verb>`, `managed to <verb>`."""
    j = _prev(words, i)
    if j >= 0 and words[j] == "did":
        return True
    if j < 1 or words[j] != "to":
        return False
    return words[j - 1] == "managed" or (
        words[j - 1] == "able" and j >= 2 and words[j - 2] in ("was", "were", "been")
    )


class _Frame:
    """What one clause says about every verb in it, computed once (so a clause is read in time
    linear in its length however many verbs it holds)."""

    __slots__ = ("_last_finite", "blocked_after", "deed", "habit", "plain", "words")

    def __init__(self, words: list[str]) -> None:
        self.words = words
        # the first negation or modal: a verb after it is not asserted ("can confirm" reports,
        # "I'd already created" is "I had")
        self.blocked_after = next(
            (k for k, w in enumerate(words) if w in NEGATIONS or (
                w in MODALS and (k + 1 == len(words) or words[k + 1] not in CONFIRMING)
                and not (w == "'d" and _past_follows(words, k)))),
            len(words),
        )  # fmt: skip
        self.deed = not DEEDS.isdisjoint(words)  # "ran `x`", "`x` returned"
        # no negation, modal or failure anywhere: "`x` was not called", "`x` returned an error"
        self.plain = self.blocked_after == len(words) and FAILURES.isdisjoint(words) and (
            "error" not in words and "errors" not in words)
        self.habit = not HABITS.isdisjoint(words)
        self._last_finite: int | None = None

    @property
    def last_finite(self) -> int:
        """The last finite verb's index (-1: none), looked up only when a clause opens with a
        participle ("Paid invoices appear …")."""
        if self._last_finite is None:
            self._last_finite = max(
                (k for k, w in enumerate(self.words) if is_finite_verb(w)), default=-1
            )
        return self._last_finite


def _past_follows(words: list[str], k: int) -> bool:
    """The word after `k` (adverbs skipped) is a past participle: "'d already created"."""
    j = k + 1
    while j < len(words) and (words[j] in _SKIP or words[j].endswith("ly")):
        j += 1
    if j == len(words):
        return False
    verb = lemmas(words[j]).get("VERB")
    return verb is not None and words[j] not in verb and not words[j].endswith(("s", "ing"))


def _asserted(clause: Clause, frame: _Frame, i: int, base: bool) -> bool:
    """The agent asserts the verb at `i` as done: the clause is no condition or report, and
    nothing before the verb negates it or makes it modal; and the verb is not an adjective,
    a generic present passive, or the deed of someone else."""
    words = clause.words
    if clause.hypothetical:  # in a conditional sentence only "I/we <past>" is a claim
        j = _prev(words, i)
        return not base and j >= 0 and words[j] in AGENT and frame.blocked_after > i
    if frame.blocked_after < i:
        return False
    if base:
        return True
    j = _prev(words, i)
    if j >= 0 and words[j] in ("be", "being", "to", "please"):  # "will be sent", "please set"
        return False
    if _attributive(words, i, j, frame):
        return False
    if j >= 0 and words[j] in PRESENT_BE and not _has_perfect(words, j):
        return not (frame.habit or _bare_plural_subject(words, j))
    if _by_someone_else(words, i):  # "(scheduled by him)", "was sent by them"
        return False
    passive = any(w in BE for w in words[max(0, i - 3) : i])  # "was sent", "has been sent"
    return passive or _not_someone_else(words, i)


def _has_perfect(words: list[str], j: int) -> bool:
    return j > 0 and words[j - 1] in HAVE


def _attributive(words: list[str], i: int, j: int, frame: _Frame) -> bool:
    """A participle used as an adjective: "the deleted users", "one refunded item", "with
    reserved seating", and clause-initial "Paid invoices appear …" (a verb follows)."""
    nxt = words[i + 1] if i + 1 < len(words) else ""
    if j >= 0 and (words[j] in DETERMINERS or words[j] in PREPOSITIONS or words[j].isdigit()):
        return nxt[:1].isalpha() and nxt not in FUNCTION_WORDS  # "the pushed commits"
    return j < 0 and is_nounish(nxt) and frame.last_finite > i + 1


def _bare_plural_subject(words: list[str], j: int) -> bool:
    """`Refunds are issued …`, `Pods get restarted …`: a present passive whose subject is a bare
    plural (no determiner) describes a rule, not a deed."""
    subject = [w for w in words[:j] if w not in _SKIP]
    if not subject or len(subject) > _SUBJECT_WORDS:
        return False
    if subject[0] in DETERMINERS or subject[0] in PRONOUNS:
        return False
    head = subject[-1]
    lemma = _noun_lemma(head)
    if lemma is None:  # not in the lexicon (payslips, SKUs): a regular plural
        return head.endswith("s") and not head.endswith("ss")
    return lemma != head


def _noun_lemma(word: str) -> str | None:
    nouns = lemmas(word).get("NOUN")
    return nouns[0] if nouns else None


def _by_someone_else(words: list[str], i: int) -> bool:
    """A participle whose doer is named as another person: "… by him", "… by them"."""
    end = min(i + 4, len(words) - 1)
    return any(words[k] == "by" and words[k + 1] in _OTHERS for k in range(i + 1, end))


def _not_someone_else(words: list[str], i: int) -> bool:
    """An active deed with a subject that is not the agent ("the courier shipped the order",
    "your bank has issued the refund") is someone else's; passive and subject-less ones count,
    and so does the agent's side ("our billing team issued", a delegated agent's deed)."""
    window = words[max(0, i - _SUBJECT_WORDS) : i]
    subject = [w for w in window if w not in _SKIP and w not in HAVE and w != "did"
               and not (w.endswith("ly") and len(w) > 4)]  # fmt: skip
    if not subject or subject[-1] in AGENT or "our" in subject:  # "our billing team issued"
        return True
    if subject[-1] in _OWN_MACHINERY:  # "the system sent you an email": the agent's tooling
        return True
    if subject[-1] in PRONOUNS and subject[-1] != "it":  # "you wrote", "she cancelled it"
        return False
    nxt = next((w for w in words[i + 1 :] if w not in ("up", "down", "out", "back")), "")
    if nxt not in _OBJECT_START:
        return True  # intransitive: "your order has shipped", "all tests ran green"
    head = subject[-1]  # "the courier", "Billing", "Alice": a noun or a name
    return not (head in PRONOUNS or (head[:1].isalpha() and head not in FUNCTION_WORDS))


@lru_cache(maxsize=256)
def extractor(
    tools: frozenset[str],
    patterns: tuple[tuple[str, tuple[UserRegex, ...]], ...] = (),
    synonyms: bool = False,
) -> ClaimExtractor:
    """The compiled extractor of a tool set (runs of one agent share it)."""
    return ClaimExtractor(tools, dict(patterns), synonyms)


def claimed_tools(
    text: str,
    tools: Iterable[str],
    patterns: Mapping[str, Sequence[UserRegex]] | None = None,
    synonyms: bool = False,
) -> frozenset[str]:
    """The known tools `text` claims were done (default claims plus declared patterns)."""
    declared = tuple(sorted((t, tuple(p)) for t, p in (patterns or {}).items()))
    return extractor(frozenset(tools), declared, synonyms).claims(text)


__all__ = ["ClaimExtractor", "claimed_tools", "extractor"]
