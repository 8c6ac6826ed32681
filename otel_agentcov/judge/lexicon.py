"""The English lexicon the narrative check reads (lemminflect), loaded on first use.

lemminflect ships its lexicon in its wheel (nothing is downloaded at run time) but imports
numpy, so it is imported only when a narrative check first reads an answer: an application
that declares no narrative check never loads it.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any


@lru_cache(maxsize=1)
def _lemminflect() -> Any:
    import lemminflect

    return lemminflect


MAX_KNOWN = 16384  # lexicon words remembered; past it, lookups are made again (~8 µs each)
_known: dict[str, dict[str, tuple[str, ...]]] = {}


def lemmas(word: str) -> dict[str, tuple[str, ...]]:
    """Part of speech -> lemmas of a known word ({} for a word the lexicon does not know).

    Only lexicon words are remembered: the words of answers are content, and a name, an id or
    any other word the lexicon does not know must not outlive the judging of its run."""
    found = _known.get(word)
    if found is None:
        found = dict(_lemminflect().getAllLemmas(word))
        if found and len(_known) < MAX_KNOWN:
            _known[word] = found
    return found


@lru_cache(maxsize=8192)
def inflections(word: str, upos: str) -> dict[str, tuple[str, ...]]:
    """Penn tag -> forms of `word` as a VERB or NOUN ({} when the lexicon does not know it)."""
    return dict(_lemminflect().getAllInflections(word, upos=upos))


@lru_cache(maxsize=8192)
def inflect(word: str, tag: str) -> tuple[str, ...]:
    """The forms of `word` for a Penn tag, by the lexicon or its rules for unknown words."""
    return tuple(_lemminflect().getInflection(word, tag=tag) or ())


__all__ = ["inflect", "inflections", "lemmas"]
