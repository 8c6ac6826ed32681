"""Score span-kind inference on the held-out stacks (issue 35): `core %` out of the box, and with
the conventions file `agentcov explain` writes loaded unchanged (`--spec-from-explain`).

The held-out fixtures (tests/heldout/fixtures/<stack>/<scenario>.json, recorded by
fixtures/record/heldout/) are stacks whose spans speak a vocabulary of their own; their
expectations (tests/heldout/expectations.py) were written from the recorder scripts. `--set fresh`
scores the fresh share instead (tests/heldout_fresh/, recorded by fixtures/record/heldout_fresh/):
stacks kept apart because the first set has been scored many times; `--set third` the third
share (tests/heldout_third/, fixtures/record/heldout_third/), kept from the rules' designers once
the fresh share had been read too; `--set fourth` the fourth (tests/heldout_fourth/,
fixtures/record/heldout_fourth/), kept from them once the third had been read; `--set fifth` the
fifth (tests/heldout_fifth/, fixtures/record/heldout_fifth/: Java and Python stacks beside a
TypeScript one), kept from them once the fourth had been read; `--set sixth` the sixth
(tests/heldout_sixth/, fixtures/record/heldout_sixth/), kept from them once the fifth had been
read; `--set seventh` the seventh (tests/heldout_seventh/, fixtures/record/heldout_seventh/: Go and
JVM stacks), kept from them as the sixth was; `--set eighth` the eighth (tests/heldout_eighth/,
fixtures/record/heldout_eighth/: Python stacks beside a TypeScript one), kept from them as the
seventh was; `--set ninth` the ninth (tests/heldout_ninth/, fixtures/record/heldout_ninth/: Rust
and TypeScript stacks), kept from them likewise; `--set tenth` the tenth (tests/heldout_tenth/,
fixtures/record/heldout_tenth/: Rust, Python and TypeScript stacks), kept from them likewise;
`--set eleventh` the eleventh (tests/heldout_eleventh/, fixtures/record/heldout_eleventh/: Python,
TypeScript and Java stacks), likewise; `--set twelfth` the twelfth (tests/heldout_twelfth/,
fixtures/record/heldout_twelfth/: Go and Python stacks), likewise; `--set thirteenth` the
thirteenth (tests/heldout_thirteenth/, fixtures/record/heldout_thirteenth/: Go, Java and Python
stacks), likewise; `--set fourteenth` the fourteenth (tests/heldout_fourteenth/,
fixtures/record/heldout_fourteenth/: Python stacks beside a TypeScript one), likewise; `--set
fifteenth` the fifteenth (tests/heldout_fifteenth/, fixtures/record/heldout_fifteenth/: Python,
TypeScript and Java stacks), likewise; `--set sixteenth` the sixteenth (tests/heldout_sixteenth/,
fixtures/record/heldout_sixteenth/: Python stacks only), likewise; `--set seventeenth` the
seventeenth (tests/heldout_seventeenth/, fixtures/record/heldout_seventeenth/: Python and Java
stacks), likewise; `--set eighteenth` the eighteenth (tests/heldout_eighteenth/,
fixtures/record/heldout_eighteenth/: TypeScript stacks), likewise; `--set nineteenth` the
nineteenth (tests/heldout_nineteenth/, fixtures/record/heldout_nineteenth/: Go and Java stacks),
likewise; `--set twentieth` the twentieth (tests/heldout_twentieth/,
fixtures/record/heldout_twentieth/: one Python stack), likewise; `--set twentyfirst` the
twenty-first (tests/heldout_twentyfirst/, fixtures/record/heldout_twentyfirst/: Java and Python
stacks), likewise; `--set twentysecond` the twenty-second (tests/heldout_twentysecond/,
fixtures/record/heldout_twentysecond/: one Rust stack), likewise; `--set twentythird` the
twenty-third (tests/heldout_twentythird/, fixtures/record/heldout_twentythird/: Python and Java
stacks), likewise; `--set twentyfourth` the twenty-fourth (tests/heldout_twentyfourth/,
fixtures/record/heldout_twentyfourth/: one TypeScript stack), likewise; `--set twentyfifth` the
twenty-fifth (tests/heldout_twentyfifth/, fixtures/record/heldout_twentyfifth/: one Python stack),
likewise; `--set twentysixth` the twenty-sixth (tests/heldout_twentysixth/,
fixtures/record/heldout_twentysixth/: one Go stack), likewise; `--set twentyseventh` the
twenty-seventh (tests/heldout_twentyseventh/, fixtures/record/heldout_twentyseventh/: Gemini
CLI and OpenCode, driven by Python apps), likewise; `--set twentyeighth` the twenty-eighth
(tests/heldout_twentyeighth/, fixtures/record/heldout_twentyeighth/: Qwen Code, driven by a Python
app, and Eclipse LMOS ARC, Kotlin), likewise; `--set twentyninth` the twenty-ninth
(tests/heldout_twentyninth/, fixtures/record/heldout_twentyninth/: the A2A SDK, Python, and
ADK-TS, IQ AI's TypeScript ADK), likewise; `--set thirtieth` the thirtieth
(tests/heldout_thirtieth/, fixtures/record/heldout_thirtieth/: the Sentry Python SDK 3.x and DBOS
Transact, both Python), likewise; `--set thirtyfirst` the thirty-first
(tests/heldout_thirtyfirst/, fixtures/record/heldout_thirtyfirst/: Lilypad and Humanloop's SDK,
Python), likewise; `--set thirtysecond` the thirty-second (tests/heldout_thirtysecond/,
fixtures/record/heldout_thirtysecond/: NVIDIA NeMo Agent Toolkit and Prefect 3, Python),
likewise; `--set thirtythird` the thirty-third (tests/heldout_thirtythird/,
fixtures/record/heldout_thirtythird/: the Temporal Go SDK with its OpenTelemetry interceptor, Go,
and Effect AI, TypeScript), likewise; `--set thirtyfourth` the thirty-fourth
(tests/heldout_thirtyfourth/, fixtures/record/heldout_thirtyfourth/: Restate, its server's own
traces of a Python app's invocations, and Ray Core, Python), likewise; `--set thirtyfifth` the
thirty-fifth (tests/heldout_thirtyfifth/, fixtures/record/heldout_thirtyfifth/: Celery with its
OpenTelemetry instrumentation, Python, and the Workflow DevKit, TypeScript), likewise. Each file is
replayed with the engine exactly as tests/fixture_expectations.replay does, then scored.

Scoring items (`score`), per EXPECTED agent of a scenario, each met or not:
  1. the agent exists, with the expected run count;
  2. one item per expected tool: that tool's (ok, error) counts are as expected;
  3. the set of model names is as expected;
  4. the delegations ("from->to", with repeats) are as expected;
  5. the boundaries are as expected;
  6. the LLM call count is as expected;
  7. the error count is as expected.
An agent that is missing fails all its items. Agents nobody expected score nothing either way;
they are counted and printed on their own ("extra agents"), as a precision check.
`core %` = items met / items, per stack and over all stacks (pooled items, not a mean of means).

Run: `.venv/bin/python benchmarks/heldout.py [--set fresh|third|fourth|fifth|sixth|seventh|eighth|
ninth|tenth|eleventh|twelfth|thirteenth|fourteenth|fifteenth|sixteenth|seventeenth|eighteenth|
nineteenth|twentieth|twentyfirst|twentysecond|twentythird|twentyfourth|twentyfifth|twentysixth|
twentyseventh|twentyeighth|twentyninth|thirtieth|thirtyfirst|thirtysecond|thirtythird|
thirtyfourth|thirtyfifth]
[--spec-from-explain]`.
Prints numbers only: no span names, attribute keys or kind words of the held-out stacks.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import yaml

ROOT = Path(__file__).resolve().parent.parent
TESTS = ROOT / "tests"
# the held-out sets by `--set` name: their directories under tests/
SETS = {"heldout": "heldout", "fresh": "heldout_fresh", "third": "heldout_third",
        "fourth": "heldout_fourth", "fifth": "heldout_fifth",
        "sixth": "heldout_sixth", "seventh": "heldout_seventh", "eighth": "heldout_eighth",
        "ninth": "heldout_ninth", "tenth": "heldout_tenth", "eleventh": "heldout_eleventh",
        "twelfth": "heldout_twelfth", "thirteenth": "heldout_thirteenth",
        "fourteenth": "heldout_fourteenth", "fifteenth": "heldout_fifteenth",
        "sixteenth": "heldout_sixteenth", "seventeenth": "heldout_seventeenth",
        "eighteenth": "heldout_eighteenth", "nineteenth": "heldout_nineteenth",
        "twentieth": "heldout_twentieth", "twentyfirst": "heldout_twentyfirst",
        "twentysecond": "heldout_twentysecond", "twentythird": "heldout_twentythird",
        "twentyfourth": "heldout_twentyfourth", "twentyfifth": "heldout_twentyfifth",
        "twentysixth": "heldout_twentysixth", "twentyseventh": "heldout_twentyseventh",
        "twentyeighth": "heldout_twentyeighth", "twentyninth": "heldout_twentyninth",
        "thirtieth": "heldout_thirtieth",
        "thirtyfirst": "heldout_thirtyfirst", "thirtysecond": "heldout_thirtysecond",
        "thirtythird": "heldout_thirtythird", "thirtyfourth": "heldout_thirtyfourth",
        "thirtyfifth": "heldout_thirtyfifth"}
sys.path[:0] = [str(TESTS)]  # fixture_expectations (A, Scenario, replay)

from fixture_expectations import (  # noqa: E402
    Scenario,
    extra_agents,
    heldout_expectations,
    replay_records,
    score,
)

from otel_agentcov.spec import CoverageSpec, SpecError  # noqa: E402


def explain_spec(files: list[Path], out: Path) -> tuple[dict[str, Any] | None, str]:
    """`agentcov explain FILES --write out`, then loaded as a spec unchanged: (the spec as a
    dict, "") or (None, why it could not be used: exit code or error type only, no shapes)."""
    proc = subprocess.run([sys.executable, "-P", "-m", "otel_agentcov.cli", "explain",
                           *map(str, files), "--write", str(out)], capture_output=True,
                          text=True, cwd=ROOT)
    if proc.returncode != 0:
        return None, f"explain exited {proc.returncode}"
    try:
        CoverageSpec.from_yaml(out)
    except SpecError as exc:
        return None, f"its file does not load as a spec ({type(exc).__name__})"
    loaded = yaml.safe_load(out.read_text())
    return (loaded, "") if isinstance(loaded, dict) else (None, "its file is no mapping")


def with_version(text: str) -> dict[str, Any] | None:
    """The explain file with `version: 1` set (what the issue measured before the file loaded
    as written): reported beside the unchanged score, never instead of it."""
    loaded = yaml.safe_load(text)
    if not isinstance(loaded, dict):
        return None
    loaded = {"version": 1, **loaded}
    try:
        CoverageSpec.from_dict(loaded)
    except SpecError:
        return None
    return loaded


def _with(base: dict[str, Any] | None, extra: dict[str, Any] | None) -> dict[str, Any] | None:
    """A scenario's own spec with the explain file's conventions added."""
    if extra is None:
        return base
    merged = dict(base or {"version": 1})
    merged["conventions"] = list(merged.get("conventions") or []) + list(
        extra.get("conventions") or [])
    return {**extra, **merged}


def score_stack(fixtures: Path, stack: str, scenarios: Mapping[str, Scenario],
                extra: dict[str, Any] | None) -> tuple[int, int, int]:
    """(met, items, extra agents) over one stack's scenarios."""
    met = total = unexpected = 0
    for name, expected in scenarios.items():
        path = fixtures / stack / f"{name}.json"
        agents, _, _ = replay_records(json.loads(path.read_text()), str(path),
                                      _with(expected.spec, extra))
        m, t = score(expected, agents)
        met, total, unexpected = met + m, total + t, unexpected + extra_agents(expected, agents)
    return met, total, unexpected


def _pct(met: int, total: int) -> str:
    return f"{100 * met / total:5.1f} % ({met}/{total})" if total else "  n/a"


def _explain_cell(fixtures: Path, stack: str, scenarios: Mapping[str, Scenario], tmp: Path,
                  patched: list[int]) -> tuple[int, int, int]:
    """(met, items, extra agents) with the stack's `explain` file as the spec; a file that
    cannot be used scores nothing (and, if `version: 1` alone makes it load, that score is added
    to `patched` and printed as information)."""
    files = [fixtures / stack / f"{name}.json" for name in scenarios]
    out = tmp / f"{stack}.yaml"
    spec, why = explain_spec(files, out)
    if spec is not None:
        return score_stack(fixtures, stack, scenarios, spec)
    total = sum(score(s, {})[1] for s in scenarios.values())
    fixed = with_version(out.read_text()) if out.exists() else None
    if fixed is None:
        print(f"  {stack}: explain's file not used: {why}")
    else:
        met, _, unexpected = score_stack(fixtures, stack, scenarios, fixed)
        patched[:] = [patched[0] + met, patched[1] + total]
        print(f"  {stack}: explain's file not used: {why}; with `version: 1` added it would "
              f"score {_pct(met, total)}" + (f", {unexpected} extra agents" if unexpected else ""))
    return 0, total, 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--spec-from-explain", action="store_true",
                        help="also score with each stack's `agentcov explain` file as the spec")
    parser.add_argument("--set", choices=sorted(SETS), default="heldout",
                        help="which held-out set to score (default: heldout, the first one)")
    args = parser.parse_args()
    directory = TESTS / SETS[args.set]
    fixtures = directory / "fixtures"
    expected = heldout_expectations(directory)
    modes = ["out of the box"] + (["explain's file"] if args.spec_from_explain else [])
    sums = {mode: [0, 0, 0] for mode in modes}
    patched = [0, 0]
    with tempfile.TemporaryDirectory() as tmp:
        for stack, scenarios in expected.items():
            cells = []
            for mode in modes:
                met, total, unexpected = (
                    score_stack(fixtures, stack, scenarios, None) if mode == "out of the box"
                    else _explain_cell(fixtures, stack, scenarios, Path(tmp), patched))
                for i, n in enumerate((met, total, unexpected)):
                    sums[mode][i] += n
                extra = f", {unexpected} extra agents" if unexpected else ""
                cells.append(f"{mode}: {_pct(met, total)}{extra}")
            print(f"{stack:<12} " + " | ".join(cells))
    for mode, (met, total, unexpected) in sums.items():
        print(f"OVERALL core, {mode}: {_pct(met, total)}, {unexpected} extra agents")
    if patched[1]:
        print(f"(information: the stacks whose file did not load, with `version: 1` added: "
              f"{_pct(*patched)})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
