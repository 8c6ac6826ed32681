"""Narrative check throughput (docs/narrative.md): 10 000 final answers of 2 KB, 50 known tools.

The answers are generated from a seeded rng: claims, negated and planned actions, passive voice,
code-form names and filler, as agents write them. One round extracts the claims of all of them
as the judge does (language check, claims compiled once per tool set, verdict); linearity is the
time per character on 16 KB answers over that on 2 KB answers, also for run-on answers with no
sentence or clause marks (one long sentence: the worst case for per-clause work).
"""

from __future__ import annotations

import random
import re
import time

from harness import Row, Section

from otel_agentcov.judge.narrative import NarrativeSpec, judge_story
from otel_agentcov.judge.toolnames import past_forms

RUN_ON = re.compile(r"[.,;:!?]")
OUTPUTS = 10_000
OUTPUT_CHARS = 2048
VERBS = ("issue", "send", "create", "update", "delete", "fetch", "cancel", "apply", "book",
         "submit", "reset", "verify", "run", "write", "get", "pay", "transfer", "notify",
         "schedule", "lookup", "refund", "archive", "approve", "assign", "close")
OBJECTS = ("refund", "email", "ticket", "invoice", "order", "report", "password", "payment",
           "meeting", "account", "discount", "reminder", "contact", "file", "subscription")
FILLER = (
    "Thanks for reaching out about this.", "Let me know if there is anything else I can do.",
    "Here is a summary of what happened on your account today.",
    "Our policy allows changes within thirty days of purchase.",
    "You can reply to this message at any time, and a person from the team will follow up.",
    "The details are listed below for your records.",
)  # fmt: skip


def tools(rng: random.Random) -> list[str]:
    names: set[str] = set()
    while len(names) < 50:
        names.add(f"{rng.choice(VERBS)}_{rng.choice(OBJECTS)}")
    return sorted(names)


def _sentence(rng: random.Random, known: list[str]) -> str:
    verb, obj = rng.choice(known).split("_")
    base = "look" if verb == "lookup" else verb
    past = sorted(past_forms(base))[0] + (" up" if verb == "lookup" else "")
    return rng.choice((
        f"I {past} the {obj} for order {rng.randint(1000, 9999)}.",
        f"I have not {past} the {obj} yet because the account is locked.",
        f"The {obj} was {past} at {rng.randint(1, 12)}:{rng.randint(10, 59)}.",
        f"I can {verb} the {obj} if you confirm.",
        f"Called `{verb}_{obj}` with the details you gave me.",
        f"Your {obj} will be {past} shortly, and I {past} a note for the team.",
        rng.choice(FILLER),
        rng.choice(FILLER),
    ))  # fmt: skip


def answers(rng: random.Random, known: list[str], n: int, chars: int) -> list[str]:
    out = []
    for _ in range(n):
        parts: list[str] = []
        size = 0
        while size < chars:
            s = _sentence(rng, known)
            parts.append(s)
            size += len(s) + 1
        out.append(" ".join(parts)[:chars])
    return out


def _seconds(texts: list[str], known: list[str]) -> tuple[float, float, int]:
    """(wall s, CPU s, claims found): the machine is shared, so CPU time is reported too. Each
    answer is judged as a run is (language check, claims with the default synonyms, verdict)."""
    tool_set, spec = frozenset(known), NarrativeSpec()
    judge_story("warm-up: I issued the refund.", tool_set, {}, spec)
    wall, cpu = time.perf_counter(), time.process_time()
    claims = sum(len(judge_story(t, tool_set, {}, spec).divergences) for t in texts)
    return time.perf_counter() - wall, time.process_time() - cpu, claims


def run_on(texts: list[str]) -> list[str]:
    """The same answers with no sentence or clause marks: one sentence, few clause breaks (the
    worst case for per-clause work, which must stay linear too)."""
    return [RUN_ON.sub(" ", t) for t in texts]


def section(rounds: int) -> Section:
    rng = random.Random(16)
    known = tools(rng)
    short = answers(rng, known, OUTPUTS, OUTPUT_CHARS)
    long = answers(rng, known, OUTPUTS // 8, OUTPUT_CHARS * 8)
    mb = sum(len(t) for t in short) / 1e6
    short_run_on, long_run_on = run_on(short[: OUTPUTS // 8]), run_on(long[: OUTPUTS // 64])
    per_s, per_cpu_s, mb_s, linear, linear_run_on, claims = [], [], [], [], [], 0
    for _ in range(min(rounds, 3)):
        t_short, cpu_short, claims = _seconds(short, known)
        _, cpu_long, _ = _seconds(long, known)
        per_s.append(OUTPUTS / t_short)
        per_cpu_s.append(OUTPUTS / cpu_short)
        mb_s.append(mb / cpu_short)
        linear.append((cpu_long / sum(len(t) for t in long)) / (cpu_short / (mb * 1e6)))
        _, cpu_a, _ = _seconds(short_run_on, known)
        _, cpu_b, _ = _seconds(long_run_on, known)
        linear_run_on.append((cpu_b / sum(map(len, long_run_on)))
                             / (cpu_a / sum(map(len, short_run_on))))
    return Section(
        "Claim extraction (narrative vs trace)",
        [
            Row("answers/s (2 KB each, 50 known tools), wall", per_s, "answers/s"),
            Row("answers per CPU second", per_cpu_s, "answers/s"),
            Row("text scanned per CPU second", mb_s, "MB/s"),
            Row("time per char, 16 KB answers / 2 KB answers", linear, "ratio", "<= 1.5",
                lambda m: m <= 1.5),
            Row("time per char, run-on 16 KB / 2 KB (no sentence or clause marks)",
                linear_run_on, "ratio", "<= 1.5", lambda m: m <= 1.5),
        ],
        [f"{OUTPUTS} answers of {OUTPUT_CHARS} characters ({mb:.1f} MB), {claims} claims found "
         "in all; extractor compiled once for the tool set, as the judge does per agent."],
    )
