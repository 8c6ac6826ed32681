"""Contracts: per contract × behaviour the satisfied / violated / unknown / not-exercised run
counts (docs/contracts.md).

Keys are names from the spec plus the behaviour's kind and severity, so a state file says what
it counted without the spec, and two states merge by plain sums.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from ..judge.contracts import NOT_EXERCISED, RESULTS
from . import fields as f
from .caps import OVERFLOW, Caps
from .facts import RunFacts

CheckKey = tuple[str, str, str, str]  # (contract, behavior, kind, severity)
OVERFLOW_CHECK: CheckKey = (OVERFLOW, OVERFLOW, OVERFLOW, OVERFLOW)
_INDEX = {r: i for i, r in enumerate(RESULTS)}


@dataclass
class Contracts:
    # -> [satisfied, violated, unknown, not_exercised] run counts
    checks: dict[CheckKey, list[int]] = field(default_factory=dict)
    judged: int = 0  # runs that exercised at least one behaviour
    failed: int = 0  # of those, runs a contract failed (a violation at or above its fail_on)

    def _add(self, key: CheckKey, counts: list[int], caps: Caps, n: int) -> None:
        cap = caps.limits.max_checks
        key = caps.key(self.checks, key, cap, "contract", OVERFLOW_CHECK, n)
        row = self.checks.setdefault(key, [0] * len(RESULTS))
        for i, c in enumerate(counts):
            row[i] += c

    def add(self, facts: RunFacts, caps: Caps) -> None:
        if not facts.checks:
            return
        if any(c.result != NOT_EXERCISED for c in facts.checks):
            self.judged += 1
            self.failed += facts.contract_failed
        checks, cap = self.checks, caps.limits.max_checks
        for c in facts.checks:  # per run and behaviour: no list built per verdict
            key = caps.key(checks, (c.contract, c.behavior, c.kind, c.severity), cap, "contract",
                           OVERFLOW_CHECK)
            row = checks.get(key)
            if row is None:
                row = checks[key] = [0] * len(RESULTS)
            row[_INDEX[c.result]] += 1

    def merge(self, other: Contracts, caps: Caps) -> None:
        self.judged += other.judged
        self.failed += other.failed
        for key, counts in other.checks.items():
            self._add(key, counts, caps, sum(counts))

    def to_dict(self) -> dict[str, Any]:
        return {
            "contract_checks": [[*k, *v] for k, v in sorted(self.checks.items())],
            "contract_runs": [self.judged, self.failed],
        }

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> Contracts:
        """Version-1 state files have no contract keys: they load with none; version-2 rows have
        no not-exercised count: they load with 0. Read strictly."""
        judged, failed = (
            f.count(n, "contract_runs") for n in f.items(d.get("contract_runs", [0, 0]),
                                                          "contract_runs", 2)
        )
        if failed > judged:
            raise ValueError(f"contract_runs: failed {failed} exceeds judged {judged}")
        checks: dict[CheckKey, list[int]] = {}
        for row in f.items(d.get("contract_checks", []), "contract_checks"):
            size = 8 if type(row) is list and len(row) == 8 else 7  # 7: version 2
            c, b, k, s, *counts = f.items(row, "contract_checks", size)
            key = (f.name(c, "contract_checks"), f.name(b, "contract_checks"),
                   f.name(k, "contract_checks"), f.name(s, "contract_checks"))
            checks[key] = [f.count(n, "contract_checks") for n in counts] + [0] * (8 - size)
        return cls(checks=checks, judged=judged, failed=failed)
