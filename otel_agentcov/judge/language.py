"""Is an answer in English? The default claims read English only; anything else is judged by the
declared patterns alone, or is `unverifiable`.

Cheap and deterministic: letters outside the Latin script, else the share of words that
lemminflect's English lexicon (or the short list of English function words below) knows. Names,
numbers, code and capitalised words are not counted, so a short English answer full of order
numbers still reads as English.
"""

from __future__ import annotations

import re
from functools import lru_cache

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
MIN_WORDS = 3  # fewer countable words say nothing either way: read as English
MIN_SHARE = 0.5  # of countable words the English lexicon knows
MAX_OTHER_SCRIPT = 0.3  # share of letters outside the Latin script


def is_english(text: str) -> bool:
    """True unless the text is clearly in another language or script (read from its start)."""
    text = text[:SAMPLE_CHARS]
    letters = len(_LETTERS.findall(text))
    if not letters:
        return True
    if len(_OTHER_SCRIPT.findall(text)) / letters > MAX_OTHER_SCRIPT:
        return False
    words = [w.replace("’", "'") for w in _WORDS.findall(text) if w.islower()]
    if len(words) < MIN_WORDS:
        return True
    known = sum(1 for w in words if _english(w))
    return known / len(words) >= MIN_SHARE


@lru_cache(maxsize=8192)
def _english(word: str) -> bool:
    if word in _FUNCTION_WORDS:
        return True
    base = word.split("'")[0]
    return bool(lemmas(base)) or base in _FUNCTION_WORDS


__all__ = ["is_english"]
