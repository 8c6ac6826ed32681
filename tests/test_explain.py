"""Say why nothing was found: `agentcov explain`, the report's `spans.unclassified`, and the
"no agent runs found" line pointing there (docs/conventions.md, docs/report.md).

The spans are an in-house vocabulary written by the real OpenTelemetry SDK to a Collector-style
JSON Lines file; expected shapes and counts are taken from the SDK's own spans.
"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
import yaml
from _acme import CANARY, SCOPE, acme_spans
from _trace_files import write_jsonl
from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import ReadableSpan, TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

from otel_agentcov import offline
from otel_agentcov.cli import main
from otel_agentcov.explain import guess_kind
from otel_agentcov.records import SpanRecord
from otel_agentcov.semconv.shapes import MAX_SHAPES, ShapeCounter, name_pattern
from otel_agentcov.spec import CoverageSpec


@pytest.fixture(scope="module")
def spans() -> list[ReadableSpan]:
    return list(acme_spans())


@pytest.fixture
def traces(tmp_path: Path, spans: list[ReadableSpan]) -> Path:
    return write_jsonl(tmp_path / "acme.jsonl", spans)


def _explain(capsys: pytest.CaptureFixture[str], *argv: str) -> str:
    """Without inference (which reads this vocabulary: tests/test_inference.py)."""
    assert main(["explain", "--no-inference", *argv]) == 0
    return capsys.readouterr().out


def test_explain_lists_each_shape_with_its_span_count(
    capsys: pytest.CaptureFixture[str], traces: Path, spans: list[ReadableSpan]
) -> None:
    out = _explain(capsys, str(traces))
    by_name = Counter(s.name for s in spans)
    for name, count in by_name.items():
        assert f"# {count} × scope {SCOPE} · name {name} ·" in out
    assert f"{len(spans)} spans matched no convention entry" in out
    assert CANARY not in out  # attribute keys only, never values


def test_the_suggested_entries_map_the_vocabulary(
    capsys: pytest.CaptureFixture[str], traces: Path, tmp_path: Path
) -> None:
    """Pasted into a spec as printed, the suggestions give the runs the spans hold."""
    suggested = yaml.safe_load(_explain(capsys, str(traces)))
    spec = tmp_path / "agentcov.yaml"
    spec.write_text(json.dumps({"version": 1, **suggested}), encoding="utf-8")
    report_path = tmp_path / "report.json"
    assert main(["coverage", "--traces", str(traces), "--spec", str(spec), "--format", "json",
                 "--output", str(report_path), "--no-inference"]) == 0
    agents = json.loads(report_path.read_text())["agents"]
    assert set(agents) == {"triage", "billing"}
    assert agents["triage"]["tools"]["called"] == {"lookup_order": {"ok": 1, "error": 1}}
    assert agents["billing"]["tools"]["called"] == {"refund": {"ok": 1, "error": 0}}
    assert agents["triage"]["models"]["used"] == {"acme-large": 2}
    assert agents["triage"]["delegations"] == [{"from": "triage", "to": "billing", "count": 1}]
    assert "every span matched a convention entry" in _explain(
        capsys, str(traces), "--spec", str(spec))


def test_with_the_spec_mapping_everything_there_is_nothing_to_map(
    capsys: pytest.CaptureFixture[str], traces: Path, tmp_path: Path
) -> None:
    doc = Path(__file__).resolve().parents[1] / "docs" / "conventions.md"
    blocks = [b.split("```")[0] for b in doc.read_text("utf-8").split("```yaml\n")[1:]]
    spec = tmp_path / "agentcov.yaml"
    spec.write_text(next(b for b in blocks if "acme.route" in b), encoding="utf-8")
    out = _explain(capsys, str(traces), "--spec", str(spec))
    assert "every span matched a convention entry" in out and "conventions:" not in out


def test_no_agent_runs_found_points_at_explain(
    capsys: pytest.CaptureFixture[str], traces: Path, spans: list[ReadableSpan]
) -> None:
    assert main(["coverage", "--traces", str(traces), "--no-inference"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1  # one line
    assert "no agent runs found" in err
    assert f"{len(spans)} of {len(spans)} spans matched no convention" in err
    assert f"`agentcov explain {traces}`" in err


def test_a_report_with_no_runs_lists_the_shapes(
    capsys: pytest.CaptureFixture[str], traces: Path, spans: list[ReadableSpan], tmp_path: Path
) -> None:
    out = tmp_path / "report.json"
    assert main(["coverage", "--traces", str(traces), "--allow-empty", "--format", "json",
                 "--output", str(out), "--no-inference"]) == 0
    text = out.read_text()
    assert CANARY not in text
    section = json.loads(text)["spans"]["unclassified"]
    assert section["spans"] == len(spans) and section["overflow"] == 0
    by_name = sorted(Counter(s.name for s in spans).items(), key=lambda p: (-p[1], p[0]))
    assert [(s["name"], s["count"]) for s in section["shapes"]] == by_name[:5]
    assert main(["coverage", "--traces", str(traces), "--allow-empty", "--no-inference"]) == 0
    report = capsys.readouterr().out
    assert f"{len(spans)} spans matched no convention" in report
    assert f"× scope {SCOPE} · name route · acme.route.to, acme.step" in report
    assert CANARY not in report


def _genai_run_with_host_spans(http_spans: int) -> list[ReadableSpan]:
    """One GenAI agent run among `http_spans` HTTP client spans no convention reads."""
    exporter = InMemorySpanExporter()
    provider = TracerProvider(resource=Resource.create({"service.name": "shop"}))
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    tracer = provider.get_tracer("shop")
    with tracer.start_as_current_span("invoke_agent clerk", attributes={
        "gen_ai.operation.name": "invoke_agent", "gen_ai.agent.name": "clerk",
    }):
        for i in range(http_spans):
            with tracer.start_as_current_span(f"GET /orders/{i}", attributes={
                "http.request.method": "GET", "url.full": f"http://shop/orders/{i}",
            }):
                pass
    provider.shutdown()
    return list(exporter.get_finished_spans())


@pytest.mark.parametrize(("http_spans", "listed"), [(20, True), (3, False)])
def test_with_runs_the_shapes_are_listed_only_when_nearly_nothing_matched(
    tmp_path: Path, http_spans: int, listed: bool
) -> None:
    """1 agent span + 20 HTTP spans: 20/21 >= 90 % matched nothing; with 3, 75 %."""
    traces = write_jsonl(tmp_path / "shop.jsonl", _genai_run_with_host_spans(http_spans))
    report = offline.report(offline.load(CoverageSpec.empty(), traces=[str(traces)]))
    assert report["agents"]["clerk"]["runs"]["count"] == 1
    assert ("unclassified" in report["spans"]) is listed
    if listed:
        shapes = report["spans"]["unclassified"]["shapes"]
        assert shapes == [{"count": http_spans, "scope": "shop", "name": "GET /orders/*",
                           "attributes": ["http.request.method", "url.full"]}]


def _record(name: str, scope: str = "s", **attrs: Any) -> SpanRecord:
    return SpanRecord(1, 2, None, name, scope_name=scope, attributes=attrs)


def test_shapes_are_bounded_and_overflow_is_counted() -> None:
    counter = ShapeCounter()
    for i in range(MAX_SHAPES + 10):
        counter.add(_record("x", scope=f"scope-{i}"))
    assert (counter.total, counter.overflow) == (MAX_SHAPES + 10, 10)
    assert len(counter.top(7)) == 7


def test_name_patterns_hide_ids_and_escape_glob_characters() -> None:
    assert name_pattern("GET /orders/12345") == "GET /orders/*"
    assert name_pattern("run 3f2a9c1e-77aa-4b3c-9d2e-0a1b2c3d4e5f") == "run *"
    assert name_pattern("what? [draft] *") == "what[?] [[]draft] [*]"
    assert len(name_pattern("n" * 10_000)) <= 120


def test_jobs_workers_count_the_same_shapes(tmp_path: Path, traces: Path) -> None:
    """`--jobs 2` merges its workers' shape counts: the same section as one process."""
    more = write_jsonl(tmp_path / "shop.jsonl", _genai_run_with_host_spans(30))
    inputs = [str(traces), str(more)]
    spec = CoverageSpec.empty().without_inference()
    one = offline.report(offline.load(spec, traces=inputs))
    two = offline.report(offline.load(spec, traces=inputs, jobs=2))
    assert "unclassified" in one["spans"]
    assert two["spans"]["unclassified"] == one["spans"]["unclassified"]


def test_explain_says_when_the_files_hold_no_spans(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    empty = tmp_path / "empty.json"
    empty.write_text('{"resourceSpans": []}', encoding="utf-8")  # valid OTLP/JSON, no span
    out = _explain(capsys, str(empty))
    assert "no spans in these files" in out and "every span matched" not in out


@pytest.mark.parametrize(("name", "kind"), [
    # a Go function's qualified name: the import path (`agent-kit`) is whose, not what
    ("github.com/acme/agent-kit/memory.add_message", None),
    ("github.com/acme/agent-kit/llm.generate", "llm"),
    ("github.com/acme/kit/tools.Call", "tool"),
    ("acme_agent.memory.add", "agent"),  # no import path: every word is the span's
])
def test_a_go_names_kind_is_guessed_from_its_package_and_function(name: str,
                                                                  kind: str | None) -> None:
    assert guess_kind({"count": 1, "scope": "kit", "name": name, "attributes": []}) == kind


@pytest.mark.parametrize(("name", "keys", "kind"), [
    # a request's route and method are no hand-off, whatever a hand-off's words are
    ("POST *", ["http.request.method", "http.route", "url.path"], None),
    ("handler - fastify -> @fastify/otel", ["hook.name", "fastify.type", "http.route"], None),
    ("SELECT *", ["db.system.name", "db.query.text"], None),
    # a vocabulary's own keys still suggest the kind they name
    ("step", ["acme.route.target", "http.route"], "handoff"),
    ("step", ["acme.model", "url.full"], "llm"),
])
def test_keys_of_other_domains_suggest_no_kind(name: str, keys: list[str],
                                               kind: str | None) -> None:
    assert guess_kind({"count": 1, "scope": "kit", "name": name, "attributes": keys}) == kind
