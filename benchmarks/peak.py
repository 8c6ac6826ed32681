"""Run a Python module (`-m NAME`) or script in this process, then write its peak resident set
(VmHWM, kB) to the file $AGENTCOV_BENCH_PEAK names, at exit.

A child's rusage from wait4 is no measure of its own peak: Linux carries the forking process's
high-water mark across exec into the child's `ru_maxrss`, so every child of the benchmark
runner (itself over 100 MB by then) reported the runner's size. VmHWM is the exec'd process's
own. Used by children.py for the Python children it measures.
"""

from __future__ import annotations

import atexit
import os
import runpy
import sys

PEAK_FILE = "AGENTCOV_BENCH_PEAK"


def _write_peak() -> None:
    with open("/proc/self/status") as status:
        peak = next(line.split()[1] for line in status if line.startswith("VmHWM:"))
    with open(os.environ[PEAK_FILE], "w") as out:
        out.write(peak)


def main() -> None:
    atexit.register(_write_peak)
    if sys.argv[1] == "-m":
        sys.argv = sys.argv[2:]  # the module's own argv, its name first as `-m` gives it
        runpy.run_module(sys.argv[0], run_name="__main__", alter_sys=True)
    else:
        sys.argv = sys.argv[1:]
        runpy.run_path(sys.argv[0], run_name="__main__")


if __name__ == "__main__":
    main()
