"""Sentences into clauses, and what each clause's frame says about a verb in it.

A claim is a verb and its objects in one clause, asserted by the agent: not negated, not modal,
not conditional, not reported or quoted, not a participle used as an adjective, not a generic
present passive ("refunds are issued monthly"), not someone else's deed. Everything here is
word lists and position rules over one sentence's tokens: linear in its length, no model.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field

from .lexicon import lemmas as _lemmas

# sentences end at . ! ? followed by space, or at a line break (bullets, Markdown rows)
SENTENCES = re.compile(r"(?<=[.!?])\s+|\n+")
# quoted text is someone's words, not the agent's claim (an apostrophe inside a word is no quote)
_QUOTES = re.compile(
    r"“[^”]{0,400}”|\"[^\"\n]{0,400}\"|‘[^’]{0,400}’|(?<!\w)'(?:[^'\n]|(?<=\w)'(?=\w)){1,400}'(?!\w)"
)
_QUOTE_CHARS = re.compile("[\"“‘'’]")
_CODE = re.compile(r"`([^`\n]{1,200})`")
_TOKENS = re.compile(
    r"\x00\d+\x00|\x01|[$€£¥]|\d+(?:[.,:/]\d+)*|\w+(?:[.'\-/]\w+)*|[,;:()\[\]—–|]"
)
# "'d" stays as is: "would" before a base form, "had" before a participle (claims.py decides)
QUOTED = "\x01"  # stands where quoted text was dropped: the quote was a frame's content
_CONTRACTIONS = {"'re": "are", "'ve": "have", "'ll": "will", "'d": "'d", "'m": "am"}
_NOT_BASES = {"couldn": "could", "wouldn": "would", "shouldn": "should", "didn": "did",
              "doesn": "does", "don": "do", "isn": "is", "aren": "are", "wasn": "was",
              "weren": "were", "hasn": "has", "haven": "have", "hadn": "had", "won": "will",
              "ca": "can", "can": "can", "mustn": "must", "needn": "need", "ain": "is"}  # fmt: skip
_S_PRONOUNS = frozenset({"it", "that", "there", "what", "here", "he", "she", "who", "this"})

CLAUSE_MARKS = frozenset({",", ";", ":", "(", ")", "[", "]", "—", "–", "|"})
CONDITIONAL = frozenset({"if", "unless", "once", "when", "whenever", "until", "provided",
                         "assuming", "whether", "suppose", "supposing"})  # fmt: skip
# a verbless chunk these open names what was not done: its words are no object of a claim
SET_ASIDE = frozenset({"instead", "rather", "unlike", "except", "besides", "apart"})
# a failure in a clause these open is a reason or a time, not the outcome of the claim
REASONS = frozenset({"because", "since", "as", "after", "before", "when", "while"})
# a clause these open makes the clause before it a condition too ("Refund issued if eligible");
# an "I/we <past>" there still claims ("I issued a refund, if that helps")
CONDITIONS_AFTER = frozenset({"if", "unless", "once", "provided", "assuming", "whenever"})
# a clause opened by these does not say its verb happened ("before any test ran")
UNASSERTED = CONDITIONAL | frozenset({"before"})
CONTRAST = frozenset({"but", "however", "though", "although", "yet", "whereas"})
BOUNDARIES = CONDITIONAL | CONTRAST | frozenset({
    "and", "or", "nor", "so", "because", "since", "while", "after", "before", "then", "plus",
    "which", "who", "whom", "whose", "where",
})  # fmt: skip
NEGATIONS = frozenset({
    "not", "never", "no", "nothing", "none", "neither", "nor", "cannot", "without", "unable",
    "unsuccessfully", "nobody", "tried", "attempted", "trying", "attempting", "failed",
})  # fmt: skip
MODALS = frozenset({"will", "would", "shall", "should", "may", "might", "must", "can", "could",
                    "going", "ought", "supposed", "'d"})  # fmt: skip
# "I can confirm (that) I sent it": a modal before these reports, it does not plan
CONFIRMING = frozenset({"confirm", "see", "verify", "tell", "report", "say", "assure"})
# words that report a failure: a clause holding one retracts the claims before it
FAILURES = frozenset({"failed", "errored", "rejected", "declined", "bounced", "denied", "refused",
                      "blocked", "unsuccessful", "crashed", "reverted", "reversed"})  # fmt: skip
# a lone status after ":" or in a table cell that says the action was not done
NOT_DONE = frozenset({"no", "not", "false", "none", "pending", "skipped", "failed", "todo",
                      "blocked", "declined", "❌", "✗", "✘"})  # fmt: skip
HABITS = frozenset({"usually", "typically", "normally", "generally", "always", "often",
                    "sometimes", "automatically", "nightly", "daily", "weekly", "monthly",
                    "yearly", "every", "each", "default"})  # fmt: skip
BE = frozenset({"be", "being", "is", "are", "am", "was", "were", "been", "get", "gets", "got",
                "getting"})  # fmt: skip
PRESENT_BE = frozenset({"is", "are", "am", "get", "gets"})
HAVE = frozenset({"have", "has", "had", "having"})
AUX = BE | HAVE | MODALS | frozenset({"do", "does", "did"})
ADVERBS = frozenset({"already", "just", "also", "now", "successfully", "finally", "indeed",
                     "since", "then", "recently", "still", "all", "both", "yesterday",
                     "today", "earlier", "actually", "really"})  # fmt: skip
DETERMINERS = frozenset({
    "the", "a", "an", "this", "that", "these", "those", "your", "my", "our", "their", "his",
    "her", "its", "any", "some", "every", "each", "all", "one", "two", "three", "four", "five",
    "several", "many", "few", "previously", "other", "another", "both", "no",
})  # fmt: skip
PREPOSITIONS = frozenset({"with", "of", "for", "from", "in", "on", "at", "by", "about", "into",
                          "to", "than", "like", "as", "via", "per", "without"})  # fmt: skip
PRONOUNS = frozenset({"i", "we", "you", "he", "she", "they", "it", "me", "us", "him", "them",
                      "someone", "somebody", "everyone", "everybody", "nobody", "anyone",
                      "yourself", "myself", "themselves", "himself", "herself"})  # fmt: skip
AGENT = frozenset({"i", "we"})
# words that report someone else's words: what follows them is not the agent's claim
REPORTING = frozenset({
    "says", "said", "tells", "told", "wrote", "writes", "mentioned", "mentions", "claims",
    "claimed", "reports", "reported", "states", "stated", "notes", "noted", "reads",
    "suggests", "suggested", "indicates", "indicated", "heard", "thinks", "thought",
    "believes", "believed", "seems", "seemed", "apparently", "reportedly", "allegedly",
    "show", "shows", "showed",
})  # fmt: skip
# "I see that your ticket was closed": a finding about the state of things, not a deed
PERCEIVING = frozenset({"see", "sees", "saw", "notice", "noticed", "found", "find", "finds",
                        "discovered", "learned", "understand", "understood"})  # fmt: skip
FUNCTION_WORDS = (DETERMINERS | PREPOSITIONS | PRONOUNS | AUX | ADVERBS | BOUNDARIES | NEGATIONS
                  | frozenset({"up", "down", "out", "back", "off", "over", "not", "to", "yet"}))


def is_nounish(word: str) -> bool:
    """A word that can head a noun phrase: a noun in the lexicon or an unknown word."""
    if word in FUNCTION_WORDS or not word[:1].isalpha():
        return False
    lemmas = _lemmas(word)
    return not lemmas or "NOUN" in lemmas or "ADJ" in lemmas


def is_finite_verb(word: str) -> bool:
    """An auxiliary, a modal, or a word the lexicon knows only as a verb."""
    if word in AUX or word == "cannot":
        return True
    lemmas = _lemmas(word)
    return "VERB" in lemmas and "NOUN" not in lemmas and "ADJ" not in lemmas


def is_verbish(word: str) -> bool:
    """A word that makes a chunk a clause of its own: an auxiliary or an inflected verb."""
    if word in AUX:
        return True
    verb = _lemmas(word).get("VERB")
    return verb is not None and word not in verb and not word.endswith("ing")  # not "billing"


@dataclass(slots=True)
class Clause:
    words: list[str]
    code: list[bool]  # the token was written as code (backticks)
    hypothetical: bool = False  # a condition, or in a conditional sentence
    failure: bool = False  # says that something failed ("but it bounced", "and was declined")
    reported: bool = False  # someone else's words
    extra: list[str] = field(default_factory=list)  # words of verbless chunks joined to it


def tokens(sentence: str) -> tuple[list[str], list[bool]]:
    """Lower-cased tokens with contractions split, quotes dropped, `code` kept as one token."""
    codes: list[str] = []

    def keep(match: re.Match[str]) -> str:
        codes.append(match.group(1).strip().lower())
        return f" \x00{len(codes) - 1}\x00 "

    text = sentence
    if "`" in text:
        text = _CODE.sub(keep, text)
    if _QUOTE_CHARS.search(text):
        text = _QUOTES.sub(f" {QUOTED} , ", text).replace("’", "'")
    raw = _TOKENS.findall(text.lower())
    if not codes and "'" not in text:  # the common case: plain words
        return raw, [False] * len(raw)
    words: list[str] = []
    code: list[bool] = []
    for token in raw:
        if token.startswith("\x00"):
            words.append(codes[int(token.strip("\x00"))])
            code.append(True)
            continue
        parts = _split_contraction(token)
        words.extend(parts)
        code.extend([False] * len(parts))
    return words, code


def _split_contraction(word: str) -> list[str]:
    if "'" not in word:
        return [word]
    if word.endswith("n't"):
        base = word[:-3]
        return [_NOT_BASES.get(base, base), "not"]
    for suffix, full in _CONTRACTIONS.items():
        if word.endswith(suffix):
            return [word[: -len(suffix)], full]
    if word.endswith("'s") and word[:-2] in _S_PRONOUNS:
        return [word[:-2], "is"]
    return [word]


def clauses(words: Sequence[str], code: Sequence[bool]) -> list[Clause]:
    """Split at clause marks and conjunctions; a chunk with no verb joins its neighbour (so
    "the invoice and the receipt" stays one object list); conditions and reports are marked."""
    chunks: list[Clause] = []
    current = Clause([], [])
    for i, word in enumerate(words):
        in_case = word == "in" and i + 1 < len(words) and words[i + 1] == "case"
        if word in CLAUSE_MARKS or in_case or (word in BOUNDARIES and not code[i]):
            if current.words:
                chunks.append(current)
            current = Clause([], [])
            if word in CLAUSE_MARKS:
                if word == ";":
                    chunks.append(Clause([";"], [False]))  # a segment boundary for reports
                continue
        current.words.append(word)
        current.code.append(code[i])
    if current.words:
        chunks.append(current)
    opens = _opens_with_condition(words)
    _mark_status(chunks)
    for before, after in zip(chunks, chunks[1:], strict=False):
        if after.words[0] in CONDITIONS_AFTER and before.words != [";"]:  # "… once approved"
            before.words.insert(0, "if")
            before.code.insert(0, False)
    chunks = _join_verbless(chunks)
    _mark_reports(chunks)
    negated = False
    for chunk in chunks:
        chunk.hypothetical = opens or chunk.words[0] in UNASSERTED or chunk.words[:2] == [
            "in", "case"]
        chunk.failure = (any(w in FAILURES for w in chunk.words) and chunk is not chunks[0]
                         and chunk.words[0] not in REASONS)  # not "because the email bounced"
        if negated and chunk.words[0] in ("or", "nor"):  # "nothing was uploaded or shared"
            chunk.words.insert(0, "not")
            chunk.code.insert(0, False)
        negated = any(w in NEGATIONS for w in chunk.words)
    return [c for c in chunks if c.words != [";"]]


def _mark_status(chunks: list[Clause]) -> None:
    """"Email sent: no", "| back up the database | skipped |": a lone status word after the
    action says it was not done; it becomes a negation of the chunk before it. "Order status:
    shipped" reads a status out, it reports no deed."""
    for k in range(1, len(chunks)):
        before = chunks[k - 1].words  # "your order status: shipped", not a bare "Status:" heading
        if "status" in before and len(before) > 1 and len(chunks[k].words) <= 2:
            chunks[k].words.insert(0, "apparently")  # a readout: the report frame covers it
            chunks[k].code.insert(0, False)
        words = [w for w in chunks[k].words if w not in ("yet", "done")]
        if words and len(words) <= 2 and all(w in NOT_DONE for w in words):
            chunks[k - 1].words.insert(0, "not")
            chunks[k - 1].code.insert(0, False)


def _join_verbless(chunks: list[Clause]) -> list[Clause]:
    out: list[Clause] = []
    pending: list[str] = []
    for chunk in chunks:
        if chunk.words == [";"]:
            out.append(chunk)
            continue
        if any(chunk.code) or chunk.words[0] in PRONOUNS or any(is_verbish(w) for w in chunk.words):
            chunk.extra.extend(pending)
            pending = []
            out.append(chunk)
        elif chunk.words[0] in SET_ASIDE:  # "Instead of a refund, I issued credit"
            continue
        elif out and out[-1].words != [";"]:
            out[-1].extra.extend(chunk.words)
        else:
            pending.extend(chunk.words)
    if pending:
        if any(c.words != [";"] for c in out):
            next(c for c in reversed(out) if c.words != [";"]).extra.extend(pending)
        else:
            out.append(Clause(pending, [False] * len(pending)))
    return out


def _mark_reports(chunks: list[Clause]) -> None:
    """A report ("your admin says", "according to the bank", "it seems") covers its segment:
    from the reporting word to the next `;` or contrast (`but`, `however`), and the whole
    segment for frames that may come after their content ("…, according to X")."""
    start = 0
    for end in [*(i for i, c in enumerate(chunks) if _segment_end(c)), len(chunks)]:
        segment = chunks[start:end]
        whole = any(_frames_whole(c.words + c.extra) for c in segment)
        reporting = introduced = False
        for chunk in segment:
            # "You wrote '…' and I sent an email": the agent speaks again; but "You said: I
            # cancelled it" is the content the frame introduced
            if _agent_speaks(chunk.words) and not introduced:
                whole = reporting = False
            reporting = reporting or whole or introduced or _reports(chunk)
            chunk.reported = reporting
            introduced = chunk.words[-1] in REPORTING and chunk.words[0] not in AGENT
        start = end


def _agent_speaks(words: Sequence[str]) -> bool:
    """A clause whose subject is the agent again ("and I sent …", "I verified …")."""
    first = 1 if words[0] in BOUNDARIES and len(words) > 1 else 0
    return words[first] in AGENT


def _segment_end(chunk: Clause) -> bool:
    return chunk.words == [";"] or chunk.words[0] in CONTRAST


def _frames_whole(words: Sequence[str]) -> bool:
    for i, word in enumerate(words):
        nxt = words[i + 1] if i + 1 < len(words) else ""
        if (word == "according" and nxt == "to") or (word == "per" and nxt in ("your", "the")):
            return True
        if word in ("apparently", "reportedly", "allegedly"):
            return True
    return False


def _reports(chunk: Clause) -> bool:
    """A reporting verb whose subject is not the agent (`you said`, `Maria wrote`) nor a tool
    named as code (`` `x` reported 3 rows `` is the tool's result); a finding ("I see that …",
    "I noticed that …") whoever the subject."""
    words = chunk.words
    for i, word in enumerate(words):
        if word in PERCEIVING and i + 1 < len(words) and words[i + 1] == "that":
            return True
        if word in REPORTING and i + 1 < len(words):  # a frame has content after it
            j = i - 1
            while j >= 0 and words[j] in ADVERBS:
                j -= 1
            if j >= 0 and (words[j] in DETERMINERS or words[j][:1].isdigit()):
                continue  # a noun: "the 7pm show"
            if j < 0 or not (words[j] in AGENT or chunk.code[j]):
                return True
    return False


def _opens_with_condition(words: Sequence[str]) -> bool:
    """A sentence that opens with `if`/`once`/`unless`/`in case`/`had the …` ("If …, you'll see
    it") is hypothetical as a whole; elsewhere a condition covers its own clause."""
    if not words:
        return False
    return words[0] in CONDITIONAL or words[:2] == ["in", "case"] or (
        words[0] in ("had", "should", "were") and len(words) > 1
        and (words[1] in DETERMINERS or words[1] in PRONOUNS)
    )  # fmt: skip


__all__ = ["CONFIRMING", "FAILURES", "SENTENCES", "Clause", "clauses", "is_finite_verb",
           "is_nounish", "tokens"]  # fmt: skip
