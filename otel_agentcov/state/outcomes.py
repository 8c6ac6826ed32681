"""Outcomes: run counts, pass/fail, durations, tokens, scores and recent tool sets."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from ..stats import LogHistogram
from .facts import RunFacts


@dataclass
class Outcomes:
    runs: int = 0
    errors: int = 0
    passed: int = 0
    durations: LogHistogram = field(default_factory=LogHistogram)
    tokens: LogHistogram = field(default_factory=LogHistogram)
    # (end_ns, trace_id, tools called): the consistency window, bounded at twice its size
    tool_sets: list[tuple[int, int, tuple[str, ...]]] = field(default_factory=list)
    score_n: int = 0
    score_sum: float = 0.0
    score_sq: float = 0.0

    def add(self, facts: RunFacts, called: Iterable[str], window: int) -> None:
        self.runs += 1
        self.errors += facts.errored
        self.passed += facts.passed
        self.durations.add(facts.duration_s)
        self.tokens.add(float(facts.tokens))
        self.score_n += 1
        self.score_sum += facts.score
        self.score_sq += facts.score * facts.score
        self.tool_sets.append((facts.end_ns, facts.trace_id, tuple(sorted(called))))
        if len(self.tool_sets) > 2 * window:
            self.tool_sets = sorted(self.tool_sets)[-window:]

    def merge(self, other: Outcomes) -> None:
        self.runs += other.runs
        self.errors += other.errors
        self.passed += other.passed
        self.durations.merge(other.durations)
        self.tokens.merge(other.tokens)
        self.tool_sets = sorted(self.tool_sets + other.tool_sets)
        self.score_n += other.score_n
        self.score_sum += other.score_sum
        self.score_sq += other.score_sq

    def to_dict(self) -> dict[str, Any]:
        return {
            "runs": self.runs,
            "errors": self.errors,
            "passed": self.passed,
            "durations": self.durations.to_dict(),
            "tokens": self.tokens.to_dict(),
            "tool_sets": [[e, t, list(s)] for e, t, s in sorted(self.tool_sets)],
            "scores": [self.score_n, self.score_sum, self.score_sq],
        }

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> Outcomes:
        n, s, sq = d["scores"]
        return cls(
            runs=int(d["runs"]),
            errors=int(d["errors"]),
            passed=int(d["passed"]),
            durations=LogHistogram.from_dict(d["durations"]),
            tokens=LogHistogram.from_dict(d["tokens"]),
            tool_sets=[(int(e), int(t), tuple(str(x) for x in s)) for e, t, s in d["tool_sets"]],
            score_n=int(n),
            score_sum=float(s),
            score_sq=float(sq),
        )
