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


@lru_cache(maxsize=16384)
def lemmas(word: str) -> dict[str, tuple[str, ...]]:
    """Part of speech -> lemmas of a known word ({} for a word the lexicon does not know)."""
    return dict(_lemminflect().getAllLemmas(word))


@lru_cache(maxsize=8192)
def inflections(word: str, upos: str) -> dict[str, tuple[str, ...]]:
    """Penn tag -> forms of `word` as a VERB or NOUN ({} when the lexicon does not know it)."""
    return dict(_lemminflect().getAllInflections(word, upos=upos))


@lru_cache(maxsize=8192)
def inflect(word: str, tag: str) -> tuple[str, ...]:
    """The forms of `word` for a Penn tag, by the lexicon or its rules for unknown words."""
    return tuple(_lemminflect().getInflection(word, tag=tag) or ())


__all__ = ["inflect", "inflections", "lemmas"]
