"""`agentcov compare` (docs/compare.md): verdicts against hand-computed statistics, exact set
changes, drift pooling, and the CLI's exit codes and Markdown end to end.

Expected values are computed here independently of the code under test: Wilson bounds from the
closed formula, Newcombe bounds from two of them, Fisher p-values by enumerating the
hypergeometric distribution, χ² by hand (two degrees of freedom, where the survival function is
exp(-x/2)).
"""

from __future__ import annotations

import json
import math
import subprocess
import sys
import xml.etree.ElementTree as ET
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import pytest
from _hand_stats import Z, fisher_hand, newcombe_hand, wilson_hand
from _trace_files import demo_spans, protobuf_bytes, write_jsonl, write_spec

from otel_agentcov import cli, offline
from otel_agentcov.compare import RENDERERS, Settings, Side, compare
from otel_agentcov.spec import CoverageSpec
from otel_agentcov.state import CoverageState
from otel_agentcov.stats.regression import pass_rate_verdict, pool_sparse, tool_drift

# --- trials files: the same loader `coverage` uses ---------------------------------------------

Tools = Callable[[int], Sequence[str]]


def _trials(agents: Sequence[tuple[str, int, int, Tools]]) -> dict[str, Any]:
    """(agent, passed, runs, tools of run i): runs 0..passed-1 pass, the rest fail."""
    out = []
    for agent, passed, runs, tools in agents:
        for i in range(runs):
            steps: list[dict[str, Any]] = [{"action": "llm_response", "model": "gpt-4o"}]
            steps += [{"action": "tool_call", "tool_name": t} for t in tools(i)]
            out.append({"trace": {"steps": steps, "success": i < passed,
                                  "metadata": {"agent": agent}}})
    return {"results": out}


def write_trials(path: Path, agents: Sequence[tuple[str, int, int, Tools]]) -> Path:
    path.write_text(json.dumps(_trials(agents)), encoding="utf-8")
    return path


def _search(i: int) -> Sequence[str]:
    return ["search"]


def side(path: Path, spec: CoverageSpec | None = None) -> Side:
    engine = offline.load_path(spec or CoverageSpec.empty(), str(path))
    return Side(engine.state, offline.report(engine))


def agentcov(*args: str) -> subprocess.CompletedProcess[str]:
    proc = subprocess.run([sys.executable, "-m", "otel_agentcov.cli", *args],
                          capture_output=True, text=True, timeout=120, check=False)
    assert "Traceback" not in proc.stderr, proc.stderr
    return proc


# --- the pass-rate verdict ---------------------------------------------------------------------


def test_28_of_30_to_23_of_30_is_inconclusive_never_pass() -> None:
    """The peer's observed-power rule calls this drop (93 % -> 77 %) "no regression"."""
    v = pass_rate_verdict(28, 30, 23, 30)
    lower, upper = newcombe_hand(28, 30, 23, 30)
    assert v.diff_ci95 == pytest.approx((lower, upper), abs=1e-12)
    assert v.p_value == pytest.approx(fisher_hand(28, 30, 23, 30), rel=1e-9)
    assert lower < 0 < 0.05 < upper and v.p_value > 0.05  # neither bound nor test decides
    assert v.verdict == "INCONCLUSIVE"
    assert v.runs_needed is None  # the observed drop (16.7 points) is itself beyond 5 points
    assert v.cohens_h == pytest.approx(
        2 * math.asin(math.sqrt(28 / 30)) - 2 * math.asin(math.sqrt(23 / 30))
    )


def test_27_of_30_to_28_of_30_is_inconclusive_without_improved() -> None:
    v = pass_rate_verdict(27, 30, 28, 30)
    lower, upper = newcombe_hand(27, 30, 28, 30)
    assert v.diff_ci95 == pytest.approx((lower, upper), abs=1e-12)
    assert lower < 0 < 0.05 < upper  # a 5-point drop is not ruled out, nor is the rise shown
    assert v.verdict == "INCONCLUSIVE" and v.flags == ()
    # runs per side that would settle it if the rates held: the smallest n found by hand
    n = v.runs_needed
    assert n is not None
    def settles(k: int) -> bool:
        p0, p1 = 0.9, 28 / 30
        (_, u0), (l1, _) = _wilson_real(p0, k), _wilson_real(p1, k)
        return p0 - p1 + math.sqrt((u0 - p0) ** 2 + (p1 - l1) ** 2) < 0.05
    assert settles(n) and not settles(n - 1)


def _wilson_real(p: float, n: int) -> tuple[float, float]:
    centre = (p + Z * Z / (2 * n)) / (1 + Z * Z / n)
    half = Z / (1 + Z * Z / n) * math.sqrt(p * (1 - p) / n + Z * Z / (4 * n * n))
    return centre - half, centre + half


@pytest.mark.parametrize(("x0", "x1", "verdict"), [
    (380, 384, "PASS"),  # 95 % -> 96 %: a 5-point drop ruled out
    (400, 400, "PASS"),  # identical sides
    (380, 340, "FAIL"),  # 95 % -> 85 %: a drop shown
])
def test_400_run_cases(x0: int, x1: int, verdict: str) -> None:
    v = pass_rate_verdict(x0, 400, x1, 400)
    lower, upper = newcombe_hand(x0, 400, x1, 400)
    p = fisher_hand(x0, 400, x1, 400)
    assert v.diff_ci95 == pytest.approx((lower, upper), abs=1e-12)
    assert v.p_value == pytest.approx(p, rel=1e-9)
    expected = "PASS" if upper < 0.05 else "FAIL" if p < 0.05 else "INCONCLUSIVE"
    assert expected == verdict and v.verdict == verdict
    assert v.flags == ()  # no interval excludes 0 on the side of a flag here


def test_significant_drop_within_tolerance_passes_flagged_degraded() -> None:
    # 10 000 runs a side: 99 % -> 98 % is a shown drop, and shown to be under 5 points
    v = pass_rate_verdict(9900, 10_000, 9800, 10_000)
    lower, upper = newcombe_hand(9900, 10_000, 9800, 10_000)
    assert 0 < lower and upper < 0.05
    assert v.verdict == "PASS" and v.flags == ("degraded",)


def test_holm_turns_a_borderline_fail_inconclusive_with_several_agents(tmp_path: Path) -> None:
    # 27/30 -> 20/30: one-sided Fisher p between 0.05/3 and 0.05
    p = fisher_hand(27, 30, 20, 30)
    assert 0.05 / 3 < p < 0.05
    _, upper = newcombe_hand(27, 30, 20, 30)
    assert upper > 0.05  # the interval does not decide: the test does
    alone_b = write_trials(tmp_path / "b1.json", [("edge", 27, 30, _search)])
    alone_c = write_trials(tmp_path / "c1.json", [("edge", 20, 30, _search)])
    alone = compare(side(alone_b), side(alone_c))
    assert alone["agents"]["edge"]["verdict"] == "FAIL"
    assert alone["agents"]["edge"]["pass_rate"]["p_value_holm"] == pytest.approx(p)

    others = [("steady_a", 20, 20, _search), ("steady_b", 20, 20, _search)]
    many_b = write_trials(tmp_path / "b3.json", [("edge", 27, 30, _search), *others])
    many_c = write_trials(tmp_path / "c3.json", [("edge", 20, 30, _search), *others])
    many = compare(side(many_b), side(many_c))
    edge = many["agents"]["edge"]
    # Holm by hand: the smallest of three p-values is multiplied by 3 (the others are 1)
    assert edge["pass_rate"]["p_value"] == pytest.approx(p)
    assert edge["pass_rate"]["p_value_holm"] == pytest.approx(3 * p)
    assert edge["verdict"] == "INCONCLUSIVE"
    assert many["verdict"] == "INCONCLUSIVE"


# --- drift -------------------------------------------------------------------------------------


def test_chi_square_pools_sparse_categories() -> None:
    baseline = {"search": 60, "read": 40, "rare_a": 2, "rare_b": 1}
    current = {"search": 40, "read": 55, "rare_a": 1, "rare_b": 3}
    # rows 103 and 99 of 202 calls: expected for a column is its total x 99/202; the rare tools
    # (3 and 4 calls) expect < 5 each and are pooled into one column of 7 (expected 3.4 < 5),
    # which still is too sparse, so it joins the smallest remaining column ("read", 95 calls)
    columns = pool_sparse(baseline, current)
    assert columns == {"search": (60, 40), "(pooled)": (43, 59)}
    # with only two columns left: one degree of freedom; test the 3-column case by hand below
    d = tool_drift(baseline, current)
    table = [[60, 43], [40, 59]]
    assert d.p_value == pytest.approx(_chi2_p(table), rel=1e-9)
    assert d.categories == 2


def test_chi_square_pool_that_is_big_enough_stays_alone() -> None:
    baseline = {"a": 50, "b": 50, "c": 50, "x": 3, "y": 3}
    current = {"a": 70, "b": 40, "c": 30, "x": 2, "y": 4}
    columns = pool_sparse(baseline, current)
    assert columns == {"a": (50, 70), "b": (50, 40), "c": (50, 30), "(pooled)": (6, 6)}
    d = tool_drift(baseline, current)
    table = [[50, 50, 50, 6], [70, 40, 30, 6]]
    assert d.p_value == pytest.approx(_chi2_p(table), rel=1e-9)
    n = sum(map(sum, table))
    assert d.cramers_v == pytest.approx(math.sqrt(_chi2(table) / n))
    assert d.p_value is not None and d.cramers_v is not None
    assert d.drift == (d.p_value < 0.05 and d.cramers_v >= 0.1)


def test_identical_mix_is_not_drift() -> None:
    mix = {"a": 30, "b": 30}
    d = tool_drift(mix, mix)
    assert d.p_value == pytest.approx(1.0) and d.cramers_v == pytest.approx(0.0)
    assert d.drift is False


def _chi2(table: list[list[int]]) -> float:
    rows = [sum(r) for r in table]
    cols = [sum(c) for c in zip(*table, strict=True)]
    n = sum(rows)
    expected = [[r * c / n for c in cols] for r in rows]
    return math.fsum((o - e) * (o - e) / e
                     for orow, erow in zip(table, expected, strict=True)
                     for o, e in zip(orow, erow, strict=True))


def _chi2_p(table: list[list[int]]) -> float:
    """Survival function of χ² by hand: dof 1 via erfc, dof 2 exp(-x/2), dof 3 closed form."""
    x, dof = _chi2(table), len(table[0]) - 1
    if dof == 1:
        return math.erfc(math.sqrt(x / 2))
    if dof == 2:
        return math.exp(-x / 2)
    assert dof == 3
    return math.erfc(math.sqrt(x / 2)) + math.sqrt(2 * x / math.pi) * math.exp(-x / 2)


# --- exact set changes on merged states --------------------------------------------------------


def _state(tmp_path: Path, name: str, agents: Sequence[tuple[str, int, int, Tools]]) -> Path:
    engine = offline.load_path(CoverageSpec.empty(), str(write_trials(tmp_path / f"{name}.json",
                                                                      agents)))
    path = tmp_path / f"{name}.state"
    engine.state.save(path)
    return path


def test_lost_and_new_are_exact_on_merged_states(tmp_path: Path) -> None:
    # baseline: two processes; `lookup` only in the second (twice), `archive` once
    b1 = _state(tmp_path, "b1", [("ag", 10, 10, lambda i: ["search"])])
    b2 = _state(tmp_path, "b2", [("ag", 3, 3, lambda i: ["lookup"] if i < 2 else ["archive"])])
    c1 = _state(tmp_path, "c1", [("ag", 5, 5, lambda i: ["search"])])
    c2 = _state(tmp_path, "c2", [("ag", 3, 3, lambda i: ["search", "export"])])
    merged = {}
    for label, parts in (("base", (b1, b2)), ("cur", (c1, c2))):
        state = CoverageState()
        for p in parts:
            state.merge(offline.load_state(str(p)))
        state.save(tmp_path / f"{label}.state")
        merged[label] = side(tmp_path / f"{label}.state")
    report = compare(merged["base"], merged["cur"])["agents"]["ag"]
    assert report["lost"] == {
        "tools": ["archive", "lookup"], "delegations": [], "models": [], "boundaries": [],
        "paths": [],  # every baseline path (llm > tool) is still seen
        "arguments": [],
    }
    assert report["new"] == {
        "tools": ["export"], "delegations": [], "models": [], "boundaries": [],
        "paths": ["llm > tool > tool"], "arguments": [],
    }
    strict = compare(merged["base"], merged["cur"], Settings(min_count=2))["agents"]["ag"]
    assert strict["lost"]["tools"] == ["lookup"]  # archive was seen once only
    assert strict["new"]["tools"] == ["export"]  # 3 times


def test_new_restricted_attempt_is_a_hard_regression(tmp_path: Path) -> None:
    spec = CoverageSpec.from_dict({
        "version": 1,
        "agents": [{"name": "ag", "tool_edges": {"restricted": ["delete_repo"]}}],
    })
    base = write_trials(tmp_path / "b.json", [("ag", 400, 400, _search)])
    cur = write_trials(tmp_path / "c.json", [
        ("ag", 400, 400, lambda i: ["search", "delete_repo"] if i == 0 else ["search"])
    ])
    report = compare(side(base, spec), side(cur, spec))["agents"]["ag"]
    assert report["pass_rate"]["current"]["passed"] == 399  # the attempt failed its run
    _, upper = newcombe_hand(400, 400, 399, 400)
    assert upper < 0.05  # statistically a PASS ...
    assert report["hard_regressions"] == [
        {"type": "restricted_attempt", "item": "delete_repo", "count": 1}
    ]
    assert report["verdict"] == "FAIL"  # ... but a hard regression fails whatever the numbers
    assert "hard_regression" in report["flags"]


def test_coverage_before_after_comes_from_each_snapshot(tmp_path: Path) -> None:
    b = write_trials(tmp_path / "b.json", [("ag", 12, 12, _search)])
    c = write_trials(tmp_path / "c.json", [("ag", 12, 12, lambda i: ["search", "read"])])
    spec = CoverageSpec.from_dict({"version": 1, "agents": [
        {"name": "ag", "tools": ["search", "read", "write"], "models": ["gpt-4o", "claude"]}]})
    sb, sc = side(b, spec), side(c, spec)
    coverage = compare(sb, sc)["agents"]["ag"]["coverage"]
    assert coverage["tool"] == {"baseline": 1 / 3, "current": 2 / 3}  # of search, read, write
    assert coverage["model"] == {"baseline": 0.5, "current": 0.5}  # gpt-4o of two
    # one path and two (three) states, each seen 12 times: Chao1 adds nothing unseen
    assert coverage["path"] == coverage["state"] == {"baseline": 1.0, "current": 1.0}
    assert sorted(coverage) == ["boundary", "model", "overall", "path", "state", "tool"]
    for dim in ("boundary", "overall"):  # copied from each side's report, never recomputed
        assert coverage[dim] == {"baseline": sb.report["agents"]["ag"]["coverage"][dim],
                                 "current": sc.report["agents"]["ag"]["coverage"][dim]}


# --- the CLI end to end ------------------------------------------------------------------------


def test_cli_exit_codes_and_markdown(tmp_path: Path, capsys: pytest.CaptureFixture[str]
                                     ) -> None:
    base = write_trials(tmp_path / "base.json", [("triage", 28, 30, _search),
                                                 ("writer", 380, 400, _search)])
    same = write_trials(tmp_path / "same.json", [("writer", 384, 400, _search)])
    drop = write_trials(tmp_path / "drop.json", [("triage", 23, 30, _search),
                                                 ("writer", 384, 400, _search)])
    w_base = write_trials(tmp_path / "w_base.json", [("writer", 380, 400, _search)])

    # subprocesses for the codes a CI job reads (exit 1 is in the JSON test below) ...
    assert agentcov("compare", str(w_base), str(same)).returncode == 0
    inconclusive = agentcov("compare", str(base), str(drop), "--format", "markdown")
    assert inconclusive.returncode == 3, inconclusive.stderr
    # ... and in-process for the mappings, to keep the suite fast (scipy loads once)
    out = str(tmp_path / "out.txt")
    assert cli.main(["compare", str(base), str(drop), "--inconclusive", "fail", "--output",
                     out]) == 1
    assert cli.main(["compare", str(base), str(drop), "--inconclusive", "pass", "--output",
                     out]) == 0

    lines = inconclusive.stdout.splitlines()
    assert lines[0] == "## agentcov compare: **INCONCLUSIVE**"
    head = next(i for i, line in enumerate(lines) if line.startswith("| agent |"))
    assert lines[head].split(" | ")[1:5] == [
        "verdict", "pass rate before", "pass rate after", "drop (95% CI)"
    ]
    rows = {line.split(" | ")[0].lstrip("| "): line.split(" | ") for line in lines[head + 2:]
            if line.startswith("| ")}
    lo, hi = wilson_hand(28, 30)
    triage = rows["triage"]
    assert triage[1] == "**INCONCLUSIVE**"
    assert triage[2] == f"{round(100 * 28 / 30)}% [{round(100 * lo)}%–{round(100 * hi)}%] 28/30"
    d_lo, d_hi = newcombe_hand(28, 30, 23, 30)
    assert triage[4] == f"{100 * 5 / 30:+.1f} pts [{100 * d_lo:+.1f}, {100 * d_hi:+.1f}]"
    assert rows["writer"][1] == "PASS"
    assert "### triage" in lines

    # bad input: one line naming the file, exit 2, no traceback
    missing = agentcov("compare", str(tmp_path / "nope.state"), str(drop))
    assert missing.returncode == 2 and "nope.state" in missing.stderr
    assert len(missing.stderr.strip().splitlines()) == 1
    empty = tmp_path / "empty.json"
    empty.write_text('{"results": []}', encoding="utf-8")
    assert cli.main(["compare", str(empty), str(drop)]) == 2
    assert "no agent runs" in capsys.readouterr().err
    with pytest.raises(SystemExit) as usage:
        cli.main(["compare", str(base), str(drop), "--tolerance", "2"])
    assert usage.value.code == 2


def test_cli_json_state_files_and_junit(tmp_path: Path) -> None:
    base = _state(tmp_path, "base", [("writer", 380, 400, _search)])
    cur = _state(tmp_path, "cur", [("writer", 340, 400, lambda i: ["search", "read"])])
    junit = tmp_path / "compare.xml"
    proc = agentcov("compare", str(base), str(cur), "--format", "json", "--junit", str(junit))
    assert proc.returncode == 1
    doc = json.loads(proc.stdout)
    writer = doc["agents"]["writer"]
    assert doc["verdict"] == writer["verdict"] == "FAIL"
    assert set(writer) >= {"verdict", "flags", "pass_rate", "runs_needed", "hard_regressions",
                           "lost", "new", "coverage", "drift"}
    assert set(writer["pass_rate"]) >= {"baseline", "current", "diff_ci95", "p_value", "cohens_h"}
    assert writer["pass_rate"]["p_value"] == pytest.approx(fisher_hand(380, 400, 340, 400))
    assert writer["new"]["tools"] == ["read"]
    case = ET.parse(junit).getroot().find("testsuite/testcase")
    assert case is not None and case.get("classname") == "agentcov.writer"
    failure = case.find("failure")
    assert failure is not None and failure.get("type") == "FAIL"


def test_newly_violated_critical_contract_behaviour_is_a_hard_regression(tmp_path: Path) -> None:
    spec = CoverageSpec.from_dict({"version": 1, "agents": [{"name": "ag", "contracts": [{
        "name": "safety", "fail_on": "critical", "must_not": [
            {"behavior": "deletes", "called": "delete_*", "severity": "critical"},
            {"behavior": "exports", "called": "export", "severity": "medium"},
        ],
    }]}]})
    base = write_trials(tmp_path / "b.json", [
        ("ag", 400, 400, lambda i: ["search", "export"] if i == 0 else ["search"])
    ])
    cur = write_trials(tmp_path / "c.json", [
        ("ag", 400, 400,
         lambda i: ["search", "delete_file"] if i == 0 else ["search", "export"] if i < 5
         else ["search"])
    ])
    report = compare(side(base, spec), side(cur, spec))["agents"]["ag"]
    assert report["pass_rate"]["current"]["passed"] == 399  # the critical violation failed it
    # only the critical behaviour new in current; `exports` was violated in baseline already
    assert report["hard_regressions"] == [
        {"type": "contract_violation", "item": "safety.deletes", "count": 1}
    ]
    assert report["verdict"] == "FAIL"
    # runs no contract failed, compared like the pass rate: 400/400 -> 399/400
    assert report["contracts"]["baseline"] == [400, 400]
    assert report["contracts"]["current"] == [399, 400]
    assert report["contracts"]["diff_ci95"] == pytest.approx(newcombe_hand(400, 400, 399, 400))
    assert report["contracts"]["verdict"] == "PASS"
    markdown = RENDERERS["markdown"](compare(side(base, spec), side(cur, spec)))
    assert "- contracts: runs no contract failed 400/400 → 399/400" in markdown
    assert "contract_violation safety.deletes ×1" in markdown
    same = compare(side(base, spec), side(base, spec))["agents"]["ag"]
    assert same["hard_regressions"] == [] and same["verdict"] == "PASS"


def test_sides_may_be_trace_directories_protobuf_or_reports_are_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Each side goes through the coverage loader: a directory of JSON Lines and a protobuf file
    of the same demo spans compare as identical (same runs, no set changes)."""
    spans = demo_spans(runs=20)
    (tmp_path / "base").mkdir()
    write_jsonl(tmp_path / "base" / "traces.jsonl", spans)
    pb = tmp_path / "cur.pb"
    pb.write_bytes(protobuf_bytes(spans))
    spec = write_spec(tmp_path / "spec.yaml")
    out = tmp_path / "out.json"
    code = cli.main(["compare", str(tmp_path / "base"), str(pb), "--spec", str(spec),
                     "--format", "json", "--output", str(out)])
    doc = json.loads(out.read_text(encoding="utf-8"))
    assert sorted(doc["agents"]) == ["billing_agent", "research_agent", "triage_agent"]
    for agent in doc["agents"].values():
        side_b = agent["pass_rate"]["baseline"]
        assert side_b == agent["pass_rate"]["current"]
        _, upper = newcombe_hand(side_b["passed"], side_b["runs"], side_b["passed"],
                                 side_b["runs"])
        assert agent["verdict"] == ("PASS" if upper < 0.05 else "INCONCLUSIVE")
        assert all(v == [] for v in (*agent["lost"].values(), *agent["new"].values()))
        assert agent["hard_regressions"] == []
    assert doc["verdict"] == "INCONCLUSIVE" and code == 3  # 20 requests cannot rule out 5 points
    report = tmp_path / "report.json"
    assert cli.main(["coverage", "--traces", str(pb), "--format", "json", "--output",
                     str(report)]) == 0
    capsys.readouterr()
    assert cli.main(["compare", str(report), str(pb)]) == 2
    assert "a JSON report, not a state file" in capsys.readouterr().err


def test_narrative_consistency_is_compared_like_the_pass_rate(tmp_path: Path) -> None:
    """docs/compare.md: narrative divergence rates are compared like the pass rate. Runs whose
    story matched their calls, among runs whose story could be checked: 390/400 -> 340/400 is
    a drop Fisher shows; unverifiable runs are in neither count."""
    trials = write_trials(tmp_path / "t.json", [("ag", 400, 400, _search)])
    base, cur = side(trials), side(trials)
    base.state.agents["ag"].narrative.runs = {"consistent": 390, "divergent": 10,
                                              "unverifiable": 50}
    cur.state.agents["ag"].narrative.runs = {"consistent": 340, "divergent": 60}
    report = compare(base, cur)
    ag = report["agents"]["ag"]
    narrative = ag["narrative"]
    assert narrative["baseline"] == [390, 400] and narrative["current"] == [340, 400]
    assert narrative["diff_ci95"] == pytest.approx(newcombe_hand(390, 400, 340, 400))
    assert narrative["p_value"] == pytest.approx(fisher_hand(390, 400, 340, 400))
    assert narrative["verdict"] == "FAIL" and "narrative_regression" in ag["flags"]
    assert ("narrative: runs whose story matched their calls 390/400 → 340/400"
            in RENDERERS["text"](report))
    # no story checked on a side: nothing to compare, no flag
    plain = compare(side(trials), side(trials))["agents"]["ag"]
    assert plain["narrative"] is None and "narrative_regression" not in plain["flags"]


def test_a_drop_under_test_says_how_many_runs_would_fail_it(tmp_path: Path) -> None:
    """9/10 → 7/10: the drop (20 points) is beyond the tolerance, so no run count brings a PASS;
    before, runs_needed was null and nothing said more runs would confirm the drop. The FAIL
    count is the smallest n whose hand-enumerated Fisher p at 0.9n vs 0.7n is below α."""
    base = write_trials(tmp_path / "b.json", [("a", 9, 10, _search)])
    cur = write_trials(tmp_path / "c.json", [("a", 7, 10, _search)])
    result = compare(side(base), side(cur))
    agent = result["agents"]["a"]
    assert agent["verdict"] == "INCONCLUSIVE" and agent["runs_needed"] is None
    n = agent["runs_to_fail"]
    def fails(k: int) -> bool:
        return fisher_hand(round(0.9 * k), k, round(0.7 * k), k) < 0.05
    assert n is not None and fails(n) and not any(fails(k) for k in range(1, n))
    text = RENDERERS["text"](result)
    assert f"if these rates held, about {n} runs per side would settle it: FAIL" in text
    assert "same data" not in text


def test_runs_to_fail_use_the_agents_holm_multiplier() -> None:
    """Two agents compared: the smaller p is multiplied by 2 under Holm, so more runs are needed
    than for one agent alone (the hand search below applies the factor itself)."""
    alone = pass_rate_verdict(9, 10, 7, 10)
    held = pass_rate_verdict(9, 10, 7, 10, holm_factor=2)
    assert alone.runs_to_fail is not None and held.runs_to_fail is not None
    def fails(k: int) -> bool:
        return 2 * fisher_hand(round(0.9 * k), k, round(0.7 * k), k) < 0.05
    assert fails(held.runs_to_fail) and not fails(held.runs_to_fail - 1)
    assert held.runs_to_fail > alone.runs_to_fail


def test_a_version_compared_with_itself_says_so_in_one_line(tmp_path: Path) -> None:
    data = write_trials(tmp_path / "same.json", [("a", 8, 10, _search)])
    result = compare(side(data), side(data))
    assert result["same_data"] and result["verdict"] == "INCONCLUSIVE"
    needed = result["agents"]["a"]["runs_needed"]
    lines = [line for line in RENDERERS["text"](result).splitlines() if "same data" in line]
    assert lines == ["both sides hold the same data: a version compared with itself shows no "
                     "drop, and too few runs still cannot rule one out; it passes from about "
                     f"{needed} runs per side"]
