"""Snapshot: the immutable computed view (ratios, estimates, edges, concerns, expect results).

Every output renders a Snapshot; none recomputes coverage (DESIGN §2).
"""

from __future__ import annotations

import copy
import math
from collections.abc import Mapping
from typing import Any

from .spec import CONDITIONS, AgentSpec, CoverageSpec, evaluate_expect
from .state import AgentState, CoverageState, stable_hash
from .stats import (
    chao1,
    frequency_counts,
    geometric_mean,
    good_turing,
    mean_pairwise_jaccard,
    wilson,
)

REPORT_VERSION = 1
DIMENSIONS = ("tool", "path", "state", "boundary", "model")
TOP_PATHS = 5
DURATION_BUCKETS_S = (0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0, 60.0, 120.0, 300.0)


class Snapshot:
    """One consistent computed view; `to_dict()` is the versioned JSON report (DESIGN §6)."""

    def __init__(self, data: dict[str, Any]) -> None:
        self._data = data

    def to_dict(self) -> dict[str, Any]:
        return copy.deepcopy(self._data)

    @property
    def data(self) -> Mapping[str, Any]:
        """The report without a copy, for renderers on a hot path (scrapes); do not mutate it."""
        return self._data

    @property
    def agents(self) -> Mapping[str, Mapping[str, Any]]:
        agents: Mapping[str, Mapping[str, Any]] = self._data["agents"]
        return agents

    @property
    def gate_passed(self) -> bool:
        """True when every agent's expect list passed."""
        return all(e["passed"] for a in self.agents.values() for e in a["expect"])


def model_matches(used: str, known: str) -> bool:
    """Dated snapshots match their base name: `gpt-4o-2024-08-06` is `gpt-4o`."""
    return used == known or used.startswith(known + "-")


def _richness(counts: Mapping[int, int]) -> tuple[int, float | None, float | None, float | None]:
    """(observed, Chao1 estimate, coverage S_obs/Chao1, Good-Turing sample coverage)."""
    s_obs, f1, f2, n = frequency_counts(counts.values())
    if s_obs == 0:
        return 0, None, None, None
    est = chao1(s_obs, f1, f2)
    return s_obs, est, s_obs / est, good_turing(f1, n)


def _pct(hit: int, total: int) -> float | None:
    return None if total == 0 else 100.0 * hit / total


def _agent_report(
    name: str, st: AgentState, spec: AgentSpec, observed_edges: set[tuple[str, str]]
) -> dict[str, Any]:
    restricted = set(spec.restricted)
    called = {t for t, (ok, err) in st.tools.items() if ok + err > 0}
    declared = spec.tools if spec.tools is not None else spec.allowed
    discovered = declared is None
    pool = set(declared) if declared is not None else st.tool_definitions | called
    known = sorted(pool - restricted)
    covered = [t for t in known if t in called]
    inventory = set(spec.tools or ()) | set(spec.allowed or ()) | restricted
    undeclared = sorted(called - inventory) if inventory else []

    excluded: dict[str, str] = {}
    dims: dict[str, float | None] = {}
    dims["tool"] = len(covered) / len(known) if known else None
    if not known:
        excluded["tool"] = "no tools declared or discovered"

    s_paths, est_paths, path_ratio, path_gt = _richness(st.paths)
    expected = spec.expected_paths
    if expected:
        hashes = {stable_hash(tuple(p)[: spec.max_depth]) for p in expected}
        dims["path"] = sum(1 for h in hashes if st.paths.get(h)) / len(hashes)
    else:
        dims["path"] = path_ratio
        if path_ratio is None:
            excluded["path"] = "no runs"
    s_states, est_states, state_ratio, state_gt = _richness(st.states)
    dims["state"] = state_ratio
    if state_ratio is None:
        excluded["state"] = "no steps"

    enabled = [c for c in CONDITIONS if c in spec.boundaries.conditions]
    boundaries = {c: st.boundaries.get(c, 0) > 0 for c in enabled}
    if st.runs and enabled:
        dims["boundary"] = sum(boundaries.values()) / len(enabled)
    else:
        dims["boundary"] = None
        excluded["boundary"] = "no runs" if enabled else "no boundary conditions enabled"

    models = list(spec.models)
    if models:
        matched = sum(any(model_matches(u, k) for u in st.models) for k in models)
        dims["model"] = matched / len(models)
    else:
        dims["model"] = None
        excluded["model"] = "no models declared"

    measured = [v for v in dims.values() if v is not None]
    overall = geometric_mean(measured)
    weakest = min(
        (d for d in DIMENSIONS if dims[d] is not None), key=lambda d: dims[d] or 0.0, default=None
    )

    attempts = sum(st.restricted.values())
    declared_edges = set(spec.delegation)
    edges: dict[str, Any] = {
        "allowed_pct": _pct(len(set(spec.allowed) & called), len(spec.allowed))
        if spec.allowed
        else None,
        "restricted_attempts": attempts,
        "delegation_pct": _pct(len(declared_edges & observed_edges), len(declared_edges))
        if declared_edges
        else None,
        "gate_passed": 1 if attempts == 0 else 0,
        "delegation_declared": [{"from": a, "to": b} for a, b in sorted(declared_edges)],
        "restricted": [
            {"tool": t, "outcome": o, "count": c} for (t, o), c in sorted(st.restricted.items())
        ],
    }

    ci = wilson(st.passed, st.runs)
    pass_rate = st.passed / st.runs if st.runs else None
    window = sorted(st.tool_sets)[-spec.consistency_window :]
    consistency = mean_pairwise_jaccard([frozenset(s) for _, _, s in window])
    p95_duration = st.durations.quantile(0.95)
    runs: dict[str, Any] = {
        "count": st.runs,
        "errors": st.errors,
        "passed": st.passed,
        "pass_rate": pass_rate,
        "pass_rate_ci95": list(ci) if ci else None,
        "duration_s": {"mean": st.durations.mean(), "p95": p95_duration},
        "tokens": {"mean": st.tokens.mean(), "p95": st.tokens.quantile(0.95)},
        "behavior_consistency": consistency,
        "duration_histogram": {
            "bounds": list(DURATION_BUCKETS_S),
            "cumulative": st.durations.cumulative(DURATION_BUCKETS_S),
            "count": st.durations.count,
            "sum": st.durations.total,
        },
    }

    concerns: list[dict[str, str]] = []
    if pass_rate is not None and ci is not None and pass_rate < 0.8:
        concerns.append({
            "type": "low_pass_rate",
            "severity": "critical" if pass_rate < 0.5 else "high",
            "message": f"pass rate {pass_rate:.1%} (point estimate; 95% interval "
                       f"[{ci[0]:.1%}, {ci[1]:.1%}]) below 80%",
        })
    if consistency is not None and consistency < 0.7:
        concerns.append({
            "type": "inconsistent_behavior",
            "severity": "medium",
            "message": f"behaviour consistency {consistency:.2f} below 0.70",
        })
    if st.score_n >= 2:
        mean = st.score_sum / st.score_n
        std = math.sqrt(max(st.score_sq / st.score_n - mean * mean, 0.0))
        if std > 0.3:
            concerns.append({
                "type": "high_variance",
                "severity": "medium",
                "message": f"run score std {std:.2f} above 0.30",
            })

    coverage: dict[str, Any] = dict(dims)
    coverage.update({
        "overall": overall,
        "weakest": weakest,
        "insufficient_data": st.runs < spec.min_runs,
        "excluded": excluded,
    })
    values: dict[str, float | int | None] = {f"coverage.{d}": coverage[d] for d in DIMENSIONS}
    values["coverage.overall"] = overall
    values.update({
        f"edges.{k}": v for k, v in edges.items() if k not in ("restricted", "delegation_declared")
    })
    values.update({
        "runs.count": st.runs,
        "runs.pass_rate": pass_rate,
        "runs.pass_rate_lower": ci[0] if ci else None,
        "runs.p95_duration_s": p95_duration,
        "runs.behavior_consistency": consistency,
    })
    expect = [
        {"target": r.target, "value": r.value, "passed": r.passed, "reason": r.reason}
        for r in evaluate_expect(spec.expect, values)
    ]
    # only paths with kept tokens can be listed: sort those (<= max_path_samples), not every path
    sampled = sorted(
        ((k, st.paths[k]) for k in st.path_tokens if k in st.paths), key=lambda kv: (-kv[1], kv[0])
    )
    top = sampled[:TOP_PATHS]
    rarest = sampled[TOP_PATHS:][-TOP_PATHS:][::-1]
    return {
        "runs": runs,
        "coverage": coverage,
        "tools": {
            "known": known,
            "called": {t: {"ok": ok, "error": err} for t, (ok, err) in sorted(st.tools.items())},
            "uncovered": [t for t in known if t not in called],
            "undeclared": undeclared,
            "discovered": discovered,
        },
        "models": {"known": models, "used": dict(sorted(st.models.items()))},
        "paths": {
            "observed": s_paths,
            "estimated": est_paths,
            "sample_coverage": path_gt,
            "expected": len(expected) if expected else None,
            "top": [{"path": list(st.path_tokens[k]), "count": c} for k, c in top],
            # The least frequent paths not already in `top`, fewest first: the edge cases seen.
            "rarest": [{"path": list(st.path_tokens[k]), "count": c} for k, c in rarest],
        },
        "states": {"observed": s_states, "estimated": est_states, "sample_coverage": state_gt},
        "boundaries": boundaries,
        "boundary_hits": {c: st.boundaries.get(c, 0) for c in enabled},
        "delegations": [
            {"from": a, "to": b, "count": c} for (a, b), c in sorted(st.delegations.items())
        ],
        "edges": edges,
        "concerns": concerns,
        "expect": expect,
    }


def compute_snapshot(
    state: CoverageState,
    spec: CoverageSpec,
    spans: Mapping[str, Any] | None = None,
) -> Snapshot:
    """Derive every ratio from the state under the spec; the only place coverage is computed."""
    observed_edges = {e for st in state.agents.values() for e in st.delegations}
    agents = {
        name: _agent_report(name, st, spec.for_agent(name), observed_edges)
        for name, st in sorted(state.agents.items())
    }
    empty: dict[str, Any] = {"processed": 0, "by_kind": {}, "dropped": {}}
    span_stats = dict(spans) if spans is not None else empty
    return Snapshot({"version": REPORT_VERSION, "agents": agents, "spans": span_stats})
