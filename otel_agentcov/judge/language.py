"""Is an answer in English? The default claims read English only; anything else is judged by the
declared patterns alone, or is `unverifiable`.

Cheap and deterministic: letters outside the Latin script, else the share of words that
lemminflect's English lexicon (or the short list of English function words below) knows. Names,
numbers, code and capitalised words are not counted, so a short English answer full of order
numbers still reads as English.
"""

from __future__ import annotations

import re

from .lexicon import lemmas

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


__all__ = ["is_english"]
