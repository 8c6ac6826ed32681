"""Report sections for the five dimensions: tools, models, paths, states, boundaries, overall."""

from __future__ import annotations

from collections.abc import Mapping

from ..spec import CONDITIONS
from ..state import stable_hash
from ..stats import chao1, frequency_counts, geometric_mean, good_turing
from .schema import DIMENSIONS, AnyDimension, Skills, States, ToolOutcome
from .view import AgentView

TOP_PATHS = 5
_GLOB = frozenset("*?[")
_UNSEEN = (0, 0)  # the calls (ok, error) of a tool never called
_NOT_CALLED = [0, 0]  # ... as an inventory holds them
# Why boundary coverage, though measured, is not in the overall (docs/semantics.md#overall).
UNDECLARED_BOUNDARIES = "not in the overall: no `boundaries:` declared for this agent"
UNDECLARED_SKILLS = "not in the overall: no `skills:` declared for this agent"


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


def tools_section(v: AgentView) -> None:
    """Known tools (declared, else discovered), called, uncovered, undeclared; models.

    A scrape builds every agent's report, so what is per tool is written out, and the passes
    whose answer is usually known (every tool called, none only failing, none restricted) are
    asked of the whole set first, by C loops."""
    spec, inv = v.spec, v.st.inventory
    counts = inv.tools
    # counts never go negative, so a tool was called unless both are 0 (a merged or loaded
    # state may hold such a tool)
    called = (set(counts) if _NOT_CALLED not in counts.values()
              else {t for t, (ok, err) in counts.items() if ok + err > 0})
    declared = spec.tools if spec.tools is not None else spec.allowed
    pool = set(declared) if declared is not None else inv.tool_definitions | called
    # restricted tools named outright (not by a glob) are listed even while never attempted
    named = {t for t in spec.restricted if not _GLOB.intersection(t)}
    # each tool asked once (most agents restrict none): a scrape builds every agent's report
    restricted = spec.restricted_tools
    blocked = {t for t in pool | called | named if restricted.matches(t)} if restricted else set()
    known = sorted(pool - blocked)
    tools = set(spec.tools or ())
    inventory = bool(tools or spec.allowed or spec.restricted)
    # docs/report.md#tool-outcomes: a tool counts as covered only once a call succeeded; the
    # tools listed are the known ones unless some called or named one is not among them
    listed = (known if pool.issuperset(called) and pool.issuperset(named) and not blocked
              else sorted({*known, *called, *named}))
    outcomes: dict[str, ToolOutcome] = {
        t: "ok" if (c := counts.get(t, _UNSEEN))[0] else "errors_only" if c[1] else "not_called"
        for t in listed}
    for t in blocked.intersection(outcomes):
        outcomes[t] = "restricted"
    errors_only = ([t for t, c in outcomes.items() if c == "errors_only"]
                   if "errors_only" in outcomes.values() else [])
    v.report["tools"] = {
        "known": known,
        "called": {t: {"ok": (c := counts[t])[0], "error": c[1]} for t in sorted(counts)},
        "uncovered": [t for t in known if t not in called] if not called.issuperset(known)
        else [],
        "undeclared": sorted(t for t in called if t not in tools and t not in blocked
                             and not spec.allowed_tools.matches(t)) if inventory else [],
        "discovered": declared is None,
        "outcomes": outcomes,
        "errors_only": errors_only,
    }
    v.report["models"] = {"known": list(spec.models), "used": dict(sorted(inv.models.items()))}
    # undeclared means something only once an inventory is declared: n/a (no gate passes) before
    v.targets["edges.undeclared_tools"] = (len(v.report["tools"]["undeclared"]) if inventory
                                           else None)
    # no tool call seen: nothing was tried, so "none failing only" is not known (n/a)
    v.targets["tools.errors_only"] = len(errors_only) if called else None


def skills_section(v: AgentView) -> None:
    """Skills as tools are counted (docs/semantics.md#skills): known (declared, else offered or
    loaded), loaded, unloaded, undeclared; only for an agent with any, so other reports are as
    they were. A skill counts as loaded once a load or a read of its resources succeeded."""
    declared, st = v.spec.skills, v.st.skills
    v.targets["coverage.skill"] = None
    if declared is None and not st.definitions and not st.loads:
        return
    used = {s for s, (loads, resources) in st.loads.items() if loads + resources > 0}
    known = sorted(set(declared) if declared is not None else st.definitions | used)
    coverage = sum(s in used for s in known) / len(known) if known else None
    skills: Skills = {
        "known": known,
        "discovered": declared is None,
        "loaded": {s: {"loads": n, "resources": r} for s, (n, r) in sorted(st.loads.items())},
        "unloaded": [s for s in known if s not in used],
        "undeclared": sorted(used.difference(declared)) if declared is not None else [],
        "coverage": coverage,
    }
    v.report["skills"] = skills
    v.targets["coverage.skill"] = coverage


def diversity_section(v: AgentView) -> None:
    """Paths and states: observed, Chao1-estimated, sample coverage, the top and rarest paths."""
    spec, div = v.spec, v.st.diversity
    s_paths, est_paths, _, path_gt = _richness(div.paths)
    # the states runtimes reported replace the inferred ones where there are any
    # (docs/semantics.md#state-from-events); a report says so, and says nothing otherwise
    from_events = bool(div.event_states)
    s_states, est_states, _, state_gt = _richness(div.event_states if from_events
                                                  else div.states)
    # only paths with kept tokens can be listed: sort those (<= max_path_samples), not every path
    sampled = sorted(
        ((k, div.paths[k]) for k in div.path_tokens if k in div.paths),
        key=lambda kv: (-kv[1], kv[0]),
    )
    top = sampled[:TOP_PATHS]
    rarest = sampled[TOP_PATHS:][-TOP_PATHS:][::-1]
    v.report["paths"] = {
        "observed": s_paths,
        "estimated": est_paths,
        "sample_coverage": path_gt,
        "expected": len(spec.expected_paths) if spec.expected_paths else None,
        "top": [{"path": list(div.path_tokens[k]), "count": c} for k, c in top],
        # The least frequent paths not already in `top`, fewest first: the edge cases seen.
        "rarest": [{"path": list(div.path_tokens[k]), "count": c} for k, c in rarest],
    }
    states: States = {
        "observed": s_states, "estimated": est_states, "sample_coverage": state_gt
    }
    if from_events:
        states["source"] = "events"
    v.report["states"] = states


def boundaries_section(v: AgentView) -> None:
    """Which enabled boundary conditions were hit, and how often."""
    hits = v.st.edges.boundaries
    enabled = [c for c in CONDITIONS if c in v.spec.boundaries.conditions]
    v.report["boundaries"] = {c: hits.get(c, 0) > 0 for c in enabled}
    v.report["boundary_hits"] = {c: hits.get(c, 0) for c in enabled}


def coverage_section(v: AgentView) -> None:
    """The five dimensions and their geometric mean, from the sections above; n/a explained."""
    spec, st, report = v.spec, v.st, v.report
    excluded: dict[str, str] = {}
    dims: dict[AnyDimension, float | None] = {}
    tools = report["tools"]
    known = tools["known"]
    outcomes = tools["outcomes"]
    # the known tools' outcomes counted by C loops (a scrape builds every agent's report)
    ok = sum(map("ok".__eq__, map(outcomes.__getitem__, known)))
    dims["tool"] = ok / len(known) if known else None
    if not known:
        excluded["tool"] = "no tools declared or discovered"

    paths = report["paths"]
    if spec.expected_paths:
        hashes = {stable_hash(tuple(p)[: spec.max_depth]) for p in spec.expected_paths}
        dims["path"] = sum(1 for h in hashes if st.diversity.paths.get(h)) / len(hashes)
    else:
        estimated = paths["estimated"]
        dims["path"] = paths["observed"] / estimated if estimated else None
        if dims["path"] is None:
            excluded["path"] = "no runs"
    states = report["states"]
    estimated = states["estimated"]
    dims["state"] = states["observed"] / estimated if estimated else None
    if dims["state"] is None:
        excluded["state"] = "no steps"

    boundaries = report["boundaries"]
    if st.outcomes.runs and boundaries:
        dims["boundary"] = sum(boundaries.values()) / len(boundaries)
    else:
        dims["boundary"] = None
        excluded["boundary"] = "no runs" if boundaries else "no boundary conditions enabled"

    models = spec.models
    if models:
        used = st.inventory.models
        dims["model"] = sum(any(model_matches(u, k) for u in used) for k in models) / len(models)
    else:
        dims["model"] = None
        excluded["model"] = "no models declared"

    counted: list[AnyDimension] = [d for d in DIMENSIONS if dims[d] is not None]
    if dims["boundary"] is not None and not spec.boundaries.declared:
        counted.remove("boundary")  # reported, but a never-tried boundary must not zero it
        excluded["boundary"] = UNDECLARED_BOUNDARIES
    skills = report.get("skills")
    if skills is not None:  # declared skills count as tools do; discovered ones are reported
        dims["skill"] = skills["coverage"]
        if dims["skill"] is None:
            excluded["skill"] = "no skills declared or offered"
        elif spec.skills is None:
            excluded["skill"] = UNDECLARED_SKILLS
        else:
            counted.append("skill")
    values = [dims[d] or 0.0 for d in counted]
    arguments = report.get("arguments")
    if arguments is not None and arguments["overall"] and arguments["pct"] is not None:
        values.append(arguments["pct"] / 100)  # opt-in (docs/report.md#argument-coverage)
    overall = geometric_mean(values)
    weakest = min(counted, key=lambda d: dims[d] or 0.0, default=None)
    report["coverage"] = {
        "tool": dims["tool"],
        "path": dims["path"],
        "state": dims["state"],
        "boundary": dims["boundary"],
        "model": dims["model"],
        "overall": overall,
        "weakest": weakest,
        "counted": counted,
        "insufficient_data": st.outcomes.runs < spec.min_runs,
        "excluded": excluded,
    }
    if skills is not None:
        report["coverage"]["skill"] = dims["skill"]
    v.targets.update({f"coverage.{d}": dims[d] for d in DIMENSIONS})
    v.targets["coverage.overall"] = overall
