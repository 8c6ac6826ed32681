"""A trial file's runs folded per agent: the compiled core (docs/core.md) computes every run's
facts (facts.py) and sums them per agent into a share; the share is added here with the
records' own `merge`, which below the caps gives exactly the tables a run-by-run `update` gives
(the outcomes' consistency window is kept run by run). A share that would reach a cap is not
folded: the caller then folds the file run by run, where each fold is counted.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from ..spec import DEFAULT_CONDITIONS, AgentSpec
from .caps import Limits
from .coverage_state import AgentState, CoverageState
from .diversity import Diversity
from .edges import Edges
from .facts import cost_limit_hit
from .faults import Faults
from .inventory import Inventory
from .versions import VersionCounts, Versions

Share = Mapping[str, Any]  # one agent's share, as `TrialFile.fold` returns it
_INT64 = (-(1 << 63), (1 << 63) - 1)


def _int64(value: int) -> int:
    return min(max(value, _INT64[0]), _INT64[1])


def fold_params(spec: AgentSpec, tools: Iterable[str], state: CoverageState
                ) -> tuple[bool, int, list[str], int | None, float | None, bool, list[str], int]:
    """What run_facts reads of the agent's spec, for `TrialFile.fold` (core/src/trials)."""
    b = spec.boundaries
    kept = state.agents.get(spec.name)
    samples = max(state.limits.max_path_samples,
                  len(kept.diversity.path_tokens) if kept is not None else 0)
    return (
        spec.granularity == "tool",
        _int64(spec.max_depth),
        [t for t in tools if spec.restricted_tools.matches(t)],
        None if b.max_steps is None else _int64(b.max_steps),
        None if b.timeout_s is None else float(b.timeout_s),
        cost_limit_hit(b, 0, 0.0),  # a trial run has no tokens and no cost
        # a trial run has no guardrail step: never hits `guardrail_blocked` (the core knows the
        # conditions a trial can hit)
        [c for c in b.conditions if c in DEFAULT_CONDITIONS],
        samples,
    )


def _room(table: Mapping[Any, Any], keys: Iterable[Any], cap: int) -> bool:
    return len(table) + sum(1 for k in keys if k not in table) <= cap


def fits(state: CoverageState, shares: Mapping[str, Share]) -> bool:
    """Whether no table reaches its cap with the shares added (so no fold has to be counted)."""
    lim: Limits = state.limits
    if not _room(state.agents, shares, lim.max_agents):
        return False
    for name, share in shares.items():
        st = state.agents.get(name) or AgentState()
        versions = st.versions.counts
        if not (_room(st.inventory.tools, share["tools"], lim.max_tools)
                and _room(st.inventory.models, share["models"], lim.max_models)
                and _room(st.diversity.paths, share["paths"], lim.max_paths)
                and _room(st.diversity.states, share["states"], lim.max_states)
                and _room(versions, share["versions"], lim.max_versions)
                and all(_room(versions[v].tools if v in versions else {}, tools, lim.max_tools)
                        for v, (_, _, _, tools) in share["versions"].items())):
            return False
    return True


def fold_shares(state: CoverageState, shares: Mapping[str, Share],
                windows: Mapping[str, int]) -> None:
    """Add each agent's share (`fits` said they fit); `windows`: each agent's consistency
    window."""
    caps = state.caps
    for name, share in shares.items():
        st = state.agent(name, int(share["runs"]))
        st.inventory.merge(Inventory(tools=share["tools"], models=share["models"]), caps)
        st.diversity.merge(Diversity(paths=share["paths"], path_tokens=share["path_tokens"],
                                     path_first=share["path_first"], states=share["states"]),
                           caps)
        st.edges.merge(Edges(boundaries=share["boundaries"], restricted=share["restricted"],
                             last_attempts=share["last_attempts"]), caps)
        st.faults.merge(Faults(tools=share["failed_tools"]), caps)  # trials carry no fault marks
        st.versions.merge(Versions({
            v: VersionCounts(first_ns, runs, passed, tools)
            for v, (first_ns, runs, passed, tools) in share["versions"].items()}), caps)
        st.outcomes.add_runs(share, windows[name])

