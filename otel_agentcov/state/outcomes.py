"""Outcomes: run counts, pass/fail, durations, tokens, scores and recent tool sets."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from ..stats import LogHistogram
from . import fields as f
from .facts import RunFacts

# tool sets kept when states merge: the most recent, enough for any window up to half of it (a
# window is trimmed to twice its size on `add`); bounded, so folding many agents into
# __overflow__ stays linear instead of re-sorting an ever longer list
MERGED_TOOL_SETS = 20_000


def _add_ones(total: float, n: int) -> float:
    """`total` plus 1.0 added n times, one float addition after another."""
    if float(total).is_integer() and abs(total) + n <= 2**53:
        return float(total + n)  # every partial sum is exact
    for _ in range(n):
        total += 1.0
    return total


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
        self._keep_tool_sets([(facts.end_ns, facts.trace_id, tuple(sorted(called)))], window)

    def _keep_tool_sets(self, entries: Iterable[tuple[int, int, tuple[str, ...]]], window: int
                        ) -> None:
        """Append each run's tool set, trimming to the newest `window` past twice that."""
        sets, limit = self.tool_sets, 2 * window
        for entry in entries:
            sets.append(entry)
            if len(sets) > limit:
                sets = sorted(sets)[-window:]
        self.tool_sets = sets

    def add_runs(self, share: Mapping[str, Any], window: int) -> None:
        """`add` for many runs at once (a trial file's share, state/trial_fold.py), in their
        order: each scored 1.0 if it passed, else 0.0, as a trial run is; the same sums and the
        same window as adding them one by one."""
        passed = int(share["passed"])
        self.runs += int(share["runs"])
        self.errors += int(share["errors"])
        self.passed += passed
        self.durations.add_all(share["durations"])
        self.tokens.add_all([0.0] * int(share["runs"]))  # trials carry no token counts
        self.score_n += int(share["runs"])
        self.score_sum = _add_ones(self.score_sum, passed)  # 0.0 adds nothing
        self.score_sq = _add_ones(self.score_sq, passed)
        self._keep_tool_sets(share["tool_sets"], window)

    def merge(self, other: Outcomes) -> None:
        self.runs += other.runs
        self.errors += other.errors
        self.passed += other.passed
        self.durations.merge(other.durations)
        self.tokens.merge(other.tokens)
        self.tool_sets = sorted(self.tool_sets + other.tool_sets)[-MERGED_TOOL_SETS:]
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
        n, total, sq = f.items(d["scores"], "scores", 3)
        out = cls(
            runs=f.count(d["runs"], "runs"),
            errors=f.count(d["errors"], "errors"),
            passed=f.count(d["passed"], "passed"),
            durations=LogHistogram.from_dict(f.table(d["durations"], "durations")),
            tokens=LogHistogram.from_dict(f.table(d["tokens"], "tokens")),
            tool_sets=[
                (f.integer(e, "tool_sets end"), f.integer(t, "tool_sets trace"),
                 f.names(s, "tool_sets tools"))
                for e, t, s in (f.items(x, "tool_sets entry", 3)
                                for x in f.items(d["tool_sets"], "tool_sets"))
            ],
            score_n=f.count(n, "scores.n"),
            score_sum=f.number(total, "scores.sum"),
            score_sq=f.number(sq, "scores.sq"),
        )
        if out.errors > out.runs or out.passed > out.runs:
            raise ValueError(f"errors {out.errors} / passed {out.passed} exceed runs {out.runs}")
        return out
