"""Diversity: path and state frequencies by stable hash, the input of the richness estimates."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

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

    def merge(self, other: Diversity, caps: Caps) -> None:
        lim = caps.limits
        for path, n in other.paths.items():
            if caps.count(self.paths, path, lim.max_paths, "path", n):
                self._keep_tokens(path, other.path_tokens.get(path),
                                  other.path_first.get(path, (0, 0)), caps)
        for state_key, n in other.states.items():
            caps.count(self.states, state_key, lim.max_states, "state", n)

    def to_dict(self) -> dict[str, Any]:
        return {
            "paths": {f"{k:016x}": v for k, v in sorted(self.paths.items())},
            "path_tokens": {f"{k:016x}": list(v) for k, v in sorted(self.path_tokens.items())},
            "path_first": {f"{k:016x}": list(v) for k, v in sorted(self.path_first.items())},
            "states": {f"{k:016x}": v for k, v in sorted(self.states.items())},
        }

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> Diversity:
        return cls(
            paths={int(k, 16): int(v) for k, v in d["paths"].items()},
            path_tokens={
                int(k, 16): tuple(str(t) for t in v) for k, v in d["path_tokens"].items()
            },
            # state files from before the sample was ordered: those paths count as earliest
            path_first={int(k, 16): (int(v[0]), int(v[1]))
                        for k, v in d.get("path_first", {}).items()}
            | {int(k, 16): (0, 0) for k in d["path_tokens"] if k not in d.get("path_first", {})},
            states={int(k, 16): int(v) for k, v in d["states"].items()},
        )
