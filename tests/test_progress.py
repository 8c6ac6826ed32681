"""The progress line: silent for short reads, then spans, spans/s and files on one line."""

from __future__ import annotations

import io
from pathlib import Path

import pytest
from _trace_files import demo_spans, protobuf_bytes

from otel_agentcov import offline
from otel_agentcov.progress import Progress
from otel_agentcov.spec import CoverageSpec


class _Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def test_silent_under_the_delay_then_one_rewritten_line() -> None:
    out, clock = io.StringIO(), _Clock()
    progress = Progress(3, out, delay_s=2.0, every_s=0.5, clock=clock)
    progress.count(10_000)
    progress.file_done()
    clock.now = 101.9
    progress.count(10_000)
    assert out.getvalue() == ""  # under 2 s: nothing, not even at close
    clock.now = 102.0
    progress.count(20_000)  # 40,000 spans in 2 s
    assert out.getvalue() == "\ragentcov: 40,000 spans read (20,000 spans/s), 1/3 files"
    clock.now = 102.2
    progress.count(10_000)  # within 0.5 s of the last line: not shown
    assert out.getvalue().count("\r") == 1
    progress.file_done()
    progress.close()
    assert out.getvalue().endswith("\ragentcov: 50,000 spans read (22,727 spans/s), 2/3 files\n")
    quiet = io.StringIO()
    short = Progress(1, quiet, clock=clock)
    short.count(5)
    short.close()
    assert quiet.getvalue() == ""


def test_load_counts_every_span_and_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    spans = demo_spans(runs=10)
    paths = []
    for n in range(2):
        path = tmp_path / f"t{n}.pb"
        path.write_bytes(protobuf_bytes(spans))
        paths.append(str(path))
    out = io.StringIO()

    def shown_at_once(files: int) -> Progress:
        return Progress(files, out, delay_s=0.0, every_s=0.0)

    monkeypatch.setattr(offline, "Progress", shown_at_once)
    offline.load(CoverageSpec.empty(), traces=paths, progress=True)
    last = out.getvalue().rsplit("\r", 1)[-1]
    assert last.startswith(f"agentcov: {2 * len(spans):,} spans read (")
    assert last.endswith(" spans/s), 2/2 files\n")
