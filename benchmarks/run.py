"""`make bench`: every benchmark section, one table, written to benchmarks/RESULTS.md.

Sections are functions `(rounds) -> Section` listed in SECTIONS, run in order in one process; each
reports medians with min/max over rounds, and targets are checked on medians of ratios or timings
measured in the same run. Run: `.venv/bin/python benchmarks/run.py [--rounds N] [--only NAME]
[--no-write]`.
"""

from __future__ import annotations

import argparse
import os
import platform
import sys
import time
from collections.abc import Callable
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(HERE), str(HERE.parent)]  # measure the checkout this file is in

import agentassay_compare  # noqa: E402
import arguments  # noqa: E402
import classify  # noqa: E402
import collector_anchor  # noqa: E402
import contracts  # noqa: E402
import evaluations  # noqa: E402
import fault_injectors  # noqa: E402
import inference  # noqa: E402
import ingestion  # noqa: E402
import metrics_render  # noqa: E402
import mutation  # noqa: E402
import narrative  # noqa: E402
import narrative_languages  # noqa: E402
import narrative_quality  # noqa: E402
import overhead  # noqa: E402
import scaling  # noqa: E402
import service  # noqa: E402
from harness import Section, fmt  # noqa: E402

# In the order `make bench` runs them; each is a module with `section(rounds) -> Section`. The
# process-level sections cap their own rounds (a 1 M-span run takes tens of seconds here).
SECTIONS: dict[str, Callable[[int], Section]] = {
    "overhead": overhead.section,
    "evaluations": evaluations.section,
    "classify": classify.section,
    "inference": inference.section,
    "floor": ingestion.floor_section,
    "ingestion": ingestion.section,
    "agentassay": agentassay_compare.section,
    "service": service.section,
    "collector": collector_anchor.section,
    "metrics": metrics_render.section,
    "narrative": narrative.section,
    "narrative_quality": narrative_quality.section,
    "narrative_languages": narrative_languages.section,
    "contracts": contracts.section,
    "faults": fault_injectors.section,
    "arguments": arguments.section,
    "scaling": scaling.section,
}

RESULTS = HERE / "RESULTS.md"


def machine() -> str:
    cpu = platform.processor() or platform.machine()
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    try:
        load = "load average " + " ".join(f"{x:.2f}" for x in os.getloadavg())
    except OSError:
        load = "load average n/a"
    return (
        f"{os.cpu_count()} cores, {cpu}, Python {platform.python_version()} "
        f"({platform.python_implementation()}), {platform.system()} {platform.release()}, {load}"
    )


def table(sections: list[Section]) -> str:
    lines = [
        "| section | measure | median | min | max | unit | target | status |",
        "|---|---|---:|---:|---:|---|---|---|",
    ]
    for s in sections:
        for r in s.rows:
            lines.append(
                f"| {s.title} | {r.name} | {fmt(r.median)} | {fmt(min(r.samples))} | "
                f"{fmt(max(r.samples))} | {r.unit} | {r.target} | {r.status} |"
            )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=7, help="rounds per section (default 7)")
    parser.add_argument("--only", action="append", choices=sorted(SECTIONS), help="run only these")
    parser.add_argument("--no-write", action="store_true", help="do not update RESULTS.md")
    args = parser.parse_args(argv)
    started = time.perf_counter()
    where = machine()
    print(f"machine: {where}", flush=True)
    sections: list[Section] = []
    for name, run in SECTIONS.items():
        if args.only and name not in args.only:
            continue
        print(f"running {name} ({args.rounds} rounds)...", flush=True)
        sections.append(run(args.rounds))
    elapsed = time.perf_counter() - started
    text = table(sections)
    notes = [f"- **{s.title}**: {n}" for s in sections for n in s.notes]
    print()
    print(text)
    print("\n".join(notes))
    # the mutation scores are `make mutation`'s (minutes of CPU): shown and kept as it left them
    kept = mutation.mutation_block(RESULTS.read_text(encoding="utf-8") if RESULTS.exists() else "")
    print(f"\n{kept or 'no mutation score yet: run `make mutation`'}")
    print(f"\n{elapsed:.0f} s")
    if not args.no_write:
        RESULTS.write_text(
            "# Benchmark results\n\n"
            "Written by `make bench` (`benchmarks/run.py`); medians with min/max over rounds, "
            "every ratio measured within the same run.\n\n"
            f"Machine: {where}.  \nCommand: `python benchmarks/run.py --rounds {args.rounds}"
            f"{''.join(f' --only {o}' for o in args.only or [])}`, {elapsed:.0f} s.\n\n"
            f"{text}\n\n" + "\n".join(notes) + "\n" + (f"\n{kept}" if kept else ""),
            encoding="utf-8",
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
