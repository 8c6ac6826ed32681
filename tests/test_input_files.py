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
