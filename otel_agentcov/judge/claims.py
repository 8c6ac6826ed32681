"""Claim extraction: which known tools a run's final output says were done (docs/narrative.md).

Model-free and deterministic: a tool name becomes a verb and object words, and a sentence claims
the tool when it holds a past or perfect form of the verb and every object word, with no negation
or modal before the verb. Compiled once per tool set; one pass over the text's tokens.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache

MAX_TEXT_CHARS = 64 * 1024  # as every content check: a text is scanned up to 64 KiB

# Past tense and past participle of common irregular verbs (the regular forms are generated).
IRREGULAR: Mapping[str, tuple[str, ...]] = {
    "send": ("sent",), "write": ("wrote", "written"), "run": ("ran", "run"),
    "make": ("made",), "pay": ("paid",), "buy": ("bought",), "get": ("got", "gotten"),
    "find": ("found",), "read": ("read",), "set": ("set",), "put": ("put",),
    "sell": ("sold",), "tell": ("told",), "give": ("gave", "given"), "take": ("took", "taken"),
    "build": ("built",), "bring": ("brought",), "keep": ("kept",), "leave": ("left",),
    "do": ("did", "done"), "go": ("went", "gone"), "see": ("saw", "seen"),
    "begin": ("began", "begun"), "break": ("broke", "broken"), "choose": ("chose", "chosen"),
    "draw": ("drew", "drawn"), "drive": ("drove", "driven"), "forget": ("forgot", "forgotten"),
    "freeze": ("froze", "frozen"), "hide": ("hid", "hidden"), "hold": ("held",),
    "know": ("knew", "known"), "lay": ("laid",), "lead": ("led",), "lend": ("lent",),
    "lose": ("lost",), "meet": ("met",), "say": ("said",), "seek": ("sought",),
    "show": ("shown",), "shut": ("shut",), "speak": ("spoke", "spoken"), "spend": ("spent",),
    "split": ("split",), "stand": ("stood",), "teach": ("taught",), "think": ("thought",),
    "throw": ("threw", "thrown"), "win": ("won",), "bind": ("bound",), "feed": ("fed",),
    "cut": ("cut",), "hit": ("hit",), "let": ("let",), "quit": ("quit",), "cast": ("cast",),
    "spread": ("spread",), "sweep": ("swept",), "deal": ("dealt",), "dig": ("dug",),
    "grow": ("grew", "grown"), "light": ("lit",), "mean": ("meant",), "catch": ("caught",),
    "fight": ("fought",), "hear": ("heard",), "sleep": ("slept",), "stick": ("stuck",),
    "strike": ("struck",), "swear": ("swore", "sworn"), "wake": ("woke", "woken"),
    "wear": ("wore", "worn"), "ring": ("rang", "rung"), "sing": ("sang", "sung"),
    "spin": ("spun",), "sink": ("sank", "sunk"), "fly": ("flew", "flown"),
    "come": ("came", "come"), "become": ("became", "become"), "fall": ("fell", "fallen"),
    "forgive": ("forgave", "forgiven"), "rise": ("rose", "risen"), "ride": ("rode", "ridden"),
    "steal": ("stole", "stolen"), "tear": ("tore", "torn"), "understand": ("understood",),
    "upset": ("upset",), "bet": ("bet",), "burst": ("burst",), "cost": ("cost",),
    "hurt": ("hurt",), "shoot": ("shot",), "shine": ("shone",), "bite": ("bit", "bitten"),
}  # fmt: skip
# A verb that is a prefix plus an irregular verb is irregular too (resend, rewrite, withdraw).
_PREFIXES = ("re", "un", "over", "under", "pre", "up", "out", "mis", "with", "for")
# Single-word phrasal verbs in tool names: the particle becomes an object word.
PHRASAL: Mapping[str, tuple[str, str]] = {
    "lookup": ("look", "up"), "login": ("log", "in"), "logout": ("log", "out"),
    "setup": ("set", "up"), "backup": ("back", "up"), "checkout": ("check", "out"),
    "signup": ("sign", "up"), "rollback": ("roll", "back"), "shutdown": ("shut", "down"),
    "cleanup": ("clean", "up"), "pickup": ("pick", "up"), "followup": ("follow", "up"),
}  # fmt: skip
# Words that tie a name's parts together but say nothing about what was done.
_STOP_WORDS = frozenset({"a", "an", "the", "to", "of", "for", "by", "from", "in", "on", "with",
                         "and", "or", "at", "into", "as"})
# Before the verb in its clause, these make the sentence say the action was NOT done.
_NEGATIONS = frozenset({
    "not", "never", "no", "nothing", "none", "neither", "nor", "cannot", "without",
    "unable", "unsuccessfully", "didnt", "doesnt", "dont", "hasnt", "havent", "hadnt", "wasnt",
    "werent", "isnt", "arent", "couldnt", "cant", "wont", "wouldnt", "shouldnt",
})  # fmt: skip
_FAILED_TO = frozenset({"failed", "unable", "tried", "attempted", "trying", "attempting"})
# Within three words before the verb, these make it a possibility, a plan or a habit, not a fact.
_MODALS = frozenset({"will", "would", "shall", "should", "may", "might", "must", "can", "could",
                     "please", "usually", "typically", "normally", "generally", "always", "often"})
# Anywhere before the verb in its clause, like a negation: a condition, not a report.
_HYPOTHETICAL = frozenset({"if", "unless", "whether", "once", "until"})
# right before the verb: "will be sent", "is being sent", "how to reset" (base = past form)
_NOT_DONE_AUX = frozenset({"be", "being", "to"})
_ADVERB_SKIP = frozenset({"already", "just", "also", "now", "successfully", "finally", "been"})
# Clause boundaries: a negation in an earlier clause does not reach the verb.
_BOUNDARY_WORDS = frozenset({"but", "and", "however", "although", "though", "whereas", "so",
                             "then", "because", "plus", "also", "after", "before"})
_NEGATION_REACH = 8  # words back from the verb, within its clause
_MODAL_REACH = 3

_SPLIT_NAME = re.compile(r"__|[./:]")
_NAME_WORDS = re.compile(r"[A-Z]+(?=[A-Z][a-z]|[0-9]|\b|_)|[A-Z]?[a-z]+|[0-9]+")
# sentences end at . ! ? followed by space, or at a line break (bullets, Markdown)
_SENTENCES = re.compile(r"(?<=[.!?])\s+|\n+")
# words (with inner ' ’ - and _), clause marks and backticks, in order
_WORDS = re.compile(r"\w+(?:['’-]\w+)*|[,;:()\[\]—–`]")
_CLAUSE_MARKS = frozenset({",", ";", ":", "(", ")", "[", "]", "—", "–"})


def _regular(verb: str) -> set[str]:
    """-ed / -d / -ied and, for a consonant-vowel-consonant ending, the doubled consonant."""
    if verb.endswith("e"):
        return {verb + "d"}
    if len(verb) > 1 and verb.endswith("y") and verb[-2] not in "aeiou":
        return {verb[:-1] + "ied"}
    forms = {verb + "ed"}
    if verb.endswith("c"):
        forms.add(verb + "ked")
    if (len(verb) >= 3 and verb[-1] not in "aeiouwxy" and verb[-2] in "aeiou"
            and verb[-3] not in "aeiou"):
        forms.add(verb + verb[-1] + "ed")
    return forms


def past_forms(verb: str) -> frozenset[str]:
    """The past tense and past participle forms a claim of `verb` may use."""
    forms = _regular(verb) | set(IRREGULAR.get(verb, ()))
    for prefix in _PREFIXES:
        rest = verb[len(prefix):]
        if verb.startswith(prefix) and rest in IRREGULAR:
            forms.update(prefix + f for f in IRREGULAR[rest])
    return frozenset(forms)


def name_words(tool: str) -> list[str]:
    """`issue_refund`, `issueRefund`, `issue-refund`, `crm.issue_refund` -> [issue, refund]."""
    last = [p for p in _SPLIT_NAME.split(tool) if p][-1:] or [tool]
    words: list[str] = []
    for part in re.split(r"[-\s]+", last[0]):
        words.extend(w.lower() for w in _NAME_WORDS.findall(part))
    if words and words[0] in PHRASAL:
        verb, particle = PHRASAL[words[0]]
        words[:1] = [verb, particle]
    return words


def _variants(word: str) -> frozenset[str]:
    """An object word and its plural: refund/refunds, address/addresses, policy/policies."""
    forms = {word, word + "s", word + "es"}
    if len(word) > 1 and word.endswith("y") and word[-2] not in "aeiou":
        forms.add(word[:-1] + "ies")
    return frozenset(forms)


@dataclass(frozen=True, slots=True)
class _Default:
    tool: str
    objects: tuple[frozenset[str], ...]  # every object word must appear (any of its variants)


class ClaimExtractor:
    """The claims of one tool set and its declared patterns, compiled once (see `extractor`)."""

    def __init__(
        self, tools: Iterable[str], patterns: Mapping[str, Sequence[re.Pattern[str]]]
    ) -> None:
        self._by_form: dict[str, list[_Default]] = {}
        self._by_base: dict[str, list[_Default]] = {}  # "was able to / managed to <verb>"
        self._code: dict[str, str] = {}  # lower-cased code form -> tool
        self._plain: dict[str, str] = {}  # a one-word name, a claim only in `backticks`
        for tool in sorted(set(tools) | set(patterns)):
            words = name_words(tool)
            if not words:
                continue
            objects = tuple(_variants(w) for w in words[1:] if w not in _STOP_WORDS)
            claim = _Default(tool, objects)
            for form in past_forms(words[0]):
                self._by_form.setdefault(form, []).append(claim)
            self._by_base.setdefault(words[0], []).append(claim)
            for name in {tool, _SPLIT_NAME.split(tool)[-1]}:
                # `issue_refund`, `issueRefund` are code; `search` is a code form only in backticks
                code = self._code if len(name_words(name)) > 1 else self._plain
                code[name.lower()] = tool
        self._patterns = [(t, p) for t, ps in sorted(patterns.items()) for p in ps]
        self._triggers = frozenset(self._by_form) | frozenset(self._by_base) | frozenset(self._code)

    def claims(self, text: str) -> frozenset[str]:
        """The tools the text claims were done; linear in the text's length."""
        claimed: set[str] = set()
        for sentence in _SENTENCES.split(text[:MAX_TEXT_CHARS]):
            if not sentence or sentence.rstrip().endswith("?"):  # a question claims nothing
                continue
            self._declared(sentence, claimed)
            words = _WORDS.findall(sentence.lower())
            # most sentences hold no verb form or tool name: one set operation rules them out
            if self._triggers.isdisjoint(words) and not (self._plain and "`" in sentence):
                continue
            self._sentence(words, claimed)
        return frozenset(claimed)

    def _declared(self, sentence: str, claimed: set[str]) -> None:
        if not self._patterns:
            return
        for tool, pattern in self._patterns:
            if tool not in claimed and pattern.search(sentence):
                claimed.add(tool)

    def _sentence(self, words: list[str], claimed: set[str]) -> None:
        """Claims of one sentence; only the positions of verb forms and names are examined."""
        triggers, last = self._triggers, len(words) - 1
        hits = [i for i, w in enumerate(words) if w in triggers]
        quoted: set[int] = set()
        if self._plain:  # a one-word name counts only as `name`
            quoted.update(i for i in range(1, last) if words[i - 1] == words[i + 1] == "`"
                          and words[i] in self._plain)
        present: set[str] | None = None
        for i in sorted(quoted.union(hits)):
            word = words[i]
            tool = self._code.get(word) or (self._plain[word] if i in quoted else None)
            if tool is not None:
                if tool not in claimed and not _negated(words, i) and not _not_done(words, i):
                    claimed.add(tool)
                continue
            past = self._by_form.get(word)
            achieved = past is None  # a base form counts only as "was able to <verb>"
            if achieved and not _achieved(words, i):
                continue
            for claim in self._by_base[word] if past is None else past:
                if claim.tool in claimed:
                    continue
                if present is None:
                    present = _word_set(words)
                if all(present & obj for obj in claim.objects) and not _negated(words, i) \
                        and (achieved or not _not_done(words, i)):
                    claimed.add(claim.tool)


def _word_set(words: list[str]) -> set[str]:
    """The sentence's words, with hyphenated ones also split and joined (e-mail -> email)."""
    present = set(words)
    for word in words:
        if "-" in word:
            present.update(word.split("-"))
            present.add(word.replace("-", ""))
    return present


def _negated(words: list[str], i: int) -> bool:
    """A negation or condition between the clause start and the verb (`not`, `n't`, `never`,
    `failed to`, `if`)."""
    for j in range(i - 1, max(i - _NEGATION_REACH, 0) - 1, -1):
        word = words[j]
        if word in _CLAUSE_MARKS or word in _BOUNDARY_WORDS:
            return False
        if word in _NEGATIONS or word in _HYPOTHETICAL or word.endswith(("n't", "n’t")):
            return True
        if word == "to" and j > 0 and words[j - 1] in _FAILED_TO:
            return True
    return False


def _achieved(words: list[str], i: int) -> bool:
    """`was/were/been able to <verb>`, `managed to <verb>`: the base form reports a deed."""
    if i < 2 or words[i - 1] != "to":
        return False
    return words[i - 2] == "managed" or (
        words[i - 2] == "able" and i >= 3 and words[i - 3] in ("was", "were", "been")
    )


def _not_done(words: list[str], i: int) -> bool:
    """A modal shortly before the verb, or `be`/`being` right before it: planned, not done."""
    j = i - 1
    while j >= 0 and (words[j] in _ADVERB_SKIP or words[j].endswith("ly")):
        if words[j] == "been":  # "has been (successfully) sent" is done
            break
        j -= 1
    if j >= 0 and words[j] in _NOT_DONE_AUX:
        return True
    for k in range(i - 1, max(i - 1 - _MODAL_REACH, -1), -1):
        word = words[k]
        if word in _CLAUSE_MARKS or word in _BOUNDARY_WORDS:
            return False
        if word in _MODALS or word.endswith(("'ll", "’ll")):
            return True
    return False


@lru_cache(maxsize=256)
def extractor(
    tools: frozenset[str], patterns: tuple[tuple[str, tuple[re.Pattern[str], ...]], ...] = ()
) -> ClaimExtractor:
    """The compiled extractor of a tool set (runs of one agent share it)."""
    return ClaimExtractor(tools, dict(patterns))


def claimed_tools(
    text: str,
    tools: Iterable[str],
    patterns: Mapping[str, Sequence[re.Pattern[str]]] | None = None,
) -> frozenset[str]:
    """The known tools `text` claims were done (default claims plus declared patterns)."""
    declared = tuple(sorted((t, tuple(p)) for t, p in (patterns or {}).items()))
    return extractor(frozenset(tools), declared).claims(text)


__all__ = ["ClaimExtractor", "claimed_tools", "extractor", "name_words", "past_forms"]
