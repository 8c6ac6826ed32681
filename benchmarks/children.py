"""Run a command as a child process and read its own rusage (wait4): wall, CPU, peak RSS.

The ingestion and AgentAssay sections measure whole CLI runs end to end this way, so interpreter
start-up and imports count, as they do for a user.
"""

from __future__ import annotations

import os
import subprocess
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CACHE = ROOT / "build" / "bench"  # generated inputs and the AgentAssay venv, made once


@dataclass
class Run:
    wall_s: float
    cpu_s: float
    peak_rss_mb: float
    stdout: str


def run(argv: list[str]) -> Run:
    """Run to completion; a non-zero exit is an error (the benchmark input must be valid)."""
    env = dict(os.environ, PYTHONPATH=str(ROOT), COLUMNS="200")
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        started = time.perf_counter()
        proc = subprocess.Popen(argv, cwd=ROOT, env=env, stdout=out, stderr=err)
        _, status, usage = os.wait4(proc.pid, 0)  # this child's own rusage, not all children's
        wall = time.perf_counter() - started
        proc.returncode = os.waitstatus_to_exitcode(status)
        out.seek(0)
        err.seek(0)
        if proc.returncode != 0:
            raise RuntimeError(f"{' '.join(argv[:4])} failed: {err.read().decode()[-500:]}")
        text = out.read().decode()
    return Run(wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024, text)
