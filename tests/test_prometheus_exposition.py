"""The direct text writer behind `render()` equals prometheus_client's `generate_latest` byte for
byte over the collector's Metric objects, so the fast /metrics path and the registry path agree."""

from __future__ import annotations

import copy
import random
import subprocess
from typing import Any

from _builders import agent_attrs, agent_run, chat_attrs, ingest, tool_attrs
from _support import demo_processor, need_binary
from prometheus_client import generate_latest

from otel_agentcov.engine import CoverageEngine
from otel_agentcov.exporters.prometheus import MAX_SERIES, exposition, make_registry, render
from otel_agentcov.processor import AgentCoverageProcessor
from otel_agentcov.records import SpanRecord
from otel_agentcov.snapshot.schema import DIMENSIONS, Report
from otel_agentcov.spec import CoverageSpec

# label values the exposition must escape, or could confuse a naive writer
AWKWARD = ['quo"te', "back\\slash", "new\nline", "ünïcødé ✓", "pct %s %d", "", "a,b=c}"]


def _slow(source: CoverageEngine | AgentCoverageProcessor) -> bytes:
    return generate_latest(make_registry(source))


def _awkward_engine() -> CoverageEngine:
    named = [n for n in AWKWARD if n]
    spec = CoverageSpec.from_dict({"version": 1, "agents": [
        {"name": name, "models": ["m\\1", 'm"2'], "tools": named,
         "tool_edges": {"restricted": ["pct %s %d"]}} for name in named
    ]}, source="<test>")  # fmt: skip
    engine = CoverageEngine(spec)
    t0 = 1_700_000_000 * 10**9
    for trace, agent in enumerate(AWKWARD, start=1):
        root = trace << 8
        for i, tool in enumerate(AWKWARD, start=1):
            engine.ingest(SpanRecord(
                trace_id=trace, span_id=root + i, parent_id=root, name="execute_tool x",
                start_ns=t0 + i, end_ns=t0 + i + 1, status_code=2 if i % 2 else 0,
                attributes=tool_attrs(tool),
            ))  # fmt: skip
        engine.ingest(SpanRecord(
            trace_id=trace, span_id=root + 99, parent_id=root, name="chat", start_ns=t0,
            end_ns=t0 + 5, attributes=chat_attrs(AWKWARD[trace - 1] or "m"),
        ))  # fmt: skip
        engine.ingest(SpanRecord(
            trace_id=trace, span_id=root, parent_id=None, name="invoke_agent", start_ns=t0,
            end_ns=t0 + 3 * 10**9 * trace,
            attributes=agent_attrs(agent),
        ))  # fmt: skip
    return engine


def test_demo_workload_exposition_is_byte_equal_to_generate_latest() -> None:
    with demo_processor() as proc:
        fast = render(proc)
        assert fast == _slow(proc)
        # the demo exercises delegations, restricted attempts, boundaries and the histogram
        for family in ("agentcov_delegations_total{", "agentcov_restricted_tool_attempts_total{",
                       "agentcov_boundary_hits_total{", "agentcov_run_duration_seconds_bucket{"):
            assert family.encode() in fast


def test_awkward_label_values_are_escaped_exactly_like_generate_latest() -> None:
    engine = _awkward_engine()
    fast = render(engine)
    assert fast == _slow(engine)
    assert b'tool="quo\\"te"' in fast and b'agent="new\\nline"' in fast
    promtool = need_binary("promtool")
    proc = subprocess.run(
        [promtool, "check", "metrics"], input=fast, capture_output=True, timeout=60, check=False
    )
    assert proc.returncode == 0, (proc.stdout + proc.stderr).decode()


class _Fixed:
    """A source whose every scrape is one given report."""

    def __init__(self, data: Report) -> None:
        self.data = data

    def measures(self) -> Report:
        return self.data


def test_every_number_form_is_written_like_generate_latest() -> None:
    """Zeros of either sign, booleans, big, tiny and non-finite numbers, nulls: every sample
    value is written as generate_latest writes it, in families of 0, 1, 2, 3 and 5 labels and
    in the histogram."""
    data: Any = copy.deepcopy(_awkward_engine().measures())
    forms = [-0.0, 0.0, 0, False, True, 2**63 + 1, 1e-7, 1e22, float("nan"), float("inf"),
             float("-inf"), 7, 2.5, None]
    for n, rep in enumerate(data["agents"].values()):
        rep["coverage"].update({d: forms[(n + i) % len(forms)] for i, d in enumerate(DIMENSIONS)})
        rep["runs"]["count"] = forms[n]
        rep["runs"]["duration_histogram"]["sum"] = forms[n]
        rep["tools"]["called"] = {f"t{i}": {"ok": form, "error": forms[-1 - i]}
                                  for i, form in enumerate(forms)}
        rep["contracts"] = [{"contract": "c", "behavior": "b", "severity": "s",
                             "satisfied": forms[n], "violated": forms[n + 1],
                             "unknown": forms[n + 2], "not_exercised": forms[n + 3]}]
    data["spans"]["internal_errors"] = -0.0
    fast = exposition(data)
    assert fast == generate_latest(make_registry(_Fixed(data)))
    assert b"agentcov_internal_errors_total -0.0\n" in fast
    assert b'agentcov_tool_calls_total{agent="quo\\"te",outcome="ok",tool="t0"} -0.0\n' in fast


def test_one_label_value_to_escape_anywhere_is_escaped() -> None:
    """Label values are written as they are and the text checked after (no backslash, no
    quote or newline but the lines' own): a single value holding one of the three, in any
    family's rows (a tool, an agent, a model; budget cut or not), makes its family escaped."""
    escaped = {'quo"te': 'quo\\"te', "back\\slash": "back\\\\slash", "new\nline": "new\\nline",
               '"': '\\"', "\n\n": "\\n\\n"}  # fmt: skip
    for odd, written in escaped.items():
        for place in ("tool", "agent", "model"):
            engine = CoverageEngine()
            for trace, agent in enumerate(["planner", "booker", "triage"], start=1):
                name = odd if place == "agent" and trace == 2 else agent
                tools = [odd if place == "tool" and trace == 3 else "search", "book"]
                engine.ingest(SpanRecord(
                    trace_id=trace, span_id=99, parent_id=1, name="chat", start_ns=1, end_ns=2,
                    attributes=chat_attrs(odd if place == "model" and trace == 1 else "m"),
                ))  # fmt: skip
                ingest(engine, agent_run(trace, name, tools))
            fast = render(engine)
            assert fast == _slow(engine), (odd, place)
            assert f'{place}="{written}"'.encode() in fast, (odd, place)
            cut = render(engine, 12)  # the budget's path: families written from their rows
            assert cut == generate_latest(make_registry(engine, 12)), (odd, place)


def test_empty_state_and_raw_report_dicts() -> None:
    engine = CoverageEngine()
    assert render(engine) == _slow(engine)
    assert exposition({}) == exposition({"agents": {}, "spans": {}})
    assert b"agentcov_spans_dropped_total{reason=\"queue_full\"} 0.0\n" in exposition({})


def test_reused_text_is_always_the_text_of_the_current_report() -> None:
    """render() reuses an agent's text while measures() hands back the same report (its state
    did not change): after every fold, under budgets that cut and that do not, the scrape is
    the registry path's bytes and the exposition of a report computed from scratch."""
    rng = random.Random(5)
    engine = CoverageEngine()
    agents, tools = [*AWKWARD[:4], "planner", "booker"], [*AWKWARD, "search", "book"]
    for trace in range(1, 120):
        agent = rng.choice(agents)
        ingest(engine, agent_run(trace, agent, rng.sample(tools, rng.randint(0, 4))))
        budget = rng.choice([MAX_SERIES, MAX_SERIES, 30])
        fast = render(engine, budget)
        assert fast == exposition(engine.snapshot().data, budget), trace
        if budget == MAX_SERIES:
            assert fast == _slow(engine), trace


def test_bucket_bounds_are_written_per_report_though_made_once() -> None:
    """`le` values are made once per bounds (every agent has the same ones), but 0.0 and -0.0
    are one key and two texts: each report's zero bound keeps its sign, as generate_latest's."""
    for first, second in ((0.0, -0.0), (-0.0, 0.0), (0, -0.0)):
        for bound in (first, second):
            data: Any = copy.deepcopy(_awkward_engine().measures())
            for rep in data["agents"].values():
                rep["runs"]["duration_histogram"]["bounds"][0] = bound
            fast = exposition(data)
            assert fast == generate_latest(make_registry(_Fixed(data)))
            assert f'le="{float(bound)!r}"'.encode() in fast
