"""Who tests what (docs/semantics.md#test-contexts): contexts from test spans, through an OTLP
file and the CLI.

The spans come from the real SDK: a span per test carrying `test.case.name` (as the pytest plugin
and the OTel test conventions make them), agent spans inside it. Every expected value below is
written from the scenario, not read back from the code.
"""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from _builders import agent_span, chat_span, tool_span
from _trace_files import write_jsonl
from opentelemetry import trace
from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import ReadableSpan, TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

from otel_agentcov.assembler import AgentRun
from otel_agentcov.engine import CoverageEngine
from otel_agentcov.judge import PASSING
from otel_agentcov.records import SpanRecord
from otel_agentcov.semconv import classify
from otel_agentcov.semconv.step import OTHER, TOOL, Step
from otel_agentcov.spec import CoverageSpec
from otel_agentcov.state import CoverageState, Limits

SEARCH, DELETE, RES = (
    "tests/test_x.py::test_search", "tests/test_x.py::test_delete", "tests/test_y.py::test_res"
)
SPEC = {
    "version": 1,
    "agents": [{
        "name": "helper",
        "tools": ["search", "summarize", "fetch_docs", "lookup"],
        "tool_edges": {
            "restricted": ["delete_repo"],
            "delegation": [{"from": "helper", "to": "worker"}, {"from": "helper", "to": "auditor"}],
        },
    }],
}


@contextmanager
def _agent(tracer: trace.Tracer, name: str) -> Iterator[None]:
    with tracer.start_as_current_span(
        f"invoke_agent {name}",
        attributes={"gen_ai.operation.name": "invoke_agent", "gen_ai.agent.name": name},
    ):
        yield


def _tool(tracer: trace.Tracer, name: str) -> None:
    with tracer.start_as_current_span(
        f"execute_tool {name}",
        attributes={"gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": name},
    ):
        pass


def _spans() -> list[ReadableSpan]:
    exporter = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    tracer = provider.get_tracer("tests")
    # a test span named like a GenAI span, to show it is never taken for one
    with tracer.start_as_current_span("execute_tool search", attributes={"test.case.name": SEARCH}):
        with _agent(tracer, "helper"):
            _tool(tracer, "search")
            _tool(tracer, "summarize")
            with _agent(tracer, "worker"):
                _tool(tracer, "fetch")
    with tracer.start_as_current_span(DELETE, attributes={"test.case.name": DELETE}):
        with _agent(tracer, "helper"):
            _tool(tracer, "search")
            _tool(tracer, "delete_repo")
    with _agent(tracer, "helper"):  # outside any test: counted in coverage, in no context
        _tool(tracer, "summarize")
    provider.shutdown()
    # a process whose resource names the test (one process per test)
    second = InMemorySpanExporter()
    by_resource = TracerProvider(resource=Resource.create({"test.case.name": RES}))
    by_resource.add_span_processor(SimpleSpanProcessor(second))
    tracer = by_resource.get_tracer("tests")
    with _agent(tracer, "helper"):
        _tool(tracer, "lookup")
    by_resource.shutdown()
    return [*exporter.get_finished_spans(), *second.get_finished_spans()]


def _coverage(tmp_path: Path, *extra: str) -> subprocess.CompletedProcess[str]:
    traces = write_jsonl(tmp_path / "traces.jsonl", _spans())
    spec = tmp_path / "agentcov.yaml"
    spec.write_text(json.dumps(SPEC), encoding="utf-8")
    return subprocess.run(
        [sys.executable, "-m", "otel_agentcov.cli", "coverage", "--traces", str(traces),
         "--spec", str(spec), "--contexts", *extra],
        capture_output=True, text=True, timeout=120, check=False,
    )


def test_who_tests_what_from_an_otlp_file(tmp_path: Path) -> None:
    proc = _coverage(tmp_path, "--format", "json", "--data-file", str(tmp_path / "s.json"))
    assert proc.returncode == 0, proc.stderr
    agents = json.loads(proc.stdout)["agents"]
    assert set(agents) == {"helper", "worker"}  # the test spans are not agents
    assert agents["helper"]["runs"]["count"] == 4
    helper = agents["helper"]["contexts"]
    assert helper["by_test"] == {
        SEARCH: {"runs": 1, "passed": 1, "tools": {"search": 1, "summarize": 1},
                 "delegations": [{"from": "helper", "to": "worker"}], "restricted": [],
                 "behaviors": []},
        DELETE: {"runs": 1, "passed": 0, "tools": {"delete_repo": 1, "search": 1},
                 "delegations": [], "restricted": ["delete_repo"], "behaviors": []},
        RES: {"runs": 1, "passed": 1, "tools": {"lookup": 1}, "delegations": [],
              "restricted": [], "behaviors": []},
    }
    assert helper["tests_by_tool"] == {
        "delete_repo": [DELETE], "lookup": [RES], "search": [DELETE, SEARCH],
        "summarize": [SEARCH],
    }
    assert helper["untested"] == {
        "tools": ["fetch_docs"], "delegations": [{"from": "helper", "to": "auditor"}],
        "behaviors": [],
    }
    # a tool to test more: never the restricted delete_repo, which one test did call
    assert helper["single_test"] == {"tools": ["lookup", "summarize"]}
    assert agents["worker"]["contexts"]["by_test"][SEARCH]["tools"] == {"fetch": 1}
    # the contexts survive a state file round trip, and are left out unless asked for
    saved = CoverageState.load(tmp_path / "s.json")
    assert set(saved.agents["helper"].contexts.by_test) == {SEARCH, DELETE, RES}
    plain = subprocess.run(
        [sys.executable, "-m", "otel_agentcov.cli", "coverage", "--state", str(tmp_path / "s.json"),
         "--format", "json"], capture_output=True, text=True, timeout=120, check=False,
    )
    assert "contexts" not in json.loads(plain.stdout)["agents"]["helper"]


def test_text_and_markdown_show_tests_per_tool(tmp_path: Path) -> None:
    text = _coverage(tmp_path).stdout
    assert "untested tools: fetch_docs" in text
    assert any(line.split() == ["search", f"{DELETE},", SEARCH] for line in text.splitlines())
    markdown = _coverage(tmp_path, "--format", "markdown").stdout
    assert "### Who tests what" in markdown
    assert "| fetch\\_docs | **none** |" in markdown or "| fetch_docs | **none** |" in markdown


def test_a_test_span_is_a_context_never_a_genai_span() -> None:
    record = SpanRecord(
        trace_id=1, span_id=2, parent_id=None, name="execute_tool search",
        attributes={"test.case.name": SEARCH},
    )
    step = classify(record)
    assert step.kind == OTHER and step.tool is None and step.context == SEARCH
    genai = SpanRecord(
        trace_id=1, span_id=3, parent_id=None, name="execute_tool search",
        attributes={"test.case.name": SEARCH, "gen_ai.operation.name": "execute_tool",
                    "gen_ai.tool.name": "search"},
    )
    assert classify(genai).tool == "search"  # a GenAI span carrying the attribute stays one


def test_pytest_opentelemetry_spans_name_the_context() -> None:
    record = SpanRecord(
        trace_id=1, span_id=2, parent_id=None, name="tests/test_a.py::test_b",
        scope_name="pytest-opentelemetry",
    )
    assert classify(record).context == "tests/test_a.py::test_b"


def test_contexts_are_bounded_and_folds_counted() -> None:
    state_ = CoverageState(Limits(max_contexts=2, max_context_items=3))
    spec = CoverageSpec.empty().for_agent("a")
    for i in range(4):
        tool = Step(1, 10 + i, 1, TOOL, 0, 1, "a", tool=f"t{i}")
        state_.update(AgentRun("a", i + 1, 0, 1, steps=[tool], context=f"c{i}"), spec, PASSING)
    contexts = state_.agents["a"].contexts
    assert set(contexts.by_test) == {"c0", "c1", "__overflow__"}
    assert state_.overflow["context"] == 2  # c2 and c3 folded, one run each
    # 3 names fit the item budget (t0, t1, t2 in the overflow tally); t3 is folded
    assert contexts.held() == (3, 3) and state_.overflow["context_item"] == 1
    # the budgets are global: another agent's first test folds too, and a loaded state
    # counts what it holds against them
    other = AgentRun("b", 9, 0, 1, steps=[Step(1, 30, 1, TOOL, 0, 1, "b", tool="u")],
                     context="c9")
    state_.update(other, spec, PASSING)
    assert set(state_.agents["b"].contexts.by_test) == {"__overflow__"}
    again = CoverageState.from_dict(state_.to_dict(), Limits(max_contexts=2, max_context_items=3))
    assert (again.caps.context_tallies, again.caps.context_items) == (4, 3)


def _record(span_id: int, parent: int | None, name: str, start: int, end: int,
            **attributes: str) -> SpanRecord:
    return SpanRecord(trace_id=7, span_id=span_id, parent_id=parent, name=name, start_ns=start,
                      end_ns=end, attributes=attributes)


def _agent_span(span_id: int, parent: int, name: str, start: int, end: int) -> SpanRecord:
    return agent_span(7, span_id, parent, name, start, end)


def _tool_span(span_id: int, parent: int, name: str, start: int, end: int) -> SpanRecord:
    return tool_span(7, span_id, parent, name, start, end)


def _chat_span(span_id: int, parent: int, start: int, end: int) -> SpanRecord:
    return chat_span(7, span_id, parent, "gpt-4o", start, end)


def test_a_test_span_cuts_runs_as_separate_traces_would() -> None:
    """Under one test span, two agents run side by side are no hand-off (their spans overlap in
    time, which the timing heuristics would otherwise read as agent-as-tool), and three bare
    model calls are three runs, as they were before the plugin wrapped the test."""
    engine = CoverageEngine(CoverageSpec.empty())
    records = [
        _tool_span(3, 2, "slow_search", 10, 90),
        _agent_span(2, 1, "A", 5, 100),
        _tool_span(5, 4, "x", 20, 30),
        _agent_span(4, 1, "B", 15, 40),  # inside A's tool call, in time only
        *(_chat_span(10 + i, 1, 200 + 10 * i, 205 + 10 * i) for i in range(3)),
        _record(1, None, SEARCH, 0, 300, **{"test.case.name": SEARCH}),
    ]
    for record in sorted(records, key=lambda r: r.end_ns):
        engine.ingest(record)
    state = engine.state
    assert {name: st.outcomes.runs for name, st in state.agents.items()} == {
        "A": 1, "B": 1, "unknown_agent": 3,
    }
    assert all(not st.edges.delegations for st in state.agents.values())
    assert all(set(st.contexts.by_test) == {SEARCH} for st in state.agents.values())


def test_each_test_under_a_session_span_is_assembled_when_it_ends() -> None:
    """pytest-opentelemetry puts every test span under one session span: each test's work is
    its own runs with its own context, and nothing waits in the buffer for the session."""
    engine = CoverageEngine(CoverageSpec.empty())
    engine.ingest(_chat_span(11, 10, 1, 2))
    engine.ingest(SpanRecord(trace_id=7, span_id=10, parent_id=1, name="t.py::test_a",
                             start_ns=0, end_ns=3, scope_name="pytest-opentelemetry"))
    engine.ingest(_chat_span(21, 20, 5, 6))
    engine.ingest(_record(20, 1, "t.py::test_b", 4, 7, **{"test.case.name": "t.py::test_b"}))
    assert engine.assembler.traces_in_flight == 0  # the session span has not ended yet
    contexts = engine.state.agents["unknown_agent"].contexts.by_test
    assert {c: t.runs for c, t in contexts.items()} == {"t.py::test_a": 1, "t.py::test_b": 1}
