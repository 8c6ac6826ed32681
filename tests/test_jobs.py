"""`--jobs N`: worker processes each read their share of the traces; the report is the one a
single process gives (compared as rendered JSON text, so even key order must agree)."""

from __future__ import annotations

import json
import random
from dataclasses import replace
from pathlib import Path

import pytest
from _trace_files import batches, demo_spans, json_text, protobuf_bytes, write_spec
from test_report_golden import fixture_files

from otel_agentcov import offline
from otel_agentcov.assembler import END_OF_INPUT, AgentRun, Bounds
from otel_agentcov.demo import DEMO_SPEC
from otel_agentcov.engine import CoverageEngine
from otel_agentcov.jobs import read_in_parallel
from otel_agentcov.judge import judge
from otel_agentcov.reporting import render
from otel_agentcov.spec import CoverageSpec
from otel_agentcov.state import Limits
from otel_agentcov.state.caps import Caps
from otel_agentcov.state.diversity import Diversity
from otel_agentcov.state.facts import RunFacts, run_facts


def _report(spec: CoverageSpec, paths: list[str], jobs: int, **kw: object) -> str:
    engine = offline.load(spec, traces=paths, jobs=jobs, **kw)  # type: ignore[arg-type]
    return render(offline.report(engine), "json")


@pytest.mark.parametrize("jobs", [2, 3])
def test_fixture_corpus_report_is_the_single_process_one(jobs: int) -> None:
    paths = [str(p) for p in fixture_files()]
    engine = CoverageEngine(CoverageSpec.empty())
    assert read_in_parallel(engine, paths, jobs)  # the workers did read it (no fallback)
    single = _report(CoverageSpec.empty(), paths, 1)
    assert render(offline.report(engine), "json") == single
    assert _report(CoverageSpec.empty(), paths, jobs) == single


def test_traces_spanning_files_and_encodings(tmp_path: Path) -> None:
    """The demo workload's spans in protobuf and OTLP/JSON files that split traces between them:
    each trace is read by one worker whatever file its spans are in."""
    spans = demo_spans(runs=60, seed=3)
    parts = batches(spans, 50)
    paths = []
    for n, part in enumerate(parts):
        path = tmp_path / f"part{n}.{'pb' if n % 2 else 'json'}"
        if n % 2:
            path.write_bytes(protobuf_bytes(part))
        else:
            path.write_text(json_text(part))
        paths.append(str(path))
    spec = CoverageSpec.from_yaml(str(write_spec(tmp_path / "spec.yaml")))
    assert DEMO_SPEC["agents"]  # the spec names the demo's agents and their tools
    engine = CoverageEngine(spec)
    assert read_in_parallel(engine, paths, 2)
    single = _report(spec, paths, 1)
    assert json.loads(single)["spans"]["processed"] == len(spans)
    assert render(offline.report(engine), "json") == single
    assert _report(spec, paths, 2) == single


def test_bad_input_and_the_trace_bound_fall_back_to_one_process(tmp_path: Path) -> None:
    good = [str(p) for p in fixture_files()[:6]]
    bad = tmp_path / "bad.json"
    bad.write_text('{"resourceSpans": [{"scopeSpans": [{"spans": [{"traceId": "xyz"}]}]}]}')
    paths = [*good[:3], str(bad), *good[3:]]
    assert not read_in_parallel(CoverageEngine(), paths, 2)
    warned: list[list[str]] = [[], []]
    reports = [
        _report(CoverageSpec.empty(), paths, jobs, keep_going=True, warn=warned[n].append)
        for n, jobs in enumerate((1, 2))
    ]
    assert reports[0] == reports[1]
    assert warned[0] == warned[1] and len(warned[0]) == 1 and str(bad) in warned[0][0]
    with pytest.raises(offline.InputError, match="bad.json"):
        offline.load(CoverageSpec.empty(), traces=paths, jobs=2)
    # two workers holding one trace each could be two traces at once in one process
    assert not read_in_parallel(CoverageEngine(bounds=Bounds(max_traces=2)), good, 2)
    assert read_in_parallel(CoverageEngine(bounds=Bounds(max_traces=3)), good[:1], 2)
    # likewise the spans buffered across traces awaiting their roots
    assert not read_in_parallel(CoverageEngine(bounds=Bounds(max_buffered_spans=1)), good, 2)


def test_path_examples_past_the_sample_cap_are_the_same(tmp_path: Path) -> None:
    """With more distinct paths than `max_path_samples`, the paths that keep their tokens (the
    report's `top`/`rarest` examples) are the earliest ones, whichever process saw them."""
    spans = demo_spans(runs=80, seed=5)
    paths = []
    for n, part in enumerate(batches(spans, 40)):
        path = tmp_path / f"part{n}.pb"
        path.write_bytes(protobuf_bytes(part))
        paths.append(str(path))
    limits = Limits(max_path_samples=2)
    single = CoverageEngine(limits=limits)
    offline._ingest(single, (r for p in paths for r in offline._read(p)), None)
    single.flush_all(END_OF_INPUT)
    assert any(len(a.diversity.paths) > 2 for a in single.state.agents.values())
    merged = CoverageEngine(limits=limits)
    assert read_in_parallel(merged, paths, 2)
    assert render(offline.report(merged), "json") == render(offline.report(single), "json")


def test_the_path_sample_is_the_earliest_paths_in_any_order() -> None:
    """Expected by sorting: the k paths whose first run ended earliest (trace id, then path
    hash break ties), for every arrival order and every split into merged parts."""
    rng = random.Random(9)
    runs = [(rng.randrange(50), rng.randrange(1, 4), rng.randrange(12)) for _ in range(200)]
    first: dict[int, tuple[int, int]] = {}
    for end, trace, path in runs:
        first[path] = min(first.get(path, (end, trace)), (end, trace))
    expected = sorted(first, key=lambda p: (first[p], p))[:4]
    caps = Caps(Limits(max_path_samples=4))
    for _ in range(10):
        rng.shuffle(runs)
        cuts = sorted(rng.randrange(len(runs)) for _ in range(2))
        parts = [Diversity(), Diversity(), Diversity()]
        for i, (end, trace, path) in enumerate(runs):
            parts[(i >= cuts[0]) + (i >= cuts[1])].add(_facts(path, end, trace), caps)
        parts[0].merge(parts[1], caps)
        parts[0].merge(parts[2], caps)
        assert sorted(parts[0].path_tokens) == sorted(expected)
        assert {p: parts[0].path_first[p] for p in expected} == {p: first[p] for p in expected}


def test_a_sample_loaded_past_the_cap_keeps_its_size_through_a_merge() -> None:
    """A state written with a bigger sample cap keeps that many examples, the earliest."""
    caps = Caps(Limits(max_path_samples=2))
    big = Diversity()
    for path, end in ((1, 30), (2, 10), (3, 20)):
        big.add(_facts(path, end, 1), Caps(Limits(max_path_samples=3)))
    other = Diversity()
    for path, end in ((4, 5), (5, 40)):
        other.add(_facts(path, end, 1), caps)
    big.merge(other, caps)
    assert sorted(big.path_tokens) == [2, 3, 4]  # 1 (end 30) gave way to 4 (end 5)
    assert big.path_first[4] == (5, 1)


def _facts(path: int, end_ns: int, trace_id: int) -> RunFacts:
    """A run's facts as run_facts makes them, with the path and first-run fields set."""
    run = AgentRun(agent="a", trace_id=trace_id, start_ns=0, end_ns=end_ns)
    spec = CoverageSpec.empty().for_agent("a")
    facts = run_facts(run, spec, judge(run, spec.checks))
    return replace(facts, path=(f"p{path}",), path_key=path)
