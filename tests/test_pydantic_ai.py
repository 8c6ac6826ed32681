"""Real pydantic-ai agents, run offline, feeding AgentCoverageProcessor (docs/semantics.md).

Every test builds its own TracerProvider, instruments real `Agent`s with `TestModel` /
`FunctionModel` (no network), and asserts on `processor.snapshot().to_dict()`. The main
scenario runs under every span format pydantic-ai 2.x can emit: v2 (`agent run` /
`running tool`), v3/v4 (`invoke_agent X` / `execute_tool X`), the default v5 and v6.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator
from typing import Any, Literal

import pytest
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from pydantic_ai import Agent, ModelRetry, RunContext
from pydantic_ai.exceptions import UsageLimitExceeded
from pydantic_ai.messages import ModelMessage, ModelResponse, TextPart, ToolCallPart
from pydantic_ai.models.function import AgentInfo, FunctionModel
from pydantic_ai.models.instrumented import InstrumentationSettings
from pydantic_ai.models.test import TestModel
from pydantic_ai.usage import UsageLimits

from otel_agentcov.engine import CoverageEngine
from otel_agentcov.processor import AgentCoverageProcessor
from otel_agentcov.records import from_readable_span
from otel_agentcov.semconv import classify
from otel_agentcov.semconv.step import AGENT, OTHER, TOOL
from otel_agentcov.spec import CoverageSpec

Version = Literal[2, 3, 4, 5, 6] | None  # None = pydantic-ai's default format (5 in 2.68)

# v2/v3/v4 emit a deprecation warning on purpose; that is the legacy shape under test.
pytestmark = pytest.mark.filterwarnings("ignore:Instrumentation format versions")

ALL_VERSIONS: tuple[Version, ...] = (2, 3, 4, None, 6)
LEGACY_AND_DEFAULT: tuple[Version, ...] = (2, None)
TEST_MODEL_NAME = "test"  # what TestModel reports as gen_ai.request/response.model


class Harness:
    """One TracerProvider with one AgentCoverageProcessor, torn down by the fixture."""

    def __init__(self, spec: dict[str, Any], version: Version) -> None:
        self.provider = TracerProvider()
        self.processor = AgentCoverageProcessor(CoverageSpec.from_dict(spec))
        self.provider.add_span_processor(self.processor)
        self.version = version

    def instrument(self, *agents: Agent[Any, Any]) -> None:
        settings = (
            InstrumentationSettings(tracer_provider=self.provider)
            if self.version is None
            else InstrumentationSettings(tracer_provider=self.provider, version=self.version)
        )
        for agent in agents:
            agent.instrument = settings

    def report(self) -> dict[str, Any]:
        assert self.processor.force_flush()
        report: dict[str, Any] = self.processor.snapshot().to_dict()
        assert report["spans"]["internal_errors"] == 0
        assert report["spans"]["traces_in_flight"] == 0  # every run's root span was seen
        return report


@pytest.fixture
def harnesses() -> Iterator[list[Harness]]:
    made: list[Harness] = []
    yield made
    for h in made:
        h.provider.shutdown()  # also shuts the processor (and its worker thread) down


def _harness(made: list[Harness], spec: dict[str, Any], version: Version = None) -> Harness:
    h = Harness(spec, version)
    made.append(h)
    return h


def _top_paths(agent: dict[str, Any]) -> list[list[str]]:
    return [p["path"] for p in agent["paths"]["top"]]


# --- 1. two tools, both called ---------------------------------------------------------------


def _weather_agent() -> Agent[None, str]:
    """Three tools offered to the model; the model calls two of them."""
    model = TestModel(call_tools=["get_weather", "get_time"])
    agent: Agent[None, str] = Agent(model, name="weather")

    @agent.tool_plain
    def get_weather(city: str) -> str:
        return f"sunny in {city}"

    @agent.tool_plain
    def get_time(city: str) -> str:
        return f"noon in {city}"

    @agent.tool_plain
    def get_forecast(city: str) -> str:
        return f"rain tomorrow in {city}"

    return agent


@pytest.mark.parametrize("version", ALL_VERSIONS, ids=lambda v: f"v{v or 'default'}")
def test_two_tools_declared_inventory(harnesses: list[Harness], version: Version) -> None:
    spec = {
        "version": 1,
        "agents": [
            {
                "name": "weather",
                # declared inventory wins over the offered definitions (get_forecast)
                "tools": ["get_weather", "get_time", "get_alerts"],
                "models": [TEST_MODEL_NAME, "gpt-4o"],
            }
        ],
    }
    h = _harness(harnesses, spec, version)
    agent = _weather_agent()
    h.instrument(agent)
    agent.run_sync("What is the weather in Paris?")
    agent.run_sync("And in Rome?")

    report = h.report()
    assert set(report["agents"]) == {"weather"}
    # one invoke_agent, 2 chat and 2 execute_tool spans per run
    assert report["spans"]["by_kind"] == {
        "llm": 4, "tool": 4, "agent": 2, "handoff": 0, "workflow": 0, "other": 0
    }  # fmt: skip
    a = report["agents"]["weather"]
    assert a["runs"]["count"] == 2
    assert a["runs"]["errors"] == 0
    assert a["runs"]["passed"] == 2
    assert a["runs"]["behavior_consistency"] == 1.0
    assert a["tools"]["called"] == {
        "get_time": {"ok": 2, "error": 0},
        "get_weather": {"ok": 2, "error": 0},
    }
    assert a["tools"]["known"] == ["get_alerts", "get_time", "get_weather"]
    assert a["tools"]["uncovered"] == ["get_alerts"]
    assert a["tools"]["undeclared"] == []
    assert a["tools"]["discovered"] is False
    assert a["coverage"]["tool"] == pytest.approx(2 / 3)
    assert a["models"]["used"] == {TEST_MODEL_NAME: 4}
    assert a["models"]["known"] == [TEST_MODEL_NAME, "gpt-4o"]
    assert a["coverage"]["model"] == pytest.approx(0.5)
    assert a["paths"]["top"] == [{"path": ["llm", "tool", "tool", "llm"], "count": 2}]
    assert a["paths"]["observed"] == 1
    assert a["boundaries"] == {
        "max_steps": False,
        "timeout": False,
        "cost_limit": False,
        "empty_input": False,
        "error_path": False,
        "tool_failure": False,
    }
    assert a["edges"]["restricted_attempts"] == 0
    assert a["edges"]["gate_passed"] == 1
    assert [e["passed"] for e in a["expect"]] == [True]
    assert a["runs"]["tokens"]["mean"] is not None and a["runs"]["tokens"]["mean"] > 0


@pytest.mark.parametrize("version", ALL_VERSIONS, ids=lambda v: f"v{v or 'default'}")
def test_two_tools_discovered_inventory(harnesses: list[Harness], version: Version) -> None:
    """No `tools:` in the spec: the inventory comes from the definitions offered to the model."""
    h = _harness(harnesses, {"version": 1, "defaults": {"models": [TEST_MODEL_NAME]}}, version)
    agent = _weather_agent()
    h.instrument(agent)
    agent.run_sync("What is the weather in Paris?")

    a = h.report()["agents"]["weather"]
    assert a["runs"]["count"] == 1
    assert a["tools"]["discovered"] is True
    # get_forecast is only known from the tool definitions on the chat spans
    assert a["tools"]["known"] == ["get_forecast", "get_time", "get_weather"]
    assert a["tools"]["uncovered"] == ["get_forecast"]
    assert a["coverage"]["tool"] == pytest.approx(2 / 3)
    assert a["coverage"]["model"] == 1.0
    assert a["models"]["used"] == {TEST_MODEL_NAME: 2}


def test_legacy_shape_without_operation_name() -> None:
    """pydantic-ai 1.x `agent run` / `running tool` spans carry no gen_ai.operation.name.

    2.68's v2 format still adds it, so the real v2 spans are replayed with it removed from the
    agent and tool spans: only the pydantic-ai adapter can then recognise them.
    """
    exporter = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    agent = _weather_agent()
    agent.instrument = InstrumentationSettings(tracer_provider=provider, version=2)
    agent.run_sync("What is the weather in Paris?")
    provider.shutdown()

    records = []
    for span in exporter.get_finished_spans():
        record = from_readable_span(span)
        if record.name in ("agent run", "running tool"):
            attrs = {k: v for k, v in record.attributes.items() if k != "gen_ai.operation.name"}
            record = dataclasses.replace(record, attributes=attrs)
        records.append(record)
    assert sorted(r.name for r in records) == ["agent run", "chat test", "chat test",
                                               "running tool", "running tool"]  # fmt: skip

    for record in records:
        if record.name == "running tool":
            # the GenAI entries cannot see it: from another scope it is no tool
            assert classify(dataclasses.replace(record, scope_name="x")).kind == OTHER
            step = classify(record)
            assert step.kind == TOOL and step.tool in {"get_weather", "get_time"}
        elif record.name == "agent run":
            step = classify(record)
            assert step.kind == AGENT and step.agent == "weather"

    engine = CoverageEngine(CoverageSpec.empty())
    for record in records:
        engine.ingest(record)
    a = engine.snapshot().to_dict()["agents"]
    assert set(a) == {"weather"}
    assert a["weather"]["runs"]["count"] == 1
    assert a["weather"]["tools"]["called"] == {
        "get_time": {"ok": 1, "error": 0},
        "get_weather": {"ok": 1, "error": 0},
    }
    assert a["weather"]["paths"]["top"] == [{"path": ["llm", "tool", "tool", "llm"], "count": 1}]


# --- 2. a tool that asks for a retry once, then succeeds --------------------------------------


@pytest.mark.parametrize("version", LEGACY_AND_DEFAULT, ids=lambda v: f"v{v or 'default'}")
def test_tool_retry_counts_failure_and_success(harnesses: list[Harness], version: Version) -> None:
    h = _harness(harnesses, {"version": 1}, version)
    agent: Agent[None, str] = Agent(TestModel(), name="retrier", retries=2)
    calls = {"n": 0}

    @agent.tool_plain
    def flaky(x: int) -> str:
        calls["n"] += 1
        if calls["n"] == 1:
            raise ModelRetry("try again")
        return "fine"

    h.instrument(agent)
    agent.run_sync("go")
    assert calls["n"] == 2

    a = h.report()["agents"]["retrier"]
    assert a["runs"]["count"] == 1
    assert a["runs"]["errors"] == 0  # the agent recovered
    assert a["tools"]["called"] == {"flaky": {"ok": 1, "error": 1}}
    assert a["boundaries"]["tool_failure"] is True
    assert a["boundaries"]["error_path"] is False
    assert a["boundaries"]["max_steps"] is False
    assert a["paths"]["top"] == [{"path": ["llm", "tool", "llm", "tool", "llm"], "count": 1}]
    # states: the three chat calls share (llm, test, ok, ""); the tool's error and ok outcomes
    # are two more
    assert a["states"]["observed"] == 3


# --- 3. a tool that raises an unexpected exception --------------------------------------------


@pytest.mark.parametrize("version", LEGACY_AND_DEFAULT, ids=lambda v: f"v{v or 'default'}")
def test_tool_exception_is_run_error(harnesses: list[Harness], version: Version) -> None:
    h = _harness(harnesses, {"version": 1}, version)
    agent: Agent[None, str] = Agent(TestModel(), name="boomer")

    @agent.tool_plain
    def explode(x: int) -> str:
        raise RuntimeError("kaboom")

    h.instrument(agent)
    with pytest.raises(RuntimeError, match="kaboom"):
        agent.run_sync("go")

    a = h.report()["agents"]["boomer"]
    assert a["runs"]["count"] == 1
    assert a["runs"]["errors"] == 1
    assert a["runs"]["passed"] == 0
    assert a["tools"]["called"] == {"explode": {"ok": 0, "error": 1}}
    assert a["boundaries"]["error_path"] is True
    assert a["boundaries"]["tool_failure"] is True
    assert a["boundaries"]["max_steps"] is False
    assert a["boundaries"]["timeout"] is False
    assert a["paths"]["top"] == [{"path": ["llm", "tool"], "count": 1}]
    # every call of `explode` failed: a tool only ever seen failing (docs/report.md#tool-outcomes)
    assert [c["type"] for c in a["concerns"]] == ["low_pass_rate", "errors_only_tools"]


# --- 4. a usage limit trips -------------------------------------------------------------------


def _always_loop(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
    return ModelResponse(parts=[ToolCallPart("loop", {})])


@pytest.mark.parametrize("version", LEGACY_AND_DEFAULT, ids=lambda v: f"v{v or 'default'}")
def test_usage_limit_hits_max_steps(harnesses: list[Harness], version: Version) -> None:
    # max_steps: null in the spec, so only the framework's UsageLimitExceeded can set the flag
    spec = {"version": 1, "defaults": {"boundaries": {"max_steps": None}}}
    h = _harness(harnesses, spec, version)
    agent: Agent[None, str] = Agent(FunctionModel(_always_loop), name="looper")

    @agent.tool_plain
    def loop() -> str:
        return "again"

    h.instrument(agent)
    with pytest.raises(UsageLimitExceeded):
        agent.run_sync("go", usage_limits=UsageLimits(request_limit=2))

    a = h.report()["agents"]["looper"]
    assert a["runs"]["count"] == 1
    assert a["runs"]["errors"] == 1
    assert a["boundaries"]["max_steps"] is True
    assert a["boundaries"]["error_path"] is True
    assert a["boundaries"]["tool_failure"] is False
    assert a["boundaries"]["timeout"] is False
    assert a["tools"]["called"] == {"loop": {"ok": 2, "error": 0}}
    assert a["models"]["used"] == {"function:_always_loop:": 2}
    assert a["paths"]["top"] == [{"path": ["llm", "tool", "llm", "tool"], "count": 1}]


# --- 5. agent-as-tool delegation --------------------------------------------------------------


@pytest.mark.parametrize("version", LEGACY_AND_DEFAULT, ids=lambda v: f"v{v or 'default'}")
def test_agent_as_tool_delegation(harnesses: list[Harness], version: Version) -> None:
    spec = {
        "version": 1,
        "agents": [
            {
                "name": "orchestrator",
                "tool_edges": {
                    "allowed": ["ask_specialist"],
                    "delegation": [{"from": "orchestrator", "to": "specialist"}],
                },
            },
            {"name": "specialist", "tools": ["lookup"]},
        ],
    }
    h = _harness(harnesses, spec, version)
    child: Agent[None, str] = Agent(TestModel(), name="specialist")

    @child.tool_plain
    def lookup(key: str) -> str:
        return f"value of {key}"

    parent: Agent[None, str] = Agent(TestModel(), name="orchestrator")

    @parent.tool
    async def ask_specialist(ctx: RunContext[None], question: str) -> str:
        result = await child.run(question, usage=ctx.usage)
        return result.output

    h.instrument(parent, child)
    parent.run_sync("Find the answer")

    report = h.report()
    assert set(report["agents"]) == {"orchestrator", "specialist"}
    p = report["agents"]["orchestrator"]
    c = report["agents"]["specialist"]

    assert p["delegations"] == [{"from": "orchestrator", "to": "specialist", "count": 1}]
    assert c["delegations"] == []
    assert p["edges"]["delegation_pct"] == 100.0
    assert p["edges"]["allowed_pct"] == 100.0
    assert c["edges"]["delegation_pct"] is None  # the specialist declares no edges

    # each agent's tools stay with that agent
    assert p["tools"]["called"] == {"ask_specialist": {"ok": 1, "error": 0}}
    assert c["tools"]["called"] == {"lookup": {"ok": 1, "error": 0}}
    assert p["tools"]["undeclared"] == []
    assert c["coverage"]["tool"] == 1.0

    # the nested run is one `delegate` token inside the caller's path, its steps are not
    assert _top_paths(p) == [["llm", "tool", "delegate", "llm"]]
    assert _top_paths(c) == [["llm", "tool", "llm"]]
    assert p["runs"]["count"] == 1 and p["runs"]["errors"] == 0
    assert c["runs"]["count"] == 1 and c["runs"]["errors"] == 0
    assert p["models"]["used"] == {TEST_MODEL_NAME: 2}
    assert c["models"]["used"] == {TEST_MODEL_NAME: 2}


# --- 6. restricted tools ----------------------------------------------------------------------

RESTRICTED_SPEC: dict[str, Any] = {
    "version": 1,
    "agents": [
        {
            "name": "ops",
            "tool_edges": {"allowed": ["read_db"], "restricted": ["drop_table"]},
        }
    ],
}


@pytest.mark.parametrize("version", LEGACY_AND_DEFAULT, ids=lambda v: f"v{v or 'default'}")
def test_restricted_tool_executed_fails_gate(harnesses: list[Harness], version: Version) -> None:
    h = _harness(harnesses, RESTRICTED_SPEC, version)
    agent: Agent[None, str] = Agent(TestModel(), name="ops")

    @agent.tool_plain
    def read_db() -> str:
        return "rows"

    @agent.tool_plain
    def drop_table() -> str:
        return "dropped"

    spans = InMemorySpanExporter()  # the trace id, as the SDK itself exported it
    h.provider.add_span_processor(SimpleSpanProcessor(spans))
    h.instrument(agent)
    agent.run_sync("clean up")

    snapshot = h.processor.snapshot()
    assert snapshot.gate_passed is False
    a = h.report()["agents"]["ops"]
    (trace_id,) = {f"{s.context.trace_id:032x}" for s in spans.get_finished_spans() if s.context}
    assert a["edges"]["restricted_attempts"] == 1
    assert a["edges"]["restricted"] == [{"tool": "drop_table", "outcome": "executed", "count": 1}]
    assert a["edges"]["gate_passed"] == 0
    assert a["edges"]["allowed_pct"] == 100.0
    assert a["expect"] == [
        {
            "target": "edges.restricted_attempts",
            "value": 1,
            "passed": False,
            # the FAIL names what failed: the tool, its outcome and the trace
            "reason": "1 is greater than the maximum of 0: restricted tool drop_table "
                      f"executed ×1; traces {trace_id}",
        }
    ]
    # the restricted tool is not part of the inventory to cover, but its call is counted
    assert a["tools"]["known"] == ["read_db"]
    assert a["coverage"]["tool"] == 1.0
    assert a["tools"]["called"] == {
        "drop_table": {"ok": 1, "error": 0},
        "read_db": {"ok": 1, "error": 0},
    }
    assert a["tools"]["undeclared"] == []
    assert a["runs"]["errors"] == 0
    assert a["runs"]["passed"] == 0  # a restricted attempt fails the run


def _request_unregistered_tool(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
    if len(messages) == 1:
        return ModelResponse(parts=[ToolCallPart("drop_table", {})])
    return ModelResponse(parts=[TextPart("done")])


@pytest.mark.parametrize("version", LEGACY_AND_DEFAULT, ids=lambda v: f"v{v or 'default'}")
def test_restricted_tool_requested_but_never_run_is_denied(
    harnesses: list[Harness], version: Version
) -> None:
    """The model asks for a tool the agent does not offer: no execution, still an attempt."""
    h = _harness(harnesses, RESTRICTED_SPEC, version)
    agent: Agent[None, str] = Agent(FunctionModel(_request_unregistered_tool), name="ops")

    @agent.tool_plain
    def read_db() -> str:
        return "rows"

    h.instrument(agent)
    assert agent.run_sync("clean up").output == "done"

    a = h.report()["agents"]["ops"]
    assert a["edges"]["restricted_attempts"] == 1
    assert a["edges"]["restricted"] == [{"tool": "drop_table", "outcome": "denied", "count": 1}]
    assert a["edges"]["gate_passed"] == 0
    assert a["tools"]["called"] == {}
    assert a["edges"]["allowed_pct"] == 0.0
    assert [e["passed"] for e in a["expect"]] == [False]


# --- narrative vs trace (docs/narrative.md): the model's answer against the calls it made -------

NARRATIVE_SPEC: dict[str, Any] = {
    "version": 1,
    "agents": [{"name": "support", "tools": ["lookup_order", "issue_refund"], "narrative": {}}],
}


def _claims_a_refund_it_never_made(
    messages: list[ModelMessage], info: AgentInfo
) -> ModelResponse:
    """Looks the order up, then tells the user a refund was issued without calling the tool."""
    if len(messages) == 1:
        return ModelResponse(parts=[ToolCallPart("lookup_order", {"order_id": "A-17"})])
    return ModelResponse(parts=[TextPart(
        "I looked up order A-17 and I've issued a full refund to your card."
    )])


def _support_agent(model: FunctionModel | TestModel) -> Agent[None, str]:
    agent: Agent[None, str] = Agent(model, name="support")

    @agent.tool_plain
    def lookup_order(order_id: str) -> str:
        return f"order {order_id}: delivered"

    @agent.tool_plain
    def issue_refund(order_id: str) -> str:
        return f"refund for {order_id} issued"

    return agent


@pytest.mark.parametrize("version", ALL_VERSIONS, ids=lambda v: f"v{v or 'default'}")
def test_answer_claiming_a_tool_never_called_is_a_hallucinated_action(
    harnesses: list[Harness], version: Version
) -> None:
    h = _harness(harnesses, NARRATIVE_SPEC, version)
    liar = _support_agent(FunctionModel(_claims_a_refund_it_never_made))
    # TestModel calls every tool it is offered, then answers with their results as JSON
    honest = _support_agent(TestModel(custom_output_text="I looked up the order and issued "
                                                         "the refund."))
    h.instrument(liar, honest)
    liar.run_sync("Where is my refund for A-17?")
    honest.run_sync("Refund A-17 please.")

    a = h.report()["agents"]["support"]
    assert a["narrative"]["runs"] == {"consistent": 1, "divergent": 1, "unverifiable": 0}
    assert a["narrative"]["divergences"] == [
        {"tool": "issue_refund", "kind": "claimed_not_called", "count": 1}
    ]
    assert a["tools"]["called"] == {
        "lookup_order": {"ok": 2, "error": 0}, "issue_refund": {"ok": 1, "error": 0}
    }
    assert a["runs"]["passed"] == 1  # the divergent run failed
    assert any(c["type"] == "hallucinated_action" for c in a["concerns"])
