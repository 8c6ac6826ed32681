"""`agentcov coverage`, `gate` and `merge` as a CI job runs them: exit codes, output, files."""

from __future__ import annotations

import gzip
import json
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import pytest
from _trace_files import demo_spans, protobuf_bytes, write_jsonl, write_spec

from otel_agentcov.demo import DEMO_SPEC
from otel_agentcov.engine import CoverageEngine
from otel_agentcov.records import from_readable_span
from otel_agentcov.spec import CoverageSpec

SPANS = demo_spans(runs=40)


def agentcov(*args: str, stdin: bytes | None = None) -> subprocess.CompletedProcess[str]:
    raw = subprocess.run(
        [sys.executable, "-m", "otel_agentcov.cli", *args],
        input=stdin, capture_output=True, timeout=120, check=False,
    )
    proc = subprocess.CompletedProcess(
        raw.args, raw.returncode, raw.stdout.decode(), raw.stderr.decode()
    )
    assert "Traceback" not in proc.stderr, proc.stderr
    return proc


def _in_process_report() -> dict[str, Any]:
    """What the in-process processor path reports for the same spans (minus span counters)."""
    engine = CoverageEngine(CoverageSpec.from_dict(DEMO_SPEC))
    for span in SPANS:
        engine.ingest(from_readable_span(span))
    engine.flush_all()
    report = engine.snapshot().to_dict()
    report.pop("spans")
    return report


def _rounded(node: Any) -> Any:
    if isinstance(node, float):
        return round(node, 9)
    if isinstance(node, dict):
        return {k: _rounded(v) for k, v in node.items()}
    if isinstance(node, list):
        return [_rounded(v) for v in node]
    return node


def _json(proc: subprocess.CompletedProcess[str]) -> dict[str, Any]:
    assert proc.returncode == 0, proc.stderr
    report: dict[str, Any] = json.loads(proc.stdout)
    return report


@pytest.mark.slow
def test_coverage_over_files_matches_the_in_process_report(tmp_path: Path) -> None:
    spec = write_spec(tmp_path / "agentcov.yaml")
    pb = tmp_path / "traces.pb"
    pb.write_bytes(protobuf_bytes(SPANS))
    (tmp_path / "collector").mkdir()
    jsonl = write_jsonl(tmp_path / "collector" / "traces.jsonl", SPANS)
    gz = tmp_path / "traces.jsonl.gz"
    gz.write_bytes(gzip.compress(jsonl.read_bytes()))
    expected = _in_process_report()
    for args in (["--traces", str(pb)], ["--traces", str(tmp_path / "collector")],
                 ["--traces", str(gz)]):
        report = _json(agentcov("coverage", "--spec", str(spec), "--format", "json", *args))
        assert report.pop("spans")["processed"] == len(SPANS)
        assert report == expected
    # stdin, markdown to --output
    out = tmp_path / "report.md"
    proc = agentcov("coverage", "--spec", str(spec), "--traces", "-", "--format", "markdown",
                    "--output", str(out), stdin=pb.read_bytes())
    assert proc.returncode == 0 and proc.stdout == ""
    assert "triage_agent" in out.read_text()


def test_html_report_writes_a_directory_with_every_agent(tmp_path: Path) -> None:
    pb = tmp_path / "traces.pb"
    pb.write_bytes(protobuf_bytes(SPANS))
    spec = write_spec(tmp_path / "agentcov.yaml")
    out = tmp_path / "html"
    proc = agentcov("coverage", "--spec", str(spec), "--traces", str(pb), "--format", "html",
                    "--output", str(out))
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == str(out / "index.html")
    index = (out / "index.html").read_text()
    for agent in ("triage_agent", "research_agent", "billing_agent"):
        assert agent in index
    assert len(list(out.glob("*.html"))) == 4  # index + one page per agent
    missing = agentcov("coverage", "--traces", str(pb), "--format", "html")
    assert missing.returncode == 2 and "give --output DIR" in missing.stderr


def test_fail_under_uses_the_lowest_agent_overall(tmp_path: Path) -> None:
    """The demo's billing and research agents tie; declaring a tool research_agent never calls
    makes it the one lowest agent, and it does not sort first: the message must name it."""
    agents = [{**a, "tools": [*a["tools"], "translate"]} if a["name"] == "research_agent" else a
              for a in DEMO_SPEC["agents"]]
    spec = write_spec(tmp_path / "agentcov.yaml", {**DEMO_SPEC, "agents": agents})
    pb = tmp_path / "traces.pb"
    pb.write_bytes(protobuf_bytes(SPANS))
    report = _json(agentcov("coverage", "--spec", str(spec), "--traces", str(pb),
                            "--format", "json"))
    overall = {name: a["coverage"]["overall"] for name, a in report["agents"].items()}
    lowest = overall["research_agent"]
    assert sorted(overall) == ["billing_agent", "research_agent", "triage_agent"]
    assert lowest < min(overall["billing_agent"], overall["triage_agent"])  # no tie
    ok = agentcov("coverage", "--spec", str(spec), "--traces", str(pb),
                  "--fail-under", f"{100 * lowest - 1:.1f}")
    assert ok.returncode == 0, ok.stderr
    assert ok.stderr == ""
    miss = agentcov("coverage", "--spec", str(spec), "--traces", str(pb),
                    "--fail-under", f"{100 * lowest + 1:.1f}")
    assert miss.returncode == 1
    assert miss.stderr == (f"agentcov: coverage {100 * lowest:.1f}% (research_agent, lowest "
                           f"agent overall) is below fail-under {100 * lowest + 1:.1f}%\n")
    assert "agent coverage:" in miss.stdout
    assert agentcov("coverage", "--traces", str(pb), "--fail-under", "120").returncode == 2


def _trials(n: int, passed: int, tools: tuple[str, ...] = ("search", "summarize")) -> list[Any]:
    return [
        {"trial_id": i, "passed": i < passed, "trace": {
            "steps": [
                {"step_index": 0, "action": "llm_response", "model": "gpt-4o",
                 "duration_ms": 12.0},
                *({"step_index": k + 1, "action": "tool_call", "tool_name": t,
                   "duration_ms": 3.0} for k, t in enumerate(tools[: 1 + i % len(tools)])),
            ],
            "success": i < passed, "error": None if i < passed else "AssertionError",
            "total_duration_ms": 40.0, "metadata": {"agent": "assay_agent"}}}
        for i in range(n)
    ]


def test_results_files_with_and_without_tools(tmp_path: Path) -> None:
    trials = tmp_path / "trials.json"
    trials.write_text(json.dumps({"results": _trials(10, 10)}))
    found = _json(agentcov("coverage", "--results", str(trials), "--format", "json"))
    agent = found["agents"]["assay_agent"]
    assert agent["runs"]["count"] == 10
    assert agent["tools"]["discovered"] and agent["tools"]["known"] == ["search", "summarize"]
    declared = _json(agentcov("coverage", "--results", str(trials), "--tools",
                              "search,summarize,read_file", "--models", "gpt-4o,claude",
                              "--format", "json"))
    agent = declared["agents"]["assay_agent"]
    assert agent["coverage"]["tool"] == 2 / 3 and agent["tools"]["uncovered"] == ["read_file"]
    assert agent["coverage"]["model"] == 0.5
    listed = tmp_path / "list.json"
    listed.write_text(json.dumps(_trials(4, 4)))
    assert _json(agentcov("coverage", "--results", str(listed), "--format", "json"))[
        "agents"]["assay_agent"]["runs"]["count"] == 4
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps({"trials": [{"trace": {"steps": [{"action": "tool_call"}]}}]}))
    proc = agentcov("coverage", "--results", str(bad))
    assert proc.returncode == 2
    assert proc.stderr.strip() == (
        f"agentcov: {bad}: trials[0].trace: step 0: a tool_call step needs 'tool_name'"
    )


def test_trial_level_agent_name_is_honoured(tmp_path: Path) -> None:
    trials = _trials(6, 6)
    for i, trial in enumerate(trials):
        del trial["trace"]["metadata"]
        if i < 4:
            trial["agent" if i % 2 else "agent_name"] = "planner" if i < 2 else "writer"
    path = tmp_path / "t.json"
    path.write_text(json.dumps({"trials": trials}))
    agents = _json(agentcov("coverage", "--results", str(path), "--format", "json"))["agents"]
    assert {name: a["runs"]["count"] for name, a in agents.items()} == {
        "planner": 2, "writer": 2, "agent": 2}  # "agent": AgentAssay's default name
    trials[0]["agent"] = 7
    path.write_text(json.dumps(trials))
    proc = agentcov("coverage", "--results", str(path))
    assert proc.returncode == 2
    assert proc.stderr == f"agentcov: {path}: [0].agent: expected a string, got 7\n"


def test_unknown_trial_keys_are_reported_once_per_file(tmp_path: Path) -> None:
    trials = _trials(5, 5)
    for trial in trials[1:]:  # misspelt keys at every level, from the second trial on
        trial["agnet"] = "x"
        trial["trace"]["modle"] = "gpt-4o"
        trial["trace"]["steps"][0]["tool"] = "search"
    path = tmp_path / "t.json"
    path.write_text(json.dumps({"results": trials}))
    proc = agentcov("coverage", "--results", str(path), "--format", "json")
    assert proc.returncode == 0, proc.stderr
    assert proc.stderr == (
        f"agentcov: {path}: keys not read (ignored): step.tool (first at "
        "results[1].trace.steps[0]), trace.modle (first at results[1]), trial.agnet (first at "
        "results[1])\n"
    )
    clean = tmp_path / "clean.json"
    clean.write_text(json.dumps({"results": _trials(5, 5)}))
    assert agentcov("coverage", "--results", str(clean)).stderr == ""


def _gate_spec(tmp_path: Path, min_runs: int = 10) -> Path:
    return write_spec(tmp_path / "gate.yaml", {"version": 1, "agents": [{
        "name": "assay_agent", "min_runs": min_runs,
        "expect": [
            {"target": "runs.pass_rate", "matcher": {"schema": {"minimum": 0.8}}},
            {"target": "edges.restricted_attempts", "matcher": {"schema": {"maximum": 0}}},
        ]}]})


def _junit(path: Path) -> dict[str, ET.Element]:
    root = ET.parse(path).getroot()
    assert root.tag == "testsuites"
    return {f"{c.get('classname')}::{c.get('name')}": c for c in root.iter("testcase")}


def test_gate_pass_rate_verdicts_exit_codes_and_junit(tmp_path: Path) -> None:
    spec = _gate_spec(tmp_path)
    junit = tmp_path / "junit.xml"
    cases = {  # (trials, passed) -> pass-rate verdict
        (100, 100): "PASS",  # Wilson lower 0.963 >= 0.8
        (50, 20): "FAIL",  # upper 0.54 < 0.8
        (20, 16): "INCONCLUSIVE",  # [0.58, 0.92] straddles 0.8
        (5, 5): "INCONCLUSIVE",  # fewer than min_runs
    }
    for (n, passed), verdict in cases.items():
        trials = tmp_path / f"t{n}.json"
        trials.write_text(json.dumps(_trials(n, passed)))
        proc = agentcov("gate", "--spec", str(spec), "--results", str(trials),
                        "--junit", str(junit))
        # an undecidable statistic is its own exit code, never a pass nor a plain fail
        # (docs/semantics.md#the-gate-verdicts-and-exit-codes)
        assert proc.returncode == {"PASS": 0, "FAIL": 1, "INCONCLUSIVE": 3}[verdict], proc.stdout
        row = next(line for line in proc.stdout.splitlines() if "runs.pass_rate" in line)
        assert verdict in row, row
        assert proc.stderr == ""  # the one agent is named: no unmatched-agents warning
        case = _junit(junit)["agentcov.assay_agent::runs.pass_rate"]
        failure = case.find("failure")
        if verdict == "PASS":
            assert failure is None and case.find("skipped") is None
        else:
            assert failure is not None and failure.get("type") == verdict
            assert '{"minimum": 0.8}' in (failure.get("message") or "")
        if verdict == "INCONCLUSIVE":
            allowed = agentcov("gate", "--spec", str(spec), "--results", str(trials),
                               "--junit", str(junit), "--allow-inconclusive")
            assert allowed.returncode == 0
            # the restricted check passes, the pass rate is allowed: one line says both
            assert allowed.stdout.splitlines()[-1] == (
                "gate PASSED: 1 passed, 0 failed, 1 inconclusive (allowed)")
            assert proc.stdout.splitlines()[-1] == (
                "gate INCONCLUSIVE: 1 passed, 0 failed, 1 inconclusive")
            assert _junit(junit)["agentcov.assay_agent::runs.pass_rate"].find("skipped") is not None
            root = ET.parse(junit).getroot()
            assert (root.get("tests"), root.get("failures"), root.get("skipped")) == ("2", "0", "1")


def test_gate_a_fail_outranks_an_inconclusive(tmp_path: Path) -> None:
    spec = write_spec(tmp_path / "s.yaml", {"version": 1, "agents": [{
        "name": "assay_agent", "expect": [
            {"target": "runs.pass_rate", "matcher": {"schema": {"minimum": 0.8}}},
            {"target": "runs.count", "matcher": {"schema": {"minimum": 100}}}]}]})
    trials = tmp_path / "t.json"
    trials.write_text(json.dumps(_trials(20, 16)))  # pass rate [0.58, 0.92]: inconclusive
    for extra in ((), ("--allow-inconclusive",)):
        proc = agentcov("gate", "--spec", str(spec), "--results", str(trials), *extra)
        assert proc.returncode == 1, proc.stdout
        # the restricted check an expect list keeps (nothing attempted) is the one pass
        assert "gate FAILED: 1 passed, 1 failed, 1 inconclusive" in proc.stdout


def test_no_agent_runs_is_exit_2_naming_the_inputs_unless_allow_empty(tmp_path: Path) -> None:
    nothing = tmp_path / "otel-traces"  # a directory holding no trace file (a mistyped glob)
    nothing.mkdir()
    no_spans = tmp_path / "no-spans.json"
    no_spans.write_text('{"resourceSpans": []}')
    spec = write_spec(tmp_path / "s.yaml", {"version": 1, "agents": [{"name": "support"}]})
    for command in ("coverage", "gate"):
        proc = agentcov(command, "--spec", str(spec), "--traces", str(nothing), str(no_spans))
        assert proc.returncode == 2, proc.stdout
        assert proc.stderr == (f"agentcov: no agent runs found in {nothing}, {no_spans} "
                               "(give --allow-empty to accept this); instrument your agents "
                               "on the tracer provider the processor is on: pydantic-ai "
                               "Agent.instrument_all() with that provider global, OpenAI Agents "
                               "SDK and LangGraph through OpenInference (agentcov docs "
                               "quickstarts)\n")
        assert proc.stdout == ""
        allowed = agentcov(command, "--spec", str(spec), "--traces", str(nothing),
                           "--allow-empty")
        assert allowed.returncode == 0, allowed.stderr
        assert "support" in allowed.stdout  # the declared agent, with its 0 runs
    # accepting no runs never meets a coverage minimum: the declared agent measured nothing,
    # and without a spec there is no agent to measure at all
    declared = agentcov("coverage", "--spec", str(spec), "--traces", str(nothing),
                        "--allow-empty", "--fail-under", "10")
    assert declared.returncode == 1
    assert declared.stderr == ("agentcov: coverage 0.0% (support, lowest agent overall) is "
                               "below fail-under 10%\n")
    bare = agentcov("coverage", "--traces", str(nothing), "--allow-empty", "--fail-under", "0")
    assert bare.returncode == 1
    assert bare.stderr == "agentcov: no agent runs to measure; required 0%\n"


def test_expect_list_keeps_the_restricted_check(tmp_path: Path) -> None:
    trials = tmp_path / "t.json"  # odd trials call delete_repo: 2 restricted attempts in 4
    trials.write_text(json.dumps(_trials(4, 4, tools=("search", "delete_repo"))))
    agent = {"name": "assay_agent", "tool_edges": {"restricted": ["delete_repo"]},
             "expect": [{"target": "runs.count", "matcher": {"schema": {"minimum": 1}}}]}
    spec = write_spec(tmp_path / "s.yaml", {"version": 1, "agents": [agent]})
    proc = agentcov("gate", "--spec", str(spec), "--results", str(trials))
    assert proc.returncode == 1, proc.stdout
    row = next(line for line in proc.stdout.splitlines() if "edges.restricted_attempts" in line)
    assert row.split()[2:4] == ["2", '{"maximum":'] and "FAIL" in row
    for target, schema in (("edges.restricted_attempts", {"maximum": 2}),
                           ("edges.gate_passed", {"minimum": 0})):  # stated thresholds hold
        own = {**agent, "expect": [{"target": target, "matcher": {"schema": schema}}]}
        spec = write_spec(tmp_path / "own.yaml", {"version": 1, "agents": [own]})
        proc = agentcov("gate", "--spec", str(spec), "--results", str(trials))
        assert proc.returncode == 0, proc.stdout
        assert proc.stdout.count("assay_agent") == 1


def test_gate_default_gate_restricted_attempts_and_declared_agents(tmp_path: Path) -> None:
    pb = tmp_path / "traces.pb"
    pb.write_bytes(protobuf_bytes(SPANS))
    spec = write_spec(tmp_path / "s.yaml", {**DEMO_SPEC, "agents": [
        *DEMO_SPEC["agents"], {"name": "never_ran", "tools": ["x"],
                               "expect": [{"target": "runs.count",
                                           "matcher": {"schema": {"minimum": 1}}}]}]})
    junit = tmp_path / "j.xml"
    proc = agentcov("gate", "--spec", str(spec), "--traces", str(pb), "--junit", str(junit))
    assert proc.returncode == 1
    cases = _junit(junit)
    failure = cases["agentcov.billing_agent::edges.restricted_attempts"].find("failure")
    assert failure is not None
    message = failure.get("message") or ""
    assert message.startswith("value ") and '{"maximum": 0}' in message
    assert "greater than the maximum of 0" in message
    assert cases["agentcov.research_agent::edges.restricted_attempts"].find("failure") is None
    never = cases["agentcov.never_ran::runs.count"].find("failure")
    assert never is not None and "value 0" in (never.get("message") or "")
    root = ET.parse(junit).getroot()
    assert int(root.get("tests") or 0) == len(cases)
    assert int(root.get("failures") or 0) == sum(c.find("failure") is not None
                                                 for c in cases.values())


def test_footer_counts_state_file_inputs(tmp_path: Path) -> None:
    """A report from state files only said "spans: 0 processed" above agents with runs."""
    pb = tmp_path / "traces.pb"
    pb.write_bytes(protobuf_bytes(SPANS))
    state = tmp_path / "s.json"
    assert agentcov("coverage", "--traces", str(pb), "--data-file", str(state)).returncode == 0
    for fmt in ("text", "markdown"):
        proc = agentcov("coverage", "--state", str(state), str(state), "--format", fmt)
        assert proc.returncode == 0, proc.stderr
        assert "spans: 0 processed" in proc.stdout and "; 2 state files merged" in proc.stdout
    report = _json(agentcov("coverage", "--state", str(state), "--format", "json"))
    assert report["spans"]["state_files"] == 1
    plain = agentcov("coverage", "--traces", str(pb))
    assert "state file" not in plain.stdout


def test_bad_input_exit_2_one_line_unless_keep_going(tmp_path: Path) -> None:
    good = tmp_path / "good.pb"
    good.write_bytes(protobuf_bytes(SPANS))
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"resourceSpans": []}\nnot json\n')
    for command in ("coverage", "gate"):
        proc = agentcov(command, "--traces", str(good), str(bad))
        assert proc.returncode == 2
        assert proc.stderr.count("\n") == 1 and f"{bad}: line 2" in proc.stderr
    kept = agentcov("coverage", "--traces", str(bad), str(good), "--keep-going",
                    "--format", "json")
    assert kept.returncode == 0
    assert f"{bad}: line 2" in kept.stderr and "--keep-going" in kept.stderr
    assert json.loads(kept.stdout)["spans"]["processed"] == len(SPANS)
    empty = tmp_path / "empty.json"
    empty.write_bytes(b"")
    proc = agentcov("coverage", "--traces", str(empty))
    assert proc.returncode == 2 and "empty input" in proc.stderr
    assert agentcov("coverage").returncode == 2  # nothing to read
    proc = agentcov("coverage", "--traces", str(good), "--spec", str(tmp_path / "none.yaml"))
    assert proc.returncode == 2 and "none.yaml" in proc.stderr


def test_state_files_merge_exactly(tmp_path: Path) -> None:
    spec = write_spec(tmp_path / "agentcov.yaml")
    half = len(SPANS) // 2
    # split at a trace boundary so each process sees whole traces
    while SPANS[half - 1].parent is not None and half < len(SPANS):
        half += 1
    parts = [SPANS[:half], SPANS[half:]]
    states = []
    for n, part in enumerate(parts):
        pb = tmp_path / f"p{n}.pb"
        pb.write_bytes(protobuf_bytes(part))
        state = tmp_path / f"p{n}.state.json"
        assert agentcov("coverage", "--spec", str(spec), "--traces", str(pb),
                        "--data-file", str(state)).returncode == 0
        states.append(str(state))
    merged = tmp_path / "merged.state.json"
    assert agentcov("merge", *states, "-o", str(merged)).returncode == 0
    report = _json(agentcov("coverage", "--spec", str(spec), "--state", str(merged),
                            "--format", "json"))
    report.pop("spans")
    assert _rounded(report) == _rounded(_in_process_report())  # sums differ in the last bit
    # a JSON report cannot be merged exactly: refused with the reason
    as_report = tmp_path / "report.json"
    as_report.write_text(json.dumps(report | {"spans": {}}))
    proc = agentcov("merge", states[0], str(as_report), "-o", str(tmp_path / "x"))
    assert proc.returncode == 2 and "cannot be merged exactly" in proc.stderr


DEEP_JSON = "[" * 100_000 + "]" * 100_000


def _one_line_exit_2(capsys: Any, *args: str) -> str:
    """In process (fast): exit 2 and one `agentcov: ...` line, where a traceback used to be."""
    from otel_agentcov import cli

    assert cli.main(list(args)) == 2
    err: str = capsys.readouterr().err
    assert err.startswith("agentcov: ") and err.count("\n") == 1, err
    return err


def test_deeply_nested_trials_file(tmp_path: Path, capsys: Any) -> None:
    deep = tmp_path / "deep.json"
    deep.write_text(DEEP_JSON)
    assert "nested too deeply" in _one_line_exit_2(capsys, "coverage", "--results", str(deep))


def test_trial_duration_out_of_float_range(tmp_path: Path, capsys: Any) -> None:
    trials = tmp_path / "trials.json"
    trials.write_text('[{"trace": {"steps": [], "total_duration_ms": 1e999}}]')
    err = _one_line_exit_2(capsys, "coverage", "--results", str(trials))
    assert f"{trials}: [0].trace: malformed trace" in err


def test_deeply_nested_state_file(tmp_path: Path, capsys: Any) -> None:
    deep = tmp_path / "deep.json"
    deep.write_text(DEEP_JSON)
    assert f"{deep}: cannot read state" in _one_line_exit_2(capsys, "merge", str(deep), "-o",
                                                            str(tmp_path / "out.json"))


def test_unwritable_state_file_names_that_file(tmp_path: Path, capsys: Any) -> None:
    """CoverageState.save writes a temp file beside the target; its error named the temp file."""
    pb = tmp_path / "traces.pb"
    pb.write_bytes(protobuf_bytes(SPANS[:5]))
    (tmp_path / "a_dir").mkdir()
    for target, why in ((tmp_path / "missing" / "s.json", "No such file or directory"),
                        (tmp_path / "a_dir", "Is a directory")):
        err = _one_line_exit_2(capsys, "coverage", "--traces", str(pb), "--format", "json",
                               "--data-file", str(target))
        assert err == f"agentcov: {target}: {why}\n"
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".")] == []  # no temp left
