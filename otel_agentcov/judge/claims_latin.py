"""Claims in Spanish, Portuguese, French, German, Italian and Dutch (docs/narrative.md).

A clause claims a tool when a verb of its action (vocabulary.py) stands in a past form
(participle or preterite: "he emitido", "cancelé", "gebucht", "verwijderd") with every object,
or a carrier verb does ("realizó la transferencia"), and the agent asserts it: no negation,
modal, plan, attempt, condition or habit in the clause, no report of someone else's words, no
failure and no question in the sentence. Precision first: any doubt claims nothing.

Lemmas come from simplemma, whose dictionaries ship in its wheel (nothing is downloaded at run
time); each language's dictionary is loaded on the first answer in that language. Its cache is
turned off, so no word of an answer outlives the judging of its run.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from .vocabulary import LATIN, LanguageClaims, ToolWords

MAX_TEXT_CHARS = 64 * 1024  # as every content check: a text is scanned up to 64 KiB
_SENTENCES = re.compile(r"(?<=[.!?…])\s+|\n+")
_CLAUSES = re.compile(r"[,;:()\[\]|–—]|\s-\s")
_TOKENS = re.compile(r"[^\W\d_]+(?:-[^\W\d_]+)*")


@dataclass(frozen=True, slots=True)
class Cues:
    """The words of one language that keep a clause or a sentence from claiming (lower case;
    a phrase is matched as consecutive words)."""

    conjunctions: frozenset[str]  # split clauses
    blocking: tuple[str, ...]  # negation, modal, plan, attempt, condition, habit: the clause
    sentence: tuple[str, ...]  # reported speech, failure: the whole sentence
    openers: frozenset[str]  # "Lamentablemente …" with a failure retracts the sentence before
    past: tuple[str, ...]  # endings of past participles and preterites
    not_past: tuple[str, ...] = ()  # endings of futures and imperfects that look like them


def _c(conj: str, block: str, sentence: str, openers: str, past: str, not_past: str = "") -> Cues:
    def phrases(text: str) -> tuple[str, ...]:
        return tuple(p.strip() for p in text.split(",") if p.strip())

    return Cues(frozenset(conj.split()), phrases(block), phrases(sentence),
                frozenset(openers.split()), tuple(past.split()), tuple(not_past.split()))


CUES = {
    "es": _c("y e pero porque aunque mientras",
             "no, nunca, ni, tampoco, ningún, ninguna, nada, nadie, todavía no, aún no, si, "
             "cuando, en caso, una vez que, siempre que, a menos que, en cuanto, voy, vas, va, "
             "vamos, van, puedo, puede, podemos, pueden, podría, podrían, debería, deberían, "
             "debe, debo, deben, tendría, habría, habrá, quiero, quiere, quiera, desea, intenté, "
             "intentó, intentamos, traté, tratamos, tal vez, quizás, quizá, probablemente, "
             "posiblemente, necesito, hay que, tengo que, suelen, suele, normalmente, "
             "generalmente, siempre, habitualmente, por favor",
             "dijo, dice, dicen, dijeron, según, comenta, comentó, afirma, afirmó, indica, indicó, "
             "menciona, mencionó, escribió, asegura, aseguró, al parecer, supuestamente, "
             "falló, fallido, fallida, error, rechazado, rechazada, rechazó, denegado, denegada",
             "lamentablemente desafortunadamente sin embargo pero",
             "ado ada ados adas ido ida idos idas é ó aste aron ió iste ieron í",
             "ía ías ían íamos ré rá rás remos rán"),
    "pt": _c("e mas porque pois enquanto",
             "não, nunca, nem, nenhum, nenhuma, nada, ninguém, ainda não, se, quando, caso, "
             "assim que, uma vez que, a menos que, vou, vai, vamos, vão, posso, pode, podemos, "
             "podem, poderia, poderiam, deveria, deve, devia, devem, teria, iria, quero, quer, "
             "deseja, tentei, tentou, tentamos, talvez, provavelmente, possivelmente, preciso, "
             "tenho que, costumam, costuma, normalmente, geralmente, sempre, por favor",
             "disse, diz, dizem, disseram, segundo, de acordo, afirma, afirmou, informou, "
             "mencionou, escreveu, aparentemente, supostamente, falhou, erro, recusado, recusada, "
             "rejeitado, rejeitada, negado, negada",
             "infelizmente porém contudo mas entretanto",
             "ado ada ados adas ido ida idos idas ei ou aram eu eram iu iram i í",
             "ia iam rei rá rão remos"),
    "fr": _c("et mais car parce",
             "ne, n, pas, jamais, aucun, aucune, rien, personne, ni, si, s, quand, lorsque, "
             "dès que, une fois, au cas, à moins, vais, va, allons, vont, peux, peut, pouvons, "
             "peuvent, pourrait, pourrais, pourrions, devrait, devrais, doit, dois, devons, "
             "aurait, aurais, serait, voudrais, veux, veut, souhaitez, souhaite, peut-être, "
             "probablement, essayé, tenté, essayer, tenter, généralement, habituellement, "
             "normalement, toujours, en général, merci de, veuillez",
             "dit, disent, selon, d après, affirme, affirmé, indique, indiqué, mentionné, "
             "mentionne, écrit, prétend, apparemment, il semble, échoué, échec, erreur, refusé, "
             "refusée, rejeté, rejetée",
             "malheureusement cependant toutefois mais hélas",
             "é ée és ées i ie is ies it ite its u ue us ues ert erte",
             "ai ais ait aient ras ra rons rez ront"),
    "de": _c("und aber denn weil sondern oder",
             "nicht, kein, keine, keinen, keinem, keiner, nie, niemals, weder, noch nicht, wenn, "
             "falls, sobald, sofern, ob, bevor, nachdem, werde, wird, werden, wirst, kann, können, "
             "könnte, könnten, sollte, sollten, soll, muss, müssen, müsste, möchte, möchten, "
             "würde, würden, hätte, hätten, wäre, wären, will, wollen, vielleicht, "
             "wahrscheinlich, versucht, versuchte, normalerweise, üblicherweise, immer, "
             "automatisch, in der regel, bitte",
             "sagte, sagten, sagt, gesagt, laut, zufolge, meinte, meint, schrieb, schreibt, "
             "geschrieben, behauptet, angeblich, offenbar, anscheinend, fehlgeschlagen, fehler, "
             "abgelehnt, gescheitert",
             "leider allerdings jedoch aber",
             "t te ten tet en"),
    "it": _c("e ed ma perché mentre",
             "non, mai, nessun, nessuna, nessuno, niente, nulla, né, ancora, se, quando, "
             "qualora, appena, nel caso, a meno, vado, sto per, stiamo per, posso, può, possiamo, "
             "possono, potrei, potrebbe, dovrei, dovrebbe, deve, devo, devono, avrei, avrebbe, "
             "sarebbe, vorrei, vuole, voglio, forse, probabilmente, provato, tentato, provvederò, "
             "cercherò, di solito, solitamente, normalmente, generalmente, sempre, per favore",
             "detto, dice, dicono, disse, secondo, afferma, affermato, scritto, scrive, "
             "menzionato, indicato, apparentemente, pare, sembra, fallito, fallita, errore, "
             "rifiutato, rifiutata, respinto, respinta, negato, negata",
             "purtroppo tuttavia però ma",
             "ato ata ati ate ito ita iti ite uto uta uti ute esso essa essi esse tto tta tti "
             "tte sso ssa"),
    "nl": _c("en maar want omdat of",
             "niet, geen, nooit, noch, niets, nog niet, als, wanneer, indien, zodra, mits, tenzij, "
             "voordat, nadat, zal, zullen, zult, zou, zouden, ga, gaat, gaan, kan, kunnen, kunt, "
             "moet, moeten, moest, wil, wilt, willen, misschien, waarschijnlijk, geprobeerd, "
             "probeerde, wordt, worden, meestal, normaal, normaliter, altijd, doorgaans, "
             "automatisch, graag",
             "zei, zegt, zeiden, gezegd, volgens, schreef, geschreven, beweert, blijkbaar, "
             "kennelijk, schijnbaar, mislukt, mislukte, fout, geweigerd, afgewezen",
             "helaas echter maar",
             "d t de te den ten en"),
}  # fmt: skip
_VERB_ENDINGS = {"es": ("ar", "er", "ir"), "pt": ("ar", "er", "ir"), "fr": ("er", "ir", "re"),
                 "it": ("are", "ere", "ire"), "de": ("en", "n"), "nl": ("en", "n")}
_VERB_FINAL = ("de", "nl")
_SEPARABLE = {
    "de": ("zurück", "ab", "an", "auf", "aus", "ein", "mit", "nach", "vor", "zu", "weg", "um",
           "hoch", "bereit", "fest", "frei", "neu"),
    "nl": ("terug", "uit", "op", "aan", "over", "bij", "in", "af", "mee", "na", "voor", "weg",
           "door", "toe", "om", "vast"),
}  # fmt: skip  # participles at the clause end, prefixed by ge-


@lru_cache(maxsize=1)
def _lemmatizer() -> Any:
    from simplemma import Lemmatizer

    return Lemmatizer(cache_max_size=0)  # no cache: answers' words are content


class LatinClaims(LanguageClaims):
    """The claims of one tool set in one language, compiled once (see `latin_extractor`)."""

    def __init__(self, tools: Iterable[str], lang: str,
                 declared: Mapping[str, tuple[str, ...]]) -> None:  # fmt: skip
        super().__init__(tools, lang, declared)
        self.cues = CUES[lang]
        self.verbs = frozenset(_verb(w) for r in self.readings for w in r.action) | frozenset(
            _verb(w) for w in self.light)

    def claims(self, text: str) -> frozenset[str]:
        """The tools the text claims were done; linear in its length."""
        claimed: set[str] = set()
        pending: set[str] = set()  # the last sentence's claims, unless the next retracts them
        lemmatize = _lemmatizer().lemmatize
        for sentence in _SENTENCES.split(text[:MAX_TEXT_CHARS]):
            words = [w.lower() for w in _TOKENS.findall(sentence)]
            if not words:
                continue
            failed = _has(words, self.cues.sentence)
            if not (failed and words[0] in self.cues.openers):
                claimed |= pending
            pending = set()
            stripped = sentence.strip()
            if failed or stripped.endswith("?") or stripped.startswith("¿"):
                continue
            for part in _CLAUSES.split(sentence):
                for clause in self._clauses([w.lower() for w in _TOKENS.findall(part)]):
                    if not _has(clause, self.cues.blocking):
                        lemmas = [lemmatize(w, self.lang).lower() for w in clause]
                        pending |= self._clause(clause, lemmas)
        return frozenset(claimed | pending)

    def _clauses(self, words: list[str]) -> list[list[str]]:
        """Split at conjunctions ("y", "und", "en")."""
        out: list[list[str]] = [[]]
        for word in words:
            if word in self.cues.conjunctions:
                out.append([])
            else:
                out[-1].append(word)
        return [c for c in out if c]

    def _clause(self, words: list[str], lemmas: list[str]) -> set[str]:
        done = {lemmas[k] for k, w in enumerate(words) if self._past(w, lemmas[k])}
        done |= {v for w in words for v in self.verbs if v not in done and _stem_past(w, v, self)}
        if not done:
            return set()
        present = set(words) | set(lemmas) | done
        found = {r.tool for r in self.readings if self._reads(r, done, present, words)}
        return found

    def _reads(self, r: ToolWords, done: set[str], present: set[str], words: list[str]) -> bool:
        acted = any(_said(w, done, present) for w in r.action) or (
            bool(r.action_nouns) and any(_said(w, done, present) for w in self.light)
            and any(_there(n, present, words, self.lang) for n in r.action_nouns))
        return acted and all(any(_there(o, present, words, self.lang) for o in forms)
                             for forms in r.objects)  # fmt: skip

    def _past(self, word: str, lemma: str) -> bool:
        """`word` is a past participle or preterite of a known verb (not its future: a form
        that starts with the infinitive, "enviaré", "reservarei")."""
        if lemma not in self.verbs or word == lemma or word.startswith(lemma):
            return False
        return _past_ending(word, lemma, self.lang, self.cues.past, self.cues.not_past)


def _verb(entry: str) -> str:
    return entry.split("+")[0]


def _said(entry: str, done: set[str], present: set[str]) -> bool:
    """A verb entry in past form, with its companion word ("mettre+jour")."""
    verb, _, companion = entry.partition("+")
    return verb in done and (not companion or companion in present)


def _there(word: str, present: set[str], words: list[str], lang: str) -> bool:
    """An object word in the clause: as written, as lemma, plural, or ending a compound."""
    if word in present:
        return True
    compound = lang in _VERB_FINAL and len(word) > 3
    return any((w.startswith(word) and len(w) - len(word) <= 2)
               or (compound and w.endswith(word)) for w in words)  # fmt: skip


def _past_ending(word: str, verb: str, lang: str, endings: tuple[str, ...],
                 not_past: tuple[str, ...]) -> bool:
    if lang in _VERB_FINAL:
        stem = verb[:-2] if verb.endswith("en") else verb[:-1]
        if word == stem or word.endswith("st") or (word.endswith("e") and not word.endswith("te")):
            return False  # present: "buche", "boek", "buchst"
        return word.endswith(endings)
    return word.endswith(endings) and not word.endswith(not_past)


def _stem_past(word: str, verb: str, claims: LatinClaims) -> bool:
    """A regular past form the lemmatiser missed ("excluída", "reimpostata", "gebucht"): the
    verb's stem (after ge- in German and Dutch) and a past ending."""
    lang = claims.lang
    ending = next((e for e in _VERB_ENDINGS[lang] if verb.endswith(e)), None)
    if ending is None or len(verb) - len(ending) < 3 or word.startswith(verb):
        return False
    stem = verb[: -len(ending)]
    if lang == "nl" and stem[-1] == stem[-2]:  # stellen -> stel
        stem = stem[:-1]
    if word.startswith(stem):
        rest = word[len(stem):]
    elif lang in _VERB_FINAL and word.startswith(_participle_head(stem, lang)):
        rest = word[len(_participle_head(stem, lang)):]
    else:
        return False
    return _plain(rest) in claims.cues.past and not word.endswith(claims.cues.not_past)


def _participle_head(stem: str, lang: str) -> str:
    """Where a German or Dutch participle puts ge-: "ge"+stem, or after a separable prefix
    ("zurückgesetzt", "uitgevoerd")."""
    prefix = next((p for p in _SEPARABLE[lang] if stem.startswith(p) and len(stem) > len(p) + 2),
                  "")
    return prefix + "ge" + stem[len(prefix):]


def _plain(ending: str) -> str:
    """An ending without its accent ("ída" -> "ida"), except the stressed preterites."""
    return ending if len(ending) < 2 else ending.translate(_ACCENTS)


_ACCENTS = str.maketrans("áéíóú", "aeiou")


def _has(words: list[str], phrases: tuple[str, ...]) -> bool:
    """Any cue word or phrase among the words."""
    joined = f" {' '.join(words)} "
    single = set(words)
    return any((p in single) if " " not in p else (f" {p} " in joined) for p in phrases)


@lru_cache(maxsize=256)
def latin_extractor(tools: frozenset[str], lang: str,
                    declared: tuple[tuple[str, tuple[str, ...]], ...] = ()) -> LatinClaims:
    """The compiled claims of a tool set in `lang` (runs of one agent share it)."""
    assert lang in LATIN
    return LatinClaims(tools, lang, dict(declared))


__all__ = ["CUES", "LatinClaims", "latin_extractor"]
