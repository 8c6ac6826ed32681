"""Fault plans (docs/faults.md#plans): what each run carries, the same faults for the same seed,
and the guard that refuses faults outside the explicit switch."""

from __future__ import annotations

import asyncio
import inspect
from collections.abc import Iterator

import pytest
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

from otel_agentcov import faults
from otel_agentcov.fault_families import INPUT, MODEL, TOOL
from otel_agentcov.faults import plan as fault_plan
from otel_agentcov.faults.tools import ERROR_RESULT, MALFORMED_RESULT, InjectedToolError

ALL = frozenset({MODEL, TOOL, INPUT})


@pytest.fixture(autouse=True)
def _no_plan_left() -> Iterator[None]:
    yield
    faults.disable()


def runs(plan: faults.Plan, agent: str, n: int, seams: frozenset[str] = ALL) -> list[list[str]]:
    """The families `n` runs of `agent` fire when every armed fault finds its chance."""
    fired = []
    for _ in range(n):
        armed = plan.arm(agent, seams)
        for seam in (INPUT, MODEL, TOOL, MODEL):
            armed.take(seam, mark=False)
        plan.settle(armed)
        fired.append(sorted(armed.fired))
    return fired


def test_boundaries_provokes_each_condition_once_per_agent() -> None:
    plan = faults.parse("boundaries:1")
    assert runs(plan, "a", 6) == [
        ["budget", "tool_exception"], ["http_5xx"], ["timeout"], ["turn_pressure"],
        ["empty_input"], [],
    ]
    assert runs(plan, "b", 1) == [["budget", "tool_exception"]]  # agents apart
    assert plan.injected == {"budget": 2, "tool_exception": 2, "http_5xx": 1, "timeout": 1,
                             "turn_pressure": 1, "empty_input": 1}


def test_an_armed_fault_without_its_chance_waits_behind_the_others() -> None:
    """A run that calls no tool leaves tool_exception pending, after the rest."""
    plan = faults.parse("boundaries:1")
    armed = plan.arm("a")
    assert armed.take(MODEL, mark=False) == "budget"
    plan.settle(armed)  # no tool call: tool_exception not taken
    assert runs(plan, "a", 5) == [["http_5xx"], ["timeout"], ["turn_pressure"],
                                  ["empty_input"], ["tool_exception"]]


def test_only_reachable_seams_are_armed() -> None:
    plan = faults.parse("boundaries:1")
    assert runs(plan, "a", 3, frozenset({MODEL})) == [["budget", "http_5xx"], ["timeout"], []]


def test_the_same_seed_draws_the_same_chaos_and_another_seed_other_chaos() -> None:
    first = runs(faults.parse("chaos:42"), "a", 200)
    assert first == runs(faults.parse("chaos:42"), "a", 200)
    assert first != runs(faults.parse("chaos:43"), "a", 200)
    faulted = sum(1 for r in first if r)
    assert 20 < faulted < 80  # rate 0.25 of 200 runs: 50 expected, a 6-sigma band


def test_a_family_list_plan_and_its_reproduce_flag() -> None:
    plan = faults.parse(" http_5xx, tool_timeout :7")
    assert (plan.name, plan.seed, plan.families) == ("http_5xx,tool_timeout", 7,
                                                     ("http_5xx", "tool_timeout"))
    assert plan.reproduce == "http_5xx,tool_timeout:7"
    assert faults.parse(plan.reproduce).families == plan.families


def test_without_a_seed_one_is_drawn_and_named() -> None:
    plan = faults.parse("boundaries")
    assert plan.reproduce == f"boundaries:{plan.seed}"


@pytest.mark.parametrize(("text", "message"), [
    ("nope", "'nope' is neither a plan"),
    ("http_5xx,nope:1", "'nope' is neither a plan"),
    ("boundaries:x", "seed 'x' is not a non-negative integer"),
    ("boundaries:-1", "seed '-1'"),
])
def test_a_bad_plan_is_one_line_naming_it(text: str, message: str) -> None:
    with pytest.raises(faults.PlanError, match=message):
        faults.parse(text, "--agentcov-faults")


def test_faults_are_refused_when_the_production_flag_is_set(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("AGENTCOV_PRODUCTION", "1")
    with pytest.raises(faults.FaultsRefused, match="AGENTCOV_PRODUCTION is set"):
        faults.enable("boundaries:1", "--agentcov-faults")
    assert faults.active() is None
    monkeypatch.setenv("AGENTCOV_PRODUCTION", "false")
    assert faults.enable("boundaries:1").seed == 1


def test_faults_are_refused_in_a_process_that_forbade_them(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(faults.guard, "_forbidden_by", [])
    faults.forbid("agentcov serve")
    with pytest.raises(faults.FaultsRefused, match="refused in agentcov serve"):
        faults.enable("boundaries:1")


def test_the_env_switch(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("AGENTCOV_FAULTS", raising=False)
    assert faults.enable_from_env() is None and faults.active() is None
    monkeypatch.setenv("AGENTCOV_FAULTS", "tool_exception:3")
    plan = faults.enable_from_env()
    assert plan is not None and faults.active() is plan and plan.seed == 3


def test_no_plan_no_fault() -> None:
    """Off unless asked for: an injector outside any plan passes the call through."""
    assert fault_plan.take(MODEL) is None

    @faults.tool
    def lookup(order: str) -> str:
        return f"order {order}"

    assert lookup("42") == "order 42"


def test_the_tool_decorator_injects_each_tool_family_and_marks_its_span() -> None:
    exporter = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    tracer = provider.get_tracer("t")

    @faults.tool
    def lookup(order: str) -> str:
        return f"order {order}"

    faults.enable("tool_exception,tool_timeout,tool_error_result,tool_malformed:5")
    outcomes: list[object] = []
    for _ in range(5):
        with tracer.start_as_current_span("execute_tool lookup"):
            try:
                outcomes.append(lookup("42"))
            except (InjectedToolError, TimeoutError) as exc:
                outcomes.append(type(exc))
    assert outcomes == [InjectedToolError, TimeoutError, ERROR_RESULT, MALFORMED_RESULT,
                        "order 42"]
    spans = exporter.get_finished_spans()
    assert [s.attributes.get("agentcov.fault.family") for s in spans] == [
        "tool_exception", "tool_timeout", "tool_error_result", "tool_malformed", None]
    assert {(s.attributes.get("agentcov.fault.plan"), s.attributes.get("agentcov.fault.seed"))
            for s in spans[:4]} == {
        ("tool_exception,tool_timeout,tool_error_result,tool_malformed", 5)}
    assert spans[2].attributes.get("error.type") == "ToolErrorResult"


def test_the_tool_decorator_keeps_a_coroutine_a_coroutine() -> None:
    @faults.tool
    async def lookup(order: str) -> str:
        return f"order {order}"

    faults.enable("tool_exception:1")
    assert inspect.iscoroutinefunction(lookup)
    with pytest.raises(InjectedToolError):
        asyncio.run(lookup("1"))
    assert asyncio.run(lookup("2")) == "order 2"
