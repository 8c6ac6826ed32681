"""Inference: agent stacks no table knows, read out of the box, shown, pinned and switched off
(docs/conventions.md#inference).

Each vocabulary below is made up here (no library emits it), written by the real OpenTelemetry
SDK; what each run did is written down from the traffic functions, never from the product's
output: which agent called which tool, which call failed, which model answered.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import fixture_expectations as fx
import pytest
import yaml
from _acme import finished_spans
from _inference_oracle import SPACE_RANGES
from _trace_files import protobuf_bytes, write_jsonl, write_spec
from opentelemetry import trace
from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import ReadableSpan, Tracer, TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from opentelemetry.trace import SpanContext, SpanKind, Status, StatusCode, TraceFlags

from otel_agentcov import AgentCoverageProcessor, offline
from otel_agentcov.assembler.infer import infer_structure
from otel_agentcov.cli import main
from otel_agentcov.engine import EngineCounters
from otel_agentcov.records import SpanRecord
from otel_agentcov.semconv import Classifier
from otel_agentcov.semconv.inference import infer, model_source, name_affix
from otel_agentcov.semconv.step import Step
from otel_agentcov.spec import CoverageSpec

CANARY = "secret-prompt-7c1e"  # content on the spans: nothing may show it
SERVICE = "zeta-app"


def _spans(traffic: Callable[[Tracer], None]) -> Sequence[ReadableSpan]:
    return finished_spans(traffic, "zeta.sdk", SERVICE)


def kind_attribute_traffic(tracer: Tracer) -> None:
    """`zeta.span.type` says the kind; names in `zeta.span.name`. Two runs of `weather`: one
    calls get_weather and get_time; one calls get_time, which fails. Then `orchestrator`
    calls the tool ask_billing, inside which `billing` runs."""
    for failing in (False, True):
        with tracer.start_as_current_span("step", attributes={
                "zeta.span.type": "AGENT", "zeta.span.name": "weather", "zeta.input": CANARY}):
            with tracer.start_as_current_span("step", attributes={
                    "zeta.span.type": "LLM", "zeta.model": "weather-model",
                    "zeta.usage.prompt_tokens": 11, "zeta.usage.completion_tokens": 3,
                    "zeta.output": CANARY}):
                pass
            if not failing:
                with tracer.start_as_current_span("step", attributes={
                        "zeta.span.type": "TOOL", "zeta.span.name": "get_weather"}):
                    pass
            with tracer.start_as_current_span("step", attributes={
                    "zeta.span.type": "TOOL", "zeta.span.name": "get_time"}) as span:
                if failing:
                    span.set_status(Status(StatusCode.ERROR))
    with in_ask_billing(tracer), tracer.start_as_current_span("step", attributes={
            "zeta.span.type": "agent", "zeta.span.name": "billing"}):
        with tracer.start_as_current_span("step", attributes={
                "zeta.span.type": "llm", "zeta.model": "billing-model"}):
            pass


@contextmanager
def in_ask_billing(tracer: Tracer) -> Iterator[None]:
    """The agent `orchestrator` calls its model, then the tool ask_billing: the body runs in it."""
    with tracer.start_as_current_span("step", attributes={
            "zeta.span.type": "agent", "zeta.span.name": "orchestrator"}):
        with tracer.start_as_current_span("step", attributes={
                "zeta.span.type": "llm", "zeta.model": "orchestrator-model"}):
            pass
        with tracer.start_as_current_span("step", attributes={
                "zeta.span.type": "tool", "zeta.span.name": "ask_billing"}):
            yield


def _agents(report: dict[str, Any]) -> dict[str, Any]:
    return {name: {"runs": a["runs"]["count"], "tools": a["tools"]["called"],
                   "models": a["models"]["used"],
                   "delegations": [(d["from"], d["to"]) for d in a["delegations"]]}
            for name, a in report["agents"].items()}


KIND_ATTRIBUTE_AGENTS = {
    "weather": {"runs": 2, "tools": {"get_weather": {"ok": 1, "error": 0},
                                     "get_time": {"ok": 1, "error": 1}},
                "models": {"weather-model": 2}, "delegations": []},
    "orchestrator": {"runs": 1, "tools": {"ask_billing": {"ok": 1, "error": 0}},
                     "models": {"orchestrator-model": 1},
                     "delegations": [("orchestrator", "billing")]},
    "billing": {"runs": 1, "tools": {}, "models": {"billing-model": 1}, "delegations": []},
}


def _report(tmp_path: Path, spans: Sequence[ReadableSpan], *argv: str) -> dict[str, Any]:
    traces = write_jsonl(tmp_path / "zeta.jsonl", spans)
    out = tmp_path / "report.json"
    assert main(["coverage", str(traces), "--format", "json", "--output", str(out),
                 *argv]) == 0
    text = out.read_text()
    assert CANARY not in text
    return json.loads(text)  # type: ignore[no-any-return]


def _pb_report(tmp_path: Path, spans: Sequence[ReadableSpan]) -> dict[str, Any]:
    """`agentcov coverage` of the spans as one protobuf request (the SDK's encoder)."""
    traces = tmp_path / "zeta.pb"
    traces.write_bytes(protobuf_bytes(spans))
    out = tmp_path / "report.json"
    assert main(["coverage", str(traces), "--format", "json", "--output", str(out)]) == 0
    return json.loads(out.read_text())  # type: ignore[no-any-return]


def test_a_vocabulary_of_its_own_gives_its_agent_runs_out_of_the_box(tmp_path: Path) -> None:
    report = _report(tmp_path, _spans(kind_attribute_traffic))
    assert _agents(report) == KIND_ATTRIBUTE_AGENTS
    # 3 agents' 4 runs, 4 model calls, 4 tool calls: 12 spans, every one inferred by attribute
    assert report["spans"]["inferred"] == {
        "agent.attribute": 4, "llm.attribute": 4, "tool.attribute": 4}
    assert report["agents"]["weather"]["runs"]["errors"] == 0  # the failed tool was handled


def test_the_processor_and_protobuf_files_infer_the_same(tmp_path: Path) -> None:
    exporter = InMemorySpanExporter()
    provider = TracerProvider(resource=Resource.create({"service.name": SERVICE}))
    coverage = AgentCoverageProcessor()
    provider.add_span_processor(coverage)
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    kind_attribute_traffic(provider.get_tracer("zeta.sdk"))
    provider.shutdown()
    in_process = coverage.snapshot().to_dict()
    assert _agents(in_process) == KIND_ATTRIBUTE_AGENTS
    pb = tmp_path / "zeta.pb"
    pb.write_bytes(protobuf_bytes(exporter.get_finished_spans()))
    offline_report = offline.report(offline.load(CoverageSpec.empty(), traces=[str(pb)]))
    assert _agents(offline_report) == KIND_ATTRIBUTE_AGENTS
    assert offline_report["spans"]["inferred"] == in_process["spans"]["inferred"]


def name_affix_traffic(tracer: Tracer) -> None:
    """Kinds in span names only: `support.agent` calls the model `acme/support-model` and the
    tools `tool_call.lookup_order` (fails, an exception event) and `tool_call.refund`."""
    with tracer.start_as_current_span("support.agent"):
        with tracer.start_as_current_span("acme/support-model", attributes={
                "acme.tokens.prompt": 20, "acme.tokens.reply": 4}):
            pass
        with tracer.start_as_current_span("tool_call.lookup_order") as span:
            span.record_exception(KeyError("order 42"))
            span.set_status(Status(StatusCode.ERROR))
        with tracer.start_as_current_span("tool_call.refund"):
            pass


def test_kind_words_in_span_names(tmp_path: Path) -> None:
    report = _report(tmp_path, _spans(name_affix_traffic))
    # `acme/...` is no known provider: its token counts make it a model call
    assert _agents(report) == {"support": {
        "runs": 1, "models": {"support-model": 1}, "delegations": [],
        "tools": {"lookup_order": {"ok": 0, "error": 1}, "refund": {"ok": 1, "error": 0}}}}
    assert report["spans"]["inferred"] == {"agent.name": 1, "llm.genai": 1, "tool.name": 2}


def structure_traffic(tracer: Tracer) -> None:
    """No kind word at all: a decorated function `concierge` (no evidence) around a model call
    (GenAI keys, its output asking for `find_room`) and the function `find_room`; the whole
    under an HTTP root `POST /chat`, which is no agent."""
    with tracer.start_as_current_span("POST /chat", attributes={"http.request.method": "POST"}):
        with tracer.start_as_current_span("concierge"):
            with tracer.start_as_current_span("completion", attributes={
                    "gen_ai.request.model": "desk-model",
                    "gen_ai.completion.0.tool_calls.0.name": "find_room",
                    "gen_ai.completion.0.tool_calls.0.arguments": CANARY}):
                pass
            with tracer.start_as_current_span("find_room"):
                pass
            with tracer.start_as_current_span("format_answer"):  # asked for by no model call
                pass


def test_the_trace_structure_finds_the_agent_and_its_tool(tmp_path: Path) -> None:
    report = _report(tmp_path, _spans(structure_traffic))
    assert _agents(report) == {"concierge": {
        "runs": 1, "tools": {"find_room": {"ok": 1, "error": 0}},
        "models": {"desk-model": 1}, "delegations": []}}
    assert report["spans"]["inferred"] == {
        "agent.structure": 1, "llm.genai": 1, "tool.structure": 1}
    assert report["spans"]["by_kind"]["other"] == 2  # POST /chat, format_answer


def test_conflicting_kind_words_leave_the_span_unclassified(capsys: pytest.CaptureFixture[str],
                                                            tmp_path: Path) -> None:
    record = SpanRecord(1, 2, None, "weather.agent", scope_name="s",
                        attributes={"zeta.span.type": "tool"})
    found = infer(record)
    assert found.kind == "other" and found.conflict is not None
    assert "zeta.span.type=tool" in found.conflict
    # tool and hand-off say one thing (a hand-off is a tool call that transfers); with the name's
    # `agent` beside them, three kinds disagree
    three = infer(SpanRecord(1, 2, None, "weather.agent", scope_name="s", attributes={
        "zeta.span.type": "tool", "zeta.kind": "handoff"}))
    assert three.kind == "other" and three.conflict is not None

    def traffic(tracer: Tracer) -> None:
        with tracer.start_as_current_span("weather.agent", attributes={"zeta.span.type": "tool"}):
            with tracer.start_as_current_span("chat", attributes={"zeta.span.type": "llm"}):
                pass

    traces = write_jsonl(tmp_path / "c.jsonl", _spans(traffic))
    assert main(["explain", str(traces)]) == 0
    out = capsys.readouterr().out
    assert "left unclassified: 1 × scope zeta.sdk · kind words disagree" in out


@pytest.mark.parametrize(("name", "expected"), [
    ("tool_call.get_time", ("tool", "get_time")),
    ("execute_tool lookup", ("tool", "lookup")),
    ("Tool: refund", ("tool", "refund")),
    ("weather.agent", ("agent", "weather")),
    ("weather_agent", ("agent", "weather")),
    ("search_tool", ("tool", "search")),
    ("weather.run", ("", "weather")),
    ("lookup_order", None),
    ("GET /orders/{id}", None),
    ("transfer_to_billing", None),
    ("invoke_agent", ("agent", "")),  # only a kind word: no name (not `invoke`)
    ("Tool", ("tool", "")),
    # a verb and a kind word say the kind (`haystack.agent.run`: a vendor's, no more said)
    ("run_agent weather", ("agent", "weather")), ("call_tool get_time", ("tool", "get_time")),
    ("haystack.agent.run", ("", "haystack.agent")), ("chat_agent weather", None),
    ("execute_task billing", None),  # a framework's step of any kind
    # a path's `::` separates as `.` does (Rust's `tracing` spans); an -ing verb before the kind
    ("weather::run", ("", "weather")), ("agent::weather", ("agent", "weather")),
    ("Running tool: get_time", ("tool", "get_time")), ("Calling tool lookup", ("tool", "lookup")),
    ("Invoking agent billing", ("agent", "billing")), ("Calling lookup", None),
    # a kind word, then a word saying only that it ran: the kind, no name (`agent.query`)
    ("agent.query", ("agent", "")), ("complete", ("llm", "")),
    # a class's kind word, its instance, a method: the instance, and the method's kind if any
    ("Agent.weather.attach_llm", ("agent", "weather")),
    ("Agent.weather.call_tool", ("tool", "weather")),
    ("tool.get_time.execute", ("tool", "get_time")),
    ("Agent.Weather.Run", ("agent", "Weather.Run")),  # no method: a name as written
    # a class's own method: its kind word says the kind, one saying it ran no more; no name
    ("Agent._execute_tool", ("tool", "")), ("Agent._run_internal", ("agent", "")),
    ("Agent.run_stream", ("agent", "")), ("tool.get_weather", ("tool", "get_weather")),
    # a verb saying it ran before `llm` or `model`: a model call, as before `agent` or `tool`
    ("call_llm weather-model", ("llm", "weather-model")), ("invoke_model m", ("llm", "m")),
    # a name in brackets after an agent's or tool's kind word, or before its kind in brackets
    ("Agent[weather]", ("agent", "weather")), ("tool(get_time)", ("tool", "get_time")),
    ("run_agent<weather>", ("agent", "weather")), ("get_time (tool)", ("tool", "get_time")),
    ("ChatOpenAI(gpt-4o)", None), ("weather (model)", None),
    # a separator before the name, a run word or a call's `()` after it: not the name's
    ("Agent - weather", ("agent", "weather")), ("Agent | weather", ("agent", "weather")),
    ("agent:weather:run", ("agent", "weather")), ("tool: get_time()", ("tool", "get_time")),
    ("weather-agent", ("agent", "weather")), ("Agent \"weather\" run", ("agent", "weather")),
    # a function ran (agent or tool alike), named as its caller formatted it, a missing part
    # (`null-`) left out
    ("function_invocation Tools-get_time", ("tool", "Tools-get_time")),
    ("function_invocation null-weather", ("tool", "weather")),
    # a Go function's qualified name: its package and function, never its import path
    ("github.com/acme/kit/agent.Run", ("agent", "")),
    ("github.com/acme/kit/llm.generate_with_tools", ("llm", "generate_with_tools")),
    ("gopkg.in/acme/kit.v2/tool.get_time", ("tool", "get_time")),
    ("github.com/acme/agent-kit/memory.add_message", None),
    ("POST /v1/agent.run", None), ("openai/agent.run", None),
    # a method of a type of the package: the type and method say what ran, never the
    # receiver's spelling (`(*Registry).Register` is no tool's name, nor a tool call)
    ("github.com/acme/kit/tool.(*Registry).Register", None),
    ("github.com/acme/kit/agent.(*Agent).Run", ("agent", "")),
    ("github.com/acme/kit/llm.(*Client).Chat", ("llm", "")),
    ("github.com/acme/kit/tool.Tool.Call", ("tool", "")),
    # a durable engine's workflow, run or started (a child's) from another: named after `:`
    ("RunWorkflow:weather", ("workflow", "weather")),
    ("StartChildWorkflow:billing", ("workflow", "billing")),
    ("execute_workflow weather", ("workflow", "weather")), ("StartActivity:lookup", None),
    ("StartAgent:weather", None), ("StartChildAgent:weather", None),
    # a class's method starting with the class's own kind word says no name
    ("Chat.generateText", ("llm", "")), ("Chat.send_message", ("llm", "send_message")),
    ("Toolkit.handle", ("tool", "")),
    # a task queue's operation, then what it ran, read as that is; a kind after a verb, alone
    ("run/call_model", ("llm", "")), ("apply_async/call_model", ("llm", "")),
    ("run/weather", None), ("call_model", ("llm", "")), ("run_agent", ("agent", "")),
    ("openai/call_model", None), ("run/a/call_model", None),
])
def test_name_affixes(name: str, expected: tuple[str, str] | None) -> None:
    found = name_affix(name)
    assert (found[:2] if found is not None else None) == expected


@pytest.mark.parametrize("word", ["handoff", "transfer"])
def test_a_hand_off_word_beside_a_tool_name_is_the_hand_off(word: str) -> None:
    """A kind attribute saying hand-off on a span named as a tool call: the narrower word
    wins, whatever the kind word is spelt (`transfer` as `handoff`)."""
    record = SpanRecord(1, 2, None, "execute_tool transfer_to_billing", scope_name="zeta.sdk",
                        attributes={"zeta.span.type": word})
    found = infer(record)
    assert (found.kind, found.evidence, found.key) == ("handoff", "attribute", "zeta.span.type")


def test_tables_keep_precedence_and_test_spans_are_never_read() -> None:
    genai = SpanRecord(1, 2, None, "execute_tool lookup", scope_name="s", attributes={
        "gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": "lookup",
        "zeta.span.type": "agent"})
    step = Classifier().classify(genai)
    assert (step.kind, step.tool, step.inferred) == ("tool", "lookup", "")
    test_span = SpanRecord(1, 3, None, "test_weather_agent", scope_name="pytest",
                           attributes={"test.case.name": "test_weather_agent"})
    step = Classifier().classify(test_span)
    assert (step.kind, step.inferred) == ("other", "")


def _inference_off(tmp_path: Path) -> list[list[str]]:
    spec = write_spec(tmp_path / "off.yaml", {"version": 1, "inference": "off"})
    return [["--spec", str(spec)], ["--no-inference"]]


def test_inference_off_reads_by_the_tables_alone(capsys: pytest.CaptureFixture[str],
                                                 tmp_path: Path) -> None:
    traces = write_jsonl(tmp_path / "zeta.jsonl", _spans(kind_attribute_traffic))
    for argv in _inference_off(tmp_path):
        assert main(["coverage", str(traces), *argv]) == 2
        assert "no agent runs found" in capsys.readouterr().err
    assert CoverageSpec.from_dict({"version": 1, "inference": False}).inference is False
    assert CoverageSpec.empty().inference is True


def test_a_restricted_tool_reached_through_an_inferred_span_fails_the_gate(
        capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    traces = write_jsonl(tmp_path / "zeta.jsonl", _spans(kind_attribute_traffic))
    spec = write_spec(tmp_path / "spec.yaml", {"version": 1, "restricted": ["ask_billing"]})
    assert main(["gate", str(traces), "--spec", str(spec)]) == 1
    out = capsys.readouterr().out
    assert "orchestrator" in out and "restricted" in out
    assert main(["gate", str(traces), "--spec", str(spec), "--no-inference"]) != 0


def test_explain_writes_a_spec_that_pins_the_reading(capsys: pytest.CaptureFixture[str],
                                                     tmp_path: Path) -> None:
    traces = write_jsonl(tmp_path / "zeta.jsonl", _spans(kind_attribute_traffic))
    pinned = tmp_path / "agentcov.yaml"
    assert main(["explain", str(traces), "--write", str(pinned)]) == 0
    captured = capsys.readouterr()
    assert "loading it gives the same report as inference" in captured.err
    assert CANARY not in captured.out and CANARY not in pinned.read_text()
    document = yaml.safe_load(pinned.read_text())
    assert document["version"] == 1
    entries = document["conventions"]
    # one entry per vocabulary: the kind attribute's three kinds, not one per tool or agent
    assert [(e["kind"], sorted(e["match"]["attributes"]["zeta.span.type"])) for e in entries] == [
        ("llm", ["LLM", "llm"]), ("tool", ["TOOL", "tool"]), ("agent", ["AGENT", "agent"])]
    assert entries[1]["tool"] == "zeta.span.name" and entries[2]["name"] == "zeta.span.name"
    assert entries[0]["model"] == "zeta.model"
    # loaded, with inference off, it reads the spans as inference did
    out = tmp_path / "pinned.json"
    assert main(["coverage", str(traces), "--spec", str(pinned), "--no-inference", "--format",
                 "json", "--output", str(out)]) == 0
    assert _agents(json.loads(out.read_text())) == KIND_ATTRIBUTE_AGENTS

    def new_tool(tracer: Tracer) -> None:  # a tool nobody saw when the file was written
        with tracer.start_as_current_span("step", attributes={
                "zeta.span.type": "AGENT", "zeta.span.name": "weather"}):
            with tracer.start_as_current_span("step", attributes={
                    "zeta.span.type": "TOOL", "zeta.span.name": "get_forecast"}):
                pass

    later = write_jsonl(tmp_path / "later.jsonl", _spans(new_tool))
    assert main(["coverage", str(later), "--spec", str(pinned), "--no-inference", "--format",
                 "json", "--output", str(out)]) == 0
    assert json.loads(out.read_text())["agents"]["weather"]["tools"]["called"] == {
        "get_forecast": {"ok": 1, "error": 0}}


def test_explain_pins_structure_and_name_affixes(capsys: pytest.CaptureFixture[str],
                                                 tmp_path: Path) -> None:
    for traffic in (structure_traffic, name_affix_traffic):
        traces = write_jsonl(tmp_path / "t.jsonl", _spans(traffic))
        pinned = tmp_path / "pinned.yaml"
        assert main(["explain", str(traces), "--write", str(pinned)]) == 0
        assert "loading it gives the same report as inference" in capsys.readouterr().err
        CoverageSpec.from_yaml(pinned)  # loads as it is


def test_every_report_says_what_was_inferred(tmp_path: Path,
                                             capsys: pytest.CaptureFixture[str]) -> None:
    traces = write_jsonl(tmp_path / "zeta.jsonl", _spans(name_affix_traffic))
    assert main(["coverage", str(traces)]) == 0
    text = capsys.readouterr().out
    line = ("inferred: 4 spans matched no convention and were classified by inference (agent 1 "
            "· llm 1 · tool 2; from name 3 · genai 1)")
    assert line in text
    assert main(["coverage", str(traces), "--format", "markdown"]) == 0
    assert "inferred: 4 spans" in capsys.readouterr().out
    html = tmp_path / "html"
    assert main(["coverage", str(traces), "--format", "html", "--output", str(html)]) == 0
    capsys.readouterr()
    assert "inferred: 4 spans" in (html / "index.html").read_text()


def test_a_table_covered_report_gains_no_inferred_line(capsys: pytest.CaptureFixture[str],
                                                       tmp_path: Path) -> None:
    def genai(tracer: Tracer) -> None:
        with tracer.start_as_current_span("invoke_agent a", attributes={
                "gen_ai.operation.name": "invoke_agent", "gen_ai.agent.name": "a"}):
            pass

    traces = write_jsonl(tmp_path / "g.jsonl", _spans(genai))
    assert main(["coverage", str(traces)]) == 0
    assert "inferred" not in capsys.readouterr().out


def test_inferred_counts_round_trip_and_merge() -> None:
    one = EngineCounters(inferred={"tool.attribute": 2, "agent.structure": 1})
    two = EngineCounters.from_dict(one.to_dict(), "counters")
    two.merge(one)
    assert two.inferred == {"tool.attribute": 4, "agent.structure": 2}
    assert "inferred" not in EngineCounters().to_dict()  # files without any stay as they were
    with pytest.raises(ValueError, match="counters.inferred"):
        EngineCounters.from_dict({**one.to_dict(), "inferred": {"tool.guess": 1}}, "counters")


def test_an_in_house_vocabulary_is_read_as_its_documented_mapping(tmp_path: Path) -> None:
    """The acme tracer of docs/conventions.md, read by inference alone, as the documented
    entries read it (tests/test_explain.py checks them): triage twice (lookup_order ok, then
    failing), billing once (refund); the model acme-large answers triage twice."""
    from _acme import acme_spans

    report = _report(tmp_path, acme_spans())
    agents = _agents(report)
    assert agents["triage"]["tools"] == {"lookup_order": {"ok": 1, "error": 1}}
    assert agents["triage"]["models"] == {"acme-large": 2}
    assert agents["billing"]["tools"] == {"refund": {"ok": 1, "error": 0}}
    assert set(agents) == {"triage", "billing"}


def function_traffic(tracer: Tracer) -> None:
    """Every traced function typed alike (`zeta.span_type: Function`, as Prompt flow's `@trace`
    does), model calls typed `LLM`: the request function `serve` runs `weather`, which calls
    the model and the functions get_weather and ask_billing; ask_billing runs `billing`,
    which calls the model only."""
    def span(name: str, kind: str, **attrs: Any) -> Any:
        return tracer.start_as_current_span(name, attributes={"zeta.span_type": kind, **attrs})

    with span("serve", "Function"), span("weather", "Function"):
        with span("complete", "LLM", **{"zeta.llm.model": "weather-model"}):
            pass
        with span("get_weather", "Function"):
            pass
        with span("ask_billing", "Function"), span("billing", "Function"):
            with span("complete", "LLM", **{"zeta.llm.model": "billing-model"}):
                pass


def test_a_function_that_runs_an_agent_is_no_tool(tmp_path: Path) -> None:
    report = _report(tmp_path, _spans(function_traffic))
    assert _agents(report) == {
        "weather": {"runs": 1, "models": {"weather-model": 1},
                    "tools": {"get_weather": {"ok": 1, "error": 0},
                              "ask_billing": {"ok": 1, "error": 0}},
                    "delegations": [("weather", "billing")]},
        "billing": {"runs": 1, "tools": {}, "models": {"billing-model": 1},
                    "delegations": []}}
    # weather and billing: agents by structure; get_weather, ask_billing: tools (functions);
    # serve: no agent ran it, so neither a tool nor an agent
    assert report["spans"]["inferred"] == {
        "agent.structure": 2, "llm.attribute": 2, "tool.function": 2}
    assert report["spans"]["by_kind"]["other"] == 1


def _reading(stack: str, pins: list[Any] | None) -> dict[str, Any]:
    """Each scenario's agents with the built-in tables off: by inference, or with `pins`."""
    out = {}
    with fx.tables_off():
        for name, expected in fx.EXPECTED[stack].items():
            spec = dict(expected.spec or {"version": 1})
            if pins is not None:
                spec["conventions"] = [*spec.get("conventions", []), *pins]
            path = fx.FIXTURES / stack / f"{name}.json"
            out[name] = fx.replay_records(json.loads(path.read_text()), str(path), spec)[0]
    return out


@pytest.mark.parametrize("stack", sorted(fx.EXPECTED))
def test_explains_pins_read_every_stack_as_inference_did(stack: str) -> None:
    """`explain --write`'s file, loaded, reads each recorded stack (tables off) exactly as
    inference read it: same agents, runs, tools, models, delegations and boundaries."""
    pins = fx.explain_pins([fx.FIXTURES / stack / f"{n}.json" for n in fx.EXPECTED[stack]])
    assert _reading(stack, pins) == _reading(stack, None)


def template_traffic(tracer: Tracer) -> None:
    """Span names that are message templates (`Agent run: {name!r}`), the name in the
    attribute the placeholder names: agent `weather` runs tool `get_weather` and the model; a
    nameless `invoke_agent` span inside it is the framework's own, no agent."""
    with tracer.start_as_current_span("Agent run: {name!r}", attributes={"name": "weather"}):
        with tracer.start_as_current_span("invoke_agent"):
            with tracer.start_as_current_span("Function: {name}", attributes={
                    "name": "get_weather"}):
                pass
            with tracer.start_as_current_span("complete", attributes={
                    "zeta.span_type": "llm", "zeta.model": "weather-model"}):
                pass


def test_a_template_names_its_name_and_a_bare_kind_word_names_nothing(tmp_path: Path) -> None:
    report = _report(tmp_path, _spans(template_traffic))
    assert _agents(report) == {"weather": {
        "runs": 1, "tools": {"get_weather": {"ok": 1, "error": 0}},
        "models": {"weather-model": 1}, "delegations": []}}


def agent_tool_traffic(tracer: Tracer) -> None:
    """`orchestrator` calls the model, then its tool `billing`, which runs the agent `billing`
    (an agent called as a tool of its own name); the second `lookup` call fails, flagged by
    `zeta.failed: true` only (no status)."""
    def span(name: str, kind: str, **attrs: Any) -> Any:
        return tracer.start_as_current_span(name, attributes={"zeta.span.type": kind, **attrs})

    with span("orchestrator", "agent"):
        with span("complete", "llm", **{"zeta.model": "orchestrator-model"}):
            pass
        with span("billing", "tool"), span("billing", "agent"):
            with span("complete", "llm", **{"zeta.model": "billing-model"}):
                pass
        with span("lookup", "tool"):
            pass
        with span("lookup", "tool", **{"zeta.failed": True}):
            pass


AGENT_TOOL_AGENTS = {
    "orchestrator": {"runs": 1, "models": {"orchestrator-model": 1},
                     "tools": {"billing": {"ok": 1, "error": 0},
                               "lookup": {"ok": 1, "error": 1}},
                     "delegations": [("orchestrator", "billing")]},
    "billing": {"runs": 1, "tools": {}, "models": {"billing-model": 1}, "delegations": []}}


def test_an_agent_called_as_a_tool_of_its_own_name_stays_an_agent(tmp_path: Path) -> None:
    assert _agents(_report(tmp_path, _spans(agent_tool_traffic))) == AGENT_TOOL_AGENTS


def test_pins_read_a_failure_flag_its_vocabularys_first_span_lacked(
        capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    traces = write_jsonl(tmp_path / "zeta.jsonl", _spans(agent_tool_traffic))
    pinned = tmp_path / "agentcov.yaml"
    assert main(["explain", str(traces), "--write", str(pinned)]) == 0
    tool = [e for e in yaml.safe_load(pinned.read_text())["conventions"] if e["kind"] == "tool"]
    assert [e.get("error") for e in tool] == ["zeta.failed"]
    out = tmp_path / "pinned.json"
    assert main(["coverage", str(traces), "--spec", str(pinned), "--no-inference", "--format",
                 "json", "--output", str(out)]) == 0
    assert _agents(json.loads(out.read_text())) == AGENT_TOOL_AGENTS


def qualified_kind_traffic(tracer: Tracer) -> None:
    """The kind word before a word saying whose kind it is (`zeta.type.node`), spans named as
    the function they trace: `weather` calls the model and get_weather; `serve` is a function
    of the app (`zeta.type.node: workflow`) around it."""
    def span(name: str, kind: str, **attrs: Any) -> Any:
        return tracer.start_as_current_span(name, attributes={"zeta.type.node": kind, **attrs})

    with span("serve", "workflow"), span("weather", "agent"):
        with span("complete", "chat", **{"zeta.model": "weather-model"}):
            pass
        with span("get_weather", "tool"):
            pass


def test_a_kind_word_qualified_by_whose_kind_it_is(tmp_path: Path) -> None:
    report = _report(tmp_path, _spans(qualified_kind_traffic))
    assert _agents(report) == {"weather": {
        "runs": 1, "tools": {"get_weather": {"ok": 1, "error": 0}},
        "models": {"weather-model": 1}, "delegations": []}}
    assert report["spans"]["inferred"] == {
        "agent.attribute": 1, "llm.attribute": 1, "tool.attribute": 1, "workflow.attribute": 1}


def _pinned_agents(tmp_path: Path, traffic: Callable[[Tracer], None]) -> dict[str, Any]:
    """The agents read with `explain --write`'s file for the traffic loaded as the spec."""
    spec = tmp_path / "agentcov.yaml"
    traces = write_jsonl(tmp_path / "zeta-explained.jsonl", _spans(traffic))
    assert main(["explain", str(traces), "--write", str(spec)]) == 0
    pinned = tmp_path / "pinned"
    pinned.mkdir()
    return _agents(_report(pinned, _spans(traffic), "--spec", str(spec)))


def toolless_traffic(tracer: Tracer) -> None:
    """No kind words on the runs, only on model calls (`zeta.span.type: llm`): trace 1, the
    root `weather` whose one model call fails (HTTP 500: status error); trace 2, `triage` and
    `billing` as turns named by `zeta.turn.agent_name`, triage handing off (a span typed `tool`
    and named `handoff to billing`, the target in `zeta.handoff.to`), billing answering with no
    tool; trace 3, a root `Step 1` running a model call (a loop step, no agent)."""
    def llm(model: str, failed: bool = False) -> None:
        with tracer.start_as_current_span("complete", attributes={
                "zeta.span.type": "llm", "zeta.model": model}) as span:
            if failed:
                span.set_status(Status(StatusCode.ERROR, "HTTP 500"))

    with tracer.start_as_current_span("weather") as root:
        llm("gpt-500", failed=True)
        root.set_status(Status(StatusCode.ERROR))
    with tracer.start_as_current_span("workflow"):
        with tracer.start_as_current_span("zeta.turn", attributes={
                "zeta.turn.agent_name": "triage"}):
            llm("triage-model")
            with tracer.start_as_current_span("handoff to billing", attributes={
                    "zeta.span.type": "tool", "zeta.handoff.to": "billing"}):
                pass
        with tracer.start_as_current_span("zeta.turn", attributes={
                "zeta.turn.agent_name": "billing"}):
            llm("billing-model")
    with tracer.start_as_current_span("Step 1"):
        llm("loop-model")


def test_the_structure_names_runs_without_tools(tmp_path: Path) -> None:
    report = _report(tmp_path, _spans(toolless_traffic))
    assert _agents(report) == {
        "weather": {"runs": 1, "tools": {}, "models": {"gpt-500": 1}, "delegations": []},
        "triage": {"runs": 1, "tools": {}, "models": {"triage-model": 1},
                   "delegations": [("triage", "billing")]},
        "billing": {"runs": 1, "tools": {}, "models": {"billing-model": 1}, "delegations": []},
        SERVICE: {"runs": 1, "tools": {}, "models": {"loop-model": 1}, "delegations": []},
    }  # `Step 1` says only that a step ran: its model call is the service's, as without it
    assert report["agents"]["weather"]["runs"]["errors"] == 1
    assert _pinned_agents(tmp_path, toolless_traffic) == _agents(report)


def turns_and_requests_traffic(tracer: Tracer) -> None:
    """`weather` runs two turns, each naming it in `zeta.turn.agent_name` (the first calls the
    model and get_weather, the second the model): one run, not two. `orders.agent` calls the
    model, whose span holds the call it asks for (`tool_call.lookup_order`, a request as some
    tracers record it), then runs lookup_order once (`lookup_order.tool`)."""
    def llm(model: str) -> Any:
        return tracer.start_as_current_span("complete", attributes={
            "zeta.span.type": "llm", "zeta.model": model})

    with tracer.start_as_current_span("weather"):
        with tracer.start_as_current_span("zeta.turn", attributes={
                "zeta.turn.agent_name": "weather"}):
            with llm("weather-model"):
                pass
            with tracer.start_as_current_span("get_weather.tool"):
                pass
        with tracer.start_as_current_span("zeta.turn", attributes={
                "zeta.turn.agent_name": "weather"}), llm("weather-model"):
            pass
    with tracer.start_as_current_span("orders.agent"):
        with llm("orders-model"), tracer.start_as_current_span("tool_call.lookup_order"):
            pass
        with tracer.start_as_current_span("lookup_order.tool"):
            pass


def test_turns_are_one_run_and_requested_calls_no_executions(tmp_path: Path) -> None:
    report = _report(tmp_path, _spans(turns_and_requests_traffic))
    assert _agents(report) == {
        "weather": {"runs": 1, "tools": {"get_weather": {"ok": 1, "error": 0}},
                    "models": {"weather-model": 2}, "delegations": []},
        "orders": {"runs": 1, "tools": {"lookup_order": {"ok": 1, "error": 0}},
                   "models": {"orders-model": 1}, "delegations": []},
    }


@pytest.mark.parametrize(("operation", "kind"), [
    ("create_agent", None), ("invoke_agent", "agent"), ("execute_tool", "tool"),
    ("chat", "llm"), ("generate_content", "llm"), ("text_completion", "llm")])
def test_a_genai_operation_name_tells_the_kind_without_a_table(
        operation: str, kind: str | None) -> None:
    """Read by inference alone (the tables off): `create_agent` defines an agent and runs
    nothing, so its `gen_ai.agent.name` must not make it a run (it did); the others say their
    kind."""
    record = SpanRecord(1, 2, None, f"{operation} weather", scope_name="s", attributes={
        "gen_ai.operation.name": operation, "gen_ai.agent.name": "weather"})
    found = infer(record)
    assert (found.kind if found.evidence else None) == kind
    with fx.tables_off():
        agents = fx.replay_in_order([record])[0]
    # a model or tool call names the agent it was made for: a run of weather either way
    assert set(agents) == (set() if kind is None else {"weather"})


def task_named_traffic(tracer: Tracer) -> None:
    """Agent spans named by the agent's label and then its task's words, as some frameworks
    name a task's execution (`weather.what is the weather in Paris?.execute`): `weather` calls
    the model and get_weather, then runs another task."""
    for task in ("what is the weather in Paris?", "and in Rome. Thanks"):
        with tracer.start_as_current_span(f"weather.{task}.execute", attributes={
                "zeta.span.type": "agent"}):
            with tracer.start_as_current_span("complete", attributes={
                    "zeta.span.type": "llm", "zeta.model": "weather-model"}):
                pass
            with tracer.start_as_current_span("get_weather", attributes={
                    "zeta.span.type": "tool"}):
                pass


def test_an_agent_span_named_by_its_label_and_task_is_the_labels_run(tmp_path: Path) -> None:
    report = _report(tmp_path, _spans(task_named_traffic))
    assert _agents(report) == {"weather": {
        "runs": 2, "tools": {"get_weather": {"ok": 2, "error": 0}},
        "models": {"weather-model": 2}, "delegations": []}}
    assert _pinned_agents(tmp_path, task_named_traffic) == _agents(report)


def wrapper_traffic(tracer: Tracer) -> None:
    """Every span typed a chain but model and tool calls (`zeta.span.type`), as a module
    framework types its modules: the user's module `Weather.forward` runs the framework's loop
    `ReAct.forward`, which calls the model and get_weather. The loop is no agent of the user's:
    the run is Weather's."""
    def span(name: str, kind: str, **attrs: Any) -> Any:
        return tracer.start_as_current_span(name, attributes={"zeta.span.type": kind, **attrs})

    with span("Weather.forward", "chain"), span("ReAct.forward", "chain"):
        with span("Predict.forward", "chain"), span("LM.__call__", "llm", **{
                "zeta.model": "weather-model"}):
            pass
        with span("get_weather.__call__", "tool"):
            pass


def test_the_users_module_around_a_frameworks_loop_is_the_run(tmp_path: Path) -> None:
    report = _report(tmp_path, _spans(wrapper_traffic))
    assert _agents(report) == {"Weather": {
        "runs": 1, "tools": {"get_weather": {"ok": 1, "error": 0}},
        "models": {"weather-model": 1}, "delegations": []}}


def context_typed_traffic(tracer: Tracer) -> None:
    """Every span carries the type of the entity it belongs to (`zeta.entity.type: agent`,
    `zeta.entity.name`) and, but on the agent's own span, its own type (`zeta.span.type`):
    `weather` calls the model and get_weather."""
    entity = {"zeta.entity.type": "agent", "zeta.entity.name": "weather"}
    with tracer.start_as_current_span("weather", attributes=entity):
        with tracer.start_as_current_span("llm:generate", attributes={
                **entity, "zeta.span.type": "llm", "zeta.llm.model": "weather-model"}):
            pass
        with tracer.start_as_current_span("tool.execution:get_weather", attributes={
                **entity, "zeta.span.type": "tool", "zeta.tool.name": "get_weather"}):
            pass


def method_call_traffic(tracer: Tracer) -> None:
    """Spans named by the method a framework traces (`Agent.run()`, its hooks
    `Agent.before_run()`): the agent has no name of its own, so its work is the service's;
    the model is called through `OpenAiChatDriver.run()`."""
    with tracer.start_as_current_span("Agent.run()"):
        with tracer.start_as_current_span("Agent.before_run()"):
            pass
        with tracer.start_as_current_span("Agent.try_run()"):
            with tracer.start_as_current_span("OpenAiChatDriver.run()"):
                pass
        with tracer.start_as_current_span("Agent.after_run()"):
            pass


def test_a_spans_own_type_wins_over_its_contexts_and_methods_name_nothing(
        tmp_path: Path) -> None:
    assert _agents(_report(tmp_path, _spans(context_typed_traffic))) == {"weather": {
        "runs": 1, "tools": {"get_weather": {"ok": 1, "error": 0}},
        "models": {"weather-model": 1}, "delegations": []}}
    # pinned, the context's type reads the agent's span only
    assert _pinned_agents(tmp_path, context_typed_traffic) == _agents(
        _report(tmp_path, _spans(context_typed_traffic)))
    calls = tmp_path / "calls"
    calls.mkdir()
    report = _report(calls, _spans(method_call_traffic))
    assert set(report["agents"]) == {SERVICE}  # no `before_run()` or `run` agent
    assert report["spans"]["by_kind"]["llm"] == 1


def test_disagreeing_kind_words_hide_no_restricted_tool_and_invent_no_other() -> None:
    """The kind key says tool, the span name agent: the span stays unclassified, unless the
    tool it names is restricted, and then it is that tool's call (the rescue counted once)."""
    rescued: list[None] = []
    classifier = Classifier(restricted=lambda name: name == "delete_repo")
    classifier.rescued = lambda: rescued.append(None)

    def read(tool: str) -> tuple[str, str | None]:
        step = classifier.classify(SpanRecord(1, 2, None, "helper.agent", scope_name="s",
                                              attributes={"zeta.span.type": "tool",
                                                          "zeta.tool.name": tool}))
        return step.kind, step.tool

    assert read("lookup") == ("other", None)
    assert rescued == []
    assert read("delete_repo") == ("tool", "delete_repo")
    assert len(rescued) == 1


def test_a_function_named_like_the_tool_it_runs_is_no_agent(tmp_path: Path) -> None:
    """A function `find_room` around a model call asking for `find_room` and that tool's
    execution: it owns both, but a tool's name is no agent's, so the service runs them."""
    def traffic(tracer: Tracer) -> None:
        with tracer.start_as_current_span("POST /chat"), \
                tracer.start_as_current_span("find_room"):
            with tracer.start_as_current_span("completion", attributes={
                    "gen_ai.request.model": "desk-model",
                    "gen_ai.completion.0.tool_calls.0.name": "find_room"}):
                pass
            with tracer.start_as_current_span("find_room"):
                pass

    report = _report(tmp_path, _spans(traffic))
    assert _agents(report) == {SERVICE: {
        "runs": 1, "tools": {"find_room": {"ok": 1, "error": 0}},
        "models": {"desk-model": 1}, "delegations": []}}
    assert report["spans"]["inferred"] == {"llm.genai": 1, "tool.structure": 1}


@pytest.mark.parametrize(("name", "kind", "evidence"), [
    ("completion", "llm", "genai"),  # a bare kind word saying what the GenAI keys say: theirs
    ("llm", "llm", "genai"),
    ("agent", "other", "candidate"),  # says another kind than the keys: a framework's node
    ("tool", "tool", "name"),
])
def test_a_bare_kind_word_gives_way_only_to_keys_of_the_same_kind(
        name: str, kind: str, evidence: str) -> None:
    found = infer(SpanRecord(1, 2, None, name, scope_name="s",
                             attributes={"gen_ai.request.model": "m"}))
    assert (found.kind, found.evidence) == (kind, evidence)


def test_a_function_right_under_a_tool_that_calls_a_model_is_an_agent_called_as_a_tool(
        tmp_path: Path) -> None:
    """`orchestrator` calls the tool ask_billing, inside which the function `billing` (no
    evidence of its own) calls a model: billing is an agent run the orchestrator delegated to,
    though it owns no tool call and sits under an agent."""
    def traffic(tracer: Tracer) -> None:
        with in_ask_billing(tracer), tracer.start_as_current_span("billing"), \
                tracer.start_as_current_span("completion", attributes={
                    "gen_ai.request.model": "billing-model"}):
            pass

    assert _agents(_report(tmp_path, _spans(traffic))) == {
        "orchestrator": {"runs": 1, "tools": {"ask_billing": {"ok": 1, "error": 0}},
                         "models": {"orchestrator-model": 1},
                         "delegations": [("orchestrator", "billing")]},
        "billing": {"runs": 1, "tools": {}, "models": {"billing-model": 1}, "delegations": []},
    }


@pytest.mark.parametrize(("attributes", "events"), [
    ({"gen_ai.prompt.0.role": "user"}, ()),  # indexed keys alone
    ({}, (("gen_ai.user.message", {}),)),  # a prompt event alone
])
def test_indexed_keys_or_a_message_event_alone_make_a_model_call(
        attributes: dict[str, Any], events: tuple[tuple[str, dict[str, Any]], ...]) -> None:
    found = infer(SpanRecord(1, 2, None, "step", scope_name="s", attributes=attributes,
                             events=events))
    assert (found.kind, found.evidence) == ("llm", "genai")


def subagent_traffic(tracer: Tracer) -> None:
    """Every span carries its entity's type (`zeta.entity.type: agent`, `zeta.entity.name`);
    a sub-agent's span says so first (`zeta.subagent.type: agent`, `zeta.subagent.name`):
    `orchestrator` calls its model and the tool ask_billing, inside which `billing` runs; again;
    then it only calls its model."""
    entity = {"zeta.entity.type": "agent", "zeta.entity.name": "orchestrator"}
    for asks in (True, True, False):
        with tracer.start_as_current_span("orchestrator", attributes=entity):
            with tracer.start_as_current_span("llm", attributes={
                    **entity, "zeta.span.type": "llm", "zeta.llm.model": "orchestrator-model"}):
                pass
            if not asks:
                continue
            with tracer.start_as_current_span("tool", attributes={
                    **entity, "zeta.span.type": "tool", "zeta.tool.name": "ask_billing"}):
                with tracer.start_as_current_span("billing", attributes={
                        "zeta.subagent.type": "agent", "zeta.subagent.name": "billing", **entity}):
                    with tracer.start_as_current_span("llm", attributes={
                            "zeta.entity.type": "agent", "zeta.entity.name": "billing",
                            "zeta.span.type": "llm", "zeta.llm.model": "billing-model"}):
                        pass


def test_pins_leave_a_sub_agents_span_to_its_own_type(tmp_path: Path) -> None:
    """Pinned, the entity's type must not claim the sub-agent's span (which also carries it)
    and name it `orchestrator`."""
    expected = {
        "orchestrator": {"runs": 3, "tools": {"ask_billing": {"ok": 2, "error": 0}},
                         "models": {"orchestrator-model": 3},
                         "delegations": [("orchestrator", "billing")]},
        "billing": {"runs": 2, "tools": {}, "models": {"billing-model": 2}, "delegations": []}}
    assert _agents(_report(tmp_path, _spans(subagent_traffic))) == expected
    assert _pinned_agents(tmp_path, subagent_traffic) == expected


def tagged_traffic(tracer: Tracer) -> None:
    """Spans named by the traced method, a list of tags saying which framework class ran
    (`zeta.tags: ["Tool.run()"]`): the agent `Agent.run()` (no name of its own) asks the model
    twice through `OpenAiChatDriver.run()` and runs GetWeather and GetTime, both named
    `<tool>.run()` like the model's driver."""
    with tracer.start_as_current_span("Agent.run()"):
        for tools in (("GetWeather", "GetTime"), ()):
            with tracer.start_as_current_span("OpenAiChatDriver.run()", attributes={
                    "zeta.tags": ["PromptDriver.run()"]}):
                pass
            for tool in tools:
                with tracer.start_as_current_span(f"{tool}.run()", attributes={
                        "zeta.tags": ["Tool.run()"]}):
                    pass


def test_a_tag_naming_a_kind_class_tells_the_kind_and_pins_as_contains(
        tmp_path: Path) -> None:
    expected = {SERVICE: {"runs": 1, "tools": {"GetWeather": {"ok": 1, "error": 0},
                                               "GetTime": {"ok": 1, "error": 0}},
                          "models": {}, "delegations": []}}
    report = _report(tmp_path, _spans(tagged_traffic))
    assert _agents(report) == expected
    assert report["spans"]["by_kind"]["llm"] == 2
    spec = tmp_path / "agentcov.yaml"
    traces = write_jsonl(tmp_path / "tagged.jsonl", _spans(tagged_traffic))
    assert main(["explain", str(traces), "--write", str(spec)]) == 0
    pinned = yaml.safe_load(spec.read_text())
    tools = [e for e in pinned["conventions"] if e["kind"] == "tool"]
    assert [e["match"]["attributes"] for e in tools] == [{"zeta.tags": {"contains": "Tool.run()"}}]
    # the driver's class says it calls a model: that name only, never every `*.run()`
    assert {e["match"].get("name") for e in pinned["conventions"] if e["kind"] == "llm"} == {
        "OpenAiChatDriver.run()"}
    # the file alone, inference off, reads the traffic as inference did
    spec.write_text(yaml.safe_dump({**pinned, "inference": "off"}))
    alone = tmp_path / "alone"
    alone.mkdir()
    off = _report(alone, _spans(tagged_traffic), "--spec", str(spec))
    assert _agents(off) == expected
    assert off["spans"]["by_kind"]["llm"] == 2


def requests_and_handoff_traffic(tracer: Tracer) -> None:
    """Model calls whose spans hold the calls they ask for (`zeta.span.type: tool` inside
    `zeta.span.type: llm`), each run once outside; and a hand-off span typed `tool` but named
    `billing.handoff`, its ends in `zeta.handoff.from` / `.to`: `triage` asks for and runs
    lookup_order, then hands off to `billing`, which answers."""
    def span(name: str, kind: str, **attrs: Any) -> Any:
        return tracer.start_as_current_span(name, attributes={"zeta.span.type": kind, **attrs})

    with span("triage", "agent", **{"zeta.agent.name": "triage"}):
        with span("complete", "llm", **{"zeta.model": "triage-model"}):
            with span("lookup_order", "tool", **{"zeta.tool.name": "lookup_order"}):
                pass
        with span("lookup_order", "tool", **{"zeta.tool.name": "lookup_order"}):
            pass
        with span("billing.handoff", "tool", **{"zeta.handoff.from": "triage",
                                                "zeta.handoff.to": "billing"}):
            pass
    with span("billing", "agent", **{"zeta.agent.name": "billing"}):
        with span("complete", "llm", **{"zeta.model": "billing-model"}):
            pass


def test_pins_keep_requests_inside_model_calls_and_hand_offs_typed_as_tools(
        tmp_path: Path) -> None:
    expected = {
        "triage": {"runs": 1, "tools": {"lookup_order": {"ok": 1, "error": 0}},
                   "models": {"triage-model": 1}, "delegations": [("triage", "billing")]},
        "billing": {"runs": 1, "tools": {}, "models": {"billing-model": 1}, "delegations": []}}
    assert _agents(_report(tmp_path, _spans(requests_and_handoff_traffic))) == expected
    assert _pinned_agents(tmp_path, requests_and_handoff_traffic) == expected


def wrapping_call_traffic(tracer: Tracer) -> None:
    """A generation span (usage keys only) around the model calls it makes, naming what it ran
    for in `zeta.operation.name: "zeta.generate weather"` and `zeta.function_id: weather`:
    twice a model call, then get_weather."""
    named = {"zeta.operation.name": "zeta.generate weather", "zeta.function_id": "weather"}
    with tracer.start_as_current_span("zeta.generate", attributes={
            **named, "zeta.usage.input_tokens": 30}):
        for _ in range(2):  # a model call, then get_weather (a span saying only its name)
            with tracer.start_as_current_span("zeta.generate.call", attributes={
                    "gen_ai.request.model": "weather-model", "gen_ai.usage.input_tokens": 15}):
                pass
            with tracer.start_as_current_span("zeta.toolCall", attributes={
                    "zeta.toolCall.name": "get_weather"}):
                pass


def test_a_call_around_calls_naming_what_it_ran_for_is_that_run(tmp_path: Path) -> None:
    expected = {"weather": {"runs": 1, "tools": {"get_weather": {"ok": 2, "error": 0}},
                            "models": {"weather-model": 2}, "delegations": []}}
    report = _report(tmp_path, _spans(wrapping_call_traffic))
    assert _agents(report) == expected
    assert report["spans"]["by_kind"]["llm"] == 2  # the wrapper is no call
    assert _pinned_agents(tmp_path, wrapping_call_traffic) == expected


def peers_traffic(tracer: Tracer) -> None:
    """Functions traced by name, no kind words but on calls (`zeta.span.type`):
    `serve` runs `triage` (its model, then its tool transfer_to_billing), then `billing` (its
    model only)."""
    def llm(model: str) -> None:
        with tracer.start_as_current_span("complete", attributes={
                "zeta.span.type": "llm", "zeta.model": model}):
            pass

    with tracer.start_as_current_span("serve"):
        with tracer.start_as_current_span("triage"):
            llm("triage-model")
            with tracer.start_as_current_span("transfer_to_billing", attributes={
                    "zeta.span.type": "tool"}):
                pass
        with tracer.start_as_current_span("billing"):
            llm("billing-model")


def test_a_function_beside_an_agent_that_calls_a_model_is_an_agent(tmp_path: Path) -> None:
    report = _agents(_report(tmp_path, _spans(peers_traffic)))
    assert report["billing"] == {"runs": 1, "tools": {}, "models": {"billing-model": 1},
                                 "delegations": []}
    assert report["triage"]["tools"] == {"transfer_to_billing": {"ok": 1, "error": 0}}
    assert set(report) == {"triage", "billing"}  # `serve` runs them, it is none


@pytest.mark.parametrize("layout", ["jsonl", "pb"])
def test_a_tool_servers_half_of_a_call_joins_the_callers_run(tmp_path: Path, layout: str) -> None:
    """`weather` (the app) calls the model and its tool get_weather (`zeta.span.type: tool`);
    the tool runs in another service, whose span of kind SERVER has the client's tool span as
    its remote parent, and fails there. One call, failed, in weather's run: no run of the tool
    server, no second get_weather. Alike from a JSON Lines file (SpanRecords) and a protobuf
    file (the core decodes and classifies, inference re-reads the span no table claims)."""
    server = TracerProvider(resource=Resource.create({"service.name": "zeta-tool-server"}))
    exporter = InMemorySpanExporter()
    server.add_span_processor(SimpleSpanProcessor(exporter))

    def traffic(tracer: Tracer) -> None:
        with tracer.start_as_current_span("weather", attributes={"zeta.span.type": "agent"}):
            with tracer.start_as_current_span("complete", attributes={
                    "zeta.span.type": "llm", "zeta.model": "weather-model"}):
                pass
            with tracer.start_as_current_span("get_weather", attributes={
                    "zeta.span.type": "tool"}) as client:
                remote = trace.set_span_in_context(trace.NonRecordingSpan(SpanContext(
                    client.get_span_context().trace_id, client.get_span_context().span_id,
                    is_remote=True, trace_flags=TraceFlags(TraceFlags.SAMPLED))))
                with server.get_tracer("zeta.server").start_as_current_span(
                        "serve get_weather", context=remote, kind=SpanKind.SERVER, attributes={
                            "zeta.span.type": "tool", "zeta.tool.name": "get_weather"}) as span:
                    span.set_status(Status(StatusCode.ERROR))

    app = _spans(traffic)
    spans = [*exporter.get_finished_spans(), *app]  # the server's ends first: exported first
    report = _report(tmp_path, spans) if layout == "jsonl" else _pb_report(tmp_path, spans)
    assert _agents(report) == {"weather": {
        "runs": 1, "tools": {"get_weather": {"ok": 0, "error": 1}},
        "models": {"weather-model": 1}, "delegations": []}}


@pytest.mark.parametrize(("attributes", "kind"), [
    ({"x.type": "AGENT_EXECUTION"}, "agent"), ({"x.type": "LLM_REQUEST"}, "llm"),
    ({"x.kind": "model_invocation"}, "llm"), ({"x.type": "tool-run"}, "tool"),
    ({"x.kind": "ReActAgent"}, "agent"), ({"x.kind": "FunctionTool"}, "tool"),
    ({"x.operation": "tool"}, "tool"), ({"x.op": "agent"}, "agent"),
    ({"x.component": "llm"}, "llm"),
    # a step of an agent is no run of it; two kind words, or a model class, say nothing
    ({"x.type": "agent_step"}, None), ({"x.type": "chat_agent"}, None),
    ({"x.type": "BaseModel"}, None), ({"x.type": "tool_result"}, None),
    ({"db.operation": "tool"}, None), ({"x.role": "agent"}, None),
    # a kind then its provider; a numbered list's first entry is the span's own
    ({"x.span.type": "agent.acme_agents"}, "agent"), ({"x.span.type": "tool.function"}, "tool"),
    ({"x.span.type": "inference"}, "llm"), ({"x.entity.1.type": "agent"}, "agent"),
    ({"x.entity.2.type": "agent"}, None), ({"x.tool_calls.0.type": "function"}, None),
    ({"x.choices.0.type": "tool"}, None),
    # a sub-agent is an agent; two kind words say nothing (Mastra's `model_generation` wraps
    # its model calls)
    ({"x.span.type": "subagent"}, "agent"), ({"x.span.type": "agent_tool"}, None),
    ({"x.span.type": "model_generation"}, None),
    # the span's class names its kind (`AgentSpan`, `GenerationSpanData`); a span alone is none
    ({"x.span.type": "AgentSpan"}, "agent"), ({"x.type": "ToolCallSpanData"}, "tool"),
    ({"x.type": "GenerationSpanData"}, "llm"), ({"x.type": "SpanData"}, None),
])
def test_kind_words_a_word_saying_it_ran_and_kinds_of_agents(
        attributes: dict[str, str], kind: str | None) -> None:
    found = infer(SpanRecord(1, 2, None, "step", scope_name="s", attributes=attributes))
    assert (found.kind if found.evidence not in (None, "candidate") else None) == kind


def test_a_numbered_entitys_first_entry_names_the_run() -> None:
    """`x.entity.1.type: agent` beside `x.entity.1.name`: the span is weather's run; the second
    entry (the model it works with) is not the span's own."""
    found = infer(SpanRecord(1, 2, None, "Runner.run", scope_name="s", attributes={
        "x.entity.1.type": "agent.acme", "x.entity.1.name": "weather",
        "x.entity.2.type": "model.llm.acme", "x.entity.2.name": "weather-model"}))
    assert (found.kind, found.name, found.name_key) == ("agent", "weather", "x.entity.1.name")


@pytest.mark.parametrize("vendor", ["ag2", "a2a", "k8s"])
def test_a_vendor_prefix_with_a_digit_is_no_index(vendor: str) -> None:
    """A vendor whose name holds a digit (`ag2.tool.name`) names its tool as any vendor does;
    only a number standing alone between separators (`x.entity.1.name`) is an index."""
    found = infer(SpanRecord(1, 2, 3, "tool.execution", scope_name="s", attributes={
        f"{vendor}.span.type": "tool", f"{vendor}.tool.name": "get_weather"}))
    assert (found.kind, found.name, found.name_key) == ("tool", "get_weather",
                                                         f"{vendor}.tool.name")


def test_a_code_paths_run_takes_its_apps_name_and_a_subtype_yields_to_its_type() -> None:
    """A span named by the code it traces (`__main__._Agent.run`) names no agent: the app it
    runs for (`x.app_name`) does. `x.span.subtype: tool_call` (what the call's output was)
    yields to `x.span.type: inference`; the model is the entity typed `model…`."""
    run = infer(SpanRecord(1, 2, None, "__main__._Agent.run", scope_name="s", attributes={
        "x.span_type": "record_root", "x.app_name": "weather"}))
    assert (run.name, run.name_key) == ("weather", "x.app_name")
    named = infer(SpanRecord(1, 2, None, "Weather.run", scope_name="s", attributes={
        "x.app_name": "weather-app"}))
    assert named.name == "Weather"  # a name the user gave keeps it
    # an agent span named by its code path and another agent's name (the one it came from) is
    # no run of that agent, and no run of its code path either
    wrapper = infer(SpanRecord(1, 2, None, "agents.run.Runner.run", scope_name="s", attributes={
        "x.span.type": "agent", "x.from.agent.name": "triage"}))
    assert (wrapper.kind, wrapper.name_key) == ("other", None)
    call = SpanRecord(1, 3, 2, "client.create", scope_name="s", attributes={
        "x.span.type": "inference", "x.span.subtype": "tool_call",
        "x.entity.2.type": "model.llm.weather-model", "x.entity.2.name": "weather-model"})
    assert infer(call).kind == "llm"
    assert model_source(call) == ("x.entity.2.name", "weather-model")
    longer = SpanRecord(1, 3, 2, "client.create", scope_name="s", attributes={
        "zeta.span.type": "inference", "zeta.span.subtype": "tool_call"})
    assert infer(longer).kind == "llm"  # whatever the vendor prefix's length


def nested_traffic(outer: str, inner: str) -> Callable[[Tracer], None]:
    """`outer` (typed an agent by `zeta.span.type`) calls the model, then runs `inner`
    right under its own span, no tool between; inner calls the model and get_weather."""
    def traffic(tracer: Tracer) -> None:
        def span(name: str, kind: str, **attrs: Any) -> Any:
            return tracer.start_as_current_span(name, attributes={
                "zeta.span.type": kind, **attrs})

        with span(outer, "agent"):
            with span("complete", "llm", **{"zeta.model": f"{outer}-model"}):
                pass
            with span(inner, "agent"):
                with span("complete", "llm", **{"zeta.model": f"{inner}-model"}):
                    pass
                with span("get_weather", "tool"):
                    pass
    return traffic


@pytest.mark.parametrize(("outer", "inner"), [("travel", "weather"), ("weather", "billing")])
def test_an_inferred_agent_of_another_name_inside_a_run_is_its_own_run(
        tmp_path: Path, outer: str, inner: str) -> None:
    """Only an agent span inside a run of its own name is that run's (one run, not two): one
    of another name is a delegation, each agent with its own calls (names sorting either
    way)."""
    assert _agents(_report(tmp_path, _spans(nested_traffic(outer, inner)))) == {
        outer: {"runs": 1, "tools": {}, "models": {f"{outer}-model": 1},
                "delegations": [(outer, inner)]},
        inner: {"runs": 1, "tools": {"get_weather": {"ok": 1, "error": 0}},
                "models": {f"{inner}-model": 1}, "delegations": []}}


def test_a_genai_token_count_is_the_evidence_before_a_vendors() -> None:
    """A span whose only model evidence is token counts, a vendor's key first and GenAI's
    `gen_ai.usage.input_tokens` after it: a model call, found by the GenAI key (the one
    `explain` pins), whatever order the attributes came in."""
    from otel_agentcov.records import SpanRecord
    from otel_agentcov.semconv.inference import BY_GENAI, infer

    record = SpanRecord(trace_id=1, span_id=2, parent_id=None, name="step", start_ns=0,
                        end_ns=1, status_code=0, attributes={
                            "acme.tokens.prompt": 3, "gen_ai.usage.input_tokens": 3})
    found = infer(record)
    assert (found.kind, found.evidence, found.key) == ("llm", BY_GENAI,
                                                       "gen_ai.usage.input_tokens")


def _inferred_of(name: str) -> Any:
    from otel_agentcov.records import SpanRecord
    from otel_agentcov.semconv.inference import infer

    return infer(SpanRecord(trace_id=1, span_id=2, parent_id=None, name=name, start_ns=0,
                            end_ns=1, status_code=0, attributes={}))


def test_a_method_call_span_of_an_agent_class_may_still_run_an_agent() -> None:
    """`Agent.before_run()` names a method of the agent class, not an agent: unclassified, yet
    a candidate (its span may run one); `Tool.run()` is no tool and no candidate either."""
    agent, tool = _inferred_of("Agent.before_run()"), _inferred_of("Tool.run()")
    assert (agent.kind, agent.evidence, agent.name) == ("other", "candidate", None)
    assert (tool.kind, tool.evidence, tool.name) == ("other", None, None)


def test_a_label_and_task_name_keeps_its_affix_glob() -> None:
    """`weather.<task words>.agent`: the agent is the label, the pinned pattern keeps the
    span-name glob `*.agent` and reads the label before the task's words."""
    found = _inferred_of("weather.what is the weather in Paris?.agent")
    assert (found.kind, found.evidence, found.name) == ("agent", "name", "weather")
    assert found.affix == ("*.agent", r"([A-Za-z_][\w -]{0,63}?)\s*[.:].*\s.*\.agent")


def requests_as_spans_traffic(tracer: Tracer) -> None:
    """`ops` asks the model twice; each model call records its request for `wipe` as a span
    typed a tool inside it (as some tracers do); `wipe` runs once, outside both."""
    def span(name: str, kind: str, **attrs: Any) -> Any:
        return tracer.start_as_current_span(name, attributes={"zeta.span.type": kind, **attrs})

    with span("ops", "agent"):
        with span("complete", "llm", **{"zeta.model": "m"}), span("wipe", "tool"):
            pass
        with span("wipe", "tool"):
            pass
        with span("complete", "llm", **{"zeta.model": "m"}), span("wipe", "tool"):
            pass


def test_requests_recorded_as_spans_count_as_requests_of_a_restricted_tool(
        tmp_path: Path) -> None:
    """The spans inside the model calls are requests, not executions: wipe was called once
    and asked for twice, so the request beyond the call seen is a denied attempt
    (docs/semantics.md: restricted requests beyond the calls seen): executed 1, denied 1."""
    spec = write_spec(tmp_path / "spec.yaml", {"version": 1, "restricted": ["wipe"]})
    ops = _report(tmp_path, _spans(requests_as_spans_traffic), "--spec", str(spec))["agents"]
    assert ops["ops"]["tools"]["called"] == {"wipe": {"ok": 1, "error": 0}}
    assert ops["ops"]["edges"]["restricted"] == [
        {"tool": "wipe", "outcome": "denied", "count": 1},
        {"tool": "wipe", "outcome": "executed", "count": 1}]


def test_tool_calls_in_two_sub_steps_still_make_their_owner_the_run(tmp_path: Path) -> None:
    """`weather` (no kind words) calls the model, then two steps of its own, each running one
    tool: it owns two tool executions (counted, not cancelled out), so it is the agent; the
    request handler around it is none."""
    def traffic(tracer: Tracer) -> None:
        with tracer.start_as_current_span("handle request"), \
                tracer.start_as_current_span("weather"):
            with tracer.start_as_current_span("complete", attributes={
                    "zeta.span.type": "llm", "zeta.model": "weather-model"}):
                pass
            for step, tool in (("step_a", "get_weather"), ("step_b", "get_time")):
                with tracer.start_as_current_span(step), tracer.start_as_current_span(
                        tool, attributes={"zeta.span.type": "tool"}):
                    pass

    assert _agents(_report(tmp_path, _spans(traffic))) == {"weather": {
        "runs": 1, "tools": {"get_weather": {"ok": 1, "error": 0},
                             "get_time": {"ok": 1, "error": 0}},
        "models": {"weather-model": 1}, "delegations": []}}


def test_disagreeing_keys_a_long_operation_and_the_conflict_named() -> None:
    """Two kind keys that disagree (`a.kind: agent`, `zz.type: tool`) leave the span
    unclassified, whatever else it carries (`type: x`, no kind word); an operation name past 40
    characters is not read (a kind word padded to 41 says nothing); a conflict with the span
    name's kind word names the span."""
    both = infer(SpanRecord(1, 2, None, "step", scope_name="s", attributes={
        "type": "x", "a.kind": "agent", "zz.type": "tool"}))
    assert (both.kind, both.evidence) == ("other", None) and both.conflict is not None
    padded = infer(SpanRecord(1, 2, None, "step", scope_name="s", attributes={
        "gen_ai.operation.name": "chat".ljust(41)}))
    assert padded.kind != "llm"
    named = infer(SpanRecord(1, 2, None, "weather.agent", scope_name="s", attributes={
        "x.type": "tool"}))
    assert named.conflict is not None and "span name 'weather.agent'" in named.conflict


def between_calls_traffic(tracer: Tracer) -> None:
    """Functions traced by their bare names, model calls by the GenAI keys alone: `orders`
    calls its model, runs lookup_order (which fails), publishes a message (`publish
    reply_topic`: a runtime's, no name a model calls a tool by), calls its model again, then
    saves the answer (`save_answer`, after the last call: no tool the model asked for); `serve` runs
    `triage` (model, transfer_to_billing, model) and then `billing` (model). No kind word on
    any function span, no tool name anywhere but the span names."""
    def chat(model: str) -> None:
        with tracer.start_as_current_span(f"chat {model}", attributes={
                "gen_ai.operation.name": "chat", "gen_ai.request.model": model}):
            pass

    with tracer.start_as_current_span("orders"):
        chat("orders-model")
        with tracer.start_as_current_span("lookup_order") as span:
            span.set_status(Status(StatusCode.ERROR))
        with tracer.start_as_current_span("publish reply_topic"):
            pass
        chat("orders-model")
        with tracer.start_as_current_span("save_answer"):
            pass
    with tracer.start_as_current_span("serve"):
        with tracer.start_as_current_span("triage"):
            chat("triage-model")
            with tracer.start_as_current_span("transfer_to_billing"):
                pass
            chat("triage-model")
        with tracer.start_as_current_span("billing"):
            chat("billing-model")


def test_a_function_between_two_model_calls_is_the_tool_the_first_asked_for(
        tmp_path: Path) -> None:
    report = _report(tmp_path, _spans(between_calls_traffic))
    assert _agents(report) == {
        "orders": {"runs": 1, "tools": {"lookup_order": {"ok": 0, "error": 1}},
                   "models": {"orders-model": 2}, "delegations": []},
        "triage": {"runs": 1, "tools": {"transfer_to_billing": {"ok": 1, "error": 0}},
                   "models": {"triage-model": 2}, "delegations": [("triage", "billing")]},
        "billing": {"runs": 1, "tools": {}, "models": {"billing-model": 1}, "delegations": []},
    }
    assert report["spans"]["inferred"]["tool.structure"] == 2
    assert _pinned_agents(tmp_path, between_calls_traffic) == _agents(report)


def parameters_traffic(tracer: Tracer) -> None:
    """`weather` (typed agent) calls its model, which fails (HTTP 500: no response, so no
    response model); only the call's parameters name the model it asked for, as JSON in
    `zeta.invocation_parameters`. A second call, answered, names its model in `zeta.model`
    and its parameters name none."""
    with tracer.start_as_current_span("weather", attributes={"zeta.span.type": "agent"}):
        with tracer.start_as_current_span("complete", attributes={
                "zeta.span.type": "llm", "zeta.input": CANARY,
                "zeta.invocation_parameters": '{"temperature": 0, "model": "gpt-500"}'},
                ) as span:
            span.set_status(Status(StatusCode.ERROR, "HTTP 500"))
        with tracer.start_as_current_span("complete", attributes={
                "zeta.span.type": "llm", "zeta.model": "gpt-ok",
                "zeta.invocation_parameters": '{"temperature": 0}'}):
            pass


def test_a_failed_calls_parameters_name_its_model(tmp_path: Path) -> None:
    report = _report(tmp_path, _spans(parameters_traffic))
    assert _agents(report) == {"weather": {
        "runs": 1, "tools": {}, "models": {"gpt-500": 1, "gpt-ok": 1}, "delegations": []}}
    assert _pinned_agents(tmp_path, parameters_traffic) == _agents(report)


def runner_traffic(tracer: Tracer) -> None:
    """A runner's span typed agent and named after the agent that answered (`billing`) runs
    `triage` (its model), then `billing` (its model), whose span says it came from triage
    (`zeta.from_agent`): a hand-off from triage to billing, and no run of the runner."""
    def agent(name: str, **extra: str) -> Any:
        return tracer.start_as_current_span("agent.run", attributes={
            "zeta.span.type": "agent", "zeta.agent.name": name, **extra})

    def llm(model: str) -> None:
        with tracer.start_as_current_span("complete", attributes={
                "zeta.span.type": "llm", "zeta.model": model}):
            pass

    with agent("billing"):
        with agent("triage"):
            llm("triage-model")
        with agent("billing", **{"zeta.from_agent": "triage"}):
            llm("billing-model")


def test_a_runner_named_after_the_agent_that_answered_is_no_run_and_a_from_agent_hands_off(
        tmp_path: Path) -> None:
    report = _report(tmp_path, _spans(runner_traffic))
    assert _agents(report) == {
        "triage": {"runs": 1, "tools": {}, "models": {"triage-model": 1},
                   "delegations": [("triage", "billing")]},
        "billing": {"runs": 1, "tools": {}, "models": {"billing-model": 1}, "delegations": []},
    }
    assert _pinned_agents(tmp_path, runner_traffic) == _agents(report)


def unknown_operation_traffic(tracer: Tracer) -> None:
    """Every span of a framework says `gen_ai.operation.name: framework` (no operation of the
    conventions) beside its own kind key: `weather` (no keys) runs `zeta_client`, whose model
    calls (GenAI `chat`) ask for get_weather, run by `tool_call get_weather` (`zeta.kind:
    tool_call`). A span with an undefined operation and the agent it works for
    (`gen_ai.agent.name`, `gen_ai.operation.name: unknown`) is that agent's context, no run."""
    def chat() -> None:
        with tracer.start_as_current_span("chat weather-model", attributes={
                "gen_ai.operation.name": "chat", "gen_ai.request.model": "weather-model"}):
            pass

    framework = {"gen_ai.operation.name": "framework", "gen_ai.system": "zeta"}
    with tracer.start_as_current_span("weather"), tracer.start_as_current_span(
            "zeta_client", attributes={**framework, "zeta.kind": "chat_client"}):
        with tracer.start_as_current_span("unknown", attributes={
                "gen_ai.operation.name": "unknown", "gen_ai.agent.name": "Zeta Agent"}):
            chat()
        with tracer.start_as_current_span("tool_call get_weather", attributes={
                **framework, "zeta.kind": "tool_call"}):
            pass
        chat()


def test_an_operation_the_conventions_do_not_define_is_left_to_inference(
        tmp_path: Path) -> None:
    report = _report(tmp_path, _spans(unknown_operation_traffic))
    assert _agents(report) == {"weather": {
        "runs": 1, "tools": {"get_weather": {"ok": 1, "error": 0}},
        "models": {"weather-model": 2}, "delegations": []}}
    assert _pinned_agents(tmp_path, unknown_operation_traffic) == _agents(report)


def defined_agent_traffic(tracer: Tracer) -> None:
    """`weather` (typed agent) first defines itself (`create_agent`, naming the model it will
    use in `gen_ai.request.model`: no call), then calls the model: a span with that key and no
    operation (read by the GenAI key alone)."""
    with tracer.start_as_current_span("weather", attributes={"zeta.span.type": "agent"}):
        with tracer.start_as_current_span("start", attributes={
                "gen_ai.operation.name": "create_agent", "gen_ai.agent.name": "weather",
                "gen_ai.request.model": "weather-model"}):
            pass
        with tracer.start_as_current_span("llm_node", attributes={
                "gen_ai.request.model": "weather-model"}):
            pass


def test_pins_of_a_genai_key_leave_spans_naming_their_operation_to_it(tmp_path: Path) -> None:
    report = _report(tmp_path, _spans(defined_agent_traffic))
    assert _agents(report) == {"weather": {
        "runs": 1, "tools": {}, "models": {"weather-model": 1}, "delegations": []}}
    assert _pinned_agents(tmp_path, defined_agent_traffic) == _agents(report)


def inherited_metadata_traffic(tracer: Tracer) -> None:
    """A tracer that copies the run's metadata onto every span inside it (`zeta.meta.
    agent_name: orchestrator`, LangChain's `lc_agent_name`) and says failures by a level alone
    (`zeta.level: ERROR`, no error status). Trace 1: `orchestrator` (typed `span`, as every
    plain span) calls its model, then the tool ask_billing, in which `billing` runs its model
    call — both carrying orchestrator's metadata. Trace 2: `weather`'s model call fails
    (level ERROR on the call and on the run), then its tool lookup fails the same way."""
    meta = {"zeta.meta.agent_name": "orchestrator", "zeta.type": "span"}

    def call(model: str, **more: str) -> None:
        with tracer.start_as_current_span("ChatModel", attributes={
                **meta, "zeta.type": "generation", "zeta.model.name": model, **more}):
            pass

    with tracer.start_as_current_span("orchestrator", attributes=meta):
        call("orchestrator-model")
        with tracer.start_as_current_span("ask_billing", attributes={**meta, "zeta.type": "tool"}):
            with tracer.start_as_current_span("billing", attributes=meta):
                call("billing-model")
    failed = {"zeta.meta.agent_name": "weather", "zeta.level": "ERROR"}
    with tracer.start_as_current_span("weather", attributes={**meta, **failed}):
        call("weather-model", **failed)
        with tracer.start_as_current_span("lookup", attributes={
                **meta, **failed, "zeta.type": "tool"}):
            pass


def test_an_agent_called_as_a_tool_is_not_named_by_its_callers_metadata(tmp_path: Path) -> None:
    report = _report(tmp_path, _spans(inherited_metadata_traffic))
    assert _agents(report) == {
        "orchestrator": {"runs": 1, "tools": {"ask_billing": {"ok": 1, "error": 0}},
                         "models": {"orchestrator-model": 1},
                         "delegations": [("orchestrator", "billing")]},
        "billing": {"runs": 1, "tools": {}, "models": {"billing-model": 1}, "delegations": []},
        "weather": {"runs": 1, "tools": {"lookup": {"ok": 0, "error": 1}},
                    "models": {"weather-model": 1}, "delegations": []},
    }
    assert report["agents"]["weather"]["runs"]["errors"] == 1  # the level on the run's span
    assert _pinned_agents(tmp_path, inherited_metadata_traffic) == _agents(report)


def session_traffic(tracer: Tracer) -> None:
    """A framework's AI services traced by code path, the method last (`zeta.services.weather.
    chat`, no attributes: only the name's `chat` says a model call) around GenAI model calls and
    tool executions: weather asks the model, runs get_weather, asks again; billing only asks."""
    def completion(model: str) -> None:
        with tracer.start_as_current_span(f"completion {model}", attributes={
                "gen_ai.request.model": model, "gen_ai.usage.input_tokens": 20}):
            pass

    with tracer.start_as_current_span("zeta.services.weather.chat"):
        completion("weather-model")
        with tracer.start_as_current_span("zeta.tools.get_weather", attributes={
                "gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": "get_weather"}):
            pass
        completion("weather-model")
    with tracer.start_as_current_span("zeta.services.billing.chat"):
        completion("billing-model")


def test_a_model_call_by_name_around_model_calls_is_a_chat_sessions_run(
        tmp_path: Path) -> None:
    report = _report(tmp_path, _spans(session_traffic))
    assert _agents(report) == {
        "weather": {"runs": 1, "tools": {"get_weather": {"ok": 1, "error": 0}},
                    "models": {"weather-model": 2}, "delegations": []},
        "billing": {"runs": 1, "tools": {}, "models": {"billing-model": 1}, "delegations": []},
    }
    assert report["spans"]["by_kind"]["llm"] == 3  # the sessions are no calls
    assert _pinned_agents(tmp_path, session_traffic) == _agents(report)


def loop_step_traffic(tracer: Tracer) -> None:
    """No kind words but on model calls: the app's `handle_request` (a request, never an
    agent) calls the model, runs `lookup` (between two of its calls: a tool, by timing), calls
    again, then runs the step `summarize` around a third call. A span beside a tool the timing
    found is no agent's peer: summarize is no run, all of it the app's."""
    def llm() -> None:
        with tracer.start_as_current_span("complete", attributes={
                "zeta.span.type": "llm", "zeta.model": "m"}):
            pass

    with tracer.start_as_current_span("handle_request"):
        llm()
        with tracer.start_as_current_span("lookup"):
            pass
        llm()
        with tracer.start_as_current_span("summarize"):
            llm()


def test_a_step_beside_a_tool_found_by_timing_is_its_agents_work(tmp_path: Path) -> None:
    assert _agents(_report(tmp_path, _spans(loop_step_traffic))) == {SERVICE: {
        "runs": 1, "tools": {"lookup": {"ok": 1, "error": 0}}, "models": {"m": 3},
        "delegations": []}}


def test_a_conflict_names_the_span_name_only_where_it_says_a_kind() -> None:
    """Kind words that disagree: the conflict names the span name where its affix says a kind
    (`weather.agent`), not where it only says that something ran (`weather.run`)."""
    attrs = {"x.type": "tool", "y.kind": "agent"}
    said = infer(SpanRecord(1, 2, None, "weather.agent", scope_name="s", attributes={
        "x.span.type": "tool"})).conflict
    ran = infer(SpanRecord(1, 2, None, "weather.run", scope_name="s", attributes=attrs)).conflict
    assert said is not None and "span name 'weather.agent'" in said
    assert ran is not None and "span name" not in ran


def breadcrumb_traffic(tracer: Tracer) -> None:
    """A program's span named as a path of breadcrumbs, `ZetaGen > weather` (the program's
    class, then what it runs for), around its model calls (GenAI `chat`) and the tool they ask
    for (`Tool: get_weather`)."""
    def chat() -> None:
        with tracer.start_as_current_span("AI Chat Request", attributes={
                "gen_ai.operation.name": "chat", "gen_ai.request.model": "weather-model"}):
            pass

    with tracer.start_as_current_span("ZetaGen > weather"):
        chat()
        with tracer.start_as_current_span("Tool: get_weather", attributes={
                "tool.name": "get_weather"}):
            pass
        chat()


def test_a_span_named_by_breadcrumbs_is_named_by_the_last(tmp_path: Path) -> None:
    report = _report(tmp_path, _spans(breadcrumb_traffic))
    assert _agents(report) == {"weather": {
        "runs": 1, "tools": {"get_weather": {"ok": 1, "error": 0}},
        "models": {"weather-model": 2}, "delegations": []}}
    assert _pinned_agents(tmp_path, breadcrumb_traffic) == _agents(report)


def agent_switch_traffic(tracer: Tracer) -> None:
    """A session (`session`, no keys) runs `triage` (typed agent: its model, then the tool
    transfer_to_billing, then its model), then switches agents: `switch_agent`, whose keys say
    the agent before (`zeta.previous_agent_label: triage`) and after (`zeta.agent_label:
    billing`), then `billing` runs (its model)."""
    def llm(model: str) -> None:
        with tracer.start_as_current_span("complete", attributes={
                "zeta.span.type": "llm", "zeta.model": model}):
            pass

    with tracer.start_as_current_span("session"):
        with tracer.start_as_current_span("turn", attributes={
                "zeta.span.type": "agent", "zeta.agent.name": "triage"}):
            llm("triage-model")
            with tracer.start_as_current_span("transfer_to_billing", attributes={
                    "zeta.span.type": "tool"}):
                pass
            llm("triage-model")
        with tracer.start_as_current_span("switch_agent", attributes={
                "zeta.previous_agent_label": "triage", "zeta.agent_label": "billing"}):
            pass
        with tracer.start_as_current_span("turn", attributes={
                "zeta.span.type": "agent", "zeta.agent.name": "billing"}):
            llm("billing-model")


def test_a_span_switching_agents_is_no_run(tmp_path: Path) -> None:
    report = _report(tmp_path, _spans(agent_switch_traffic))
    assert _agents(report) == {
        "triage": {"runs": 1, "tools": {"transfer_to_billing": {"ok": 1, "error": 0}},
                   "models": {"triage-model": 2}, "delegations": [("triage", "billing")]},
        "billing": {"runs": 1, "tools": {}, "models": {"billing-model": 1}, "delegations": []},
    }
    assert _pinned_agents(tmp_path, agent_switch_traffic) == _agents(report)


@pytest.mark.parametrize(("name", "kind"), [
    ("openai/gpt-4o", "llm"),  # a provider, then its model: a model call
    ("myteam/openai", "other"),  # a model-like second half is no provider: nothing said
])
def test_a_provider_slash_model_span_name_is_a_model_call(name: str, kind: str) -> None:
    assert _inferred_of(name).kind == kind


def _timed(tracer: Tracer, name: str, start: int, end: int, **attributes: Any) -> None:
    """A finished span of `name` under the current one, from `start` to `end` (ns)."""
    tracer.start_span(name, start_time=start, attributes=attributes).end(end_time=end)


def parallel_calls_traffic(tracer: Tracer) -> None:
    """`orders` opens two model calls that stay open (streams, from 10 and 20 to 900 ns), a
    third that answers at once (30 to 40), runs `lookup_order` (50 to 60) and calls its model
    again (70 to 80): lookup_order runs after the third call and before the fourth."""
    def chat(start: int, end: int) -> None:
        _timed(tracer, "chat orders-model", start, end, **{
            "gen_ai.operation.name": "chat", "gen_ai.request.model": "orders-model"})

    root = tracer.start_span("orders", start_time=1)
    with trace.use_span(root, end_on_exit=False):
        chat(10, 900)
        chat(20, 900)
        chat(30, 40)
        _timed(tracer, "lookup_order", 50, 60)
        chat(70, 80)
    root.end(end_time=1000)


def test_a_function_after_the_last_of_parallel_calls_to_answer_is_their_tool(
        tmp_path: Path) -> None:
    report = _report(tmp_path, _spans(parallel_calls_traffic))
    assert _agents(report)["orders"]["tools"] == {"lookup_order": {"ok": 1, "error": 0}}


def wrapped_function_traffic(tracer: Tracer) -> None:
    """`weather` (typed agent) calls its model, then runs `get_weather` (typed only as a
    function) inside a step span of its own (`step`, no keys): a tool its agent ran, two
    spans down."""
    with tracer.start_as_current_span("weather", attributes={"zeta.span.type": "agent"}):
        with tracer.start_as_current_span("complete", attributes={
                "zeta.span.type": "llm", "zeta.model": "weather-model"}):
            pass
        with tracer.start_as_current_span("step"), tracer.start_as_current_span(
                "get_weather", attributes={"zeta.span.type": "function"}):
            pass


def test_a_function_its_agent_ran_through_a_step_span_is_a_tool(tmp_path: Path) -> None:
    report = _report(tmp_path, _spans(wrapped_function_traffic))
    assert _agents(report) == {"weather": {
        "runs": 1, "tools": {"get_weather": {"ok": 1, "error": 0}},
        "models": {"weather-model": 1}, "delegations": []}}


def test_a_genai_tool_key_alone_tells_a_tool() -> None:
    """No table claims a span with `gen_ai.tool.name` and no operation: its GenAI key says
    tool (inference reads it, named by it)."""
    from otel_agentcov.records import SpanRecord
    from otel_agentcov.semconv.inference import BY_GENAI, infer

    found = infer(SpanRecord(trace_id=1, span_id=2, parent_id=None, name="lookup", start_ns=0,
                             end_ns=1, status_code=0, attributes={"gen_ai.tool.name": "lookup"}))
    assert (found.kind, found.evidence, found.name) == ("tool", BY_GENAI, "lookup")


def test_a_failure_message_is_never_written_into_the_pinned_file(tmp_path: Path) -> None:
    """A short failure text (`zeta.failure: <message>`) fails the call, but only a flag word
    (`ERROR`) is pinned as a value: a message may carry content."""
    message = "db down for 7c1e"

    def traffic(tracer: Tracer) -> None:
        with tracer.start_as_current_span("weather", attributes={"zeta.span.type": "agent"}):
            with tracer.start_as_current_span("lookup", attributes={
                    "zeta.span.type": "tool", "zeta.failure": message}):
                pass

    spec = tmp_path / "agentcov.yaml"
    traces = write_jsonl(tmp_path / "zeta.jsonl", _spans(traffic))
    assert main(["explain", str(traces), "--write", str(spec)]) == 0
    assert message not in spec.read_text()
    assert _agents(_report(tmp_path, _spans(traffic)))["weather"]["tools"] == {
        "lookup": {"ok": 0, "error": 1}}


def thrown_traffic(tracer: Tracer) -> None:
    """No kind word on the runs or the tools: the decorated function `concierge` calls its
    model (GenAI keys, its output asking for `find_room`), then `find_room`, then the model
    again. Trace 1: find_room records the exception it raised and the function caught (status
    left unset). Trace 2: find_room records one and sets OK (failed all the same: an exception
    event fails a span whatever its status), and the run records an exception of its own
    (status unset)."""
    for second in (False, True):
        with tracer.start_as_current_span("concierge") as run:
            with tracer.start_as_current_span("completion", attributes={
                    "gen_ai.request.model": "desk-model",
                    "gen_ai.completion.0.tool_calls.0.name": "find_room",
                    "gen_ai.completion.0.tool_calls.0.arguments": CANARY}):
                pass
            with tracer.start_as_current_span("find_room") as tool:
                tool.record_exception(LookupError(CANARY))
                if second:
                    tool.set_status(Status(StatusCode.OK))
            with tracer.start_as_current_span("completion", attributes={
                    "gen_ai.request.model": "desk-model"}):
                pass
            if second:
                run.record_exception(TimeoutError(CANARY))


THROWN_AGENTS = {"concierge": {
    "runs": 2, "tools": {"find_room": {"ok": 0, "error": 2}}, "models": {"desk-model": 4},
    "delegations": []}}


def test_an_exception_event_fails_the_run_and_the_tool_the_structure_found(
        tmp_path: Path) -> None:
    report = _report(tmp_path, _spans(thrown_traffic))
    assert _agents(report) == THROWN_AGENTS
    assert report["spans"]["inferred"] == {
        "agent.structure": 2, "llm.genai": 4, "tool.structure": 2}
    concierge = report["agents"]["concierge"]
    assert concierge["runs"]["errors"] == 1  # trace 2's run; trace 1's recovered from the tool
    assert concierge["boundaries"]["tool_failure"] and concierge["boundaries"]["error_path"]


def test_explain_pins_the_exception_events_that_failed_structures_runs_and_tools(
        capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    traces = write_jsonl(tmp_path / "zeta.jsonl", _spans(thrown_traffic))
    pinned = tmp_path / "agentcov.yaml"
    assert main(["explain", str(traces), "--write", str(pinned)]) == 0
    assert "loading it gives the same report as inference" in capsys.readouterr().err
    text = pinned.read_text()
    assert CANARY not in text
    found = {e["match"].get("name"): e for e in yaml.safe_load(text)["conventions"]}
    assert (found["concierge"]["kind"], found["concierge"]["error"]) == (
        "agent", {"exception": True})
    assert (found["find_room"]["kind"], found["find_room"]["error"]) == (
        "tool", {"exception": True})
    out = tmp_path / "pinned.json"
    assert main(["coverage", str(traces), "--spec", str(pinned), "--no-inference", "--format",
                 "json", "--output", str(out)]) == 0
    report = json.loads(out.read_text())
    assert _agents(report) == THROWN_AGENTS
    assert report["agents"]["concierge"]["runs"]["errors"] == 1


def test_explain_pins_the_failure_flag_that_failed_a_structures_tool(
        capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    """`find_room` (no evidence: the structure makes it the tool the model asked for) says it
    failed by a flag (`zeta.failed: true`) in the first trace only: pinned as that key."""
    def traffic(tracer: Tracer) -> None:
        for failed in (True, False):
            with tracer.start_as_current_span("concierge"):
                with tracer.start_as_current_span("completion", attributes={
                        "gen_ai.request.model": "desk-model",
                        "gen_ai.completion.0.tool_calls.0.name": "find_room"}):
                    pass
                with tracer.start_as_current_span("find_room", attributes={
                        "zeta.failed": failed}):
                    pass

    expected = {"concierge": {"runs": 2, "tools": {"find_room": {"ok": 1, "error": 1}},
                              "models": {"desk-model": 2}, "delegations": []}}
    assert _agents(_report(tmp_path, _spans(traffic))) == expected
    traces = write_jsonl(tmp_path / "zeta.jsonl", _spans(traffic))
    pinned = tmp_path / "agentcov.yaml"
    assert main(["explain", str(traces), "--write", str(pinned)]) == 0
    assert "loading it gives the same report as inference" in capsys.readouterr().err
    found = {e["match"].get("name"): e for e in yaml.safe_load(pinned.read_text())["conventions"]}
    assert (found["find_room"]["kind"], found["find_room"]["error"]) == ("tool", "zeta.failed")


@pytest.mark.parametrize(("status", "error", "limit"), [
    (StatusCode.UNSET.value, "MaxTurnsExceeded", "max_steps"),
    (StatusCode.OK.value, "MaxTurnsExceeded", "max_steps"),  # an OK status does not hide it
])
def test_a_span_with_no_evidence_keeps_what_its_exception_event_says(
        status: int, error: str | None, limit: str | None) -> None:
    """A span with no evidence of its own (`other`, a candidate) fails by its exception event as
    an inferred call or run does, with the limit its message signals: should the structure make
    it a run, that run ran out of steps."""
    record = SpanRecord(1, 2, None, "concierge", scope_name="zeta.sdk", status_code=status,
                        events=[("exception", {"exception.type": "agents.MaxTurnsExceeded",
                                               "exception.message": "Max turns (3) exceeded"})])
    step = Classifier().classify(record)
    assert (step.kind, step.inferred, step.error, step.limit) == (
        "other", "candidate", error, limit)


def path_and_message_named_traffic(tracer: Tracer) -> None:
    """No kind attribute at all: an agent span named by a code path (`agent::weather`, as Rust's
    `tracing` names spans), its model calls (`gen_ai.request.model`) and a tool span named by a
    log message (`Running tool: get_time`); twice, the second call failing."""
    for failing in (False, True):
        with tracer.start_as_current_span("agent::weather"):
            with tracer.start_as_current_span("chat", attributes={
                    "gen_ai.request.model": "weather-model"}):
                pass
            with tracer.start_as_current_span("Running tool: get_time") as tool:
                if failing:
                    tool.set_status(Status(StatusCode.ERROR, "no clock"))


def test_path_and_message_named_spans_are_an_agent_and_its_tool(tmp_path: Path) -> None:
    expected = {"weather": {"runs": 2, "tools": {"get_time": {"ok": 1, "error": 1}},
                            "models": {"weather-model": 2}, "delegations": []}}
    assert _agents(_report(tmp_path, _spans(path_and_message_named_traffic))) == expected
    assert _pinned_agents(tmp_path, path_and_message_named_traffic) == expected


def test_the_written_out_whitespace_is_pythons() -> None:
    """Names are read as Python's `re` reads `\\s`: the ranges written out for RE2 are exactly
    the code points `str.isspace()` is true of."""
    written = {c for a, b in SPACE_RANGES for c in range(a, b + 1)}
    assert written == {c for c in range(0x110000) if chr(c).isspace()}


def unnamed_query_traffic(tracer: Tracer) -> None:
    """Spans with no attributes at all: the app's span named after its agent around
    `agent.query`, whose steps call the model (`complete`) and run tools (`tool.<name>`); twice,
    the second time get_time failing."""
    for failing in (False, True):
        with tracer.start_as_current_span("weather"), tracer.start_as_current_span(
                "agent.query"):
            with tracer.start_as_current_span("step"):
                with tracer.start_as_current_span("complete"):
                    pass
                with tracer.start_as_current_span("tool.get_time") as tool:
                    if failing:
                        tool.set_status(Status(StatusCode.ERROR, "no clock"))
            with tracer.start_as_current_span("step"), tracer.start_as_current_span("complete"):
                pass


def test_an_agent_span_that_says_only_that_it_ran_is_named_by_its_app(tmp_path: Path) -> None:
    """`agent.query` names no agent `query`: the run is the app span's around it."""
    expected = {"weather": {"runs": 2, "tools": {"get_time": {"ok": 1, "error": 1}},
                            "models": {}, "delegations": []}}
    assert _agents(_report(tmp_path, _spans(unnamed_query_traffic))) == expected
    assert _pinned_agents(tmp_path, unnamed_query_traffic) == expected


def agent_object_traffic(tracer: Tracer) -> None:
    """An agent object's methods traced as `Class.instance.method`, each with the agent's GenAI
    name, under an app span that is never exported: set-up (`initialize`, `attach_llm`), then
    `generate_str` around `generate`, the loop calling the model twice (GenAI spans, each
    inside an executor's span) with
    get_weather run between (a tool span around the agent object's own `call_tool`), then
    `shutdown`. In a second trace `billing`'s object is set up and nothing else happens."""
    agent = {"gen_ai.agent.name": "weather"}
    for trace_id, name in ((0xA1, "weather"), (0xA2, "billing")):
        hidden = trace.set_span_in_context(trace.NonRecordingSpan(SpanContext(
            trace_id, 0xB2, is_remote=False, trace_flags=TraceFlags(1))))
        with tracer.start_as_current_span(f"Agent.{name}.initialize", context=hidden,
                                          attributes={"gen_ai.agent.name": name}):
            pass
        if name == "billing":
            break
        with tracer.start_as_current_span("Agent.weather.attach_llm", context=hidden,
                                          attributes={"zeta.llm.class": "ZetaLLM"}):
            pass
        with tracer.start_as_current_span("ZetaLLM.weather.generate_str", context=hidden,
                                          attributes={**agent, "gen_ai.request.model": "m1"}):
            with tracer.start_as_current_span("ZetaLLM.weather.generate", attributes=agent):
                for turn in (1, 2):  # each call through the object's executor
                    with tracer.start_as_current_span("ZetaExecutor.execute"), (
                            tracer.start_as_current_span("chat weather-model", attributes={
                                "gen_ai.operation.name": "chat",
                                "gen_ai.output.messages": CANARY,
                                "gen_ai.request.model": "weather-model"})):
                        pass
                    if turn == 1:
                        tool = {**agent, "gen_ai.tool.name": "get_weather"}
                        with tracer.start_as_current_span("ZetaLLM.weather.call_tool",
                                                          attributes=tool):
                            with tracer.start_as_current_span("Agent.weather.call_tool",
                                                              attributes=tool):
                                pass
        with tracer.start_as_current_span("Agent.weather.shutdown", context=hidden,
                                          attributes=agent):
            pass


def test_an_agent_objects_methods_are_one_run(tmp_path: Path) -> None:
    """The loop around the model calls is the run (no call of its own); the object's other
    methods, with nothing under them, are its context while a run of it does work, and a run
    where nothing else happens (`billing`) stays a run."""
    expected = {"weather": {"runs": 1, "tools": {"get_weather": {"ok": 1, "error": 0}},
                            "models": {"weather-model": 2}, "delegations": []},
                "billing": {"runs": 1, "tools": {}, "models": {}, "delegations": []}}
    assert _agents(_report(tmp_path, _spans(agent_object_traffic))) == expected
    assert _pinned_agents(tmp_path, agent_object_traffic) == expected


def actor_turns_traffic(tracer: Tracer) -> None:
    """An actor framework tracing an agent's turns, not its model calls: the task span named
    after the library (`zeta.task`, from the scope `zeta.sdk`), the agent in `actor_name`; two
    turns with get_weather run between them, then one turn after a failing lookup. In a second
    trace the model calls are traced, inside a `zeta.turn` each: there a turn is no call."""
    for tools in (("get_weather",), ("lookup",)):
        with tracer.start_as_current_span("zeta.task", attributes={
                "actor_name": "weather", "task.description": CANARY}):
            for tool in tools:
                with tracer.start_as_current_span("zeta.turn", attributes={"turn_number": 0}):
                    pass
                with tracer.start_as_current_span("zeta.tool_call", attributes={
                        "tool_name": tool}) as span:
                    if tool == "lookup":
                        span.set_status(Status(StatusCode.ERROR))
            with tracer.start_as_current_span("zeta.turn", attributes={"turn_number": 1}):
                pass
    with tracer.start_as_current_span("zeta.task", attributes={"actor_name": "billing"}):
        with tracer.start_as_current_span("zeta.turn"), tracer.start_as_current_span(
                "chat", attributes={"gen_ai.operation.name": "chat",
                                    "gen_ai.request.model": "billing-model"}):
            pass


def test_an_actors_turns_are_its_model_calls_where_no_call_is_traced(tmp_path: Path) -> None:
    expected = {"weather": {"runs": 2, "tools": {"get_weather": {"ok": 1, "error": 0},
                                                 "lookup": {"ok": 0, "error": 1}},
                            "models": {}, "delegations": []},
                "billing": {"runs": 1, "tools": {}, "models": {"billing-model": 1},
                            "delegations": []}}
    report = _report(tmp_path, _spans(actor_turns_traffic))
    assert _agents(report) == expected
    # a model call per turn, the tool between (the runs' paths at the default granularity)
    assert report["agents"]["weather"]["paths"]["top"] == [
        {"path": ["llm", "tool", "llm"], "count": 2}]
    assert _pinned_agents(tmp_path, actor_turns_traffic) == expected


def test_kind_keys_that_agree_pin_the_first() -> None:
    """Only where kind keys disagree does the span's own type (`x.span.type`) win over its
    context's (`x.entity.type`); where they agree the span's first kind key is the one pinned."""
    agree = infer(SpanRecord(1, 2, None, "step", scope_name="s", attributes={
        "x.entity.type": "tool", "x.span.type": "tool"}))
    assert (agree.kind, agree.key) == ("tool", "x.entity.type")
    differ = infer(SpanRecord(1, 2, None, "step", scope_name="s", attributes={
        "x.entity.type": "agent", "x.span.type": "tool"}))
    assert (differ.kind, differ.key) == ("tool", "x.span.type")


def class_method_traffic(tracer: Tracer) -> None:
    """An SDK tracing its agent class's private methods: the app's span named after its agent
    around `Agent._run_internal`, in which `generate` calls the model (named in
    `inputs.model_name`) and `Agent._execute_tool` runs the tool `inputs.tool_name` names."""
    with tracer.start_as_current_span("weather"), tracer.start_as_current_span(
            "Agent._run_internal", attributes={"inputs.input": CANARY}):
        for tool in ("get_weather", None):
            with tracer.start_as_current_span("generate", attributes={
                    "inputs.model_name": "weather-model"}):
                pass
            if tool is not None:
                with tracer.start_as_current_span("Agent._execute_tool", attributes={
                        "inputs.tool_name": tool}):
                    pass


def test_a_class_method_span_names_neither_agent_nor_tool(tmp_path: Path) -> None:
    """`_run_internal` names no agent (the app's span of its name does) and `_execute_tool`
    no tool (its tool-name key does)."""
    expected = {"weather": {"runs": 1, "tools": {"get_weather": {"ok": 1, "error": 0}},
                            "models": {"weather-model": 2}, "delegations": []}}
    assert _agents(_report(tmp_path, _spans(class_method_traffic))) == expected
    assert _pinned_agents(tmp_path, class_method_traffic) == expected


@pytest.mark.parametrize("operation", ["call_llm", "invoke_model"])
def test_a_genai_operation_saying_it_called_a_model_is_a_model_call(operation: str) -> None:
    """An operation the conventions do not define still says a kind the way a span name does
    (ADK's and any-agent's `call_llm`); the model and its usage are then the call's."""
    found = infer(SpanRecord(1, 2, None, "step", scope_name="s", attributes={
        "gen_ai.operation.name": operation, "gen_ai.request.model": "m",
        "gen_ai.usage.input_tokens": 3}))
    assert (found.kind, found.key, found.value) == ("llm", "gen_ai.operation.name", operation)


def _chat(tracer: Tracer, model: str, agent: str | None = None, failed: bool = False) -> None:
    """A GenAI model call, naming the agent it ran for when `agent` is given."""
    attributes = {"gen_ai.operation.name": "chat", "gen_ai.request.model": model}
    with tracer.start_as_current_span("chat", attributes={
            **attributes, **({"gen_ai.agent.name": agent} if agent else {})}) as span:
        if failed:
            span.set_status(Status(StatusCode.ERROR, "HTTP 500"))


def _leaves(tracer: Tracer, *names: str) -> None:
    """Spans of these names, one after the other, nothing on or under them."""
    for name in names:
        with tracer.start_as_current_span(name):
            pass


def _execute_tool(tracer: Tracer, tool: str) -> Any:
    return tracer.start_as_current_span("execute_tool", attributes={
        "gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": tool})


def named_calls_traffic(tracer: Tracer) -> None:
    """GenAI model calls naming their agent, no span of the agents' runs: in one request
    (`serve`), triage calls its model, runs transfer_to_billing, calls it again, then billing
    calls its own; in a second trace the agent span `orchestrator` runs ask_billing, inside which
    billing's model call (named by it) is billing's run."""
    with tracer.start_as_current_span("serve"):
        _chat(tracer, "triage-model", "triage")
        with _execute_tool(tracer, "transfer_to_billing"):
            pass
        _chat(tracer, "triage-model", "triage")
        _chat(tracer, "billing-model", "billing")
    with tracer.start_as_current_span("invoke_agent orchestrator", attributes={
            "gen_ai.operation.name": "invoke_agent", "gen_ai.agent.name": "orchestrator"}):
        _chat(tracer, "orchestrator-model", "orchestrator")
        with _execute_tool(tracer, "ask_billing"):
            _chat(tracer, "billing-model", "billing")
        _chat(tracer, "orchestrator-model", "orchestrator")


def test_model_calls_naming_their_agent_are_its_runs(tmp_path: Path) -> None:
    """Each agent's calls are its run, the tools between them its own; the hand-off tool and
    the agent called as a tool are delegations; `serve`, which runs them, is no agent."""
    assert _agents(_report(tmp_path, _spans(named_calls_traffic))) == {
        "triage": {"runs": 1, "tools": {"transfer_to_billing": {"ok": 1, "error": 0}},
                   "models": {"triage-model": 2}, "delegations": [("triage", "billing")]},
        "billing": {"runs": 2, "tools": {}, "models": {"billing-model": 2}, "delegations": []},
        "orchestrator": {"runs": 1, "tools": {"ask_billing": {"ok": 1, "error": 0}},
                         "models": {"orchestrator-model": 2},
                         "delegations": [("orchestrator", "billing")]},
    }


def quoted_names_traffic(tracer: Tracer) -> None:
    """Runs named in quotes after the kind word, a word after them (`Agent: 'weather'
    generate`), with no attribute: weather calls its model, get_weather, its model again."""
    with tracer.start_as_current_span("zeta.app"), tracer.start_as_current_span(
            "Agent: 'weather' generate"):
        _chat(tracer, "weather-model")
        with tracer.start_as_current_span("Tool: 'get_weather' call"):
            pass
        _chat(tracer, "weather-model")


def test_a_quoted_name_after_the_kind_word_names_the_run(tmp_path: Path) -> None:
    expected = {"weather": {"runs": 1, "tools": {"get_weather": {"ok": 1, "error": 0}},
                            "models": {"weather-model": 2}, "delegations": []}}
    assert _agents(_report(tmp_path, _spans(quoted_names_traffic))) == expected
    assert _pinned_agents(tmp_path, quoted_names_traffic) == expected


def last_call_failed_traffic(tracer: Tracer) -> None:
    """Two runs of `weather.agent` whose last (only) model call failed (HTTP 500): the first's
    span ends with no status, the second's OK (it handled the failure)."""
    for status in (None, StatusCode.OK):
        with tracer.start_as_current_span("weather.agent") as span:
            _chat(tracer, "gpt-500", failed=True)
            if status is not None:
                span.set_status(Status(status))


def test_a_run_ending_on_a_failed_call_failed_unless_its_span_handled_it(
        tmp_path: Path) -> None:
    report = _report(tmp_path, _spans(last_call_failed_traffic))
    assert report["agents"]["weather"]["runs"] == {**report["agents"]["weather"]["runs"],
                                                   "count": 2, "errors": 1}


def chain_runner_traffic(tracer: Tracer) -> None:
    """A framework's components typed in `zeta.component`: in one request (`serve`), the chain
    `triage` maps its input (an idle `Lambda`) and runs the graph `ReAct` (its model, the tool
    transfer_to_billing, its model again); then the chain `billing` maps its input and calls
    its model once."""
    def component(name: str, kind: str) -> Any:
        return tracer.start_as_current_span(name, attributes={"zeta.component": kind})

    with tracer.start_as_current_span("serve"):
        with component("triage", "Chain"):
            with component("Lambda", "Lambda"):
                pass
            with component("ReAct", "Graph"):
                with component("ChatModel", "ChatModel"):
                    pass
                with component("transfer_to_billing", "Tool"):
                    pass
                with component("ChatModel", "ChatModel"):
                    pass
        with component("billing", "Chain"):
            with component("Lambda", "Lambda"):
                pass
            with component("ChatModel", "ChatModel"):
                pass


def test_a_chain_running_the_loop_beside_idle_steps_is_the_run(tmp_path: Path) -> None:
    """The named chain around the graph is the agent (its idle input mapping beside the graph
    changes nothing), and the chain beside it that calls a model is an agent too."""
    expected = {"triage": {"runs": 1, "tools": {"transfer_to_billing": {"ok": 1, "error": 0}},
                           "models": {}, "delegations": [("triage", "billing")]},
                "billing": {"runs": 1, "tools": {}, "models": {}, "delegations": []}}
    assert _agents(_report(tmp_path, _spans(chain_runner_traffic))) == expected


def served_calls_traffic(tracer: Tracer) -> None:
    """An app's request (`serve`) calling two models, no agent named anywhere; the first
    call's turn runs a call of another model inside it (a nested pipeline's)."""
    with tracer.start_as_current_span("serve"):
        with tracer.start_as_current_span("llm", attributes={
                "gen_ai.operation.name": "chat", "gen_ai.request.model": "orchestrator-model"}):
            with tracer.start_as_current_span("turn"):
                _chat(tracer, "billing-model")
        _chat(tracer, "orchestrator-model")


def test_a_request_calling_models_is_no_agent_and_another_models_call_counts(
        tmp_path: Path) -> None:
    """The calls count for the service (no agent named): `serve` is a request, no agent; the
    call inside a call of another model is a call of its own, not the same call twice."""
    assert _agents(_report(tmp_path, _spans(served_calls_traffic))) == {
        SERVICE: {"runs": 1, "tools": {}, "models": {"orchestrator-model": 2,
                                                      "billing-model": 1}, "delegations": []}}


def failed_request_traffic(tracer: Tracer) -> None:
    """A client that turns a failed request into an error reply: the model call's span ends
    with no status, its HTTP request's span under it in error (HTTP 500). Then a call whose
    first request failed and whose retry answered."""
    for statuses in ((StatusCode.ERROR,), (StatusCode.ERROR, StatusCode.OK)):
        with tracer.start_as_current_span("weather.agent"), tracer.start_as_current_span(
                "chat", attributes={"gen_ai.operation.name": "chat",
                                    "gen_ai.request.model": "weather-model"}):
            for status in statuses:
                with tracer.start_as_current_span("POST", attributes={
                        "http.response.status_code": 500 if status == StatusCode.ERROR
                        else 200}) as span:
                    span.set_status(Status(status))


def test_a_model_call_whose_last_request_failed_failed(tmp_path: Path) -> None:
    runs = _report(tmp_path, _spans(failed_request_traffic))["agents"]["weather"]["runs"]
    assert (runs["count"], runs["errors"]) == (2, 1)


def bracketed_names_traffic(tracer: Tracer) -> None:
    """Runs and tools named in brackets after their kind word (`Agent[weather]`,
    `tool(get_weather)`) and after a separator (`Agent - billing`), no attribute."""
    for agent, tool in (("Agent[weather]", "tool(get_weather)"),
                        ("Agent - billing", "tool: lookup_order()")):
        with tracer.start_as_current_span("zeta.app"), tracer.start_as_current_span(agent):
            _chat(tracer, "m")
            with tracer.start_as_current_span(tool):
                pass
            _chat(tracer, "m")


def test_names_in_brackets_and_after_separators_name_runs_and_tools(tmp_path: Path) -> None:
    """Out of the box and with explain's file, which pins each form as it was read."""
    expected = {
        "weather": {"runs": 1, "tools": {"get_weather": {"ok": 1, "error": 0}},
                    "models": {"m": 2}, "delegations": []},
        "billing": {"runs": 1, "tools": {"lookup_order": {"ok": 1, "error": 0}},
                    "models": {"m": 2}, "delegations": []}}
    assert _agents(_report(tmp_path, _spans(bracketed_names_traffic))) == expected
    assert _pinned_agents(tmp_path, bracketed_names_traffic) == expected


def request_runs_traffic(tracer: Tracer) -> None:
    """An app's request (`serve`) running two library spans of no kind (`guard`), each named in
    `guard.name` and calling a model: no span says agent."""
    with tracer.start_as_current_span("serve"):
        for agent in ("weather", "billing"):
            with tracer.start_as_current_span("guard", attributes={"guard.name": agent}):
                _chat(tracer, f"{agent}-model")


def test_what_a_request_runs_is_the_run_named_by_its_own_key(tmp_path: Path) -> None:
    """The request is no agent; each span under it that calls a model is a run, named by the
    attribute that names what the span name says it is (`guard.name` on `guard`)."""
    expected = {agent: {"runs": 1, "tools": {}, "models": {f"{agent}-model": 1},
                        "delegations": []} for agent in ("weather", "billing")}
    assert _agents(_report(tmp_path, _spans(request_runs_traffic))) == expected
    assert _pinned_agents(tmp_path, request_runs_traffic) == expected


def tracer_system_traffic(tracer: Tracer) -> None:
    """A tracer putting its own name in `gen_ai.system` on every span (`zeta-otel`): the run
    `weather` around two model calls (their own GenAI operation) and a tool; then a call whose
    only GenAI key is `gen_ai.system` naming a provider."""
    system = {"gen_ai.system": "zeta-otel"}
    with tracer.start_as_current_span("weather", attributes=system):
        for _ in range(2):
            with tracer.start_as_current_span("chat_completion", attributes=system):
                pass
        with tracer.start_as_current_span("get_weather", attributes={
                **system, "gen_ai.operation.name": "execute_tool",
                "gen_ai.tool.name": "get_weather"}):
            pass
    with tracer.start_as_current_span("billing"), tracer.start_as_current_span(
            "request", attributes={"gen_ai.system": "aws.bedrock"}):
        pass


def test_a_tracers_own_name_in_gen_ai_system_says_no_model_call(tmp_path: Path) -> None:
    """`gen_ai.system` alone says a model call only where it names a model provider."""
    report = _report(tmp_path, _spans(tracer_system_traffic))
    assert _agents(report)["weather"] == {
        "runs": 1, "tools": {"get_weather": {"ok": 1, "error": 0}}, "models": {},
        "delegations": []}
    assert report["spans"]["by_kind"]["llm"] == 3


def function_invocations_traffic(tracer: Tracer) -> None:
    """Every function a kernel runs spanned `function_invocation <plugin>-<function>`, a prompt
    function with no plugin as `null-<name>`: triage calls its model, runs
    `TriageTools-transfer_to_billing`, calls it again; then billing calls its model, all in
    the app's `serve`."""
    def function(name: str) -> Any:
        return tracer.start_as_current_span(f"function_invocation {name}")

    with tracer.start_as_current_span("serve"):
        with function("null-triage"):
            _chat(tracer, "triage-model")
            with function("TriageTools-transfer_to_billing"):
                pass
            _chat(tracer, "triage-model")
        with function("null-billing"):
            _chat(tracer, "billing-model")


def test_functions_invoked_are_runs_or_tools_as_the_trace_shows(tmp_path: Path) -> None:
    """A function owning model calls is a run, one its run calls a tool; the plugin's
    `transfer_to_billing` hands over to billing."""
    expected = {
        "triage": {"runs": 1, "tools": {"TriageTools-transfer_to_billing": {"ok": 1, "error": 0}},
                   "models": {"triage-model": 2}, "delegations": [("triage", "billing")]},
        "billing": {"runs": 1, "tools": {}, "models": {"billing-model": 1}, "delegations": []}}
    assert _agents(_report(tmp_path, _spans(function_invocations_traffic))) == expected
    assert _pinned_agents(tmp_path, function_invocations_traffic) == expected


def agent_setup_traffic(tracer: Tracer) -> None:
    """The agent object built in a trace of its own (`Agent.init`, typed agent, named by its
    component's key), then run in another: its model call."""
    typed = {"zeta.component": "Agent", "zeta.name": "weather"}
    with tracer.start_as_current_span("Agent.init", attributes=typed):
        pass
    with tracer.start_as_current_span("Agent.run", attributes=typed):
        _chat(tracer, "weather-model")


def test_building_an_agent_object_is_no_run(tmp_path: Path) -> None:
    assert _agents(_report(tmp_path, _spans(agent_setup_traffic))) == {"weather": {
        "runs": 1, "tools": {}, "models": {"weather-model": 1}, "delegations": []}}


def lifecycle_traffic(tracer: Tracer) -> None:
    """An emitter recording each call's lifecycle events as spans (`x.chat.start-1`, ...)
    under a span of its own named by class and instance id, in the app's `serve`: a model call,
    the tool `lookup` (its `error` phase: it failed, its span too), a model call again."""
    def call(wrapper: str, stem: str, phases: tuple[str, ...], failed: bool = False) -> None:
        with tracer.start_as_current_span(wrapper) as span:
            for phase in phases:
                with tracer.start_as_current_span(f"{stem}.{phase}-1"):
                    pass
            if failed:
                span.set_status(Status(StatusCode.ERROR))

    with tracer.start_as_current_span("serve"):
        call("zeta-ChatModel-1f2e3d4c", "backend.zeta.chat", ("start", "success", "finish"))
        call("zeta-DynamicTool-5a6b7c8d", "tool.dynamic.lookup", ("start", "error", "finish"),
             failed=True)
        call("zeta-ChatModel-9e8f7a6b", "backend.zeta.chat", ("start", "success", "finish"))


def test_a_calls_lifecycle_events_make_the_span_above_them_that_call(tmp_path: Path) -> None:
    """Two model calls and the failed tool, counted for the service; no event is a call."""
    expected = {SERVICE: {"runs": 1, "tools": {"lookup": {"ok": 0, "error": 1}}, "models": {},
                          "delegations": []}}
    report = _report(tmp_path, _spans(lifecycle_traffic))
    assert _agents(report) == expected
    assert report["spans"]["by_kind"]["llm"] == 2
    assert _pinned_agents(tmp_path, lifecycle_traffic) == expected


def named_call_edges_traffic(tracer: Tracer) -> None:
    """Where model calls naming their agent are no turns of their own. Trace 1: agent A runs
    the tool ask_billing, inside which a helper span runs billing's call, then A runs refund.
    Trace 2: a workflow's two nodes, each with a call naming A (the first ending on a tool
    request, a tool after it). Trace 3: one call recorded twice, the outer naming the model's
    alias, the inner (under a retry span) its dated name."""
    with tracer.start_as_current_span("invoke_agent A", attributes={
            "gen_ai.operation.name": "invoke_agent", "gen_ai.agent.name": "A"}):
        with _execute_tool(tracer, "ask_billing"), tracer.start_as_current_span("billing_helper"):
            _chat(tracer, "billing-model", "billing")
        with _execute_tool(tracer, "refund"):
            pass
    with tracer.start_as_current_span("workflow"):
        with tracer.start_as_current_span("node1"):
            with tracer.start_as_current_span("chat", attributes={
                    "gen_ai.operation.name": "chat", "gen_ai.request.model": "m",
                    "gen_ai.agent.name": "B", "gen_ai.response.finish_reasons": ["tool_calls"]}):
                pass
            with _execute_tool(tracer, "lookup"):
                pass
        with tracer.start_as_current_span("node2"):
            _chat(tracer, "m", "B")
    with tracer.start_as_current_span("invoke_agent C", attributes={
            "gen_ai.operation.name": "invoke_agent", "gen_ai.agent.name": "C"}):
        with tracer.start_as_current_span("chat", attributes={
                "gen_ai.operation.name": "chat", "gen_ai.request.model": "gpt-4o"}):
            with tracer.start_as_current_span("retry"):
                _chat(tracer, "gpt-4o-2024-08-06")


def test_named_calls_start_turns_only_where_another_agent_is_called(tmp_path: Path) -> None:
    """Billing's call under a helper inside A's tool is billing's run, A's delegation, and
    refund stays A's; one agent's calls in two workflow nodes stay one run (the fallback's),
    no budget hit; a call recorded twice under two names of its model is one call."""
    report = _report(tmp_path, _spans(named_call_edges_traffic))
    assert _agents(report) == {
        "A": {"runs": 1, "tools": {"ask_billing": {"ok": 1, "error": 0},
                                   "refund": {"ok": 1, "error": 0}},
              "models": {}, "delegations": [("A", "billing")]},
        "billing": {"runs": 1, "tools": {}, "models": {"billing-model": 1}, "delegations": []},
        "B": {"runs": 1, "tools": {}, "models": {"m": 2}, "delegations": []},
        # a tool no agent ran counts for the service, as before calls named their agent
        SERVICE: {"runs": 1, "tools": {"lookup": {"ok": 1, "error": 0}}, "models": {},
                  "delegations": []},
        "C": {"runs": 1, "tools": {}, "models": {"gpt-4o": 1}, "delegations": []}}
    assert report["agents"]["B"]["boundaries"]["max_steps"] is False


def test_a_template_placeholder_in_braces_is_no_bracketed_name() -> None:
    record = SpanRecord(1, 2, None, "Agent {name}", scope_name="zeta.sdk",
                        attributes={"name": "weather"})
    assert name_affix("Agent {name}") is None or name_affix("Agent {name}")[1] != "name"
    assert infer(record).name == "weather"


@pytest.mark.parametrize(("tool", "hint"), [("transfer_to_billing-agent", "billing-agent"),
                                            ("Triage-transfer_to_billing", "billing"),
                                            ("lookup-order", None)])
def test_a_hand_off_tools_name_whole_or_as_a_plugins_function(tool: str, hint: str | None) -> None:
    """The whole name first (a hyphenated target), then a plugin's function's."""
    record = SpanRecord(1, 2, None, f"execute_tool {tool}", scope_name="s", attributes={
        "gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": tool})
    step = Classifier().classify(record)
    assert (step.tool, step.handoff_tool, step.handoff_hint) == (tool, hint is not None, hint)


def test_a_function_that_ran_ok_handled_its_failed_last_call(tmp_path: Path) -> None:
    """`function_invocation weather` (made a run by the structure) ending OK after its last
    call failed: the run handled it; the same span ending unset failed."""
    def traffic(tracer: Tracer) -> None:
        for status in (StatusCode.OK, StatusCode.UNSET):
            with tracer.start_as_current_span("function_invocation weather") as span:
                _chat(tracer, "m")
                with tracer.start_as_current_span("function_invocation Tools-get_time"):
                    pass
                _chat(tracer, "m", failed=True)
                span.set_status(Status(status))

    runs = _report(tmp_path, _spans(traffic))["agents"]["weather"]["runs"]
    assert (runs["count"], runs["errors"]) == (2, 1)


def loop_beside_a_call_traffic(tracer: Tracer) -> None:
    """`wrapper_traffic`'s user module calling the model itself beside the framework's loop:
    the module is no wrapper around the loop alone."""
    def span(name: str, kind: str, **attrs: Any) -> Any:
        return tracer.start_as_current_span(name, attributes={"zeta.span.type": kind, **attrs})

    with span("Weather.forward", "chain"):
        with span("LM.__call__", "llm", **{"zeta.model": "summary-model"}):
            pass
        with span("ReAct.forward", "chain"):
            with span("LM.__call__", "llm", **{"zeta.model": "weather-model"}):
                pass
            with span("get_weather.__call__", "tool"):
                pass


def test_a_module_calling_a_model_beside_the_loop_leaves_the_loop_the_run(
        tmp_path: Path) -> None:
    assert _agents(_report(tmp_path, _spans(loop_beside_a_call_traffic))) == {
        "ReAct": {"runs": 1, "tools": {"get_weather": {"ok": 1, "error": 0}},
                  "models": {"weather-model": 1}, "delegations": []},
        SERVICE: {"runs": 1, "tools": {}, "models": {"summary-model": 1}, "delegations": []}}


def tool_in_tool_traffic(tracer: Tracer) -> None:
    """An app's `handle_request` calling the model itself, then `weather` (no evidence) calling
    the model and lookup, whose call is recorded twice (a client's span around the server's)."""
    with tracer.start_as_current_span("handle_request"):
        _chat(tracer, "router-model")
        with tracer.start_as_current_span("weather"):
            _chat(tracer, "weather-model")
            with _execute_tool(tracer, "lookup"), _execute_tool(tracer, "lookup"):
                pass


def test_a_tool_call_recorded_twice_still_makes_its_caller_a_run(tmp_path: Path) -> None:
    agents = _agents(_report(tmp_path, _spans(tool_in_tool_traffic)))
    assert agents["weather"] == {"runs": 1, "tools": {"lookup": {"ok": 1, "error": 0}},
                                 "models": {"weather-model": 1}, "delegations": []}


def same_start_wrappers_traffic(tracer: Tracer) -> None:
    """Two inferred model calls naming what they ran for, started at the same instant, the
    outer (`weather`) ending after the inner (`helper`) around the one call: the outermost is
    the run, the inner a wrapper inside it."""
    t0 = 1_700_000_000_000_000_000

    def wrapper(agent: str, end: int) -> Any:
        span = tracer.start_span("complete", start_time=t0, attributes={
            "zeta.span.type": "llm", "gen_ai.agent.name": agent})
        return span, end

    outer, outer_end = wrapper("weather", t0 + 9_000)
    with trace.use_span(outer, end_on_exit=False):
        inner, inner_end = wrapper("helper", t0 + 5_000)
        with trace.use_span(inner, end_on_exit=False):
            leaf = tracer.start_span("complete", start_time=t0 + 1_000, attributes={
                "zeta.span.type": "llm", "zeta.model": "m"})
            leaf.end(end_time=t0 + 2_000)
        inner.end(end_time=inner_end)
    outer.end(end_time=outer_end)


def test_of_wrappers_started_together_the_outermost_is_the_run(tmp_path: Path) -> None:
    assert _agents(_report(tmp_path, _spans(same_start_wrappers_traffic))) == {"weather": {
        "runs": 1, "tools": {}, "models": {"m": 1}, "delegations": []}}


@pytest.mark.parametrize(("name", "stem"), [
    ("backend.zeta.chat.start-1", "backend.zeta.chat"), ("tool.lookup.run.error-2", "tool.lookup"),
    ("backend.zeta.chat.on_end", "backend.zeta.chat"), ("tool.lookup.Started", "tool.lookup"),
    ("weather.agent.start", None), ("tool_call.get_time", None)])
def test_lifecycle_events_whatever_their_spelling(name: str, stem: str | None) -> None:
    """A call's event is its stem, a phase in any case and spelling (an emitter's `start-1`, a
    callback's `on_end`), a qualifier and index if any; a stem of no call's kind is no event."""
    found = infer(SpanRecord(1, 2, 3, name, scope_name="zeta.sdk"))
    assert (found.name, found.kind) == (stem, "other") if stem else found.evidence != "lifecycle"


def test_a_lone_surrogate_in_a_span_name_is_read_as_utf8_replaces_it() -> None:
    """Every span-name pattern runs on RE2, which reads UTF-8: a name holding a lone surrogate
    (any SDK string can) is read with it replaced, never raised on."""
    for name in ("tool.look\udc80up.start-1", "backend.chat.start-1\udc80"):
        replaced = name.encode("utf-8", "replace").decode("utf-8")
        assert infer(SpanRecord(1, 2, 3, name, scope_name="zeta.sdk")) == infer(
            SpanRecord(1, 2, 3, replaced, scope_name="zeta.sdk"))


def managed_agent_traffic(tracer: Tracer) -> None:
    """An agent created through an API, each call a trace of its own (`create_agent`,
    `DeleteAgent`: kind words and a verb, no name), then its turn naming it."""
    for name in ("create_agent", "DeleteAgent", "list agents"):
        with tracer.start_as_current_span(name):
            pass
    with tracer.start_as_current_span("turn", attributes={"agent_name": "weather"}):
        _chat(tracer, "weather-model")


def test_an_agent_managed_through_an_api_is_no_run(tmp_path: Path) -> None:
    """No `create`, `Delete` or `list` agent beside the one that ran; `weather_agent` alone, by
    contrast, is still the run of `weather`."""
    assert _agents(_report(tmp_path, _spans(managed_agent_traffic))) == {"weather": {
        "runs": 1, "tools": {}, "models": {"weather-model": 1}, "delegations": []}}
    assert infer(SpanRecord(1, 2, 3, "create_agent", scope_name="zeta.sdk")).kind == "other"
    assert (infer(SpanRecord(1, 2, 3, "weather_agent", scope_name="zeta.sdk")).kind,
            infer(SpanRecord(1, 2, 3, "weather_agent", scope_name="zeta.sdk")).name) == (
        "agent", "weather")


def managed_beside_named_traffic(tracer: Tracer) -> None:
    """Agents created and deleted through an API (`create_agent`, `Delete_Agent`), then the
    run `weather_agent`: the span-name affix `*_agent` names both."""
    for name in ("create_agent", "Delete_Agent", "list agents"):
        with tracer.start_as_current_span(name):
            pass
    with tracer.start_as_current_span("weather_agent"):
        _chat(tracer, "weather-model")


def test_a_pinned_agent_name_affix_leaves_agents_managed_through_an_api(tmp_path: Path) -> None:
    """`explain --write` pins `*_agent` as an agent, but not over `create_agent`, which
    inference read as no run: loaded, the file reads one agent, as inference did."""
    expected = {"weather": {"runs": 1, "tools": {}, "models": {"weather-model": 1},
                            "delegations": []}}
    assert _agents(_report(tmp_path, _spans(managed_beside_named_traffic))) == expected
    assert _pinned_agents(tmp_path, managed_beside_named_traffic) == expected


def task_agent_traffic(tracer: Tracer) -> None:
    """Agents named by the task they do, a verb an agents API also has (`fetch_agent`: a web
    fetcher; `deploy_agent`), each running a model call and a tool: runs, not API calls."""
    for name in ("fetch_agent", "deploy_agent", "build_agent", "retrieve_agent", "add_agent"):
        with tracer.start_as_current_span(name):
            _chat(tracer, "m")
            with _execute_tool(tracer, f"{name.split('_')[0]}_tool"):
                pass


def test_an_agent_named_by_its_task_is_still_its_run(tmp_path: Path) -> None:
    """Five agents, each named by its verb (as `weather_agent` is `weather`), none folded into
    the service as an agent managed through an API."""
    expected = {verb: {"runs": 1, "tools": {f"{verb}_tool": {"ok": 1, "error": 0}},
                       "models": {"m": 1}, "delegations": []}
                for verb in ("fetch", "deploy", "build", "retrieve", "add")}
    assert _agents(_report(tmp_path, _spans(task_agent_traffic))) == expected
    for name in ("create_agent", "GetAgent", "list_agents", "DeleteAgent", "register agent"):
        assert infer(SpanRecord(1, 2, 3, name, scope_name="zeta.sdk")).kind == "other", name


def tool_phase_traffic(tracer: Tracer) -> None:
    """A tracer recording a tool call's phases as spans under it (`x.tool.blocked_on_user`,
    `x.tool.execution`, typed `tool.<phase>`): in `weather`'s run, get_time runs fine, then
    lookup, whose execution fails (the phase's status; the call's own is unset)."""
    def call(tool: str, failed: bool) -> None:
        with tracer.start_as_current_span("x.tool", attributes={
                "gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": tool}):
            for phase in ("blocked_on_user", "execution"):
                with tracer.start_as_current_span(f"x.tool.{phase}", attributes={
                        "zeta.span.type": f"tool.{phase}"}) as span:
                    if failed and phase == "execution":
                        span.set_status(Status(StatusCode.ERROR))

    with tracer.start_as_current_span("invoke_agent weather", attributes={
            "gen_ai.operation.name": "invoke_agent", "gen_ai.agent.name": "weather"}):
        _chat(tracer, "weather-model")
        call("get_time", False)
        call("lookup", True)
        _chat(tracer, "weather-model")


def test_a_tool_calls_phases_are_that_call(tmp_path: Path) -> None:
    """Two tool calls, no phase among them; the failed execution fails lookup's call."""
    expected = {"weather": {"runs": 1, "tools": {"get_time": {"ok": 1, "error": 0},
                                                 "lookup": {"ok": 0, "error": 1}},
                            "models": {"weather-model": 2}, "delegations": []}}
    assert _agents(_report(tmp_path, _spans(tool_phase_traffic))) == expected
    assert _pinned_agents(tmp_path, tool_phase_traffic) == expected


def registry_tool_traffic(tracer: Tracer) -> None:
    """`ops` calls the tool run_plan, which runs the tool its registry names
    `github.tool.delete_repo` (a span typed tool, named by its tool-name key): a call inside a
    call, its name dotted around the kind word as a phase's is, its last part no phase's."""
    with tracer.start_as_current_span("invoke_agent ops", attributes={
            "gen_ai.operation.name": "invoke_agent", "gen_ai.agent.name": "ops"}):
        _chat(tracer, "ops-model")
        with _execute_tool(tracer, "run_plan"), tracer.start_as_current_span("step", attributes={
                "zeta.span.type": "tool", "zeta.tool.name": "github.tool.delete_repo"}):
            pass


def test_a_tool_run_inside_a_tool_named_around_the_kind_word_is_no_phase(
        capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    """Two calls, and a spec restricting github.tool.delete_repo fails the gate."""
    expected = {"ops": {"runs": 1, "tools": {"run_plan": {"ok": 1, "error": 0},
                                             "github.tool.delete_repo": {"ok": 1, "error": 0}},
                        "models": {"ops-model": 1}, "delegations": []}}
    assert _agents(_report(tmp_path, _spans(registry_tool_traffic))) == expected
    traces = write_jsonl(tmp_path / "ops.jsonl", _spans(registry_tool_traffic))
    spec = write_spec(tmp_path / "spec.yaml", {"version": 1,
                                               "restricted": ["github.tool.delete_repo"]})
    assert main(["gate", str(traces), "--spec", str(spec)]) == 1
    assert "github.tool.delete_repo" in capsys.readouterr().out


def raised_traffic(tracer: Tracer) -> None:
    """GenAI spans recording an exception and leaving their status unset (AgentScope Java):
    `weather`'s one model call raised, and so did its run; then `billing`'s call raised with its
    span set OK (as some instrumentations mark every span), and its run's span, raising
    nothing, says OK: the run handled its failed call."""
    for agent, ok in (("weather", False), ("billing", True)):
        with tracer.start_as_current_span(f"invoke_agent {agent}", attributes={
                "gen_ai.operation.name": "invoke_agent", "gen_ai.agent.name": agent}) as run:
            with tracer.start_as_current_span(f"chat {agent}-model", attributes={
                    "gen_ai.operation.name": "chat",
                    "gen_ai.request.model": f"{agent}-model"}) as call:
                call.record_exception(RuntimeError("HTTP 500"))
                if ok:
                    call.set_status(Status(StatusCode.OK))
            if ok:
                run.set_status(Status(StatusCode.OK))
            else:
                run.record_exception(RuntimeError("HTTP 500"))


def test_a_genai_span_that_raised_failed_whatever_its_status(tmp_path: Path) -> None:
    """Both calls failed (error_path for both agents); `weather`'s run failed, `billing`'s,
    whose own span raised nothing and says OK, did not."""
    report = _report(tmp_path, _spans(raised_traffic))
    runs = {name: (a["runs"]["count"], a["runs"]["errors"]) for name, a in report["agents"].items()}
    assert runs == {"weather": (1, 1), "billing": (1, 0)}
    agents = report["agents"]
    assert agents["weather"]["boundaries"]["error_path"] and agents["billing"]["boundaries"][
        "error_path"]


def endpoint_traffic(tracer: Tracer) -> None:
    """An integration framework's endpoints, each span named by the scheme of the URI it calls
    (`url.scheme`), the instance in its path: the app's route `direct://serve` sends to the
    agent endpoint `zeta-agent://weather`, which calls the tool endpoints `zeta-tools://...`
    (one fails)."""
    def endpoint(scheme: str, path: str) -> Any:
        return tracer.start_as_current_span(scheme, attributes={
            "url.scheme": scheme, "url.path": path, "component": f"camel-{scheme}"})

    with endpoint("direct", "serve"), endpoint("zeta-agent", "weather"):
        with endpoint("zeta-tools", "get_weather"):
            pass
        with endpoint("zeta-tools", "get_time") as span:
            span.set_status(Status(StatusCode.ERROR))


def test_an_endpoint_is_named_by_its_uri_path(tmp_path: Path) -> None:
    """The agent `weather` (not `zeta`) and its two tools (not one called `zeta-tools`); the
    route the app sends through is no tool or agent."""
    expected = {"weather": {"runs": 1, "tools": {"get_weather": {"ok": 1, "error": 0},
                                                 "get_time": {"ok": 0, "error": 1}},
                            "models": {}, "delegations": []}}
    assert _agents(_report(tmp_path, _spans(endpoint_traffic))) == expected
    assert _pinned_agents(tmp_path, endpoint_traffic) == expected


def test_a_span_switching_agents_by_name_alone_is_no_run() -> None:
    """Only its span name says agent (`update_agent`), its keys name the agent after and the
    one before: the switch between two runs, no run of its own; without the key naming the
    agent before, it is that agent's run."""
    switch = {"zeta.agent_name": "billing", "zeta.from_agent": "triage"}
    assert infer(SpanRecord(1, 2, 3, "update_agent", attributes=switch)).kind == "other"
    alone = infer(SpanRecord(1, 2, 3, "update_agent", attributes={"zeta.agent_name": "billing"}))
    assert (alone.kind, alone.name) == ("agent", "billing")


@pytest.mark.parametrize(("name", "kind"), [("zeta.generate", "llm"),
                                             ("zeta.pipeline", "workflow")])
def test_an_operation_is_named_by_the_subject_it_ran_for(name: str, kind: str) -> None:
    """`operation.name` says `<span name> <subject>` and `resource.name` holds the subject: a
    model call's or a workflow's span names what it ran for (should it be that run), not the
    library that traced it (`zeta`)."""
    said = {"operation.name": f"{name} weather", "resource.name": "weather"}
    found = infer(SpanRecord(1, 2, 3, name, attributes=said, scope_name="zeta.sdk"))
    assert (found.kind, found.name, found.name_key) == (kind, "weather", "resource.name")


def test_only_a_span_inference_left_unclassified_is_an_unmatched_shape() -> None:
    """The offline commands count the shapes no entry matched and inference did not read: a
    span inference read as a tool call or a workflow is no such shape."""
    told: list[str] = []
    classifier = Classifier(inference=True)
    for name in ("tool_call.get_time", "zeta.workflow", "zeta.plan.step", "mystery"):
        classifier.classify(SpanRecord(1, 2, 3, name, scope_name="zeta.sdk"),
                            unmatched=lambda record: told.append(record.name))
    assert told == ["zeta.plan.step", "mystery"]


def named_call_traffic(tracer: Tracer) -> None:
    """A model call only its span name says, naming the agent it ran for, around its HTTP
    request only (no model call under it), a trace of its own."""
    with tracer.start_as_current_span("zeta.chat", attributes={
            "zeta.agent_name": "weather", "zeta.model": "weather-model"}):
        with tracer.start_as_current_span("POST /v1/chat/completions"):
            pass


def test_a_named_model_call_around_no_model_call_is_a_call(tmp_path: Path) -> None:
    """It is a call (of `weather-model`), not the run of the agent it names: only around model
    calls would it be their run."""
    report = _report(tmp_path, _spans(named_call_traffic))
    assert report["spans"]["by_kind"]["llm"] == 1
    assert [a["models"]["used"] for a in report["agents"].values()] == [{"weather-model": 1}]


def request_twin_traffic(tracer: Tracer) -> None:
    """A client running tools inside its model call (`tool_call.lookup` under the call), and
    before it the app's own function `lookup` (no evidence, outside every model call): that
    function is no tool's execution, so the call's tool is one."""
    with tracer.start_as_current_span("invoke_agent weather", attributes={
            "gen_ai.operation.name": "invoke_agent", "gen_ai.agent.name": "weather"}):
        with tracer.start_as_current_span("lookup"):
            pass
        with tracer.start_as_current_span("chat weather-model", attributes={
                "gen_ai.operation.name": "chat", "gen_ai.request.model": "weather-model"}):
            with tracer.start_as_current_span("tool_call.lookup"):
                pass


def test_a_function_of_a_tools_name_is_no_twin_of_its_execution(tmp_path: Path) -> None:
    report = _report(tmp_path, _spans(request_twin_traffic))
    assert _agents(report)["weather"]["tools"] == {"lookup": {"ok": 1, "error": 0}}


def _unexported_parent() -> Any:
    """A context whose span is never exported: its children are the trace's roots."""
    return trace.set_span_in_context(trace.NonRecordingSpan(SpanContext(
        0xC1, 0xC2, is_remote=False, trace_flags=TraceFlags(1))))


def traceable_traffic(tracer: Tracer) -> None:
    """The app's own functions traced as chains by LangSmith's JavaScript SDK in its OTel mode
    (`langsmith.traceable`, kind `chain`), under the app's request span, never exported (the
    SDK exports only its runs): `triage` calls its model and the tool transfer_to_billing,
    then `billing` calls its model; a LangChain runnable's chain (no `traceable`) inside
    billing is no run."""
    def call(model: str) -> None:
        with tracer.start_as_current_span("ChatOpenAI", attributes={
                "langsmith.span.kind": "llm", "gen_ai.operation.name": "chat",
                "gen_ai.request.model": model}):
            pass

    parent = _unexported_parent()
    with tracer.start_as_current_span("triage", context=parent, attributes={
            "langsmith.span.kind": "chain", "langsmith.traceable": "true"}):
        call("triage-model")
        with tracer.start_as_current_span("transfer_to_billing", attributes={
                "langsmith.span.kind": "tool", "gen_ai.operation.name": "execute_tool",
                "gen_ai.tool.name": "transfer_to_billing"}):
            pass
    with tracer.start_as_current_span("billing", context=parent, attributes={
            "langsmith.span.kind": "chain", "langsmith.traceable": "true"}):
        with tracer.start_as_current_span("RunnableSequence", attributes={
                "langsmith.span.kind": "chain"}):
            call("billing-model")


def test_an_apps_traceable_functions_are_its_agents_runs(tmp_path: Path) -> None:
    """`triage` hands over to `billing`, each a run of its own: the structure reads the
    traceable chains (the table leaves them to it), and `billing` beside `triage` under a
    parent never exported is a run though it calls no tool."""
    spans = finished_spans(traceable_traffic, "langsmith", SERVICE)
    expected = {
        "triage": {"runs": 1, "tools": {"transfer_to_billing": {"ok": 1, "error": 0}},
                   "models": {"triage-model": 1}, "delegations": [("triage", "billing")]},
        "billing": {"runs": 1, "tools": {}, "models": {"billing-model": 1}, "delegations": []}}
    assert _agents(_report(tmp_path, spans)) == expected


def tool_set_traffic(tracer: Tracer) -> None:
    """Camel's LangChain4j tools component as its guide uses it: the app's route sends to the
    tool endpoint `langchain4j-tools://chat1` (its producer, `op: EVENT_SENT`: a chat offering
    the model the tools tagged for it), under which the model's calls run the tool endpoints'
    routes (their consumers, `op: EVENT_RECEIVED`), one of which fails."""
    def endpoint(scheme: str, path: str, op: str) -> Any:
        return tracer.start_as_current_span(scheme, attributes={
            "url.scheme": scheme, "url.path": path, "component": f"camel-{scheme}", "op": op})

    with endpoint("direct", "serve", "EVENT_RECEIVED"), endpoint(
            "langchain4j-tools", "chat1", "EVENT_SENT"):
        with endpoint("langchain4j-tools", "get_weather", "EVENT_RECEIVED"):
            pass
        with endpoint("langchain4j-tools", "get_time", "EVENT_RECEIVED") as span:
            span.set_status(Status(StatusCode.ERROR))


def test_a_tool_endpoints_sending_side_is_no_tool(tmp_path: Path) -> None:
    """The tools are get_weather and get_time, not also the chat `chat1` that offered them;
    `explain --write` pins the same reading."""
    expected = {SERVICE: {"runs": 1, "tools": {"get_weather": {"ok": 1, "error": 0},
                                               "get_time": {"ok": 0, "error": 1}},
                          "models": {}, "delegations": []}}
    assert _agents(_report(tmp_path, _spans(tool_set_traffic))) == expected
    assert _pinned_agents(tmp_path, tool_set_traffic) == expected


def tool_option_traffic(tracer: Tracer) -> None:
    """Camel tool routes whose URI names the tool the model is offered otherwise than by the
    endpoint's path (`langchain4j-tools:users?tags=crm&name=QueryUserById`), beside one named
    by its path alone; under the agent endpoint `crm`. QueryUserById fails."""
    def endpoint(scheme: str, path: str, query: str | None = None) -> Any:
        return tracer.start_as_current_span(scheme, attributes={
            "url.scheme": scheme, "url.path": path, "op": "EVENT_RECEIVED",
            **({"url.query": query} if query is not None else {})})

    with endpoint("zeta-agent", "crm"):
        with endpoint("zeta-tools", "users", "description=Query+a+user&name=QueryUserById"
                      "&tags=crm") as span:
            span.set_status(Status(StatusCode.ERROR))
        with endpoint("zeta-tools", "orders", "name=ListOrders&tags=crm"):
            pass
        with endpoint("zeta-tools", "get_time", "tags=crm"):
            pass


def test_a_tool_endpoint_is_the_tool_its_uri_names(tmp_path: Path) -> None:
    """The tools are the ones the model called, QueryUserById and ListOrders (a spec
    restricting QueryUserById reads its call), and get_time by its path; `explain --write`
    pins the same reading."""
    expected = {"crm": {"runs": 1, "tools": {"QueryUserById": {"ok": 0, "error": 1},
                                             "ListOrders": {"ok": 1, "error": 0},
                                             "get_time": {"ok": 1, "error": 0}},
                        "models": {}, "delegations": []}}
    assert _agents(_report(tmp_path, _spans(tool_option_traffic))) == expected
    assert _pinned_agents(tmp_path, tool_option_traffic) == expected


def test_a_restricted_tool_an_endpoints_uri_names_fails_the_gate(
        capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    traces = write_jsonl(tmp_path / "zeta.jsonl", _spans(tool_option_traffic))
    spec = write_spec(tmp_path / "spec.yaml", {"version": 1, "restricted": ["QueryUserById"]})
    assert main(["gate", str(traces), "--spec", str(spec)]) == 1
    assert "restricted" in capsys.readouterr().out


def snapshot_traffic(tracer: Tracer) -> None:
    """`weather`'s model calls, each recorded twice (a call span, its retry, the retry's call):
    `gpt-4o` around its snapshot `gpt-4o-2024-08-06`, `claude-3` around `claude-3@20240229`;
    then `gpt-4o` around `gpt-4o-mini`, another model its turn called."""
    with tracer.start_as_current_span("invoke_agent weather", attributes={
            "gen_ai.operation.name": "invoke_agent", "gen_ai.agent.name": "weather"}):
        for outer, inner in (("gpt-4o", "gpt-4o-2024-08-06"), ("claude-3", "claude-3@20240229"),
                             ("gpt-4o", "gpt-4o-mini")):
            with tracer.start_as_current_span("chat", attributes={
                    "gen_ai.operation.name": "chat", "gen_ai.request.model": outer}), (
                    tracer.start_as_current_span("retry")):
                _chat(tracer, inner)


def test_a_call_under_a_snapshot_of_its_model_is_one_call(tmp_path: Path) -> None:
    report = _report(tmp_path, _spans(snapshot_traffic))
    assert _agents(report)["weather"]["models"] == {"gpt-4o": 2, "claude-3": 1, "gpt-4o-mini": 1}


def named_tool_between_calls_traffic(tracer: Tracer) -> None:
    """`weather`'s run: a model call, the tool `tool_call.lookup` (its kind by its name), the
    model again; then a model call only its span name says (`zeta.weather.chat`) around its
    HTTP request alone, in a trace of its own."""
    with tracer.start_as_current_span("invoke_agent weather", attributes={
            "gen_ai.operation.name": "invoke_agent", "gen_ai.agent.name": "weather"}):
        _chat(tracer, "weather-model")
        with tracer.start_as_current_span("tool_call.lookup"):
            pass
        _chat(tracer, "weather-model")
    with tracer.start_as_current_span("zeta.weather.chat", attributes={"zeta.model": "m"}):
        with tracer.start_as_current_span("POST /v1/chat"):
            pass


def test_evidence_of_its_own_is_kept_and_a_lone_session_call_stays_a_call(
        tmp_path: Path) -> None:
    """The tool between the calls stays read by its name (the structure re-reads only spans
    with no evidence); the named model call around no model call is a call, no session run."""
    report = _report(tmp_path, _spans(named_tool_between_calls_traffic))
    assert report["spans"]["inferred"] == {"tool.name": 1, "llm.name": 1}
    assert report["spans"]["by_kind"]["llm"] == 3
    assert "weather" in report["agents"] and not any(
        a["runs"]["count"] and not a["models"]["used"] for a in report["agents"].values())


def _go_traffic(tracer: Tracer, billing: Tracer) -> None:
    """Go's qualified function names (the import path says agent, the package `memory`):
    `orchestrator`'s service runs `agent.Run`, its model call, and inside the call the sub-agent
    span (`sub_agent.*` keys, the sub-agent's token totals among them); under that, `billing`'s
    service runs its own `agent.Run` and model call. No span names an agent by a key."""
    kit = "github.com/zeta/agent-kit"
    with tracer.start_as_current_span(f"{kit}/agent.Run"):
        with tracer.start_as_current_span(f"{kit}/memory.add_message", attributes={
                "message.role": "user"}):
            pass
        with tracer.start_as_current_span(f"{kit}/llm.generate_with_tools", attributes={
                "model": "orchestrator-model", "tools": "billing_agent"}):
            with tracer.start_as_current_span(f"{kit}/sub_agent.billing", attributes={
                    "sub_agent.agent_name": "billing", "sub_agent.input_tokens": 20,
                    "sub_agent.output_tokens": 7}):
                with billing.start_as_current_span(f"{kit}/agent.Run"):
                    with billing.start_as_current_span(f"{kit}/llm.generate",
                                                       attributes={"model": "billing-model"}):
                        pass


def _two_services(traffic: Callable[[Tracer, Tracer], None]) -> Sequence[ReadableSpan]:
    """The spans `traffic` makes with a tracer of the service `orchestrator` and one of
    `billing` (one exporter: the order they ended in)."""
    exporter = InMemorySpanExporter()
    tracers = []
    for service in ("orchestrator", "billing"):
        provider = TracerProvider(resource=Resource.create({"service.name": service}))
        provider.add_span_processor(SimpleSpanProcessor(exporter))
        tracers.append(provider.get_tracer("kit"))
    traffic(*tracers)
    return exporter.get_finished_spans()


def _pinned_alone(tmp_path: Path, spans: Sequence[ReadableSpan]) -> dict[str, Any]:
    """The agents read with `explain --write`'s file for the spans and inference off: what
    the pins alone reproduce."""
    traces = write_jsonl(tmp_path / "pinned-alone.jsonl", spans)
    pinned = tmp_path / "agentcov.yaml"
    assert main(["explain", str(traces), "--write", str(pinned)]) == 0
    out = tmp_path / "pinned.json"
    assert main(["coverage", str(traces), "--spec", str(pinned), "--no-inference", "--format",
                 "json", "--output", str(out)]) == 0
    return _agents(json.loads(out.read_text()))


def test_go_function_names_and_a_service_boundary_name_the_runs(tmp_path: Path) -> None:
    """The package and function of a Go name say the kind (`agent.Run`, `llm.generate`); an
    agent span with no name of its own where another service's work starts (billing's, under
    orchestrator's call) is that service's run, and so is the trace's root holding it: the
    delegation orchestrator -> billing. The sub-agent's token totals are no model call."""
    spans = _two_services(_go_traffic)
    assert _agents(_report(tmp_path, spans)) == {
        "orchestrator": {"runs": 1, "tools": {}, "models": {"orchestrator-model": 1},
                         "delegations": [("orchestrator", "billing")]},
        "billing": {"runs": 1, "tools": {}, "models": {"billing-model": 1}, "delegations": []}}


def test_a_nameless_agent_span_in_one_service_leaves_its_work_to_the_service(
        tmp_path: Path) -> None:
    """Without a service boundary the nameless `agent.Run` opens no run of a made-up name:
    its model call counts for the service, as every unnamed agent's work does."""
    def traffic(tracer: Tracer) -> None:
        with tracer.start_as_current_span("github.com/zeta/agent-kit/agent.Run"):
            with tracer.start_as_current_span("github.com/zeta/agent-kit/llm.generate",
                                              attributes={"model": "weather-model"}):
                pass
    assert _agents(_report(tmp_path, _spans(traffic))) == {
        SERVICE: {"runs": 1, "tools": {}, "models": {"weather-model": 1}, "delegations": []}}


def test_pins_read_every_model_key_of_one_vocabulary(capsys: pytest.CaptureFixture[str],
                                                     tmp_path: Path) -> None:
    """One vocabulary's model calls name their model under two keys (the first call only
    `zeta.response.model`, the second only `zeta.model`, a third both): the pinned entry
    reads both, in inference's order, so every call keeps its model with inference off."""
    def traffic(tracer: Tracer) -> None:
        with tracer.start_as_current_span("weather.agent"):
            for attributes in ({"zeta.response.model": "weather-model"},
                               {"zeta.model": "backup-model"},
                               {"zeta.model": "asked-model", "zeta.response.model": "m-0613"}):
                with tracer.start_as_current_span("llm.generate", attributes=attributes):
                    pass

    models = {"weather-model": 1, "backup-model": 1, "m-0613": 1}
    assert _pinned_alone(tmp_path, _spans(traffic))["weather"]["models"] == models
    entries = yaml.safe_load((tmp_path / "agentcov.yaml").read_text())["conventions"]
    assert [e.get("model") for e in entries if e["kind"] == "llm"] == [
        ["zeta.response.model", "zeta.model"]]
    assert _agents(_report(tmp_path, _spans(traffic)))["weather"]["models"] == models


def test_an_agent_key_naming_its_own_agent_inside_a_tool_keeps_that_name(tmp_path: Path) -> None:
    """`orchestrator` calls the tool ask_billing; inside it a span with no kind of its own
    whose agent-name key names `billing` (not the agent above the tool: its own) runs the
    billing model call: billing's run, called as a tool. Only a key repeating the name of the
    agent above the tool is context to set aside (`lc_agent_name` on every span of a run)."""
    def traffic(tracer: Tracer) -> None:
        with in_ask_billing(tracer), tracer.start_as_current_span(
                "invoke", attributes={"lc_agent_name": "billing"}):
            with tracer.start_as_current_span("step", attributes={
                    "zeta.span.type": "llm", "zeta.model": "billing-model"}):
                pass

    assert _agents(_report(tmp_path, _spans(traffic))) == {
        "orchestrator": KIND_ATTRIBUTE_AGENTS["orchestrator"],
        "billing": KIND_ATTRIBUTE_AGENTS["billing"]}


def test_an_http_span_named_by_its_url_is_no_go_function(tmp_path: Path) -> None:
    """A client's HTTP span named by the URL it calls (host, then path: a span-name formatter's
    `r.Host + r.URL.Path`) looks like a Go function's qualified name
    (`api.openai.com/v1/chat.completions`), but its HTTP keys and client kind say it is a
    request: inside the GenAI chat call it is no second model call hiding the call's model,
    and a request handler's calls to `api.example.com/v1/agent.run` are no agent run."""
    def inside_chat(tracer: Tracer) -> None:
        with tracer.start_as_current_span("weather.agent"):
            with tracer.start_as_current_span("chat", attributes={
                    "gen_ai.operation.name": "chat", "gen_ai.request.model": "gpt-4o"}):
                with tracer.start_as_current_span(
                        "api.openai.com/v1/chat.completions", kind=SpanKind.CLIENT,
                        attributes={"http.request.method": "POST"}):
                    pass
    assert _agents(_report(tmp_path, _spans(inside_chat))) == {
        "weather": {"runs": 1, "tools": {}, "models": {"gpt-4o": 1}, "delegations": []}}

    def handler(tracer: Tracer) -> None:
        with tracer.start_as_current_span("handle"):
            with tracer.start_as_current_span(
                    "api.example.com/v1/agent.run", kind=SpanKind.CLIENT,
                    attributes={"http.request.method": "POST",
                                "url.full": "https://api.example.com/v1/agent.run"}):
                pass
    traces = write_jsonl(tmp_path / "handler.jsonl", _spans(handler))
    assert main(["coverage", str(traces), "--format", "json", "--output",
                 str(tmp_path / "handler.json")]) != 0  # no agent run found


@pytest.mark.xfail(strict=True, reason="red team s11: explain --write cannot pin a run named by "
                   "service.name (no name source reads the resource); the nameless agent.Run "
                   "is only a commented suggestion, so the delegation is lost with the pins")
def test_pins_reproduce_the_service_boundary_delegation(tmp_path: Path) -> None:
    """The commit's own Go traffic (orchestrator's call holding billing's `agent.Run`): with
    the file `explain --write` pins and inference off, the delegation orchestrator -> billing
    inference read is read again (docs/conventions.md: the pins reproduce the reading)."""
    spans = _two_services(_go_traffic)
    assert _pinned_alone(tmp_path, spans) == _agents(_report(tmp_path, spans))


@pytest.mark.xfail(strict=True, reason="red team s11: two model keys of one rank (`acme.model`, "
                   "`zeta.model`): inference reads the first in each span's attribute order, "
                   "the pinned list the first seen in the vocabulary")
def test_pins_read_model_keys_of_one_rank_as_inference_does(tmp_path: Path) -> None:
    """The first call names its model under `zeta.model`, the second under `acme.model` and
    `zeta.model` (in that order): inference reads `acme.model` there; so must the pins."""
    def traffic(tracer: Tracer) -> None:
        with tracer.start_as_current_span("weather.agent"):
            for attributes in ({"zeta.model": "weather-model"},
                               {"acme.model": "asked-model", "zeta.model": "other-model"}):
                with tracer.start_as_current_span("llm.generate", attributes=attributes):
                    pass
    spans = _spans(traffic)
    inferred = _agents(_report(tmp_path, spans))
    assert inferred["weather"]["models"] == {"weather-model": 1, "asked-model": 1}
    assert _pinned_alone(tmp_path, spans) == inferred


@pytest.mark.xfail(strict=True, reason="red team s11: billing's agent.Run under a remote parent "
                   "(another process, context propagated) is a local root assembled alone, so "
                   "the service-boundary rule never sees orchestrator's span above it")
def test_a_service_boundary_across_processes_is_a_delegation_too(tmp_path: Path) -> None:
    """`_go_traffic` as two processes would send it: billing's `agent.Run` starts from the
    propagated context of orchestrator's model call (a remote parent, as every call between
    services has): docs/semantics.md's delegation orchestrator -> billing still holds."""
    def traffic(orchestrator: Tracer, billing: Tracer) -> None:
        kit = "github.com/zeta/agent-kit"
        call_name, model = f"{kit}/llm.generate_with_tools", {"model": "orchestrator-model"}
        with orchestrator.start_as_current_span(f"{kit}/agent.Run"), \
                orchestrator.start_as_current_span(call_name, attributes=model) as call:
            here = call.get_span_context()
            remote = trace.set_span_in_context(trace.NonRecordingSpan(SpanContext(
                here.trace_id, here.span_id, is_remote=True, trace_flags=TraceFlags(1))))
            with billing.start_as_current_span(f"{kit}/agent.Run", context=remote):
                with billing.start_as_current_span(f"{kit}/llm.generate",
                                                   attributes={"model": "billing-model"}):
                    pass

    assert _agents(_report(tmp_path, _two_services(traffic))) == {
        "orchestrator": {"runs": 1, "tools": {}, "models": {"orchestrator-model": 1},
                         "delegations": [("orchestrator", "billing")]},
        "billing": {"runs": 1, "tools": {}, "models": {"billing-model": 1}, "delegations": []}}


def test_a_go_method_of_a_kind_package_is_no_call_of_its_own(tmp_path: Path) -> None:
    """A Go tool package's registry method (`tool.(*Registry).Register`), traced beside an
    agent's run: no tool call `(*Registry).Register`, and no run of the service around it."""
    kit = "github.com/zeta/agent-kit"

    def traffic(tracer: Tracer) -> None:
        with tracer.start_as_current_span("serve"):
            with tracer.start_as_current_span(f"{kit}/tool.(*Registry).Register"):
                pass
            with tracer.start_as_current_span(f"{kit}/agent.Run", attributes={
                    "agent.name": "weather"}):
                with tracer.start_as_current_span(f"{kit}/llm.generate", attributes={
                        "model": "weather-model"}):
                    pass
                with tracer.start_as_current_span(f"{kit}/tool.lookup"):
                    pass
                with tracer.start_as_current_span(f"{kit}/llm.generate", attributes={
                        "model": "weather-model"}):
                    pass
    assert _agents(_report(tmp_path, _spans(traffic))) == {
        "weather": {"runs": 1, "tools": {"lookup": {"ok": 1, "error": 0}},
                    "models": {"weather-model": 2}, "delegations": []}}


def agents_service_traffic(tracer: Tracer) -> None:
    """An agents service's methods traced by class and method (`Agent.get`, `Agent.list`,
    `agents::delete`: the kind word, then an API's verb), each a trace of its own, then the
    run `Agent.weather` (the class's kind word, then the agent's name) calling its model."""
    for name in ("Agent.get", "Agent.list", "agents::delete"):
        with tracer.start_as_current_span(name):
            pass
    with tracer.start_as_current_span("Agent.weather"):
        _chat(tracer, "weather-model")


def test_an_agents_services_methods_are_no_runs_and_the_pins_agree(tmp_path: Path) -> None:
    """No agent `get`, `list` or `delete` beside `weather`, read by inference and by the pinned
    file alike (its `Agent.*` entry carries them in its `unless`)."""
    expected = {"weather": {"runs": 1, "tools": {}, "models": {"weather-model": 1},
                            "delegations": []}}
    assert _agents(_report(tmp_path, _spans(agents_service_traffic))) == expected
    assert _pinned_agents(tmp_path, agents_service_traffic) == expected


def phases_traffic(tracer: Tracer) -> None:
    """An OpenInference agent span `agent weather` naming its agent by a bare `agent` key (no
    `agent.name`: Eclipse LMOS ARC's), its phases traced beside its calls: `generate system
    prompt` (a kind word and free text, nothing else) before `generate response`, which holds
    the entry's two model calls and the tool get_weather between them."""
    oi = "openinference.span.kind"
    with tracer.start_as_current_span("agent weather", attributes={oi: "AGENT",
                                                                    "agent": "weather"}):
        with tracer.start_as_current_span("generate system prompt"):
            pass
        with tracer.start_as_current_span("generate response"):
            for turn in range(2):
                with tracer.start_as_current_span("llm", attributes={
                        oi: "LLM", "llm.model_name": "weather-model"}):
                    pass
                if turn == 0:
                    with tracer.start_as_current_span("tool", attributes={
                            oi: "TOOL", "tool.name": "get_weather"}):
                        pass


def test_a_phase_named_like_a_call_beside_an_entrys_calls_is_none(tmp_path: Path) -> None:
    """The run is weather's (its `agent` key), its calls the entry's two:
    `generate system prompt` is a phase of the run, no third call (docs/conventions.md)."""
    report = _report(tmp_path, _spans(phases_traffic))
    assert _agents(report) == {"weather": {
        "runs": 1, "tools": {"get_weather": {"ok": 1, "error": 0}},
        "models": {"weather-model": 2}, "delegations": []}}
    assert report["agents"]["weather"]["paths"]["top"][0]["path"] == ["llm", "tool", "llm"]


def bare_calls_traffic(tracer: Tracer) -> None:
    """A vocabulary whose model calls only their names say (`weather.chat`, no model key), two
    of them around the tool `tool_call.lookup`, then one its kind attribute says with a model
    (`zeta.span.type: llm`: evidence of its own, but no entry's), in the run `weather.agent`."""
    with tracer.start_as_current_span("weather.agent"):
        _leaves(tracer, "weather.chat", "tool_call.lookup", "weather.chat")
        with tracer.start_as_current_span("step", attributes={
                "zeta.span.type": "llm", "zeta.model": "weather-model"}):
            pass


def test_calls_only_names_say_are_calls_where_no_entry_says_any(tmp_path: Path) -> None:
    """Only an entry's calls make name-only ones phases: inference's own evidence beside them
    (a kind attribute and a model) does not."""
    report = _report(tmp_path, _spans(bare_calls_traffic))
    assert report["agents"]["weather"]["paths"]["top"][0]["path"] == [
        "llm", "tool", "llm", "llm"]


def everyday_words_traffic(tracer: Tracer) -> None:
    """An order service's own code, no model anywhere: each request a trace of its own, its spans
    named by class and method or by module and verb with words agent stacks use in their
    everyday sense (a report generated, an order completed, a chat message sent between people,
    a data model trained, a ticket handed over between support staff)."""
    for name in ("ReportGenerator.generate", "OrderService.complete", "chat.send_message",
                 "model.train", "ticket.handoff", "Ticket.transfer", "AccountService.transfer"):
        with tracer.start_as_current_span("POST /api", attributes={
                "http.request.method": "POST", "http.route": "/api"}):
            with tracer.start_as_current_span(name, attributes={"order.id": "o-1"}):
                with tracer.start_as_current_span("SELECT orders", attributes={
                        "db.system": "sqlite", "db.operation.name": "SELECT"}):
                    pass


def test_everyday_words_in_an_apps_own_spans_make_no_agent(tmp_path: Path) -> None:
    traces = write_jsonl(tmp_path / "orders.jsonl", _spans(everyday_words_traffic))
    report = offline.report(offline.load(CoverageSpec.empty(), traces=[str(traces)]))
    assert report["agents"] == {}
    assert "inferred" not in report["spans"]  # none left classified by inference


def model_clients_traffic(tracer: Tracer) -> None:
    """The same verbs where a model's client or an agent names the class, in the run
    `support.agent`: `ChatModel.generate` and `Gemini.complete` (model calls), the tool
    `tool_call.lookup` between them, then `TriageAgent.transfer` (a hand-off)."""
    with tracer.start_as_current_span("support.agent"):
        _leaves(tracer, "ChatModel.generate", "tool_call.lookup", "Gemini.complete",
                "TriageAgent.transfer")


def test_the_verbs_of_model_clients_and_agents_keep_their_kind(tmp_path: Path) -> None:
    report = _report(tmp_path, _spans(model_clients_traffic))
    assert report["agents"]["support"]["paths"]["top"][0]["path"] == [
        "llm", "tool", "llm", "delegate"]


def failed_phase_traffic(tracer: Tracer) -> None:
    """`phases_traffic`'s run, but its `generate answer` (a kind word and free text, nothing
    else, beside the entry's model call) fails: rate-limited, the run's answer never came."""
    oi = "openinference.span.kind"
    with tracer.start_as_current_span("agent weather", attributes={oi: "AGENT",
                                                                    "agent": "weather"}):
        with tracer.start_as_current_span("llm", attributes={
                oi: "LLM", "llm.model_name": "weather-model"}):
            pass
        with tracer.start_as_current_span("generate answer", attributes={
                "error.type": "RateLimitError"}) as span:
            span.set_status(Status(StatusCode.ERROR, "429"))


def test_a_failed_call_only_its_name_says_still_fails_its_run(tmp_path: Path) -> None:
    """Read as a phase of the run, the failure would fail no run: the run would pass a
    `runs.pass_rate` gate it fails (fail-safe, docs/guarantees.md)."""
    runs = _report(tmp_path, _spans(failed_phase_traffic))["agents"]["weather"]["runs"]
    assert (runs["count"], runs["errors"], runs["passed"]) == (1, 1, 0)


def declined_verbs_traffic(tracer: Tracer) -> None:
    """The run `support.agent`: `ChatOpenAI.generate` twice around the tool `tool_call.lookup`,
    then the app's own `ReportGenerator.generate` (inference: no call), and `model.generate_content`
    beside the app's `model.train` (a data model's method: no call)."""
    with tracer.start_as_current_span("support.agent"):
        _leaves(tracer, "ChatOpenAI.generate", "tool_call.lookup", "ChatOpenAI.generate",
                "model.generate_content", "ReportGenerator.generate", "model.train")


def test_explains_pins_leave_the_verbs_inference_declined(tmp_path: Path) -> None:
    """`explain --write` pins `*.generate` and `model.*` as model calls: without naming the spans
    inference read as none, the pinned file read them as two more calls."""
    path = ["llm", "tool", "llm", "llm"]
    report = _report(tmp_path, _spans(declined_verbs_traffic))
    assert report["agents"]["support"]["paths"]["top"][0]["path"] == path
    _pinned_agents(tmp_path, declined_verbs_traffic)
    pinned = _report(tmp_path / "pinned", _spans(declined_verbs_traffic),
                     "--spec", str(tmp_path / "agentcov.yaml"))
    assert pinned["agents"]["support"]["paths"]["top"][0]["path"] == path


@pytest.mark.parametrize(("name", "kind"), [
    # a class's method in other languages' spellings is the app's own work, as `Ticket.transfer`
    ("github.com/acme/bank.(*Account).Transfer", None),  # a Go method
    ("bank.(*Account).Transfer", None),
    ("github.com/acme/report.(*Generator).Generate", None),
    ("Bank::transfer", None),  # Rust, C++
    ("crate::bank::Bank::transfer", None),
    ("com.acme.bank.AccountService.transfer", None),  # Java, C#: the class qualified
    ("Acme.Bank.Transfer", None),
    # ... a model client's keeps its kind, however its provider or model is spelt
    ("github.com/acme/llm.(*Client).Complete", "llm"),  # the package says it
    ("com.acme.llm.OpenAiChatModel.generate", "llm"),
    ("OpenRouter.complete", "llm"),  # a provider's name in words
    ("HuggingFacePipeline.generate", "llm"),
    ("LlamaCpp.generate", "llm"),  # LangChain's, LlamaIndex's `LlamaCPP`
    ("Claude.complete", "llm"),
    ("Vllm.generate", "llm"),
    ("tool.Bank.transfer", "handoff"),  # a kind word in the path reads it as before
])
def test_everyday_verbs_of_classes_in_every_spelling(name: str, kind: str | None) -> None:
    found = infer(SpanRecord(1, 2, None, name, scope_name="app"))
    assert (found.kind if found.evidence != "candidate" else None) == kind


@pytest.mark.parametrize("span", ["tool:transfer", "tool_call.transfer", "tool: Bank.transfer"])
def test_a_restricted_tool_named_by_a_kind_word_fails_the_gate(
        span: str, capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    """A tool span whose tool is named by another kind's word (`transfer`: a hand-off) is read
    as that tool's call where the spec restricts it (docs/conventions.md#restricted-tools)."""
    tool = span.partition(":")[2].strip() or span.partition(".")[2]

    def traffic(tracer: Tracer) -> None:
        with tracer.start_as_current_span("support.agent"):
            for name in ("ChatOpenAI.generate", span, "ChatOpenAI.generate"):
                with tracer.start_as_current_span(name):
                    pass

    traces = write_jsonl(tmp_path / "zeta.jsonl", _spans(traffic))
    spec = write_spec(tmp_path / "spec.yaml", {"version": 1, "restricted": [tool]})
    assert main(["gate", str(traces), "--spec", str(spec)]) == 1
    assert f"restricted tool {tool} executed" in capsys.readouterr().out


def gemini_chat_traffic(tracer: Tracer) -> None:
    """An agent run on Google's GenAI SDK, its calls traced by the app by method name: a chat
    session's `Chat.send_message` (the SDK's model call) twice, around the tool
    `tool_call.lookup`, in the run `support.agent`."""
    with tracer.start_as_current_span("support.agent"):
        for name in ("Chat.send_message", "tool_call.lookup", "Chat.send_message"):
            with tracer.start_as_current_span(name):
                pass


def test_a_chat_sessions_send_message_inside_an_agent_run_is_its_model_call(
        tmp_path: Path) -> None:
    report = _report(tmp_path, _spans(gemini_chat_traffic))
    assert report["agents"]["support"]["paths"]["top"][0]["path"] == ["llm", "tool", "llm"]


def test_explains_pins_read_no_hand_off_where_inference_read_none(tmp_path: Path) -> None:
    """`ticket.handoff` in a trace with no agent is no hand-off (structure reads it as none):
    pinned as `*.handoff` → handoff, the file read one, and a run of the service around it."""
    spec = tmp_path / "agentcov.yaml"
    traces = write_jsonl(tmp_path / "orders.jsonl", _spans(everyday_words_traffic))
    assert main(["explain", str(traces), "--write", str(spec)]) == 0
    pinned = offline.report(offline.load(CoverageSpec.from_yaml(spec), traces=[str(traces)]))
    assert pinned["agents"] == {}


def test_an_openinference_agent_span_is_not_named_by_a_run_word() -> None:
    step = Classifier().classify(SpanRecord(
        1, 2, None, "agent run", scope_name="app",
        attributes={"openinference.span.kind": "AGENT"}))
    assert step.kind == "agent" and step.agent != "run"


def two_runs_traffic(tracer: Tracer) -> None:
    """In one request (`serve`, no kind), the GenAI agent `weather` calls its model (a GenAI
    call), then the agent `billing` calls its own by name only (`billing.chat`, twice): a run
    whose calls no entry says keeps the calls its names say, whatever another run holds."""
    with tracer.start_as_current_span("serve"):
        with tracer.start_as_current_span("invoke_agent weather", attributes={
                "gen_ai.operation.name": "invoke_agent", "gen_ai.agent.name": "weather"}):
            _chat(tracer, "weather-model")
        with tracer.start_as_current_span("invoke_agent billing", attributes={
                "gen_ai.operation.name": "invoke_agent", "gen_ai.agent.name": "billing"}):
            for _ in range(2):
                with tracer.start_as_current_span("billing.chat"):
                    pass


def test_bare_calls_are_weighed_in_their_own_run(tmp_path: Path) -> None:
    report = _report(tmp_path, _spans(two_runs_traffic))
    assert report["agents"]["billing"]["paths"]["top"][0]["path"] == ["llm", "llm"]
    assert report["agents"]["weather"]["paths"]["top"][0]["path"] == ["llm"]


def timed_traffic(tracer: Tracer) -> None:
    """`support.agent` calls its model (0-100 ms), a plain span `lookup` runs while that call
    still runs (10-20 ms), then a second call (150-200 ms): `lookup` is not between the two
    calls (the first had not answered), so timing makes it no tool."""
    ms = 1_000_000
    root = tracer.start_span("support.agent", start_time=0)
    inside = trace.set_span_in_context(root)
    for name, start, end, attributes in (
            ("chat", 0, 100, {"gen_ai.operation.name": "chat", "gen_ai.request.model": "m"}),
            ("lookup", 10, 20, {}),
            ("chat", 150, 200, {"gen_ai.operation.name": "chat", "gen_ai.request.model": "m"})):
        span = tracer.start_span(name, context=inside, start_time=start * ms,
                                 attributes=attributes)
        span.end(end_time=end * ms)
    root.end(end_time=300 * ms)


def test_a_span_during_a_model_call_is_no_tool_of_the_loop(tmp_path: Path) -> None:
    report = _report(tmp_path, _spans(timed_traffic))
    assert _agents(report)["support"]["tools"] == {}


def short_phase_traffic(tracer: Tracer) -> None:
    """`tool_phase_traffic` with phases typed and named by their own keys, the kind word and
    the part alone (`zeta.span.name: tool.execution`, `tool.blocked_on_user`)."""
    with tracer.start_as_current_span("invoke_agent weather", attributes={
            "gen_ai.operation.name": "invoke_agent", "gen_ai.agent.name": "weather"}):
        _chat(tracer, "weather-model")
        with tracer.start_as_current_span("x.tool", attributes={
                "gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": "lookup"}):
            for phase in ("blocked_on_user", "execution"):
                with tracer.start_as_current_span("step", attributes={
                        "zeta.span.type": f"tool.{phase}", "zeta.span.name": f"tool.{phase}"}):
                    pass
        _chat(tracer, "weather-model")


def test_a_short_phase_name_is_its_calls_phase_too(tmp_path: Path) -> None:
    assert _agents(_report(tmp_path, _spans(short_phase_traffic)))["weather"]["tools"] == {
        "lookup": {"ok": 1, "error": 0}}


def served_session_traffic(tracer: Tracer) -> None:
    """`session_traffic`'s weather session inside an app's request (`serve`, no agent), its
    model calls the trace's first spans to end: only the session makes weather's run."""
    with tracer.start_as_current_span("serve"):
        with tracer.start_as_current_span("zeta.services.weather.chat"):
            for _ in range(2):
                with tracer.start_as_current_span("completion weather-model", attributes={
                        "gen_ai.request.model": "weather-model"}):
                    pass


def test_a_chat_session_inside_a_request_is_the_run(tmp_path: Path) -> None:
    assert _agents(_report(tmp_path, _spans(served_session_traffic))) == {"weather": {
        "runs": 1, "tools": {}, "models": {"weather-model": 2}, "delegations": []}}


def runner_like_traffic(tracer: Tracer) -> None:
    """`orchestrator.agent` runs `triage.agent`, then `weather.agent`, each calling its model:
    an agent running two agents, none of its own name, is no runner but their caller."""
    with tracer.start_as_current_span("orchestrator.agent"):
        for agent in ("triage", "weather"):
            with tracer.start_as_current_span(f"{agent}.agent"):
                _chat(tracer, f"{agent}-model")


def test_an_agent_running_agents_of_other_names_delegates_to_them(tmp_path: Path) -> None:
    agents = _agents(_report(tmp_path, _spans(runner_like_traffic)))
    assert sorted(agents["orchestrator"]["delegations"]) == [
        ("orchestrator", "triage"), ("orchestrator", "weather")]


def create_tool_traffic(tracer: Tracer) -> None:
    """The run `support.agent` calls its model, then its tool `create` by name only
    (`tool_call.create`: a tool that creates a ticket), then its model again."""
    with tracer.start_as_current_span("support.agent"):
        _chat(tracer, "support-model")
        _leaves(tracer, "tool_call.create")
        _chat(tracer, "support-model")


def test_a_tool_named_create_is_called_not_an_object_set_up(tmp_path: Path) -> None:
    """Only an agent's `create`, `init`, `close` is its object built or torn down: a tool of
    that name is a call of it."""
    assert _agents(_report(tmp_path, _spans(create_tool_traffic)))["support"]["tools"] == {
        "create": {"ok": 1, "error": 0}}


def autotraced_traffic(tracer: Tracer) -> None:
    """A library tracing every method of its own classes by name (scope `zeta.sdk`): its agent
    class's `ZetaAgent.step` runs two model calls through `OpenAIClient.request_async` (the
    client's method that calls; `OpenAIClient.build_request_data` only prepares one), between
    them the tool get_weather (`ZetaAgent._execute_tool`, named in `zeta.tool_name`) and the
    step's bookkeeping (`StepManager.log_step`). Nothing names the agent: the app's own."""
    def call() -> None:
        with tracer.start_as_current_span("OpenAIClient.build_request_data", attributes={
                "zeta.messages": CANARY}):
            pass
        with tracer.start_as_current_span("OpenAIClient.request_async", attributes={
                "zeta.model": "weather-model"}):
            pass

    with tracer.start_as_current_span("ZetaAgent.step"):
        call()
        with tracer.start_as_current_span("ZetaAgent._execute_tool", attributes={
                "zeta.tool_name": "get_weather"}):
            pass
        with tracer.start_as_current_span("StepManager.log_step"):
            pass
        call()


def test_a_model_clients_call_method_is_a_model_call_and_the_librarys_agent_class_no_agent(
        tmp_path: Path) -> None:
    """The client's calling method is a model call (its preparing one is not); the library's
    own agent class names no agent (the run is the service's); with a tool execution found by
    its name, a step between two calls is the loop's bookkeeping, no tool by timing."""
    report = _report(tmp_path, _spans(autotraced_traffic))
    assert _agents(report) == {SERVICE: {
        "runs": 1, "tools": {"get_weather": {"ok": 1, "error": 0}},
        "models": {"weather-model": 2}, "delegations": []}}
    assert _pinned_agents(tmp_path, autotraced_traffic) == _agents(report)


@pytest.mark.parametrize(("name", "llm"), [
    ("OpenAIClient.request_async", True), ("AnthropicProvider.generate", True),
    ("openai.resources.chat.completions.AsyncCompletions.create", True),
    ("InferenceRouter.openai_chat_completion", True),
    ("OpenAIClient.build_request_data", False), ("ModelRegistry.register", False),
    ("Ticket.create", False), ("InferenceRouter.stream_tokens_and_compute_metrics", False),
    ("ChatService.send", False), ("ModelStore.create", False), ("TaskCompletion.request", False),
])
def test_only_a_model_clients_calling_method_is_a_model_call(name: str, llm: bool) -> None:
    found = infer(SpanRecord(1, 2, None, name, scope_name="acme"))
    assert (found.kind == "llm") == llm


def test_a_class_of_the_users_own_keeps_its_name() -> None:
    """`WeatherAgent.step` traced by `zeta.sdk` names the app's agent; `ZetaAgent.step` is the
    library's class."""
    assert infer(SpanRecord(1, 2, None, "WeatherAgent.step", scope_name="zeta.sdk")
                 ).name == "WeatherAgent"
    assert infer(SpanRecord(1, 2, None, "ZetaAgent.step", scope_name="zeta.sdk")).name is None


def registry_traffic(tracer: Tracer) -> None:
    """A vocabulary typing what its registry holds (`zeta.file.type: flow | tool`), named by
    its registry path (`zeta.file.path`), its spans named by the library and the type only
    (`zeta.flow`, `zeta.tool`): the flow `weather` calls its model (GenAI `chat`), then the
    tools get_weather and get_time (a tool-name key names it first), then the model again."""
    def chat() -> None:
        with tracer.start_as_current_span("chat weather-model", attributes={
                "gen_ai.operation.name": "chat", "gen_ai.request.model": "weather-model"}):
            pass

    with tracer.start_as_current_span("zeta.flow", attributes={
            "zeta.file.type": "flow", "zeta.file.path": "weather"}):
        chat()
        with tracer.start_as_current_span("zeta.tool", attributes={
                "zeta.file.type": "tool", "zeta.file.path": "get_weather"}):
            pass
        with tracer.start_as_current_span("zeta.tool", attributes={
                "zeta.file.type": "tool", "zeta.file.path": "get_time"}):
            pass
        chat()


def test_a_kind_keys_own_path_names_what_it_types(tmp_path: Path) -> None:
    report = _report(tmp_path, _spans(registry_traffic))
    assert _agents(report) == {"weather": {
        "runs": 1, "tools": {"get_weather": {"ok": 1, "error": 0},
                             "get_time": {"ok": 1, "error": 0}},
        "models": {"weather-model": 2}, "delegations": []}}
    assert _pinned_agents(tmp_path, registry_traffic) == _agents(report)
    named = infer(SpanRecord(1, 2, None, "zeta.tool", scope_name="zeta.sdk", attributes={
        "zeta.file.type": "tool", "zeta.file.path": "tools/lookup", "zeta.tool.name": "lookup"}))
    assert (named.name, named.name_key) == ("lookup", "zeta.tool.name")


def flow_error_traffic(tracer: Tracer) -> None:
    """Runs typed flows (`zeta.file.type: flow`) that say their failure only by their error's
    message (`zeta.log.error`, longer than a flag word, no status): `weather` calls its model
    (typed `llm`), which fails the same way (`zeta.call.error`), then fails; `orders` calls its
    model and ends well, a retry policy's words in `zeta.error_policy` (no error of its own);
    `billing`'s call answers, then its flow fails by its message alone."""
    def run(name: str, **attrs: str) -> None:
        failed = {"zeta.call.error": "HTTP 500 from the model server, the request not retried"}
        with tracer.start_as_current_span("zeta.flow", attributes={
                "zeta.file.type": "flow", "zeta.file.path": name, **attrs}):
            with tracer.start_as_current_span("zeta.call", attributes={
                    "zeta.file.type": "llm", "zeta.model": "m",
                    **(failed if name == "weather" else {})}):
                pass

    run("weather",
        **{"zeta.log.error": "cannot access local variable 'reply' where it is not set"})
    run("orders", **{"zeta.error_policy": "retry three times, then hand the error back"})
    run("billing", **{"zeta.log.error": "the reply could not be parsed as the tool's schema"})


def test_an_error_message_fails_its_span_and_is_pinned_by_presence(tmp_path: Path) -> None:
    report = _report(tmp_path, _spans(flow_error_traffic))
    assert {name: a["runs"]["errors"] for name, a in report["agents"].items()} == {
        "weather": 1, "orders": 0, "billing": 1}
    spec = tmp_path / "agentcov.yaml"
    traces = write_jsonl(tmp_path / "zeta-explained.jsonl", _spans(flow_error_traffic))
    assert main(["explain", str(traces), "--write", str(spec)]) == 0
    written = spec.read_text()
    assert "'reply'" not in written and "HTTP 500" not in written  # no message is written
    failing = [e for e in yaml.safe_load(written)["conventions"]
               if "zeta.call.error" in e["match"].get("attributes", {})]
    assert [(e["match"]["attributes"]["zeta.call.error"], e["error"]) for e in failing] == [
        ({"present": True}, {"value": ""})]
    pinned = tmp_path / "pinned"
    pinned.mkdir()
    again = _report(pinned, _spans(flow_error_traffic), "--spec", str(spec))

    def outcome(report: dict[str, Any]) -> dict[str, Any]:
        return {name: (a["runs"]["errors"], a["boundaries"], a["models"])
                for name, a in report["agents"].items()}
    assert outcome(again) == outcome(report)


def durable_traffic(tracer: Tracer) -> None:
    """A durable engine's spans: each agent run a workflow (`zeta.operationType: workflow`,
    named after the agent), each model call and tool a step (`operationType: step`), the model
    call's step named `_model_call_step`. `weather` calls its model, get_weather, its model;
    `orchestrator` calls its model, runs `billing`'s workflow as its child (billing calls its
    model), then calls its model again."""
    def step(name: str) -> None:
        with tracer.start_as_current_span(name, attributes={"zeta.operationType": "step"}):
            pass

    def flow(name: str) -> Any:
        return tracer.start_as_current_span(name, attributes={
            "zeta.operationType": "workflow"})

    with flow("weather"):
        step("_model_call_step")
        step("get_weather")
        step("_model_call_step")
    with flow("orchestrator"):
        step("_model_call_step")
        with flow("billing"):
            step("_model_call_step")
        step("_model_call_step")


def test_a_durable_engines_workflows_are_runs_and_a_child_workflow_a_delegation(
        tmp_path: Path) -> None:
    report = _report(tmp_path, _spans(durable_traffic))
    assert {name: (a["runs"]["count"], a["tools"]["called"],
                   [(d["from"], d["to"]) for d in a["delegations"]])
            for name, a in report["agents"].items()} == {
        "weather": (1, {"get_weather": {"ok": 1, "error": 0}}, []),
        "orchestrator": (1, {}, [("orchestrator", "billing")]),
        "billing": (1, {}, [])}
    assert report["spans"]["inferred"]["llm.name"] == 5  # every model call's step
    assert _pinned_agents(tmp_path, durable_traffic) == _agents(report)


@pytest.mark.parametrize(("name", "kind"), [
    ("_model_call_step", "llm"), ("tool_call_run", "tool"), ("agent_step", "other"),
    ("model_step", "other")])
def test_a_step_named_by_a_calls_phrase_is_that_call(name: str, kind: str) -> None:
    assert infer(SpanRecord(1, 2, None, name, scope_name="zeta.sdk")).kind == kind


def test_genai_keys_without_a_table_read_in_their_order() -> None:
    """A response's model alone says a model call; where a GenAI usage key and another vendor's
    token key are both there, the GenAI key is the one pinned, whatever the order."""
    answered = infer(SpanRecord(1, 2, None, "step", scope_name="s", attributes={
        "gen_ai.response.model": "m"}))
    assert (answered.kind, answered.key) == ("llm", "gen_ai.response.model")
    counted = infer(SpanRecord(1, 2, None, "step", scope_name="s", attributes={
        "acme.tokens.prompt": 3, "gen_ai.usage.completion_tokens": 5}))
    assert (counted.kind, counted.key) == ("llm", "gen_ai.usage.completion_tokens")


def test_a_function_kind_word_beside_a_kind_in_the_span_name_is_no_mere_function() -> None:
    """`x.span.type: function` on a span named only by the kind word `tool`: the name says the
    kind, so the attribute's kind is evidence of its own, not a function's weak word."""
    found = infer(SpanRecord(1, 2, None, "tool", scope_name="s", attributes={
        "x.span.type": "function"}))
    assert (found.kind, found.evidence) == ("tool", "attribute")


def restricted_inferred_traffic(tracer: Tracer) -> None:
    """`weather` (typed agent) calls the tool refund, typed by its kind word and named by its
    key: inference reads the call as it is."""
    with tracer.start_as_current_span("step", attributes={
            "zeta.span.type": "agent", "zeta.span.name": "weather"}):
        with tracer.start_as_current_span("step", attributes={
                "zeta.span.type": "tool", "zeta.tool.name": "refund"}):
            pass


def test_a_restricted_tool_inference_reads_as_it_is_is_no_overruled_reading(
        tmp_path: Path) -> None:
    spec = write_spec(tmp_path / "restricted.yaml", {"version": 1, "agents": [
        {"name": "weather", "tool_edges": {"restricted": ["refund"]}}]})
    report = _report(tmp_path, _spans(restricted_inferred_traffic), "--spec", str(spec))
    assert report["agents"]["weather"]["edges"]["restricted_attempts"] == 1
    assert "conventions_overruled" not in report["spans"]


def failed_flow_named_like_a_tool_traffic(tracer: Tracer) -> None:
    """A workflow span (`zeta.span.type: workflow`) named `lookup`, like the tool its agent
    calls, fails (status error) around `weather`'s run, which calls lookup and ends well."""
    with tracer.start_as_current_span("lookup", attributes={
            "zeta.span.type": "workflow"}) as flow:
        with tracer.start_as_current_span("step", attributes={
                "zeta.span.type": "agent", "zeta.span.name": "weather"}):
            with tracer.start_as_current_span("step", attributes={
                    "zeta.span.type": "tool", "zeta.span.name": "lookup"}):
                pass
        flow.set_status(Status(StatusCode.ERROR))


def test_a_workflow_named_like_a_tool_stays_a_workflow_and_fails_its_run(
        tmp_path: Path) -> None:
    """Only an agent named like a tool of its trace is read as none; a workflow of that name
    stays one, and its failure fails the run under it."""
    report = _report(tmp_path, _spans(failed_flow_named_like_a_tool_traffic))
    assert report["agents"]["weather"]["runs"]["errors"] == 1


def _typed_llm(tracer: Tracer, **extra: str) -> None:
    """A model call of model `m` its kind attribute types (`zeta.span.type: llm`)."""
    with tracer.start_as_current_span("step", attributes={
            "zeta.span.type": "llm", "zeta.model": "m", **extra}):
        pass


def restricted_between_calls_traffic(tracer: Tracer, tool: str = "delete_repo") -> None:
    """`weather` (typed agent) calls its model, the tool lookup (typed, named by its key), then
    `tool` (`delete_repo`), a span with no evidence of its own between two of its calls, then its
    model again: timing reads no tool beside tools typed so, but a restricted one it still reads."""
    with tracer.start_as_current_span("step", attributes={
            "zeta.span.type": "agent", "zeta.span.name": "weather"}):
        _typed_llm(tracer)
        with tracer.start_as_current_span("step", attributes={
                "zeta.span.type": "tool", "zeta.tool.name": "lookup"}):
            pass
        with tracer.start_as_current_span(tool):
            pass
        _typed_llm(tracer)


def test_timing_still_reads_a_restricted_tool_beside_typed_tools(tmp_path: Path) -> None:
    plain = _report(tmp_path, _spans(restricted_between_calls_traffic))
    assert plain["agents"]["weather"]["tools"]["called"] == {"lookup": {"ok": 1, "error": 0}}
    spec = write_spec(tmp_path / "restricted.yaml", {"version": 1, "agents": [
        {"name": "weather", "tool_edges": {"restricted": ["delete_repo"]}}]})
    guarded = tmp_path / "guarded"
    guarded.mkdir()
    report = _report(guarded, _spans(restricted_between_calls_traffic), "--spec", str(spec))
    assert report["agents"]["weather"]["edges"]["restricted_attempts"] == 1


def test_a_conflict_quotes_at_most_sixty_characters_of_the_span_name() -> None:
    name = "w" * 70 + ".agent"
    conflict = infer(SpanRecord(1, 2, None, name, scope_name="s", attributes={
        "x.span.type": "tool"})).conflict
    assert conflict is not None and f"span name {name[:60]!r}" in conflict
    assert name[:61] not in conflict


def busy_tool_traffic(tracer: Tracer) -> None:
    """`weather` (typed agent) calls its model, then `lookup` (no evidence, a database query
    under it), then its model: lookup is the loop's tool, by timing, whatever it runs."""
    with tracer.start_as_current_span("step", attributes={
            "zeta.span.type": "agent", "zeta.span.name": "weather"}):
        _typed_llm(tracer)
        with tracer.start_as_current_span("lookup"), tracer.start_as_current_span(
                "SELECT orders", attributes={"db.system": "sqlite"}):
            pass
        _typed_llm(tracer)


def test_a_tool_found_by_timing_may_run_spans_of_its_own(tmp_path: Path) -> None:
    report = _report(tmp_path, _spans(busy_tool_traffic))
    assert report["agents"]["weather"]["tools"]["called"] == {"lookup": {"ok": 1, "error": 0}}


def asked_named_tool_traffic(tracer: Tracer) -> None:
    """`weather` (typed agent) calls its model, which asks for lookup (an indexed output key),
    then `tool.lookup` (a tool by its span name), then its model: a tool its name says, never
    one the structure found."""
    with tracer.start_as_current_span("step", attributes={
            "zeta.span.type": "agent", "zeta.span.name": "weather"}):
        _typed_llm(tracer, **{"zeta.completion.0.tool_calls.0.name": "lookup"})
        with tracer.start_as_current_span("tool.lookup"):
            pass
        _typed_llm(tracer)


def test_a_tool_its_name_says_is_counted_by_its_name_not_by_structure(tmp_path: Path) -> None:
    report = _report(tmp_path, _spans(asked_named_tool_traffic))
    assert report["agents"]["weather"]["tools"]["called"] == {"lookup": {"ok": 1, "error": 0}}
    assert report["spans"]["inferred"].get("tool.name") == 1
    assert "tool.structure" not in report["spans"]["inferred"]


def _code_path_call(tracer: Tracer, model: str) -> None:
    """A model call traced by its function's code path (`__main__.chat_completion`)."""
    with tracer.start_as_current_span("__main__.chat_completion", attributes={"model": model}):
        pass


def app_class_traffic(tracer: Tracer) -> None:
    """A library traces the app's functions by code path: the server's dispatcher runs the
    app's `WeatherAgentExecutor.execute`, which calls its model, runs `_common.get_weather`
    (between two calls) and calls again; in a trace of its own, `BillingAgentExecutor.execute`
    calls its model once; and `_Agent.execute`, a private class, calls its model, runs a tool
    and calls again."""
    with tracer.start_as_current_span("acme.server.Dispatcher.handle"), (
            tracer.start_as_current_span("__main__.WeatherAgentExecutor.execute")):
        _code_path_call(tracer, "weather-model")
        with tracer.start_as_current_span("_common.get_weather"):
            pass
        _code_path_call(tracer, "weather-model")
    with tracer.start_as_current_span("__main__.BillingAgentExecutor.execute"):
        _code_path_call(tracer, "billing-model")
    with tracer.start_as_current_span("__main__._Agent.execute"):
        _code_path_call(tracer, "m")
        with tracer.start_as_current_span("app.tools.lookup"):
            pass
        _code_path_call(tracer, "m")


def test_an_apps_agent_class_names_its_agent_and_a_code_path_its_tool(tmp_path: Path) -> None:
    """`<Name>Agent<part>` in a code path names the agent `name` (a run even with one model
    call); a tool found by timing is named by its code path's function, as the model calls it;
    a private class names nothing (its run counts for the service)."""
    assert _agents(_report(tmp_path, _spans(app_class_traffic))) == {
        "weather": {"runs": 1, "tools": {"get_weather": {"ok": 1, "error": 0}},
                    "models": {"weather-model": 2}, "delegations": []},
        "billing": {"runs": 1, "tools": {}, "models": {"billing-model": 1}, "delegations": []},
        SERVICE: {"runs": 1, "tools": {"lookup": {"ok": 1, "error": 0}}, "models": {"m": 2},
                  "delegations": []},
    }


@pytest.mark.parametrize("restricted", ["delete_repo", "_ops.delete_repo"])
def test_a_restricted_tool_traced_by_its_code_path_is_still_its_call(
        tmp_path: Path, restricted: str) -> None:
    """A restricted list naming the tool, or the code path as the span names it
    (`_ops.delete_repo`: no evidence of its own), reads the call."""
    spec = write_spec(tmp_path / "restricted.yaml", {"version": 1, "agents": [
        {"name": "weather", "tool_edges": {"restricted": [restricted]}}]})
    report = _report(tmp_path, _spans(
        lambda tracer: restricted_between_calls_traffic(tracer, "_ops.delete_repo")),
        "--spec", str(spec))
    assert report["agents"]["weather"]["edges"]["restricted_attempts"] == 1


@contextmanager
def _served(tracer: Tracer, name: str) -> Iterator[None]:
    """A client span `Start<name>` and, under it as a remote parent (another worker got the
    context in a header), the server span `Run<name>` doing the work."""
    with tracer.start_as_current_span(f"Start{name}", kind=SpanKind.CLIENT) as client:
        sent = client.get_span_context()
        remote = trace.set_span_in_context(trace.NonRecordingSpan(SpanContext(
            sent.trace_id, sent.span_id, is_remote=True,
            trace_flags=TraceFlags(TraceFlags.SAMPLED))))
        with tracer.start_as_current_span(f"Run{name.replace('Child', '')}", context=remote,
                                          kind=SpanKind.SERVER):
            yield


def interceptor_traffic(tracer: Tracer) -> None:
    """A durable engine's workflows, traced by its interceptor: `RunWorkflow:weather` schedules
    the activity chat_completion (its client's span, then the worker's under it, a remote
    parent), get_weather, the child workflow billing (its own model
    call) and chat_completion again."""
    with tracer.start_as_current_span("RunWorkflow:weather", kind=SpanKind.SERVER):
        with _served(tracer, "Activity:chat_completion"):
            pass
        with _served(tracer, "Activity:get_weather"):
            pass
        with _served(tracer, "ChildWorkflow:billing"), _served(
                tracer, "Activity:chat_completion"):
            pass
        with _served(tracer, "Activity:chat_completion"):
            pass


def test_an_interceptors_workflows_are_runs_and_its_activities_calls(
        tmp_path: Path) -> None:
    """Each model call counts once (the worker's span is the call's server half, joining the
    caller's subtree), the tool is named by what the activity ran, the child workflow is a run
    weather delegates to; no run of the service, nor of an activity."""
    assert _agents(_report(tmp_path, _spans(interceptor_traffic))) == {
        "weather": {"runs": 1, "tools": {"get_weather": {"ok": 1, "error": 0}}, "models": {},
                    "delegations": [("weather", "billing")]},
        "billing": {"runs": 1, "tools": {}, "models": {}, "delegations": []},
    }


def effect_traffic(tracer: Tracer) -> None:
    """The app's span `weather` around a chat's `generateText`, whose language model call
    (GenAI keys) handles the tools it asked for inside it (`Toolkit.handle`, the tool in the key
    `tool`), then a second `generateText`."""
    with tracer.start_as_current_span("weather"):
        for tools in (("get_weather", "get_time"), ()):
            with tracer.start_as_current_span("Chat.generateText"), (
                    tracer.start_as_current_span("LanguageModel.generateText", attributes={
                        "gen_ai.operation.name": "chat", "gen_ai.request.model": "m"})):
                for tool in tools:
                    with tracer.start_as_current_span("Toolkit.handle", attributes={
                            "tool": tool}):
                        pass


def test_a_chats_method_names_nothing_and_a_toolkit_runs_tools(tmp_path: Path) -> None:
    """`Chat.generateText` is the model call its class says, no agent named `generateText`;
    the toolkit's handling is a call of the tool its key names; `weather` runs them."""
    assert _agents(_report(tmp_path, _spans(effect_traffic))) == {
        "weather": {"runs": 1, "tools": {"get_weather": {"ok": 1, "error": 0},
                                         "get_time": {"ok": 1, "error": 0}},
                    "models": {"m": 2}, "delegations": []},
    }


def test_explains_file_reads_a_durable_engines_workflows_as_inference_did(
        tmp_path: Path) -> None:
    """Pinned, the workflows structure read as runs (a child workflow under a pinned agent, a
    workflow beside one) are read so again: their group is not pinned as workflows."""
    def traffic(tracer: Tracer) -> None:  # and `serve` running triage, then billing
        interceptor_traffic(tracer)
        with tracer.start_as_current_span("serve"):
            with tracer.start_as_current_span("RunWorkflow:triage", kind=SpanKind.SERVER):
                with _served(tracer, "Activity:chat_completion"):
                    pass
                with _served(tracer, "Activity:transfer_to_billing"):
                    pass
                with _served(tracer, "Activity:chat_completion"):
                    pass
            with tracer.start_as_current_span("RunWorkflow:billing", kind=SpanKind.SERVER), (
                    _served(tracer, "Activity:chat_completion")):
                pass

    traces = write_jsonl(tmp_path / "durable.jsonl", _spans(traffic))
    pinned = tmp_path / "agentcov.yaml"
    assert main(["explain", str(traces), "--write", str(pinned)]) == 0
    assert "workflow" not in [e["kind"] for e in yaml.safe_load(pinned.read_text())[
        "conventions"]]
    out = tmp_path / "pinned.json"
    assert main(["coverage", str(traces), "--spec", str(pinned), "--format", "json",
                 "--output", str(out)]) == 0
    inferred = _agents(_report(tmp_path, _spans(traffic)))
    assert inferred["billing"]["runs"] == 2 and inferred["triage"]["runs"] == 1
    assert _agents(json.loads(out.read_text())) == inferred


@contextmanager
def _queued(tracer: Tracer, task: str) -> Iterator[None]:
    """A task queue's message: the sender's `apply_async/<task>` (PRODUCER), then, under it as
    a remote parent, the worker's `run/<task>` (CONSUMER) running it."""
    with tracer.start_as_current_span(f"apply_async/{task}", kind=SpanKind.PRODUCER) as sent:
        context = sent.get_span_context()
        remote = trace.set_span_in_context(trace.NonRecordingSpan(SpanContext(
            context.trace_id, context.span_id, is_remote=True,
            trace_flags=TraceFlags(TraceFlags.SAMPLED))))
        with tracer.start_as_current_span(f"run/{task}", context=remote, kind=SpanKind.CONSUMER):
            yield


def task_queue_traffic(tracer: Tracer) -> None:
    """The agent `weather` a task, its model call and each tool tasks it sends in turn."""
    with _queued(tracer, "weather"):
        for task in ("call_model", "get_weather", "call_model"):
            with _queued(tracer, task):
                pass


def test_a_task_queues_tasks_are_the_run_its_calls_and_tools(tmp_path: Path) -> None:
    """`run/weather` is weather's run (named by what the operation ran), each `call_model`
    one model call (the worker's half joins the sender's, no model named `call_model`), and
    get_weather its tool, by timing, named as the model calls it."""
    assert _agents(_report(tmp_path, _spans(task_queue_traffic))) == {
        "weather": {"runs": 1, "tools": {"get_weather": {"ok": 1, "error": 0}}, "models": {},
                    "delegations": []},
    }
    assert model_source(SpanRecord(1, 2, None, "run/call_model", scope_name="s")) is None


def lone_turn_traffic(tracer: Tracer) -> None:
    """A span of no evidence, `alpha`, around a turn whose key names the agent `weather`, the
    turn calling its model."""
    with tracer.start_as_current_span("alpha"), tracer.start_as_current_span(
            "step", attributes={"x.turn.agent_name": "weather"}):
        _typed_llm(tracer)


def test_a_turn_is_its_agents_run_under_a_span_of_another_name(tmp_path: Path) -> None:
    """Only a span of the agent's own name takes its turns' run; one of another name does not."""
    assert _agents(_report(tmp_path, _spans(lone_turn_traffic))) == {
        "weather": {"runs": 1, "tools": {}, "models": {"m": 1}, "delegations": []}}


def test_an_agent_a_table_names_like_an_operation_keeps_its_name(tmp_path: Path) -> None:
    """Only a candidate's name is read as an operation and what it ran (`run/weather`); an
    agent a table names so keeps the name it was given."""
    def traffic(tracer: Tracer) -> None:
        with tracer.start_as_current_span("invoke_agent run/weather", attributes={
                "gen_ai.operation.name": "invoke_agent", "gen_ai.agent.name": "run/weather"}):
            _typed_llm(tracer)

    assert list(_report(tmp_path, _spans(traffic))["agents"]) == ["run/weather"]


def test_steps_restored_with_strings_of_their_own_are_read_alike() -> None:
    """A step read back from a journal holds its kind and evidence as strings of its own, equal
    to the package's constants but not them: the structure reads such steps as any other (a
    lifecycle's call, an idle twin of a busy agent)."""
    def fresh(text: str) -> str:
        return "".join(list(text))  # equal, never the same object

    def step(span_id: int, parent: int | None, kind: str, **more: Any) -> Step:
        return Step(trace_id=1, span_id=span_id, parent_id=parent, kind=fresh(kind),
                    start_ns=span_id, end_ns=100 - span_id, fallback_agent="svc", **more)

    steps = [step(1, None, "other", inferred=fresh("candidate")),
             step(2, 1, "other", own_name="x.chat"), step(3, 1, "other", own_name="x.chat"),
             step(4, None, "agent", agent="weather", inferred=fresh("name")),
             step(5, None, "agent", agent="weather", inferred=fresh("name")),
             step(6, 5, "llm", model="m")]
    by_id = {s.span_id: s for s in steps}
    children: dict[int, list[Step]] = {}
    for s in steps:
        if s.parent_id is not None:
            children.setdefault(s.parent_id, []).append(s)
    infer_structure(by_id, children, [s for s in steps if s.parent_id is None],
                    lambda *_: None)
    assert [by_id[n].kind for n in (1, 4, 5)] == ["llm", "other", "agent"]
