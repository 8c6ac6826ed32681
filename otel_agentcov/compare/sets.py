"""Exact set changes between two agent states: what baseline saw that current did not, and back.

The state keeps tools, delegation edges, models, boundary hits and path hashes with their counts,
and the argument items each tool's calls exercised, so `lost` and `new` are exact, not sampled
(docs/compare.md).
"""

from __future__ import annotations

from collections.abc import Mapping

from ..state import OVERFLOW, AgentState

KINDS = ("tools", "delegations", "models", "boundaries", "paths", "arguments")
PATH_SEP = " > "


def _path_label(key: int, *samples: Mapping[int, tuple[str, ...]]) -> str:
    """A path's tokens when either side kept them, else its stable hash (still exact)."""
    for tokens in samples:
        if key in tokens:
            return PATH_SEP.join(tokens[key])
    return f"#{key:016x}"


def item_counts(st: AgentState, other: AgentState) -> dict[str, dict[str, int]]:
    """How often each item of each kind was seen; `other` only lends path labels.

    Folded `__overflow__` entries stand for many names, so they are never reported as an item.
    """
    samples = (st.diversity.path_tokens, other.diversity.path_tokens)
    return {
        "tools": {t: ok + err for t, (ok, err) in st.inventory.tools.items() if t != OVERFLOW},
        "delegations": {
            f"{a} -> {b}": n for (a, b), n in st.edges.delegations.items() if OVERFLOW not in (a, b)
        },
        "models": {m: n for m, n in st.inventory.models.items() if m != OVERFLOW},
        "boundaries": {c: n for c, n in st.edges.boundaries.items() if n > 0},
        "paths": {_path_label(k, *samples): n for k, n in st.diversity.paths.items()},
        # argument items keep no per-item count: each counts once (docs/compare.md)
        "arguments": {f"{t}: {key}": 1 for t, entry in st.arguments.tools.items()
                      if t != OVERFLOW for key in entry.seen},
    }


def _gone(before: Mapping[str, int], after: Mapping[str, int], min_count: int) -> list[str]:
    return sorted(k for k, n in before.items() if n >= min_count and after.get(k, 0) == 0)


def set_changes(
    baseline: AgentState, current: AgentState, min_count: int = 1
) -> tuple[dict[str, list[str]], dict[str, list[str]]]:
    """(lost, new): items seen >= `min_count` times on one side and never on the other."""
    before, after = item_counts(baseline, current), item_counts(current, baseline)
    lost = {k: _gone(before[k], after[k], min_count) for k in KINDS}
    new = {k: _gone(after[k], before[k], min_count) for k in KINDS}
    return lost, new
