"""Run a command as a child process: wall, CPU (its own rusage, wait4) and peak RSS.

The ingestion and AgentAssay sections measure whole CLI runs end to end this way, so interpreter
start-up and imports count, as they do for a user. A Python child's peak RSS is its own VmHWM
(benchmarks/peak.py runs it and reports it): wait4's `ru_maxrss` carries the benchmark runner's
own high-water mark across the fork and exec, so it only bounds the child's peak from above.
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
PEAK = ROOT / "benchmarks" / "peak.py"
PEAK_FILE = "AGENTCOV_BENCH_PEAK"  # peak.py writes the child's VmHWM (kB) to this file


@dataclass
class Run:
    wall_s: float
    cpu_s: float
    peak_rss_mb: float
    stdout: str


def _python(argv: list[str]) -> list[str] | None:
    """`argv` run through peak.py, for a Python child: `python -m MODULE ...`, or a script
    whose first line names a Python interpreter (a console script); None for any other."""
    if Path(argv[0]).name.startswith("python") and argv[1:2] == ["-m"]:
        return [argv[0], str(PEAK), *argv[1:]]
    try:
        with open(argv[0], "rb") as script:
            first = script.readline(200)
    except OSError:
        return None
    interpreter = first[2:].decode(errors="replace").strip().split(" ")[0]
    if first.startswith(b"#!") and Path(interpreter).name.startswith("python"):
        return [interpreter, str(PEAK), *argv]
    return None


def run(argv: list[str]) -> Run:
    """Run to completion; a non-zero exit is an error (the benchmark input must be valid)."""
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err, \
            tempfile.NamedTemporaryFile() as peak:
        env = dict(os.environ, PYTHONPATH=str(ROOT), COLUMNS="200", **{PEAK_FILE: peak.name})
        started = time.perf_counter()
        proc = subprocess.Popen(_python(argv) or argv, cwd=ROOT, env=env, stdout=out,
                                stderr=err)
        _, status, usage = os.wait4(proc.pid, 0)  # this child's own rusage, not all children's
        wall = time.perf_counter() - started
        proc.returncode = os.waitstatus_to_exitcode(status)
        out.seek(0)
        err.seek(0)
        if proc.returncode != 0:
            raise RuntimeError(f"{' '.join(argv[:4])} failed: {err.read().decode()[-500:]}")
        text = out.read().decode()
        measured = peak.read().strip()
    peak_kb = int(measured) if measured else usage.ru_maxrss  # not Python: an upper bound
    return Run(wall, usage.ru_utime + usage.ru_stime, peak_kb / 1024, text)
