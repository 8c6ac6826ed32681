"""Precision of inference on telemetry that is no agent's (issue 35: "no name that is not an agent
becomes one"): ordinary services whose domain words name agent-stack kinds in their everyday sense
(real-estate agents, a tool rental, a data model, a human chat, workflows, tasks, report
generation), recorded with the real OpenTelemetry SDK and instrumentation libraries
(tests/negative/, fixtures/record/negative/). No LLM runs anywhere in them, so every agent run,
model call and tool call the engine finds there is false.

Each fixture is replayed exactly as the held-out shares are (tests/fixture_expectations.replay),
with no spec: what a user gets out of the box. Run:
`.venv/bin/python benchmarks/negative.py [--part tuning|held-out|all]`; the exit status is 0
either way (a measure, not a gate: tests/test_negative.py is the gate).
"""

from __future__ import annotations

import argparse
import json
import sys
from dataclasses import dataclass
from pathlib import Path

HERE = Path(__file__).resolve().parent
TESTS = HERE.parent / "tests"
sys.path[:0] = [str(HERE.parent), str(TESTS)]

from fixture_expectations import replay_records  # noqa: E402
from negative.apps import HELD_OUT, TUNING  # noqa: E402

FIXTURES = TESTS / "negative" / "fixtures"


@dataclass(frozen=True)
class Found:
    """What the engine made of one app's fixtures: spans read, and the false findings."""

    spans: int
    agents: tuple[str, ...]  # agent names with runs (every one is false)
    runs: int
    llm: int
    tools: int


def spans_in(document: dict[str, object]) -> int:
    """Spans in an OTLP/JSON document."""
    return sum(len(scope.get("spans", ())) for rs in document.get("resourceSpans", ())  # type: ignore[attr-defined]
               for scope in rs.get("scopeSpans", ()))


def found(app: str) -> Found:
    """Replay every scenario of `app` and total what it found."""
    spans = runs = llm = tools = 0
    agents: set[str] = set()
    for path in sorted((FIXTURES / app).glob("*.json")):
        if path.name == "versions.json":  # the libraries recorded, beside the traces
            continue
        document = json.loads(path.read_text())
        spans += spans_in(document)
        replayed, _, _ = replay_records(document, str(path))
        for name, agent in replayed.items():
            agents.add(name)
            runs += agent.runs
            llm += agent.llm
            tools += sum(ok + err for ok, err in agent.tools.values())
    return Found(spans, tuple(sorted(agents)), runs, llm, tools)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--part", choices=("tuning", "held-out", "all"), default="all")
    args = parser.parse_args()
    apps = {"tuning": TUNING, "held-out": HELD_OUT, "all": TUNING + HELD_OUT}[args.part]
    total = Found(0, (), 0, 0, 0)
    print(f"{'app':28} {'spans':>6} {'agents':>6} {'runs':>5} {'llm':>5} {'tools':>5}")
    for app in apps:
        got = found(app)
        print(f"{app:28} {got.spans:6} {len(got.agents):6} {got.runs:5} {got.llm:5} {got.tools:5}"
              f"  {', '.join(got.agents)[:60]}")
        total = Found(total.spans + got.spans, total.agents + got.agents, total.runs + got.runs,
                      total.llm + got.llm, total.tools + got.tools)
    print(f"{'all (' + args.part + ')':28} {total.spans:6} {len(total.agents):6} {total.runs:5} "
          f"{total.llm:5} {total.tools:5}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
