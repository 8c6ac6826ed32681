"""`--jobs N`: worker processes each read their share of the traces; the report is the one a
single process gives (compared as rendered JSON text, so even key order must agree)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from _trace_files import batches, demo_spans, json_text, protobuf_bytes, write_spec
from test_report_golden import fixture_files

from otel_agentcov import offline
from otel_agentcov.demo import DEMO_SPEC
from otel_agentcov.engine import CoverageEngine
from otel_agentcov.jobs import read_in_parallel
from otel_agentcov.reporting import render
from otel_agentcov.spec import CoverageSpec


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
    assert not read_in_parallel(CoverageEngine(max_traces=2), good, 2)
    assert read_in_parallel(CoverageEngine(max_traces=3), good[:1], 2)
