"""The compiled trial reader (core/src/trials, docs/core.md) folds a trials file per agent; the
state, report, span counts and warnings must be exactly those of the trial-by-trial Python route
(readers/trials.py `read_trials`), on the golden trials, on random trials of every shape and on
hostile files, whichever route `offline.load` ends up taking."""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_report_golden import trials_doc

from otel_agentcov import offline
from otel_agentcov.assembler import END_OF_INPUT
from otel_agentcov.engine import CoverageEngine
from otel_agentcov.readers.errors import TraceFormatError
from otel_agentcov.readers.trials import read_trial_file, read_trials, trace_base
from otel_agentcov.spec import CoverageSpec
from otel_agentcov.state import Limits

TOOLS = ["search", "calc", "delete_repo", "ünïcode", "x" * 300, "a\x1fb"]
MODELS = ["gpt-4o", "claude", "unknown", ""]


def _specs() -> list[CoverageSpec]:
    plain = CoverageSpec.empty()
    rich = CoverageSpec.from_dict({
        "version": 1,
        "defaults": {
            "paths": {"granularity": "tool", "max_depth": 3},
            "state_attributes": ["gen_ai.tool.name", "error.type", "gen_ai.request.model",
                                 "gen_ai.operation.name", "nope"],
            "boundaries": {"max_steps": 2, "timeout_s": 1.5, "cost_limit_usd": 0.5,
                           "conditions": ["timeout", "max_steps", "error_path",
                                          "tool_failure", "cost_limit"]},
            "consistency_window": 3,
        },
        "agents": [{"name": "planner", "tool_edges": {"restricted": ["delete_*", "calc"]}}],
    })
    return [plain, rich, plain.with_inventory(["search", "calc"], ["gpt-4o"])]


SPECS = _specs()


def python_route(spec: CoverageSpec, path: Path, limits: Limits | None = None
                 ) -> tuple[Any, ...]:
    """The trial-by-trial route, as `offline.load` took it before the core: (state, report,
    span counts, warnings), or the error line."""
    engine = CoverageEngine(spec, shapes=True, limits=limits)
    warnings: list[str] = []
    try:
        offline._ingest_trials(engine, read_trials(
            str(path), 0, warnings.append, state_attributes=spec.state_attribute_names,
            max_spans=engine.bounds.max_spans_per_trace), None)
    except TraceFormatError as exc:
        return ("error", str(exc))
    engine.flush_all(END_OF_INPUT)
    return _outcome(engine, warnings)


def _outcome(engine: CoverageEngine, warnings: list[str]) -> tuple[Any, ...]:
    return (engine.state.to_dict(), offline.report(engine), engine.counters.to_dict(), warnings)


def load_route(spec: CoverageSpec, path: Path) -> tuple[Any, ...]:
    warnings: list[str] = []
    try:
        engine = offline.load(spec, results=[str(path)], warn=warnings.append)
    except offline.InputError as exc:
        return ("error", str(exc))
    return _outcome(engine, warnings)


def core_route(spec: CoverageSpec, path: Path, limits: Limits | None = None
               ) -> tuple[Any, ...] | None:
    """The core's route alone; None when it leaves the file to the Python route."""
    engine = CoverageEngine(spec, shapes=True, limits=limits)
    trials = read_trial_file(str(path), spec.state_attribute_names,
                             engine.bounds.max_spans_per_trace)
    if trials is None or not engine.ingest_trial_file(trials, trace_base(0)):
        return None
    from otel_agentcov.readers.trials import warn_unknown

    warnings: list[str] = []
    warn_unknown(str(path), trials.unknown_keys(), warnings.append)
    engine.flush_all(END_OF_INPUT)
    return _outcome(engine, warnings)


@pytest.mark.parametrize("spec", SPECS, ids=["empty", "rich", "inventory"])
@pytest.mark.parametrize("seed", [11, 5])
def test_the_golden_trials_fold_the_same_through_the_core(
    tmp_path: Path, spec: CoverageSpec, seed: int
) -> None:
    path = tmp_path / "trials.json"
    doc = trials_doc(seed=seed, n=300)
    for i, trial in enumerate(doc["results"]):  # versions and a trace-level model too
        trial["trace"]["model"] = ["gpt-4o", "claude", None, 5][i % 4]
        if i % 3 == 0:
            trial["trace"]["metadata"]["version"] = f"v{i % 4}"
        trial["agent"] = ["planner", None, ""][i % 3]
        trial["extra"] = 1
    path.write_text(json.dumps(doc))
    expected = python_route(spec, path)
    assert expected[0] != "error"
    assert core_route(spec, path) == expected  # the core took it, with the same answer
    assert load_route(spec, path) == expected


# --- random trials of every shape -----------------------------------------------------------

_text = st.one_of(st.sampled_from(["", " ", "x.y", "<class 'a.Timeout'>", "Max Turns",
                                   "MaxTurnsExceeded", "DeadlineExceeded", "\x1cE\u3000"]),
                  st.text(max_size=6))
_action = st.one_of(st.none(), st.sampled_from(
    ["llm_response", " Tool_Call ", "\u3000llm\x1c", "tool", "chat", "think", "", "observe",
     "execute_tool lookup", "invoke_agent helper", "TOOL_USE", "İ"]), st.integers(0, 2))
_number = st.one_of(
    st.none(), st.booleans(), st.integers(-5, 10**6), st.integers(2**63, 2**70),
    st.floats(allow_nan=False, allow_infinity=False, min_value=-10.0, max_value=1e9),
    st.sampled_from([1e300, 0.0, -0.0, 5e-324]), st.just("12"))
_name = st.one_of(st.none(), st.sampled_from(TOOLS + MODELS + ["(merged tools)",
                                                               "transfer_to_x", "Agent"]),
                  st.integers(0, 1))


@st.composite
def _step(draw: st.DrawFn) -> Any:
    if draw(st.integers(0, 40)) == 0:
        return draw(st.sampled_from([None, "step", [1]]))
    step: dict[str, Any] = {}
    for key, value in (("action", _action), ("tool_name", _name), ("model", _name),
                       ("duration_ms", _number)):
        if draw(st.booleans()):
            step[key] = draw(value)
    if draw(st.integers(0, 3)) == 0:
        step["metadata"] = draw(st.one_of(
            st.fixed_dictionaries({"error": st.one_of(st.none(), _text, st.just(3))}),
            st.just([]), st.just("x")))
    if draw(st.integers(0, 10)) == 0:
        step[draw(st.sampled_from(["tool_args", "step_index", "llm_output"]))] = {"a": [1]}
    return step


@st.composite
def _trial(draw: st.DrawFn) -> Any:
    trace: dict[str, Any] = {"steps": draw(st.lists(_step(), max_size=6))}
    if draw(st.integers(0, 30)) == 0:
        trace["steps"] = draw(st.sampled_from([None, "x", {}]))
    for key, value in (("success", st.one_of(st.booleans(), st.none(), st.just(0))),
                       ("error", st.one_of(st.none(), _text, st.just(1))),
                       ("total_duration_ms", _number), ("model", _name),
                       ("total_cost_usd", _number),
                       ("metadata", st.one_of(
                           st.none(), st.just([1]),
                           st.fixed_dictionaries({}, optional={
                               "agent": st.one_of(_name, st.sampled_from(["planner", "booker"])),
                               "agent_name": _name,
                               "version": st.one_of(st.none(), st.sampled_from(["1", "2", ""])),
                               "agent_version": st.sampled_from(["a", "b", ""]),
                           }))),
                       ("mystery", st.just(1))):
        if draw(st.booleans()):
            trace[key] = draw(value)
    shape = draw(st.integers(0, 12))
    if shape == 0:
        return trace  # a bare trace
    if shape == 1:
        return draw(st.sampled_from([None, 3, "trial", {"trace": None}, {"trace": [1]}]))
    trial: dict[str, Any] = {"trace": trace, "trial_id": shape}
    if draw(st.booleans()):
        trial["agent"] = draw(st.one_of(st.sampled_from(["planner", "booker", "", None]), _name))
    if draw(st.integers(0, 3)) == 0:
        trial["agent_name"] = draw(st.sampled_from(["planner", "", None, 4]))
    if draw(st.integers(0, 5)) == 0:
        trial["notes"] = "x"
    return trial


@st.composite
def _document(draw: st.DrawFn) -> str:
    trials = draw(st.lists(_trial(), max_size=8))
    shape = draw(st.integers(0, 9))
    doc: Any = (trials if shape < 4 else {"results": trials} if shape < 7
                else {"trials": trials, "results": draw(st.sampled_from([None, 1, trials]))})
    text = json.dumps(doc, allow_nan=True)
    if draw(st.integers(0, 12)) == 0:  # hostile bytes: cut, BOM, NaN
        text = draw(st.sampled_from(
            [text[: len(text) // 2], "\ufeff" + text, text.replace("0", "NaN", 1), "", "  "]))
    return text


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow,
                                                                   HealthCheck.function_scoped_fixture])
@given(text=_document(), which=st.integers(0, len(SPECS) - 1))
def test_random_trials_give_what_the_python_route_gives(
    tmp_path: Path, text: str, which: int
) -> None:
    path = tmp_path / "trials.json"
    path.write_text(text, encoding="utf-8")
    spec = SPECS[which]
    expected = python_route(spec, path)
    assert load_route(spec, path) == expected
    core = core_route(spec, path)
    assert core is None or core == expected


@settings(max_examples=150, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(trials=st.lists(st.fixed_dictionaries({
    "agent": st.sampled_from(["planner", "booker"]),
    "trace": st.fixed_dictionaries({
        "steps": st.lists(st.fixed_dictionaries({
            "action": st.sampled_from(["llm_response", "tool_call"]),
            "tool_name": st.sampled_from(TOOLS), "model": st.sampled_from(MODELS),
            "duration_ms": st.floats(0, 1e7),
            "metadata": st.sampled_from([{}, {"error": "ReadTimeout"}, {"error": "x y"}]),
        }), max_size=12),
        "total_duration_ms": st.floats(0, 1e8), "success": st.booleans(),
        "metadata": st.sampled_from([{}, {"version": "1"}, {"version": "2"}]),
    })}), min_size=1, max_size=30), which=st.integers(0, len(SPECS) - 1))
def test_plain_trials_take_the_core_route(
    tmp_path: Path, trials: list[Any], which: int
) -> None:
    """Trials of the usual shape are read by the core (not left to Python), same answer."""
    path = tmp_path / "trials.json"
    path.write_text(json.dumps({"results": trials}))
    spec = SPECS[which]
    core = core_route(spec, path)
    assert core is not None
    assert core == python_route(spec, path)


def test_tables_past_a_cap_are_folded_run_by_run(tmp_path: Path) -> None:
    """Past a cap, which names fold into __overflow__ depends on the order runs arrive in: the
    core leaves the file to the run-by-run route (which counts each fold)."""
    path = tmp_path / "trials.json"
    path.write_text(json.dumps([{"trace": {"steps": [
        {"action": "tool_call", "tool_name": name}]}} for name in TOOLS]))
    limits = Limits(max_tools=3)
    assert core_route(CoverageSpec.empty(), path, limits) is None
    assert core_route(CoverageSpec.empty(), path, Limits(max_tools=len(TOOLS))) == python_route(
        CoverageSpec.empty(), path, Limits(max_tools=len(TOOLS)))
    overflowed = python_route(CoverageSpec.empty(), path, limits)
    assert overflowed[0]["overflow"] == {"tool": 3}


@pytest.mark.parametrize("text, message", [
    ("[{\"trace\": {\"steps\": [{\"duration_ms\": 1e400}]}}]", "malformed trace"),
    ("{\"results\": [{\"trace\": {}}]}", "trace has no 'steps' list"),
    ("[1", "not valid JSON"),
    ("[{\"trace\": {\"steps\": [], \"total_cost_usd\": 1" + "0" * 400 + "}}]", "malformed trace"),
])
def test_hostile_files_get_the_python_routes_error(
    tmp_path: Path, text: str, message: str
) -> None:
    path = tmp_path / "bad.json"
    path.write_text(text)
    expected = python_route(CoverageSpec.empty(), path)
    assert expected[0] == "error" and message in expected[1]
    assert load_route(CoverageSpec.empty(), path) == expected


def test_durations_keep_their_float_value(tmp_path: Path) -> None:
    """A number Python parses to a float the core must parse to the same (float_roundtrip)."""
    path = tmp_path / "trials.json"
    hard = [2.2250738585072011e-308, 0.1 + 0.2, 1497.304, 4.4e12 + 0.1, 2**22 + 1, math.pi * 1e6]
    path.write_text(json.dumps([{"trace": {"steps": [
        {"action": "llm_response", "duration_ms": d}], "total_duration_ms": d}} for d in hard]))
    assert core_route(CoverageSpec.empty(), path) == python_route(CoverageSpec.empty(), path)


_shaped = st.one_of(
    _document(),
    st.builds(lambda trials, extra: json.dumps({"results": trials, **extra}),
              st.lists(_trial(), max_size=3),
              st.fixed_dictionaries({}, optional={
                  "format": st.sampled_from(["otel_agentcov.state", "other", 3]),
                  "agents": st.just({}), "spans": st.just({})})),
    st.builds(lambda n: json.dumps([{"traceId": "a", "id": str(i), "trace": {"steps": []}}
                                    for i in range(n)] + ([{"trace": {"steps": []}}] * (n % 2))),
              st.integers(0, 3)),
)


@settings(max_examples=200, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(text=_shaped)
def test_input_kind_reads_the_shape_the_json_route_reads(
    tmp_path: Path, text: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A positional FILE is sniffed by the core when it reads it as trials: the kind must be
    the one the whole-document json route gives."""
    path = tmp_path / "input.json"
    path.write_text(text, encoding="utf-8")
    kind = offline.input_kind(str(path))
    with monkeypatch.context() as patched:
        patched.setattr(offline, "parse_trials", lambda *args: None)
        assert kind == offline.input_kind(str(path))
