"""Restricted and allowed tool lists, compiled: which observed tool names an entry covers.

An entry is a tool name, a shell glob (any of `*?[`: a glob-looking entry is always a glob) or
an alias of the agent's `aliases:` (expanded to its names and globs), as in contract selectors.
Names are compared after a normalisation (docs/semantics.md#tool-edges): NFKC-folded with
invisible format characters removed (`delete` + U+200B + `_account` and a fullwidth
`delete_account` are `delete_account`), case folded, `-` read as `_`, and a namespaced name
also read without its namespace, so `Delete_Repo`, `mcp__github__delete_repo`,
`github.delete_repo` and Semantic Kernel's `github-delete_repo` are all `delete_repo`. An entry
naming a namespace (`github.delete_repo`, `mcp__github__delete_repo`) covers that namespace
only. Matching errs toward covering: a restricted list must not miss.
"""

from __future__ import annotations

import fnmatch
import unicodedata
from collections.abc import Iterable, Mapping, Sequence
from functools import lru_cache

_GLOB_CHARS = frozenset("*?[")


def _visible(name: str) -> str:
    """`name` NFKC-normalised, without format characters (zero-width space and joiners,
    soft hyphen, bidi controls, BOM): spellings that render alike compare alike."""
    return "".join(c for c in unicodedata.normalize("NFKC", name)
                   if unicodedata.category(c) != "Cf").strip().casefold()


def _fold(name: str) -> str:
    return _visible(name).replace("-", "_")


@lru_cache(maxsize=65536)
def readings(tool: str) -> frozenset[str]:
    """Every form a tool name is compared in: whole, and as `server.tool` and `tool` when it
    is namespaced (MCP `mcp__<server>__<tool>`, `<server>.<tool>`, SK `<plugin>-<function>`)."""
    whole = _fold(tool)
    forms = {whole}
    raw = _visible(tool)
    if raw.startswith("mcp__") and raw.count("__") >= 2:
        server, _, name = raw[len("mcp__"):].partition("__")
        forms |= {_fold(name), f"{_fold(server)}.{_fold(name)}"}
    elif "." in raw:
        server, _, name = raw.rpartition(".")
        forms |= {_fold(name), f"{_fold(server)}.{_fold(name)}"}
    elif "-" in raw:
        plugin, _, name = raw.partition("-")
        forms |= {_fold(name), f"{_fold(plugin)}.{_fold(name)}"}
    forms.discard("")
    return frozenset(forms)


def _entry_form(entry: str) -> str:
    """An entry's own form: namespaced entries as `server.tool`, others folded whole."""
    raw = _visible(entry)
    if raw.startswith("mcp__") and raw.count("__") >= 2:
        server, _, name = raw[len("mcp__"):].partition("__")
        return f"{_fold(server)}.{_fold(name)}"
    return _fold(entry)


class ToolList:
    """One agent's restricted or allowed list, aliases expanded."""

    def __init__(self, entries: Iterable[str],
                 aliases: Mapping[str, Sequence[str]] | None = None) -> None:
        aliases = aliases or {}
        self.entries = tuple(dict.fromkeys(entries))
        self._patterns = {e: tuple(_entry_form(p) for p in aliases.get(e, (e,)))
                          for e in self.entries}
        self._cache: dict[str, bool] = {}

    def __bool__(self) -> bool:
        return bool(self.entries)

    def covers(self, entry: str, tool: str) -> bool:
        """Does `entry` (one of the list) cover the observed `tool`?"""
        forms = readings(tool)
        for pattern in self._patterns[entry]:
            if _GLOB_CHARS.isdisjoint(pattern):
                if pattern in forms:
                    return True
            elif any(fnmatch.fnmatchcase(form, pattern) for form in forms):
                return True
        return False

    def matches(self, tool: str) -> bool:
        """Does any entry cover `tool`? (Cached: runs ask once per tool call.)"""
        hit = self._cache.get(tool)
        if hit is None:
            hit = any(self.covers(e, tool) for e in self.entries)
            if len(self._cache) < 65536:
                self._cache[tool] = hit
        return hit

    def entries_hit(self, tools: Iterable[str]) -> int:
        """How many entries cover at least one of `tools`."""
        tools = tuple(tools)
        return sum(any(self.covers(e, t) for t in tools) for e in self.entries)
