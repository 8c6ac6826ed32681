"""Inference alone on the recorded stacks, and what inference costs per span.

Score: the built-in tables switched off, what share of each fixture's expectations
(tests/fixture_expectations.py) inference still meets; then the same for the tuning share of
stacks with vocabularies of their own (tests/inference_share/, recorded by
fixtures/record/infer/; `--held-out` adds the share's own held-out stacks, kept unread while the
rules were written). `python benchmarks/inference.py` prints a
row per stack and the overall share; `--tables` keeps the built-in tables on (every stack should
then meet all its expectations, as the tests say). `make bench` reports the overall share.

Cost (`section`, in `make bench`): GenAI spans the tables match, ingested with inference on and
off (inference must not cost them anything), and the same spans with their vocabulary renamed
to one no table knows (`acme.span.type`, `acme.*` keys), which inference reads: per span, a
ratio to the matched spans in the same round.
A scenario's items are `fixture_expectations.score`'s, the held-out set's (benchmarks/heldout.py);
here each agent that is not expected costs an item too (a name that is no agent must not become
one).
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from contextlib import nullcontext
from dataclasses import replace
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT / "tests"), str(ROOT / "tests" / "inference_share")]

import fixture_expectations as fx  # noqa: E402
from harness import Row, Section  # noqa: E402
from share_expectations import EXPECTED as SHARE  # noqa: E402
from share_expectations import FIXTURES as SHARE_FIXTURES  # noqa: E402
from share_expectations import HELD_OUT  # noqa: E402

from otel_agentcov.engine import CoverageEngine  # noqa: E402
from otel_agentcov.readers.otlp import in_end_order, records_from_json  # noqa: E402
from otel_agentcov.records import SpanRecord  # noqa: E402
from otel_agentcov.semconv import Classifier  # noqa: E402
from otel_agentcov.spec import CoverageSpec  # noqa: E402

COST_STACKS = ("openai_agents_contrib", "strands", "adk")  # GenAI spans, every kind
_KINDS = {"chat": "llm", "execute_tool": "tool", "invoke_agent": "agent"}
TARGET_UNMATCHED = 2.0  # an inferred span costs at most twice a matched one
TARGET_MATCHED = 1.1  # inference on costs the matched spans nothing (noise allowed)


def replay(path: Path, spec: dict[str, Any] | None, tables: bool) -> dict[str, fx.A]:
    """`fixture_expectations.replay` with the built-in tables on or off (inference on)."""
    with nullcontext() if tables else fx.tables_off():
        agents, _, _ = fx.replay_records(json.loads(path.read_text()), str(path), spec)
    return agents  # type: ignore[no-any-return]


# (expectations per stack, the directory of their fixtures): the 44 in-repo stacks, the
# tuning share (fixtures/record/infer/) and the share's own held-out stacks
IN_REPO = (fx.EXPECTED, fx.FIXTURES)
TUNING = (SHARE, SHARE_FIXTURES)
SHARE_HELD_OUT = (HELD_OUT, SHARE_FIXTURES)
Stacks = tuple[dict[str, dict[str, fx.Scenario]], Path]


def stack_score(library: str, tables: bool = False, verbose: bool = False,
                stacks: Stacks = IN_REPO, pinned: bool = False) -> tuple[int, int]:
    """(items met, items) over one stack's scenarios: `fixture_expectations.score`, and each
    agent that is not expected costs an item (a name that is no agent must not become one);
    `pinned`: with the stack's `explain --write` entries added to each scenario's spec."""
    met = total = 0
    expectations, fixtures = stacks
    paths = [fixtures / library / f"{n}.json" for n in expectations[library]]
    entries = fx.explain_pins(paths) if pinned else []
    for name, expected in expectations[library].items():
        spec = expected.spec
        if entries:
            spec = dict(spec or {"version": 1})
            spec["conventions"] = [*spec.get("conventions", []), *entries]
        got = replay(fixtures / library / f"{name}.json", spec, tables)
        m, t = fx.score(expected, got)
        t += fx.extra_agents(expected, got)
        met, total = met + m, total + t
        if verbose and m < t:
            print(f"    {library}/{name}: {m}/{t} got {sorted(got)}")
    return met, total


def overall(tables: bool = False, stacks: Stacks = IN_REPO) -> float:
    """The share (%) of every fixture's expectations met, all stacks together."""
    scores = [stack_score(library, tables, stacks=stacks) for library in sorted(stacks[0])]
    return 100 * sum(m for m, _ in scores) / sum(t for _, t in scores)


def _renamed(record: SpanRecord) -> SpanRecord:
    """The span in a vocabulary no table knows: `acme.span.type` for the GenAI operation,
    every other `gen_ai.` key under `acme.`, another scope."""
    attrs: dict[str, Any] = {}
    for key, value in record.attributes.items():
        if key == "gen_ai.operation.name":
            attrs["acme.span.type"] = _KINDS.get(value, value)
        elif key.startswith("gen_ai."):
            attrs["acme." + key[7:]] = value
        else:
            attrs[key] = value
    return SpanRecord(record.trace_id, record.span_id, record.parent_id, record.name,
                      record.kind, record.start_ns, record.end_ns, record.status_code,
                      record.status_description, attrs, record.events, "acme.sdk",
                      record.resource_attributes, record.parent_remote)


def _records(copies: int = 20) -> list[SpanRecord]:
    """The stacks' spans a table classifies (a kind other than `other` with inference off: a
    span no entry claims, such as an operation the conventions do not define, is inference's
    work, not a matched span's), `copies` times over under fresh trace ids (enough work per
    pass that a noisy machine's jitter stays small beside it)."""
    tables = Classifier(inference=False).classify
    one: list[SpanRecord] = []
    for stack in COST_STACKS:
        for path in sorted((fx.FIXTURES / stack).glob("*.json")):
            if path.name != "versions.json":
                one += [r for r in in_end_order(records_from_json(
                    json.loads(path.read_text()), str(path))) if tables(r).kind != "other"]
    return [replace(r, trace_id=r.trace_id ^ (i << 100)) for i in range(copies) for r in one]


def _per_span(records: list[SpanRecord], spec: CoverageSpec, passes: int = 5) -> float:
    """Microseconds per span through the engine (classify, assemble, fold), best pass."""
    best = float("inf")
    for _ in range(passes):
        engine = CoverageEngine(spec)
        start = time.perf_counter()
        for r in records:
            engine.ingest(r)
        engine.flush_all()
        best = min(best, time.perf_counter() - start)
    return best / len(records) * 1e6


def section(rounds: int) -> Section:
    matched = _records()
    unmatched = [_renamed(r) for r in matched]
    on, off = CoverageSpec.empty(), CoverageSpec.empty().without_inference()
    ratios_on, ratios_unmatched, cost = [], [], []
    for _ in range(rounds):
        base = _per_span(matched, off)
        with_inference = _per_span(matched, on)
        inferred = _per_span(unmatched, on)
        ratios_on.append(with_inference / base)
        ratios_unmatched.append(inferred / with_inference)
        cost.append(with_inference)
    share = overall()
    return Section("inference", [
        Row("matched spans, inference on / off (per span, same run)", ratios_on, "ratio",
            f"<= {TARGET_MATCHED}", lambda m: m <= TARGET_MATCHED),
        Row("inferred spans / matched spans (per span, same run)", ratios_unmatched, "ratio",
            f"<= {TARGET_UNMATCHED}", lambda m: m <= TARGET_UNMATCHED),
        Row("matched span, whole engine", cost, "µs/span"),
        Row("inference alone (tables off), share of the 44 stacks' expectations met", [share],
            "%"),
        Row("out of the box, share of the tuning share's expectations met (tests/"
            "inference_share)", [overall(stacks=TUNING)], "%"),
    ], [f"{len(matched)} spans of {', '.join(COST_STACKS)} through CoverageEngine.ingest "
        "(SpanRecords), 20 copies under fresh trace ids, best of 5 passes a round; the "
        "inferred mix renames their vocabulary. "
        f"Median matched-span cost {statistics.median(cost):.1f} µs. The share is "
        "`python benchmarks/inference.py` (per stack there)."])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tables", action="store_true", help="keep the built-in tables on")
    parser.add_argument("--verbose", action="store_true", help="every scenario's items")
    parser.add_argument("--held-out", action="store_true",
                        help="also score the tuning share's own held-out stacks")
    parser.add_argument("--pinned", action="store_true",
                        help="with each stack's `explain --write` entries loaded (tables off)")
    args = parser.parse_args(argv)
    groups = [("in-repo stacks", IN_REPO), ("tuning share", TUNING)]
    if args.held_out:
        groups.append(("the share's held-out", SHARE_HELD_OUT))
    for title, stacks in groups:
        print(f"== {title}")
        all_met = all_total = 0
        for library in sorted(stacks[0]):
            met, total = stack_score(library, args.tables, args.verbose, stacks, args.pinned)
            all_met, all_total = all_met + met, all_total + total
            print(f"{library:30} {met:4}/{total:<4} {100 * met / total:5.1f} %")
        if all_total:
            print(f"{'all':30} {all_met:4}/{all_total:<4} {100 * all_met / all_total:5.1f} %")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
