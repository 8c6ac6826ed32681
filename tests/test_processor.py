"""AgentCoverageProcessor inside the real OpenTelemetry SDK (docs/architecture.md#data-flow,
docs/guarantees.md).

The processor must never raise into the host, never block it, count every span it sees (kept or
dropped, with the reason), and give exact totals under concurrent `on_end` calls.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Iterator, Mapping
from typing import Any

import pytest
from _builders import agent_attrs, chat_attrs, tool_attrs
from opentelemetry import trace as trace_api
from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import ReadableSpan, Tracer, TracerProvider
from opentelemetry.trace import SpanContext, TraceFlags

from otel_agentcov.assembler import Bounds
from otel_agentcov.processor import AgentCoverageProcessor

SERVICE = "checkout-svc"
MAX_NAME_CHARS = 256  # docs/metrics.md: label values are bounded; names are clipped to this
_NO_KINDS = {"llm": 0, "tool": 0, "agent": 0, "handoff": 0, "workflow": 0, "other": 0}


def _make(**kwargs: Any) -> tuple[AgentCoverageProcessor, TracerProvider, Tracer]:
    processor = AgentCoverageProcessor(**kwargs)
    provider = TracerProvider(resource=Resource.create({"service.name": SERVICE}))
    provider.add_span_processor(processor)
    return processor, provider, provider.get_tracer("agentcov-tests")


@pytest.fixture
def sdk() -> Iterator[tuple[AgentCoverageProcessor, TracerProvider, Tracer]]:
    # A long flush interval: only force_flush/snapshot/shutdown drain, so tests are deterministic.
    processor, provider, tracer = _make(flush_interval_s=3600.0)
    try:
        yield processor, provider, tracer
    finally:
        processor.shutdown()


def _report(processor: AgentCoverageProcessor) -> dict[str, Any]:
    return processor.snapshot().to_dict()


def _run(tracer: Tracer, agent: str, tools: list[str], model: str | None = None) -> int:
    """One agent run through the SDK; returns the number of spans it ended."""
    with tracer.start_as_current_span(f"invoke_agent {agent}", attributes=agent_attrs(agent)):
        if model is not None:
            with tracer.start_as_current_span(f"chat {model}", attributes=chat_attrs(model)):
                pass
        for tool in tools:
            with tracer.start_as_current_span(f"execute_tool {tool}", attributes=tool_attrs(tool)):
                pass
    return 1 + len(tools) + (model is not None)


def _all_names(report: Mapping[str, Any]) -> list[str]:
    """Every name-like label value the report carries."""
    names: list[str] = []
    for agent, body in report["agents"].items():
        names.append(agent)
        names.extend(body["tools"]["known"])
        names.extend(body["tools"]["called"])
        names.extend(body["models"]["used"])
        for edge in body["delegations"]:
            names.extend((edge["from"], edge["to"]))
    return names


# --------------------------------------------------------------------------- concurrency


THREADS, RUNS, TOOLS_PER_RUN, AGENTS = 8, 250, 3, 4


@pytest.mark.timeout(60)
def test_concurrent_on_end_with_concurrent_snapshots_gives_exact_totals() -> None:
    processor, provider, tracer = _make(flush_interval_s=0.01)
    start = threading.Barrier(THREADS + 1)
    writers_done = threading.Event()
    errors: list[BaseException] = []
    processed_seen: list[int] = []

    def writer(t: int) -> None:
        try:
            start.wait()
            agent = f"agent_{t % AGENTS}"
            tools = [f"t{t}_tool{k}" for k in range(TOOLS_PER_RUN)]
            for _ in range(RUNS):
                with tracer.start_as_current_span(
                    f"invoke_agent {agent}", attributes=agent_attrs(agent)
                ):
                    usage = {"gen_ai.usage.input_tokens": 10, "gen_ai.usage.output_tokens": 5}
                    attrs = chat_attrs("gpt-4o", **usage)
                    with tracer.start_as_current_span("chat gpt-4o", attributes=attrs):
                        pass
                    for tool in tools:
                        with tracer.start_as_current_span(
                            f"execute_tool {tool}", attributes=tool_attrs(tool)
                        ):
                            pass
        except BaseException as exc:  # surfaced by the main thread
            errors.append(exc)

    def reader() -> None:
        try:
            start.wait()
            while not writers_done.is_set():
                processed_seen.append(processor.snapshot().to_dict()["spans"]["processed"])
        except BaseException as exc:
            errors.append(exc)

    writers = [threading.Thread(target=writer, args=(t,)) for t in range(THREADS)]
    snapshotter = threading.Thread(target=reader)
    try:
        for th in (*writers, snapshotter):
            th.start()
        for th in writers:
            th.join(timeout=50)
        writers_done.set()
        snapshotter.join(timeout=50)
        assert not any(th.is_alive() for th in (*writers, snapshotter)), "deadlock"
        assert errors == []

        assert processor.force_flush() is True
        report = _report(processor)
    finally:
        provider.shutdown()

    runs_total = THREADS * RUNS
    spans = report["spans"]
    assert spans["processed"] == runs_total * (2 + TOOLS_PER_RUN)
    assert spans["by_kind"] == {
        **_NO_KINDS, "agent": runs_total, "llm": runs_total, "tool": runs_total * TOOLS_PER_RUN
    }
    assert spans["dropped"] == {}
    assert spans["internal_errors"] == 0
    assert spans["traces_in_flight"] == 0
    assert set(spans["flushed_early"].values()) == {0}

    # the snapshots taken while writers ran saw a count that only grows, and did run concurrently
    assert len(processed_seen) >= 2
    assert processed_seen == sorted(processed_seen)
    assert processed_seen[-1] <= spans["processed"]

    assert sorted(report["agents"]) == [f"agent_{k}" for k in range(AGENTS)]
    per_agent_runs = RUNS * THREADS // AGENTS
    for k in range(AGENTS):
        body = report["agents"][f"agent_{k}"]
        assert body["runs"]["count"] == per_agent_runs
        assert body["runs"]["errors"] == 0
        expected_tools = {
            f"t{t}_tool{i}": {"ok": RUNS, "error": 0}
            for t in range(THREADS)
            if t % AGENTS == k
            for i in range(TOOLS_PER_RUN)
        }
        assert body["tools"]["called"] == expected_tools
        assert body["models"]["used"] == {"gpt-4o": per_agent_runs}
        assert body["runs"]["tokens"]["mean"] == pytest.approx(15.0)
        # every run took the same path: one llm call, then its three tools
        assert body["paths"]["observed"] == 1
        assert body["paths"]["top"] == [
            {"path": ["llm"] + ["tool"] * TOOLS_PER_RUN, "count": per_agent_runs}
        ]


# --------------------------------------------------------------------------- malformed input


class _ExplodingSpan(ReadableSpan):
    """Looks like a span, but reading its context raises (a broken custom span class)."""

    @property
    def context(self) -> Any:
        raise RuntimeError("context is broken")


def _ctx(trace_id: int, span_id: int) -> SpanContext:
    return SpanContext(trace_id, span_id, is_remote=False, trace_flags=TraceFlags(1))


@pytest.mark.timeout(30)
def test_malformed_spans_never_raise_and_every_drop_is_counted(
    sdk: tuple[AgentCoverageProcessor, TracerProvider, Tracer],
) -> None:
    processor, _, tracer = sdk
    huge_tool = "T" * 100_000
    five_mb_defs = json.dumps(
        [{"type": "function", "name": "offered_tool", "description": "d" * 5_000_000}]
    )
    assert len(five_mb_defs) > 5_000_000
    ended = 0

    with tracer.start_as_current_span("invoke_agent robust", attributes=agent_attrs("robust")):
        # a tool name of the wrong type: not a tool without a name to fall back on ...
        with tracer.start_as_current_span("execute_tool", attributes=tool_attrs(42)):
            pass
        # ... and the span name's tool otherwise
        with tracer.start_as_current_span("execute_tool lookup", attributes=tool_attrs(42)):
            pass
        # token counts as a digit string and as a list: the string counts, the list is 0
        bad_tokens = {"gen_ai.usage.input_tokens": "12", "gen_ai.usage.output_tokens": [3, 4]}
        with tracer.start_as_current_span("chat m1", attributes=chat_attrs("m1", **bad_tokens)):
            pass
        # a negative count is 0, the other one counts
        neg = {"gen_ai.usage.input_tokens": -5, "gen_ai.usage.output_tokens": 7}
        with tracer.start_as_current_span("chat m2", attributes=chat_attrs("m2", **neg)):
            pass
        # 5 MB of tool definitions
        defs = {"gen_ai.tool.definitions": five_mb_defs}
        with tracer.start_as_current_span("chat m3", attributes=chat_attrs("m3", **defs)):
            pass
        # a 100k-character tool name
        with tracer.start_as_current_span("execute_tool huge", attributes=tool_attrs(huge_tool)):
            pass
        # no attributes at all
        with tracer.start_as_current_span("something else"):
            pass
    ended += 8

    # end before start, through the real SDK
    backwards = tracer.start_span(
        "execute_tool late", attributes=tool_attrs("late"), start_time=2_000_000_000
    )
    backwards.end(end_time=1_000_000_000)
    ended += 1

    # values the SDK would refuse, handed straight to on_end: mixed-type finish reasons and tokens
    trace_id = 0xABC
    processor.on_end(
        ReadableSpan(
            "chat m4",
            context=_ctx(trace_id, 2),
            parent=_ctx(trace_id, 1),
            attributes=chat_attrs(
                "m4",
                **{
                    "gen_ai.response.finish_reasons": [7, "stop", None],
                    "gen_ai.usage.input_tokens": ["1", 2],
                    "gen_ai.usage.output_tokens": {"n": 1},
                },
            ),
            start_time=10,
            end_time=20,
        )
    )
    processor.on_end(
        ReadableSpan(
            "invoke_agent direct",
            context=_ctx(trace_id, 1),
            attributes=agent_attrs("direct"),
            start_time=5,
            end_time=30,
        )
    )
    ended += 2

    # objects that are not usable spans at all
    for broken in (_ExplodingSpan("boom"), None, object()):
        processor.on_end(broken)  # type: ignore[arg-type]
    ended += 3

    assert processor.force_flush() is True
    report = _report(processor)
    spans = report["spans"]
    assert spans["dropped"] == {"end_before_start": 1, "malformed": 3}
    assert spans["processed"] == ended
    assert spans["by_kind"] == {**_NO_KINDS, "agent": 2, "llm": 4, "tool": 2, "other": 2}

    robust = report["agents"]["robust"]
    assert robust["runs"]["count"] == 1
    assert robust["tools"]["called"] == {
        "lookup": {"ok": 1, "error": 0},
        huge_tool[:MAX_NAME_CHARS]: {"ok": 1, "error": 0},
    }
    assert "42" not in robust["tools"]["called"]
    assert "offered_tool" in robust["tools"]["known"]  # the 5 MB definitions were read
    assert robust["models"]["used"] == {"m1": 1, "m2": 1, "m3": 1}
    assert robust["runs"]["tokens"]["mean"] == pytest.approx(12 + 7)
    assert SERVICE not in report["agents"]  # the backwards "late" tool was not folded anywhere

    direct = report["agents"]["direct"]
    assert direct["models"]["used"] == {"m4": 1}
    assert direct["runs"]["tokens"]["mean"] == 0.0

    # the processor keeps working after all that
    _run(tracer, "afterwards", ["ping"])
    report = _report(processor)
    assert report["agents"]["afterwards"]["runs"]["count"] == 1
    assert report["agents"]["afterwards"]["tools"]["called"] == {"ping": {"ok": 1, "error": 0}}
    assert report["spans"]["processed"] == ended + 2


def test_end_before_start_is_dropped_not_folded(
    sdk: tuple[AgentCoverageProcessor, TracerProvider, Tracer],
) -> None:
    processor, _, tracer = sdk
    root = tracer.start_span("invoke_agent clock_skew", attributes=agent_attrs("clock_skew"),
                             start_time=5_000)
    root.end(end_time=4_000)
    processor.force_flush()
    stats = processor.span_stats()
    assert stats["dropped"] == {"end_before_start": 1}
    assert stats["by_kind"] == _NO_KINDS
    assert "clock_skew" not in _report(processor)["agents"]


def test_names_are_clipped_in_the_report(
    sdk: tuple[AgentCoverageProcessor, TracerProvider, Tracer],
) -> None:
    processor, _, tracer = sdk
    long_agent = "A" * 100_000
    long_model = "M" * 100_000
    with tracer.start_as_current_span("invoke_agent x", attributes=agent_attrs(long_agent)):
        with tracer.start_as_current_span("chat x", attributes=chat_attrs(long_model)):
            pass
        with tracer.start_as_current_span("execute_tool x", attributes=tool_attrs("t" * 100_000)):
            pass
    report = _report(processor)
    assert list(report["agents"]) == [long_agent[:MAX_NAME_CHARS]]
    body = report["agents"][long_agent[:MAX_NAME_CHARS]]
    assert list(body["models"]["used"]) == [long_model[:MAX_NAME_CHARS]]
    assert list(body["tools"]["called"]) == ["t" * MAX_NAME_CHARS]


def test_a_long_tool_offered_and_called_is_one_tool(
    sdk: tuple[AgentCoverageProcessor, TracerProvider, Tracer],
) -> None:
    """Names offered in tool definitions are clipped like called names, or they never match."""
    processor, _, tracer = sdk
    long_tool = "q" * 100_000
    defs = json.dumps([{"type": "function", "name": long_tool}])
    with tracer.start_as_current_span("invoke_agent a", attributes=agent_attrs("a")):
        attrs = chat_attrs("m", **{"gen_ai.tool.definitions": defs})
        with tracer.start_as_current_span("chat m", attributes=attrs):
            pass
        with tracer.start_as_current_span("execute_tool q", attributes=tool_attrs(long_tool)):
            pass
    report = _report(processor)
    body = report["agents"]["a"]
    assert body["tools"]["known"] == [long_tool[:MAX_NAME_CHARS]]
    assert body["coverage"]["tool"] == 1.0


def test_hand_off_targets_are_clipped_like_agent_names(
    sdk: tuple[AgentCoverageProcessor, TracerProvider, Tracer],
) -> None:
    """Delegation edges name agents: they are bounded like every other label value."""
    processor, _, tracer = sdk
    target = "b" * 100_000
    with tracer.start_as_current_span("invoke_agent a", attributes=agent_attrs("a")):
        with tracer.start_as_current_span(
            "execute_tool transfer", attributes=tool_attrs("transfer_to_" + target)
        ):
            pass
        handoff = {
            "gen_ai.operation.name": "agent_handoff",
            "gen_ai.handoff.from_agent": "a",
            "gen_ai.handoff.to_agent": "c" * 100_000,
        }
        with tracer.start_as_current_span("agent_handoff", attributes=handoff):
            pass
    report = _report(processor)
    assert len(report["agents"]["a"]["delegations"]) == 2
    assert max(len(n) for n in _all_names(report)) <= MAX_NAME_CHARS


_DEEP_JSON = "[" * 100_000


@pytest.mark.parametrize(
    ("key", "value"),
    [
        ("gen_ai.usage.input_tokens", float("inf")),
        ("gen_ai.usage.output_tokens", "9" * 5000),
        ("gen_ai.usage.input_tokens", "\u00b2"),
        ("gen_ai.output.messages", '[{"role": "assistant", "parts": 5}]'),
        ("gen_ai.input.messages", '[{"role": "user", "parts": 5}]'),
        ("gen_ai.tool.definitions", _DEEP_JSON),
        ("model_request_parameters", '{"function_tools": 5, "output_tools": true}'),
    ],
    ids=["inf-tokens", "5000-digit-tokens", "superscript-digit", "output-parts-int",
         "input-parts-int", "deeply-nested-json", "tool-params-not-lists"],
)
def test_a_bad_optional_attribute_does_not_lose_the_llm_step(
    sdk: tuple[AgentCoverageProcessor, TracerProvider, Tracer], key: str, value: Any
) -> None:
    """Odd token counts or captured content are ignored; the LLM span (model, run) is kept."""
    processor, _, tracer = sdk
    with tracer.start_as_current_span("invoke_agent a", attributes=agent_attrs("a")):
        with tracer.start_as_current_span("chat m", attributes=chat_attrs("m", **{key: value})):
            pass
    report = _report(processor)
    assert report["spans"]["dropped"] == {}
    assert report["spans"]["by_kind"]["llm"] == 1
    assert report["agents"]["a"]["models"]["used"] == {"m": 1}


# --------------------------------------------------------------------------- flush / shutdown


@pytest.mark.timeout(30)
def test_force_flush_makes_every_ended_span_visible(
    sdk: tuple[AgentCoverageProcessor, TracerProvider, Tracer],
) -> None:
    processor, _, tracer = sdk
    ended = sum(_run(tracer, "flushme", ["a", "b"], model="m") for _ in range(5))
    # the worker is asleep (long flush interval, queue far below its wake mark): nothing folded yet
    assert processor.span_stats()["processed"] == 0
    assert processor.force_flush() is True
    stats = processor.span_stats()
    assert stats["processed"] == ended
    # engine.snapshot() does not drain by itself, so this is what force_flush made visible
    body = processor.engine.snapshot().to_dict()["agents"]["flushme"]
    assert body["runs"]["count"] == 5
    assert body["tools"]["called"] == {"a": {"ok": 5, "error": 0}, "b": {"ok": 5, "error": 0}}


@pytest.mark.timeout(30)
def test_shutdown_is_idempotent_finishes_open_traces_and_counts_late_spans() -> None:
    processor, provider, tracer = _make(flush_interval_s=3600.0)
    _run(tracer, "finished", ["x"])

    # a workflow root that never ends before shutdown, with a finished agent inside it
    root = tracer.start_span("invoke_workflow flow", attributes={
        "gen_ai.operation.name": "invoke_workflow"})
    inside = trace_api.set_span_in_context(root)
    with tracer.start_as_current_span(
        "invoke_agent open_child", context=inside, attributes=agent_attrs("open_child")
    ):
        with tracer.start_as_current_span("execute_tool y", attributes=tool_attrs("y")):
            pass
    assert processor.force_flush() is True
    stats = processor.span_stats()
    assert stats["traces_in_flight"] == 1
    assert "open_child" not in processor.engine.snapshot().agents

    processor.shutdown()
    processor.shutdown()  # idempotent
    assert not processor._worker.is_alive()
    report = _report(processor)
    spans = report["spans"]
    assert spans["flushed_early"]["shutdown"] >= 1
    assert spans["traces_in_flight"] == 0
    assert report["agents"]["open_child"]["runs"]["count"] == 1
    assert report["agents"]["open_child"]["tools"]["called"] == {"y": {"ok": 1, "error": 0}}
    assert report["agents"]["finished"]["runs"]["count"] == 1
    processed = spans["processed"]
    assert processed == 4

    # spans ending after shutdown are counted, not folded
    root.end()
    _run(tracer, "late", ["z"])
    provider.shutdown()  # calls processor.shutdown() a third time
    report = _report(processor)
    assert report["spans"]["dropped"] == {"after_shutdown": 3}
    assert report["spans"]["processed"] == processed + 3
    assert "late" not in report["agents"]
    assert report["agents"]["open_child"]["runs"]["count"] == 1


# --------------------------------------------------------------------------- queue bound


@pytest.mark.timeout(30)
def test_dropping_never_waits_for_the_engine_lock() -> None:
    """Counting a drop must not wait behind ingestion or a snapshot (which hold the engine lock)."""
    processor, provider, tracer = _make(bounds=Bounds(max_queue=2), flush_interval_s=3600.0)
    spans = []
    for i in range(5):
        span = tracer.start_span(f"execute_tool t{i}", attributes=tool_attrs(f"t{i}"))
        spans.append(span)
    done = threading.Event()

    def end_all() -> None:
        for span in spans:
            span.end()
        done.set()

    try:
        with processor._drain_lock, processor.engine.lock:  # a long snapshot in progress
            host = threading.Thread(target=end_all, daemon=True)
            host.start()
            assert done.wait(5.0), "on_end blocked on the engine lock"
        assert processor.span_stats()["dropped"] == {"queue_full": 3}
    finally:
        provider.shutdown()


@pytest.mark.timeout(30)
def test_full_queue_drops_and_counts_without_blocking_the_host() -> None:
    processor, provider, tracer = _make(bounds=Bounds(max_queue=10), flush_interval_s=3600.0)
    try:
        with processor._drain_lock:  # the worker cannot drain while the test holds this
            started = time.perf_counter()
            for i in range(50):
                span = tracer.start_span(f"execute_tool tool{i}", attributes=tool_attrs(f"tool{i}"))
                span.end()
            elapsed = time.perf_counter() - started
            stats = processor.span_stats()
            assert stats["dropped"] == {"queue_full": 40}
            assert stats["processed"] == 40
            assert len(processor._queue) == 10
        assert elapsed < 5.0
        assert processor.force_flush() is True
        stats = processor.span_stats()
        assert stats["processed"] == 50
        assert stats["by_kind"]["tool"] == 10
        assert stats["dropped"] == {"queue_full": 40}
        called = _report(processor)["agents"][SERVICE]["tools"]["called"]
        assert sum(c["ok"] for c in called.values()) == 10
    finally:
        provider.shutdown()


def test_the_bounds_as_keywords_still_work_with_a_deprecation_warning() -> None:
    """`AgentCoverageProcessor(spec, max_queue=...)` was the documented spelling before
    `bounds=Bounds(...)`: kept for one release, saying what replaces it; a misspelt keyword is
    still a TypeError."""
    with pytest.warns(DeprecationWarning, match=r"max_queue=, max_traces=.*bounds=Bounds"):
        processor = AgentCoverageProcessor(
            max_queue=7, max_traces=3, bounds=Bounds(idle_ttl_s=5.0))
    try:
        assert processor.engine.bounds == Bounds(max_queue=7, max_traces=3, idle_ttl_s=5.0)
        assert processor._max_queue == 7
    finally:
        processor.shutdown()
    with pytest.raises(TypeError, match="max_qeueu"):
        AgentCoverageProcessor(max_qeueu=7)


def test_a_float_trace_id_is_dropped_and_counted_never_raised() -> None:
    """The API takes any value for an id: a restricted tool called under a remote parent whose
    SpanContext has trace_id=1.5 once made `snapshot()` raise (the report prints the trace id
    of each restricted attempt) and the processor's /metrics answer 500. Such spans are
    invalid_ids drops; a scrape of the real /metrics server answers 200."""
    import urllib.request

    from _support import free_port

    from otel_agentcov.demo import DEMO_SPEC
    from otel_agentcov.spec import CoverageSpec

    processor, provider, tracer = _make(spec=CoverageSpec.from_dict(DEMO_SPEC),
                                        flush_interval_s=3600.0)
    try:
        parent = trace_api.set_span_in_context(trace_api.NonRecordingSpan(
            SpanContext(trace_id=1.5, span_id=7, is_remote=True,  # type: ignore[arg-type]
                        trace_flags=TraceFlags(1))))
        with tracer.start_as_current_span("invoke_agent triage_agent", context=parent,
                                          attributes=agent_attrs("triage_agent")):
            with tracer.start_as_current_span("execute_tool delete_repo",
                                              attributes=tool_attrs("delete_repo")):
                pass
        _run(tracer, "triage_agent", ["search"])
        report = _report(processor)
        assert report["spans"]["dropped"] == {"invalid_ids": 2}
        assert report["spans"]["processed"] == 4
        assert report["agents"]["triage_agent"]["runs"]["count"] == 1
        server, _ = processor.serve_metrics(port=(port := free_port()))
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=10) as resp:
                assert resp.status == 200
                assert b'reason="invalid_ids"} 2.0' in resp.read()
        finally:
            server.shutdown()
    finally:
        processor.shutdown()
        provider.shutdown()
