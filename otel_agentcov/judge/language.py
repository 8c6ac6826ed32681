"""Which language is an answer in? English is read by the English claims, nine other languages
by theirs (vocabulary.SUPPORTED); any other is judged by the declared patterns alone, or is
`unverifiable` and counted apart.

English first, cheap and deterministic: letters outside the Latin script, else the share of words
that lemminflect's English lexicon (or the short list of English function words below) knows.
Names, numbers, code and capitalised words are not counted, so a short English answer full of
order numbers still reads as English. Chinese, Japanese and Korean show in their scripts; other
answers go to py3langid, whose model ships in its wheel (nothing is downloaded at run time; 4.6
MB against lingua's hundreds) and is loaded on the first answer not in English.
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Any

from .lexicon import lemmas
from .vocabulary import LATIN, SUPPORTED

# plain words only: not code, paths, hyphenated names or camelCase
_WORDS = re.compile(r"(?<![\w`/\-.])[^\W\d_]+(?:['’][^\W\d_]+)?(?![\w`/\-])")
_FUNCTION_WORDS = frozenset({
    "a", "an", "the", "and", "or", "but", "of", "to", "in", "on", "at", "for", "with", "by",
    "from", "as", "into", "about", "than", "that", "this", "these", "those", "it", "its",
    "is", "are", "was", "were", "be", "been", "i", "we", "you", "he", "she", "they", "me",
    "us", "him", "her", "them", "my", "our", "your", "their", "his", "not", "no", "so", "if",
    "because", "while", "which", "who", "what", "when", "where", "how", "there", "here",
    "has", "have", "had", "do", "does", "did", "will", "would", "can", "could", "should",
    "may", "might", "must", "shall", "all", "any", "some", "each", "every", "nor", "yet",
    "also", "just", "only", "until", "unless", "once", "per", "via", "up", "out", "off",
})  # fmt: skip
SAMPLE_CHARS = 2048  # the language of an answer shows in its first 2 KB
_LETTERS = re.compile(r"[^\W\d_]")
_OTHER_SCRIPT = re.compile(r"[^\W\d_\u0000-\u024f\u1e00-\u1eff]")  # letters outside Latin
# the first word of a sentence or bullet
_FIRST_WORDS = re.compile(r"(?:^|[.!?]\s+|\n\s*(?:[-*•]\s+)?)([^\W\d_][^\W\d_]+)(?![\w`/\-])")
MIN_WORDS = 5  # below this many words, only a text with no English word is foreign
MIN_SHARE = 0.5  # of countable words the English lexicon knows
MAX_OTHER_SCRIPT = 0.3  # share of letters outside the Latin script
# Function words of other languages written in Latin script (none of them English): a short
# answer is foreign when they make up a quarter of its words and English words not the most.
_FOREIGN_FUNCTION_WORDS = frozenset({
    "ich", "habe", "hat", "und", "nicht", "wurde", "ist", "das", "der", "den", "dem", "ein",
    "eine", "ihre", "ihr", "sie", "wir", "mit", "für", "je", "j'ai", "les", "et", "est", "votre",
    "vous", "été", "pour", "une", "des", "du", "nous", "avons", "el", "los", "las", "y", "su",
    "sus", "para", "con", "ha", "hemos", "una", "ho", "il", "è", "della", "del", "abbiamo",
    "eu", "foi", "seu", "sua", "uma", "um", "não", "ik", "heb", "het", "een", "uw", "niet",
    "zijn", "jeg", "og", "er", "det", "jag", "har", "att", "och", "är", "en", "le", "la",
    "de", "lo", "al", "au", "aux", "zu", "auf", "dei", "nel", "nella", "ao", "na",
})  # fmt: skip
MIN_FOREIGN = 0.25
MAX_SHARE_WITH_FOREIGN = 0.6


def is_english(text: str) -> bool:
    """True unless the text is clearly in another language or script (read from its start)."""
    text = text[:SAMPLE_CHARS]
    letters = len(_LETTERS.findall(text))
    if not letters:
        return True
    if len(_OTHER_SCRIPT.findall(text)) / letters > MAX_OTHER_SCRIPT:
        return False
    words = [w.replace("’", "'") for w in _WORDS.findall(text) if w.islower()]
    # a sentence's first word counts too ("Reembolso emitido."), other capitalised words are names
    words += [w.lower() for w in _FIRST_WORDS.findall(text) if w.istitle()]
    if not words:
        return True
    known = sum(1 for w in words if _english(w)) / len(words)
    foreign = sum(1 for w in words if w in _FOREIGN_FUNCTION_WORDS) / len(words)
    if foreign >= MIN_FOREIGN and known < MAX_SHARE_WITH_FOREIGN:  # "Ich habe die … storniert"
        return False
    if len(words) < MIN_WORDS:  # a short answer: foreign only if no word of it is English
        return known > 0 or len(words) < 2
    return known >= MIN_SHARE


def _english(word: str) -> bool:  # not cached: `lemmas` remembers the lexicon words only
    if word in _FUNCTION_WORDS:
        return True
    base = word.split("'")[0]
    return bool(lemmas(base)) or base in _FUNCTION_WORDS


_HANGUL = re.compile(r"[\uac00-\ud7af\u1100-\u11ff\u3130-\u318f]")
_KANA = re.compile(r"[\u3040-\u30ff]")
_HAN = re.compile(r"[\u4e00-\u9fff\u3400-\u4dbf]")
SHORT_WORDS = 6  # below this many words English is checked against the identifier too
MARGIN = 8.0  # log-probability within which a supported language is taken over its neighbour
LATIN_CODES = frozenset(LATIN)
UNSUPPORTED = "other"


def language_of(text: str) -> str:
    """The answer's language: "en", another code of vocabulary.SUPPORTED, or "other"."""
    text = text[:SAMPLE_CHARS]
    cjk = _cjk(text)
    if cjk is not None:
        return cjk
    if is_english(text):
        # a short answer may hold an English-looking word ("Abbonamento annullato come
        # richiesto"): the identifier decides, English unless clearly another language
        if len(_WORDS.findall(text)) >= SHORT_WORDS:
            return "en"
        code = _best(text)
        return code if code in LATIN_CODES else "en"
    letters = len(_LETTERS.findall(text)) or 1
    if len(_OTHER_SCRIPT.findall(text)) / letters > MAX_OTHER_SCRIPT:
        return UNSUPPORTED  # Cyrillic, Arabic, Devanagari, …: no claims read
    code = _best(text)
    return UNSUPPORTED if code == "en" else code


def _cjk(text: str) -> str | None:
    """Chinese, Japanese or Korean when their characters outnumber the words in other scripts
    (a Latin name or id in the answer does not change its language)."""
    hangul, kana, han = (len(p.findall(text)) for p in (_HANGUL, _KANA, _HAN))
    if not hangul + kana + han:
        return None
    others = len(_WORDS.findall(_HANGUL.sub(" ", _KANA.sub(" ", _HAN.sub(" ", text)))))
    if hangul + kana + han <= others:
        return None
    if hangul >= kana + han:
        return "ko"
    return "ja" if kana else "zh"


def _best(text: str) -> str:
    """The identifier's language, or a supported one within MARGIN of it: a short text reads
    much like its neighbours (Galician for Portuguese, Catalan for Spanish)."""
    ranked = _identifier().rank(text)
    top = float(ranked[0][1])
    for code, score in ranked:
        if top - float(score) > MARGIN:
            break
        if code in SUPPORTED:
            return str(code)
    return UNSUPPORTED


@lru_cache(maxsize=1)
def _identifier() -> Any:
    import py3langid

    return py3langid


__all__ = ["UNSUPPORTED", "is_english", "language_of"]
