"""Argument coverage end to end (docs/report.md#argument-coverage): recorded spans of real
SDKs replayed through the engine, schemas discovered from their tool definitions or declared in
the spec; per-tool outcome classes; the gate targets; state merge and round trip."""

from __future__ import annotations

import json
from typing import Any

import pytest
from fixture_expectations import FIXTURES

from otel_agentcov.engine import CoverageEngine
from otel_agentcov.readers.otlp import in_end_order, records_from_json
from otel_agentcov.reporting import render
from otel_agentcov.spec import CoverageSpec, SpecError
from otel_agentcov.state import CoverageState


def _report(library: str, scenario: str, spec: dict[str, Any] | None) -> dict[str, Any]:
    path = FIXTURES / library / f"{scenario}.json"
    engine = CoverageEngine(CoverageSpec.from_dict(spec) if spec else None)
    for record in in_end_order(records_from_json(json.loads(path.read_text()), str(path))):
        engine.ingest(record)
    engine.flush_all()
    report: dict[str, Any] = engine.snapshot().to_dict()
    return report


ON = {"version": 1, "defaults": {"arguments": {}}}


# pydantic-ai (its own instrumentation), the Vercel AI SDK (its OpenTelemetry spans) and
# Microsoft Agent Framework with sensitive data on: each offers get_weather and get_time with a
# one-parameter schema ({city}, required) and calls each once with a city
@pytest.mark.parametrize("library", ["pydantic_ai", "vercel_ai", "agent_framework_sensitive"])
def test_schemas_discovered_from_real_sdk_definitions(library: str) -> None:
    arguments = _report(library, "two_tools", ON)["agents"]["weather"]["arguments"]
    assert arguments["pct"] == 100.0  # 2 items (city of each tool), both passed
    for tool in ("get_weather", "get_time"):
        row = arguments["tools"][tool]
        assert (row["schema"], row["items"], row["seen"], row["calls"], row["unread"]) == (
            "discovered", 1, 1, 1, 0)
        assert row["never"] == [] and row["required_never"] == []


def test_a_schema_declared_in_the_spec_where_spans_carry_none() -> None:
    """OpenAI Agents (contrib GenAI instrumentation) records arguments but no definitions."""
    weather = {"type": "object", "required": ["city"], "properties": {
        "city": {"type": "string"}, "units": {"enum": ["c", "f"]}, "days": {
            "type": "integer", "minimum": 1, "maximum": 7}}}
    spec = {"version": 1, "agents": [{"name": "weather", "arguments": {
        "schemas": {"get_weather": weather}}}]}
    report = _report("openai_agents_contrib", "two_tools", spec)["agents"]["weather"]
    rows = report["arguments"]["tools"]
    # get_weather: city, units, units="c", units="f", days, days:minimum, days:maximum = 7
    # items; the recorded call passed {"city": "Paris"}: 1 seen
    assert (rows["get_weather"]["schema"], rows["get_weather"]["items"],
            rows["get_weather"]["seen"]) == ("declared", 7, 1)
    # a schema's properties come in name order (schemas are kept as canonical JSON)
    assert rows["get_weather"]["never"] == ["days", "days:minimum", "days:maximum", "units",
                                            'units="c"', 'units="f"']
    # get_time has no schema anywhere: no share, its call counted unread
    assert (rows["get_time"]["schema"], rows["get_time"]["pct"], rows["get_time"]["unread"]) == (
        "none", None, 1)
    assert report["arguments"]["pct"] == pytest.approx(100 / 7)
    text = render(_report("openai_agents_contrib", "two_tools", spec), "text")
    assert "Arguments           14% of 7 argument items over 1 tool with a schema" in text
    assert "get_weather" in text and 'units="c"' in text
    markdown = render(_report("openai_agents_contrib", "two_tools", spec), "markdown")
    assert "| get_weather | 1 | 0 | covered | 1/7 (14%) |" in markdown


def test_off_by_default_no_section_and_no_content_read() -> None:
    report = _report("pydantic_ai", "two_tools", None)["agents"]["weather"]
    assert "arguments" not in report
    assert CoverageEngine(None).spec.needs_content is False
    assert CoverageSpec.from_dict(ON).needs_content is True


def test_arguments_share_joins_the_overall_mean_only_when_asked() -> None:
    beside = _report("openai_agents_contrib", "two_tools", {"version": 1, "agents": [
        {"name": "weather", "arguments": {"schemas": {"get_weather": {
            "type": "object", "properties": {"city": {}, "units": {}}}}}}]})
    joined = _report("openai_agents_contrib", "two_tools", {"version": 1, "agents": [
        {"name": "weather", "arguments": {"overall": True, "schemas": {"get_weather": {
            "type": "object", "properties": {"city": {}, "units": {}}}}}}]})
    b, j = beside["agents"]["weather"]["coverage"], joined["agents"]["weather"]["coverage"]
    assert beside["agents"]["weather"]["arguments"]["pct"] == 50.0
    # the same dimensions; joined adds 0.5 to their geometric mean: n dimensions at mean m
    # become (m^n * 0.5)^(1/(n+1))
    # counted: the non-null dimensions the overall does not leave out (boundary, undeclared)
    n = sum(1 for d in ("tool", "path", "state", "boundary", "model")
            if b[d] is not None and d not in b["excluded"])
    assert j["overall"] == pytest.approx((b["overall"] ** n * 0.5) ** (1 / (n + 1)))


def test_gate_targets_arguments_pct_and_errors_only() -> None:
    expect = [{"target": "tools.arguments_pct", "matcher": {"schema": {"minimum": 100}}},
              {"target": "tools.errors_only", "matcher": {"schema": {"maximum": 0}}}]
    spec = {"version": 1, "defaults": {"arguments": {}, "expect": expect}}
    ok = _report("pydantic_ai", "two_tools", spec)["agents"]["weather"]["expect"]
    assert [(r["target"], r["value"], r["passed"]) for r in ok[:2]] == [
        ("tools.arguments_pct", 100.0, True), ("tools.errors_only", 0, True)]
    # pydantic-ai's tool_error scenario: lookup_order's only call raised
    failing = _report("pydantic_ai", "tool_error", spec)["agents"]["orders"]["expect"]
    assert [(r["target"], r["value"], r["passed"]) for r in failing[1:2]] == [
        ("tools.errors_only", 1, False)]


def _orders(scenario: str) -> dict[str, Any]:
    report: dict[str, Any] = _report("pydantic_ai", scenario, {"version": 1, "agents": [{
        "name": "orders", "tools": ["lookup_order", "never_called"],
        "tool_edges": {"restricted": ["drop_db"]}}]})["agents"]["orders"]
    return report


def test_tool_outcome_classes_and_the_errors_only_concern() -> None:
    report = _orders("tool_error")  # lookup_order's one call raised
    tools = report["tools"]
    assert tools["called"]["lookup_order"] == {"ok": 0, "error": 1}
    assert tools["outcomes"] == {"drop_db": "restricted", "lookup_order": "errors_only",
                                 "never_called": "not_called"}
    assert tools["errors_only"] == ["lookup_order"]
    assert tools["uncovered"] == ["never_called"]  # called, so not "uncovered", but not covered:
    assert report["coverage"]["tool"] == 0.0  # 0 of the 2 known tools ever succeeded
    assert {"type": "errors_only_tools", "severity": "high",
            "message": "tools called but never successfully: lookup_order"} in report["concerns"]
    markdown = render({"agents": {"orders": report}, "spans": {
        "processed": 0, "by_kind": {}, "dropped": {}}}, "markdown")
    assert "| lookup_order | 0 | 1 | errors-only |" in markdown


def test_a_tool_that_failed_then_succeeded_is_covered() -> None:
    report = _orders("tool_retry")  # ModelRetry once, then the call succeeded
    assert report["tools"]["outcomes"]["lookup_order"] == "ok"
    assert report["tools"]["errors_only"] == []
    assert report["coverage"]["tool"] == 0.5  # lookup_order of lookup_order, never_called
    assert not any(c["type"] == "errors_only_tools" for c in report["concerns"])


def test_state_round_trip_and_merge_keep_argument_items() -> None:
    spec = CoverageSpec.from_dict(ON)
    engines = []
    for library in ("pydantic_ai", "vercel_ai"):
        engine = CoverageEngine(spec)
        path = FIXTURES / library / "two_tools.json"
        for record in in_end_order(records_from_json(json.loads(path.read_text()), str(path))):
            engine.ingest(record)
        engine.flush_all()
        engines.append(engine)
    merged = CoverageState()
    for engine in engines:
        merged.merge(CoverageState.from_dict(json.loads(json.dumps(engine.state.to_dict()))))
    entry = merged.agents["weather"].arguments.tools["get_weather"]
    assert (entry.items, entry.seen, entry.calls) == ({"city": True}, {"city"}, 2)


def test_a_declared_schema_must_be_a_mapping() -> None:
    with pytest.raises(SpecError, match="arguments.schemas.get_weather"):
        CoverageSpec.from_dict({"version": 1, "agents": [{
            "name": "weather", "arguments": {"schemas": {"get_weather": "city"}}}]})


def test_journaled_verdicts_keep_argument_items_for_a_replay() -> None:
    """`serve` journals judged verdicts (its replay has no arguments to judge again): the
    argument part round-trips through JSON and is read back strictly."""
    from otel_agentcov.argschema import tool_items
    from otel_agentcov.judge import ToolArguments, Verdicts
    from otel_agentcov.service.verdict_rows import from_row, to_row

    items = tool_items({"type": "object", "required": ["a"], "properties": {
        "a": {"type": "boolean"}, "b": {"enum": ["x"]}}})
    verdicts = Verdicts(arguments=(ToolArguments("t", items, frozenset({"a", "a=true"}), 2, 1),))
    row = json.loads(json.dumps(to_row("agent", verdicts)))
    assert from_row(row) == ("agent", verdicts)
    assert len(to_row("agent", Verdicts())) == 5  # rows without arguments are as they were
    row[5][0][3] = ["not-an-item"]
    with pytest.raises(ValueError, match="seen item"):
        from_row(row)


def test_series_stay_within_budget_with_100_tools_of_50_parameters() -> None:
    """Argument coverage adds one series per tool (its share), never one per item: 100 tools x
    50 parameters (150 items each with booleans) give 100 `agentcov_tool_arguments_ratio`
    series; a budget smaller than the scrape cuts series and counts what it cut."""
    from _builders import agent_span, chat_span, ingest, tool_span
    from prometheus_client.parser import text_string_to_metric_families

    from otel_agentcov.exporters.families import AGENT, of
    from otel_agentcov.exporters.prometheus import render as exposition

    tools = [f"t{i}" for i in range(100)]
    params = {f"p{j}": {"type": "boolean"} for j in range(50)}
    definitions = json.dumps([{"type": "function", "name": t, "parameters": {
        "type": "object", "properties": params}} for t in tools])
    records = [chat_span(1, 2, 1, start=1, end=2, **{"gen_ai.tool.definitions": definitions})]
    records += [tool_span(1, 3 + i, 1, t, 3 + i, 4 + i, **{
        "gen_ai.tool.call.arguments": json.dumps({"p0": True})}) for i, t in enumerate(tools)]
    records.append(agent_span(1, 1, None, "wide", 0, 200))
    engine = ingest(CoverageEngine(CoverageSpec.from_dict(ON)), records)
    engine.flush_all()
    rows = engine.snapshot().to_dict()["agents"]["wide"]["arguments"]["tools"]
    assert len(rows) == 100 and rows["t7"]["items"] == 150 and rows["t7"]["seen"] == 2

    def scrape(max_series: int) -> dict[str, Any]:
        text = exposition(engine, max_series=max_series).decode()
        return {f.name: f for f in text_string_to_metric_families(text)}

    def cut(families: dict[str, Any]) -> dict[str, float]:
        return {s.labels["family"]: s.value for s in families["agentcov_series_overflow"].samples
                if s.value}

    full = scrape(100_000)
    assert len(full["agentcov_tool_arguments_ratio"].samples) == 100
    assert len(full["agentcov_arguments_ratio"].samples) == 1
    assert cut(full) == {}
    # the per-agent families hold 100 tool shares + 100 declared tools + 200 tool-call series
    # + a few per-agent ones; a budget of 150 must cut the large ones and count each cut
    small = scrape(150)
    per_agent = sum(1 for f in of(AGENT) if f.name in small for s in small[f.name].samples
                    if s.name == f.sample or (f.type == "histogram" and s.name.endswith("_count")))
    assert per_agent <= 150
    assert cut(small)["agentcov_tool_arguments_ratio"] > 0


def test_next_steps_name_the_argument_value_to_try_and_the_failing_tool() -> None:
    spec = {"version": 1, "agents": [{"name": "weather", "arguments": {"schemas": {
        "get_weather": {"type": "object", "required": ["city"], "properties": {
            "city": {"type": "string"}, "units": {"enum": ["c", "f"]}}}}}}]}
    steps = _report("openai_agents_contrib", "two_tools", spec)["agents"]["weather"][
        "recommendations"]
    # get_weather was only ever called with {city}: `units` is the first item never exercised
    assert {"kind": "argument", "subject": "get_weather:units",
            "message": "no call of `get_weather` exercised `units`: pass `units` in a test"
            } in steps
    failing = _orders("tool_error")["recommendations"]
    # as much gain as the uncovered tool's (each lifts tool coverage by 1/2), ranked after it
    assert [s["kind"] for s in failing[:2]] == ["uncovered_tool", "errors_only_tool"]
    assert failing[1] == {"kind": "errors_only_tool", "subject": "lookup_order",
                          "message": "every call of `lookup_order` failed: add a test where it "
                                     "succeeds"}


def test_compare_names_the_argument_items_lost_between_versions() -> None:
    """Baseline called get_weather with {city, units}; current only with {city}: `units` (and
    its enum member "c") is lost, nothing is new."""
    from otel_agentcov.compare.sets import set_changes
    from otel_agentcov.judge import ToolArguments
    from otel_agentcov.judge.arguments import compiled

    schema = json.dumps({"type": "object", "properties": {
        "city": {"type": "string"}, "units": {"enum": ["c", "f"]}}}, sort_keys=True)
    items = compiled(schema)[1]
    sides = []
    for seen in ({"city", "units", 'units="c"'}, {"city"}):
        state = CoverageState()
        state.agent("weather").arguments.add(
            [ToolArguments("get_weather", items, frozenset(seen), 1)], state.caps)
        sides.append(state.agents["weather"])
    lost, new = set_changes(*sides)
    assert lost["arguments"] == ["get_weather: units", 'get_weather: units="c"']
    assert new["arguments"] == []


@pytest.mark.parametrize(("item", "advice"), [
    ("tags:empty", "pass `tags` as an empty array"),
    ("tags:non-empty", "pass `tags` as a non-empty array"),
])
def test_the_advice_for_an_array_facet_names_which_array(item: str, advice: str) -> None:
    """An argument recommendation says what a call must pass: the empty and the non-empty
    facets of an array ask for opposite things (docs/report.md#argument-coverage)."""
    from otel_agentcov.snapshot.arguments import how_to_exercise

    assert how_to_exercise(item) == advice
