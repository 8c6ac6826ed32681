"""Diversity: path and state frequencies by stable hash, the input of the richness estimates."""

from __future__ import annotations

import heapq
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from . import fields as f
from .caps import Caps
from .facts import RunFacts


@dataclass
class Diversity:
    """Path and state counts, and the tokens of a bounded sample of paths: the earliest ones,
    by the (end time, trace id) of their first run, so the sample does not depend on the order
    runs arrive in and merged states (`--jobs`, `agentcov merge`) keep the same examples."""

    paths: dict[int, int] = field(default_factory=dict)
    path_tokens: dict[int, tuple[str, ...]] = field(default_factory=dict)  # a bounded sample
    path_first: dict[int, tuple[int, int]] = field(default_factory=dict)  # of the sampled paths
    states: dict[int, int] = field(default_factory=dict)
    # the states runtimes reported (`gen_ai.execution.state.changed`): where there are any,
    # state coverage is theirs, in place of `states` (docs/semantics.md#state-from-events)
    event_states: dict[int, int] = field(default_factory=dict)
    _latest: int | None = field(default=None, compare=False, repr=False)  # sampled, last first

    def _keep_tokens(self, key: int, tokens: tuple[str, ...] | None, first: tuple[int, int],
                     caps: Caps) -> None:
        if tokens is None:
            return
        firsts = self.path_first
        seen = firsts.get(key)
        if seen is not None:
            if first < seen:
                firsts[key] = first
                self._latest = None
            return
        if len(self.path_tokens) >= caps.limits.max_path_samples:
            latest = self._latest
            if latest is None:  # ties (two runs ending together) go by the path hash
                latest = self._latest = max(firsts, key=lambda k: (firsts[k], k), default=None)
            if latest is None or (first, key) >= (firsts[latest], latest):
                return
            del self.path_tokens[latest], firsts[latest]
        self.path_tokens[key] = tokens
        firsts[key] = first
        self._latest = None  # found again on the next full-sample miss (rare past the first)

    def add(self, facts: RunFacts, caps: Caps) -> None:
        lim = caps.limits
        if caps.count(self.paths, facts.path_key, lim.max_paths, "path", 1):
            self._keep_tokens(facts.path_key, facts.path, (facts.end_ns, facts.trace_id), caps)
        for key in facts.state_keys:
            caps.count(self.states, key, lim.max_states, "state", 1)
        if facts.event_state_keys:
            self.add_event_states(facts.event_state_keys, caps)

    def add_event_states(self, keys: list[int], caps: Caps) -> None:
        for key in keys:
            caps.count(self.event_states, key, caps.limits.max_states, "state", 1)

    def merge(self, other: Diversity, caps: Caps) -> None:
        lim = caps.limits
        tokens = other.path_tokens
        if len(self.paths) + len(other.paths) <= lim.max_paths:  # no path can fold: just add
            _add_counts(self.paths, other.paths)
            sampled = [path for path in other.paths if path in tokens]
        else:
            count, paths = caps.count, self.paths
            sampled = [path for path, n in other.paths.items()
                       if count(paths, path, lim.max_paths, "path", n) and path in tokens]
        self._merge_sample(sampled, other, lim.max_path_samples)
        if len(self.states) + len(other.states) <= lim.max_states:
            _add_counts(self.states, other.states)
        else:
            for state_key, n in other.states.items():
                caps.count(self.states, state_key, lim.max_states, "state", n)
        for state_key, n in other.event_states.items():
            caps.count(self.event_states, state_key, lim.max_states, "state", n)

    def _merge_sample(self, sampled: list[int], other: Diversity, cap: int) -> None:
        """The earliest paths of both samples in one pass and one partial sort: what adding
        `other`'s sampled paths one by one keeps, without a scan of the sample per path
        displaced (two workers' samples once cost a quadratic merge)."""
        tokens, firsts = self.path_tokens, self.path_first
        size = max(cap, len(tokens))  # a sample loaded past the cap stays its size, as in `add`
        for path in sampled:
            first = other.path_first.get(path, (0, 0))
            seen = firsts.get(path)
            if seen is None:
                tokens[path] = other.path_tokens[path]
                firsts[path] = first
            elif first < seen:
                firsts[path] = first
        if len(tokens) > size:
            for path in heapq.nlargest(len(tokens) - size, firsts,
                                       key=lambda k: (firsts[k], k)):
                del tokens[path], firsts[path]
        self._latest = None

    def to_dict(self) -> dict[str, Any]:
        return {
            "paths": {f"{k:016x}": v for k, v in sorted(self.paths.items())},
            "path_tokens": {f"{k:016x}": list(v) for k, v in sorted(self.path_tokens.items())},
            "path_first": {f"{k:016x}": list(v) for k, v in sorted(self.path_first.items())},
            "states": {f"{k:016x}": v for k, v in sorted(self.states.items())},
            # absent without state events: files of runtimes that emit none are unchanged
            **({"event_states": {f"{k:016x}": v for k, v in sorted(self.event_states.items())}}
               if self.event_states else {}),
        }

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> Diversity:
        return cls(
            paths=f.hashed_counts(d["paths"], "paths"),
            path_tokens={
                f.hash_key(k, "path_tokens"): f.names(v, f"path_tokens.{k}")
                for k, v in f.table(d["path_tokens"], "path_tokens").items()
            },
            path_first=_path_first(d),
            states=f.hashed_counts(d["states"], "states"),
            event_states=f.hashed_counts(d.get("event_states", {}), "event_states"),
        )


def _add_counts(table: dict[int, int], more: Mapping[int, int]) -> None:
    """Counts summed key by key, where the caps cannot be reached (`Caps.count` without its
    per-key checks: a merge of two --jobs workers' 20k paths each is in the parent's serial
    tail)."""
    get = table.get
    for key, n in more.items():
        table[key] = get(key, 0) + n


def _first(value: Any, what: str) -> tuple[int, int]:
    end_ns, trace_id = f.items(value, what, 2)
    if type(end_ns) is not int or not -(1 << 63) <= end_ns < 1 << 64:
        raise ValueError(f"{what}: expected an end time in ns, got {str(end_ns)[:40]!r}")
    return end_ns, f.integer(trace_id, what)


def _path_first(d: Mapping[str, Any]) -> dict[int, tuple[int, int]]:
    """When each sampled path's first run ended; state files from before the sample was ordered
    have none, and their sampled paths count as the earliest."""
    firsts = {
        f.hash_key(k, "path_first"): _first(v, f"path_first.{k}")
        for k, v in f.table(d.get("path_first", {}), "path_first").items()
    }
    return {f.hash_key(k, "path_tokens"): firsts.get(f.hash_key(k, "path_tokens"), (0, 0))
            for k in f.table(d["path_tokens"], "path_tokens")}
