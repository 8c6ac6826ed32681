"""`args` matching modes of a selector: one test per cell of the table in docs/contracts.md, each
checked as a `must` and a `must_not` (the `shows` helper asserts the polarities agree).

The listed arguments are `city = Paris, days = 3`; the four calls below differ from them in one
way each, and every verdict is read off the mode's definition by hand:

| call                                  | regex | subset | exact | superset |
|---------------------------------------|-------|--------|-------|----------|
| equal: {city: Paris, days: 3}         | yes   | yes    | yes   | yes      |
| extra key: {..., units: metric}       | yes   | yes    | no    | no       |
| listed key missing: {city: Paris}     | no    | no     | no    | yes      |
| listed value differs: {city: Lyon, 3} | no    | no     | no    | no       |
"""

from __future__ import annotations

from typing import Any

import pytest
from _contract_runs import NOT_CAPTURED, make_run, shows

from otel_agentcov.judge.args import json_equal, parse_path
from otel_agentcov.spec import CoverageSpec, SpecError

LITERAL = {"city": "Paris", "days": 3}
REGEX = {"city": "^Paris$", "days": "^3$"}
CALLS = {
    "equal": {"city": "Paris", "days": 3},
    "extra key": {"city": "Paris", "days": 3, "units": "metric"},
    "listed key missing": {"city": "Paris"},
    "listed value differs": {"city": "Lyon", "days": 3},
}
TABLE = {  # (call, mode) -> shown
    ("equal", "regex"): "yes", ("equal", "subset"): "yes",
    ("equal", "exact"): "yes", ("equal", "superset"): "yes",
    ("extra key", "regex"): "yes", ("extra key", "subset"): "yes",
    ("extra key", "exact"): "no", ("extra key", "superset"): "no",
    ("listed key missing", "regex"): "no", ("listed key missing", "subset"): "no",
    ("listed key missing", "exact"): "no", ("listed key missing", "superset"): "yes",
    ("listed value differs", "regex"): "no", ("listed value differs", "subset"): "no",
    ("listed value differs", "exact"): "no", ("listed value differs", "superset"): "no",
}


def _rule(args: dict[str, Any], mode: str | None = None) -> dict[str, Any]:
    sel: dict[str, Any] = {"tool": "weather", "args": args}
    if mode is not None:
        sel["args_mode"] = mode
    return {"called": sel}


@pytest.mark.parametrize(("call", "mode"), sorted(TABLE))
def test_mode_table_cell(call: str, mode: str) -> None:
    rule = _rule(REGEX if mode == "regex" else LITERAL, mode)
    assert shows(rule, make_run(("weather", CALLS[call]))) == TABLE[(call, mode)]


def test_regex_is_the_default_mode() -> None:
    for call in CALLS:
        assert shows(_rule(REGEX), make_run(("weather", CALLS[call]))) == TABLE[(call, "regex")]


@pytest.mark.parametrize("mode", ["regex", "subset", "exact", "superset"])
def test_uncaptured_arguments_are_unknown_in_every_mode(mode: str) -> None:
    rule = _rule(REGEX if mode == "regex" else LITERAL, mode)
    assert shows(rule, make_run(("weather", NOT_CAPTURED))) == "unknown"
    assert shows(rule, make_run(("search", NOT_CAPTURED))) == "no"  # another tool: no args read


# --- paths into nested objects ---

MEETING = {"title": "sync", "time": {"start": "09:00", "end": "09:30"}, "tags": ["a", "b"]}


@pytest.mark.parametrize("key", ["time.start", "/time/start"])
def test_nested_paths_dotted_and_json_pointer(key: str) -> None:
    run = make_run(("book", MEETING))
    sel = {"tool": "book", "args": {key: "09:00"}}
    assert shows({"called": {**sel, "args_mode": "subset"}}, run) == "yes"
    assert shows({"called": {**sel, "args": {key: "10:00"}, "args_mode": "subset"}}, run) == "no"
    # exact: time.end, title and tags are arguments the listed paths do not cover
    assert shows({"called": {**sel, "args_mode": "exact"}}, run) == "no"
    assert shows({"called": {**sel, "args": {"^09": "x"}}}, run) == "no"  # no such key


def test_exact_with_every_path_listed_and_whole_subtrees() -> None:
    run = make_run(("book", MEETING))
    every = {"title": "sync", "time.start": "09:00", "time.end": "09:30", "tags": ["a", "b"]}
    assert shows({"called": {"tool": "book", "args": every, "args_mode": "exact"}}, run) == "yes"
    # a listed object covers everything under it, compared as a whole
    whole = {"title": "sync", "time": {"end": "09:30", "start": "09:00"}, "tags": ["a", "b"]}
    assert shows({"called": {"tool": "book", "args": whole, "args_mode": "exact"}}, run) == "yes"
    half = dict(whole, time={"start": "09:00"})
    assert shows({"called": {"tool": "book", "args": half, "args_mode": "exact"}}, run) == "no"
    # arrays are one argument: order matters, an array index reaches inside
    assert shows({"called": {"tool": "book", "args": {"tags": ["b", "a"]},
                             "args_mode": "subset"}}, run) == "no"
    assert shows({"called": {"tool": "book", "args": {"tags.1": "b"},
                             "args_mode": "subset"}}, run) == "yes"
    assert shows({"called": {"tool": "book", "args": {"/tags/1": "^b$"}}}, run) == "yes"


def test_superset_listed_paths_are_an_allow_list() -> None:
    allowed = {"title": "sync", "time.start": {"regex": "^0"}, "time.end": {"regex": "."},
               "tags": ["a", "b"], "room": "blue"}
    run = make_run(("book", MEETING))  # no room: allowed to be absent
    assert shows({"called": {"tool": "book", "args": allowed, "args_mode": "superset"}},
                 run) == "yes"
    fewer = {k: v for k, v in allowed.items() if k != "tags"}
    assert shows({"called": {"tool": "book", "args": fewer, "args_mode": "superset"}},
                 run) == "no"  # tags is not listed


# --- values: literals and regexes ---


def test_literal_values_compare_as_json() -> None:
    run = make_run(("pay", {"amount": 10.0, "confirm": True, "memo": None}))
    literal = {"called": {"tool": "pay", "args_mode": "subset", "args": {"amount": 10}}}
    assert shows(literal, run) == "yes"  # 10 == 10.0 in JSON
    for other in ({"amount": "10"}, {"confirm": 1}, {"memo": ""}, {"amount": 11}):
        rule = {"called": {"tool": "pay", "args_mode": "subset", "args": other}}
        assert shows(rule, run) == "no", other
    assert shows({"called": {"tool": "pay", "args_mode": "subset",
                             "args": {"memo": None, "confirm": True}}}, run) == "yes"
    assert json_equal(True, True) and not json_equal(True, 1) and not json_equal(0, False)


def test_a_regex_value_in_a_literal_mode() -> None:
    run = make_run(("pay", {"amount": 5000, "to": "ACME"}))
    big = {"tool": "pay", "args_mode": "exact", "args": {"amount": {"regex": "^[0-9]{4,}$"},
                                                         "to": "ACME"}}
    assert shows({"called": big}, run) == "yes"  # 5000 read as its JSON text "5000"
    assert shows({"called": big}, make_run(("pay", {"amount": 50, "to": "ACME"}))) == "no"


def test_parse_path() -> None:
    assert parse_path("a.b.0") == ("a", "b", "0")
    assert parse_path("/a~1b/c~0d") == ("a/b", "c~d")  # RFC 6901 escapes, ~1 before ~0
    assert parse_path("plain") == ("plain",)


# --- spec errors, each one line with its path ---


def _error(sel: dict[str, Any]) -> str:
    with pytest.raises(SpecError) as caught:
        CoverageSpec.from_dict({"version": 1, "agents": [{"name": "a", "contracts": [
            {"name": "c", "must": [{"behavior": "b", "called": sel}]}]}]})
    return str(caught.value)


def test_spec_errors_name_the_argument() -> None:
    where = "agents[0].contracts[0].must[0].called.args"
    assert f"{where}.amount: expected a regex string" in _error(
        {"tool": "pay", "args": {"amount": 5}})
    assert f"{where}.amount: invalid regex" in _error(
        {"tool": "pay", "args_mode": "exact", "args": {"amount": {"regex": "("}}})
    assert f"{where}./a~2: invalid JSON Pointer" in _error(
        {"tool": "pay", "args_mode": "subset", "args": {"/a~2": 1}})
    assert "args_mode" in _error({"tool": "pay", "args_mode": "fuzzy", "args": {}})


def test_canary_arguments_are_judged_and_kept_nowhere() -> None:
    """Real SDK spans through the processor: an exact-mode selector reads the call's nested
    arguments (the canary among them) to judge, and nothing but the verdict is kept."""
    import json

    from opentelemetry.sdk.trace import TracerProvider

    from otel_agentcov.exporters.prometheus import render
    from otel_agentcov.processor import AgentCoverageProcessor

    canary = "CANARY-args-7f3a-never-kept"
    spec = CoverageSpec.from_dict({"version": 1, "agents": [{"name": "support", "contracts": [
        {"name": "c", "must": [{"behavior": "books_nine", "called": {
            "tool": "book", "args_mode": "subset", "args": {"/time/start": "09:00"}}}]}]}]})
    processor = AgentCoverageProcessor(spec, flush_interval_s=3600.0)
    provider = TracerProvider()
    provider.add_span_processor(processor)
    tracer = provider.get_tracer("t")
    for start in ("09:00", "10:00"):
        with tracer.start_as_current_span("invoke_agent support", attributes={
                "gen_ai.operation.name": "invoke_agent", "gen_ai.agent.name": "support"}), \
             tracer.start_as_current_span("execute_tool book", attributes={
                "gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": "book",
                "gen_ai.tool.call.arguments": json.dumps(
                    {"note": canary, "time": {"start": start}})}):
            pass
    assert processor.force_flush()
    report = processor.snapshot().to_dict()
    row = report["agents"]["support"]["contracts"][0]
    assert (row["satisfied"], row["violated"]) == (1, 1)  # 09:00 then 10:00, by hand
    kept = [json.dumps(report), json.dumps(processor.engine.state.to_dict()),
            render(processor).decode()]
    assert all(canary not in text for text in kept)
    provider.shutdown()
