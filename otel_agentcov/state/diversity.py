"""Diversity: path and state frequencies by stable hash, the input of the richness estimates."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from . import fields as f
from .caps import Caps
from .facts import RunFacts


@dataclass
class Diversity:
    paths: dict[int, int] = field(default_factory=dict)
    path_tokens: dict[int, tuple[str, ...]] = field(default_factory=dict)  # a bounded sample
    states: dict[int, int] = field(default_factory=dict)

    def _keep_tokens(self, key: int, tokens: tuple[str, ...] | None, caps: Caps) -> None:
        if tokens is not None and (
            key in self.path_tokens or len(self.path_tokens) < caps.limits.max_path_samples
        ):
            self.path_tokens[key] = tokens

    def add(self, facts: RunFacts, caps: Caps) -> None:
        lim = caps.limits
        if caps.count(self.paths, facts.path_key, lim.max_paths, "path", 1):
            self._keep_tokens(facts.path_key, facts.path, caps)
        for key in facts.state_keys:
            caps.count(self.states, key, lim.max_states, "state", 1)

    def merge(self, other: Diversity, caps: Caps) -> None:
        lim = caps.limits
        for path, n in other.paths.items():
            if caps.count(self.paths, path, lim.max_paths, "path", n):
                self._keep_tokens(path, other.path_tokens.get(path), caps)
        for state_key, n in other.states.items():
            caps.count(self.states, state_key, lim.max_states, "state", n)

    def to_dict(self) -> dict[str, Any]:
        return {
            "paths": {f"{k:016x}": v for k, v in sorted(self.paths.items())},
            "path_tokens": {f"{k:016x}": list(v) for k, v in sorted(self.path_tokens.items())},
            "states": {f"{k:016x}": v for k, v in sorted(self.states.items())},
        }

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> Diversity:
        return cls(
            paths=f.hashed_counts(d["paths"], "paths"),
            path_tokens={
                f.hash_key(k, "path_tokens"): f.names(v, f"path_tokens.{k}")
                for k, v in f.table(d["path_tokens"], "path_tokens").items()
            },
            states=f.hashed_counts(d["states"], "states"),
        )
