"""Spec agent names against the agent names seen in runs: the misconfigurations that would
otherwise pass silently (a typo'd spec agent matches no run; a seen agent matches no entry).

A declared agent no run matched is INCONCLUSIVE, never a pass, with the closest seen names as a
"did you mean" (edit distance after folding case, `-` and `_`); see docs/gate.md.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from .spec import CoverageSpec

MAX_SUGGESTIONS = 3


def fold(name: str) -> str:
    """The form names are compared in: `Support-Agent` and `support_agent` are one name."""
    return name.casefold().replace("-", "_")


def distance(a: str, b: str) -> int:
    """Levenshtein edit distance (insert, delete, substitute one character each cost 1)."""
    if len(a) < len(b):
        a, b = b, a
    row = list(range(len(b) + 1))
    for i, ca in enumerate(a, 1):
        prev, row[0] = row[0], i
        for j, cb in enumerate(b, 1):
            prev, row[j] = row[j], min(row[j] + 1, row[j - 1] + 1, prev + (ca != cb))
    return row[-1]


def closest(name: str, seen: Iterable[str]) -> list[str]:
    """Up to three seen names near `name`, nearest first: equal once folded, or within an edit
    distance of a third of the name's length (at least 2)."""
    target = fold(name)
    limit = max(2, len(target) // 3)
    scored = sorted((distance(target, fold(s)), s) for s in seen)
    return [s for d, s in scored if d <= limit][:MAX_SUGGESTIONS]


@dataclass(frozen=True)
class Unmatched:
    """A spec agent no run matched, and the seen names it was probably meant to be."""

    agent: str
    suggestions: tuple[str, ...]

    def message(self) -> str:
        """One line naming the agent and what to do."""
        hint = (f"did you mean {' or '.join(repr(s) for s in self.suggestions)}?"
                if self.suggestions else "no seen agent name is close")
        return (f"no run matched spec agent {self.agent!r}; {hint} (mark the entry "
                "`optional: true` if it may not run)")


def unmatched(spec: CoverageSpec, runs: Mapping[str, int]) -> list[Unmatched]:
    """Named spec agents (not `*`, not `optional: true`) with no run, each with suggestions
    from the agents that did run (`runs`: runs per agent name)."""
    seen = [name for name, n in runs.items() if n > 0]
    return [
        Unmatched(name, tuple(closest(name, seen)))
        for name, aspec in spec.agents.items()
        if name != "*" and not aspec.optional and runs.get(name, 0) == 0
    ]


def unlisted(spec: CoverageSpec, runs: Mapping[str, int]) -> list[str]:
    """Agents that ran but that no spec entry names, when the spec names agents and has no `*`
    entry (a spec without agent entries judges every agent by its defaults, on purpose)."""
    named = [n for n in spec.agents if n != "*"]
    if not named or "*" in spec.agents:
        return []
    return sorted(name for name, n in runs.items() if n > 0 and name not in spec.agents)


def unlisted_message(names: Sequence[str]) -> str:
    """The warning (or FAIL reason) for agents that ran but that no spec entry names."""
    shown = ", ".join(repr(n) for n in names[:5]) + (f" and {len(names) - 5} more"
                                                     if len(names) > 5 else "")
    count = f"{len(names)} agent" if len(names) == 1 else f"{len(names)} agents"
    return (f"{count} ran but no spec entry names them: {shown} "
            "(judged by the spec defaults; add entries or a '*' entry)")
