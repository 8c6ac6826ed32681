"""Offline inputs are bounded (issue 29, item 7): a FIFO, a path linked to `/dev/zero` and a
gzip file inflating to far more JSON than is ever read whole are each refused in one line,
exit 2; a JSON document is read whole only up to the cap. Before: the FIFO hung, `/dev/zero`
read without end, and a 1 MB `.gz` took `compare` to 2.4 GB of RSS. Real `agentcov` runs."""

from __future__ import annotations

import gzip
import os
import subprocess
import sys
from pathlib import Path

import pytest
from _trace_files import ld

from otel_agentcov.readers.files import MAX_JSON_BYTES


def _agentcov(*args: str) -> tuple[int, str]:
    """(exit code, stderr) of one `agentcov` run; a failure if it runs past 60 s (a hang)."""
    try:
        proc = subprocess.run([sys.executable, "-m", "otel_agentcov.cli", *args],
                              stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
                              timeout=60, check=False)
    except subprocess.TimeoutExpired:
        pytest.fail(f"agentcov {' '.join(args)} did not finish in 60 s")
    return proc.returncode, proc.stderr


@pytest.fixture()
def specials(tmp_path: Path) -> dict[str, Path]:
    fifo = tmp_path / "traces.fifo"
    os.mkfifo(fifo)
    zero = tmp_path / "state.json"
    zero.symlink_to("/dev/zero")
    return {"a FIFO": fifo, "a character device": zero}


@pytest.mark.parametrize("command", [
    ("coverage", "--traces"), ("gate", "--traces"), ("coverage", "--state"),
    ("merge", "-o", os.devnull),
])
def test_special_files_are_refused_in_one_line(specials: dict[str, Path],
                                               command: tuple[str, ...]) -> None:
    for kind, path in specials.items():
        code, err = _agentcov(*command, str(path))
        assert code == 2, err
        assert err.count("\n") == 1 and "Traceback" not in err, err
        assert f"{path}: cannot read: {kind}, not a regular file" in err, err


def test_a_gzip_bomb_is_refused_once_past_the_cap(tmp_path: Path) -> None:
    bomb = tmp_path / "bomb.json.gz"
    inflated = 3 * MAX_JSON_BYTES  # one JSON document, mostly blanks: 240 MiB
    with gzip.open(bomb, "wb", compresslevel=1) as fh:
        fh.write(b'{"resourceSpans": [')
        for _ in range(inflated >> 20):
            fh.write(b" " * (1 << 20))
        fh.write(b"]}")
    assert bomb.stat().st_size < inflated // 100
    for args in (("coverage", "--traces", str(bomb)), ("compare", str(bomb), str(bomb))):
        code, err = _agentcov(*args)
        assert code == 2, err
        assert f"over {MAX_JSON_BYTES >> 20} MiB of JSON (after gunzip)" in err, err
        assert err.count("\n") == 1, err


def _peak_rss_mib(*args: str) -> tuple[int, str, float]:
    """(exit code, stderr, peak RSS in MiB) of one `agentcov` run, measured by a parent of its
    own (RUSAGE_CHILDREN of this test process would count every earlier child too)."""
    measure = ("import resource, subprocess, sys; "
               "code = subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL).returncode; "
               "print(code, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)")
    proc = subprocess.run([sys.executable, "-c", measure, sys.executable, "-m",
                           "otel_agentcov.cli", *args],
                          capture_output=True, text=True, timeout=300, check=False)
    code, peak = proc.stdout.split()
    return int(code), proc.stderr, int(peak) / 1024


@pytest.mark.slow
def test_amplification_bombs_are_read_in_bounded_memory(tmp_path: Path) -> None:
    """Issue 37: 2 bytes of protobuf (an empty span) decode into ~1 KB, and 2 bytes of JSON
    (`{}`) into a 64-byte dict: a few KiB of gzip took a run to GBs. A `.pb.gz` of 300,000
    empty spans in one ResourceSpans is read part by part (every span counted, then dropped
    for its missing ids: no runs, exit 2) and `[{},{},...]` of 8,000,000 values is refused
    unparsed. Measured before: peak RSS 293 MiB and 663 MiB; now ~50 and ~100 MiB."""
    spans = tmp_path / "spans.pb.gz"
    spans.write_bytes(gzip.compress(ld(1, ld(2, ld(2, b"") * 300_000)), 9))
    dicts = tmp_path / "dicts.json.gz"
    dicts.write_bytes(gzip.compress(b"[" + b"{}," * 7_999_999 + b"{}]", 9))
    assert spans.stat().st_size + dicts.stat().st_size < 32 << 10
    code, err, peak = _peak_rss_mib("coverage", "--traces", str(spans))
    assert code == 2 and "no agent runs found" in err and err.count("\n") == 1, err[-2000:]
    assert peak < 160, peak
    code, err, peak = _peak_rss_mib("coverage", "--traces", str(dicts))
    assert code == 2 and err.count("\n") == 1, err[-2000:]
    assert "is over 4,000,000 values of JSON" in err, err
    assert peak < 160, peak
