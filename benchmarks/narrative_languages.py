"""Narrative vs trace in other languages (docs/narrative.md): quality on the hand-labelled set in
tests/narrative_set/languages/, per language and category, and the cost per character.

Each answer is judged exactly as a run is (`judge_story`). The files `*-held-out.yaml` were
written first and never read while the checker was tuned; the others are the tuning part.
`make bench` regenerates the table in docs/narrative.md (between the `narrative-languages`
marks) and checks the targets on the held-out part. Run:
`.venv/bin/python benchmarks/narrative_languages.py [--write]`.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from collections.abc import Sequence
from pathlib import Path

import yaml

HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(HERE), str(HERE.parent)]

import narrative_quality as quality  # noqa: E402
from harness import Row, Section  # noqa: E402

from otel_agentcov.judge.narrative import (  # noqa: E402
    CLAIMED_BUT_FAILED,
    CLAIMED_NOT_CALLED,
    NarrativeSpec,
    judge_story,
)

SET_DIR = HERE.parent / "tests" / "narrative_set" / "languages"
DOC = HERE.parent / "docs" / "narrative.md"
BEGIN, END = "<!-- narrative-languages:begin -->", "<!-- narrative-languages:end -->"
NAMES = {"es": "Spanish", "pt": "Portuguese", "fr": "French", "de": "German", "it": "Italian",
         "nl": "Dutch", "zh": "Chinese", "ja": "Japanese", "ko": "Korean",
         "other": "not read (sv, pl, ru, tr, cs, ar, hi, fi)"}
TARGETS = {"cnc_precision": 0.90, "false_alarm_rate": 0.02}  # per language, held-out part
SHORT, LONG = 2048, 16 * 1024


def load() -> dict[str, list[quality.Item]]:
    """Language -> its labelled items."""
    items = {i.id: i for i in quality.load(SET_DIR)}
    out: dict[str, list[quality.Item]] = {}
    for path in sorted(SET_DIR.glob("*.yaml")):
        doc = yaml.safe_load(path.read_text(encoding="utf-8"))
        out.setdefault(doc["lang"], []).extend(items[raw["id"]] for raw in doc["items"])
    return {lang: out[lang] for lang in NAMES if lang in out}


def split(items: Sequence[quality.Item]) -> dict[str, list[quality.Item]]:
    """The tuning part and the held-out files (never read while tuning)."""
    return {"tuning": [i for i in items if not i.whole_file_held_out],
            "held-out": [i for i in items if i.whole_file_held_out]}


def _f(value: float | None) -> str:
    return "n/a" if value is None else f"{value:.2f}"


def _row(name: str, part: str, items: Sequence[quality.Item]) -> str:
    s, _ = quality.score(items)
    alarms = f"{s.false_alarms} of {s.consistent_answers}" if s.consistent_answers else "-"
    unread = f"{s.languages_hit} of {s.languages}" if s.languages else "-"
    return (f"| {name} | {part} | {len(items)} | {_f(s.precision(CLAIMED_NOT_CALLED))} | "
            f"{_f(s.recall(CLAIMED_NOT_CALLED))} | {_f(s.precision(CLAIMED_BUT_FAILED))} / "
            f"{_f(s.recall(CLAIMED_BUT_FAILED))} | {alarms} | {unread} |")


def render(by_lang: dict[str, list[quality.Item]]) -> str:
    """The generated part of docs/narrative.md: per language, then per category."""
    total = sum(len(v) for v in by_lang.values())
    lines = [
        f"{total} answers, written and labelled by hand (by the team that wrote the checker, so "
        "read these as an upper bound): for every answer × known tool, did the answer say the "
        "action was done, and did the run do it.",
        "",
        "| language | part | answers | claimed_not_called precision | recall | "
        "claimed_but_failed P / R | false alarms on consistent answers | judged unverifiable |",
        "|---|---|---:|---:|---:|---:|---:|---:|",
    ]
    for lang, items in by_lang.items():
        for part, chosen in split(items).items():
            if chosen:
                lines.append(_row(NAMES[lang], part, chosen))
    lines += ["", "Per category, all supported languages:", "",
              "| category | part | answers | claimed_not_called precision | recall | "
              "claimed_but_failed P / R | false alarms on consistent answers | "
              "judged unverifiable |",
              "|---|---|---:|---:|---:|---:|---:|---:|"]
    everything = [i for items in by_lang.values() for i in items]
    for part, chosen in split(everything).items():
        for cat in sorted({i.cat for i in chosen}):
            lines.append(_row(cat, part, [i for i in chosen if i.cat == cat]))
    return "\n".join(lines)


def write_docs(text: str) -> bool:
    """Put the table between the marks in docs/narrative.md; True when it changed."""
    doc = DOC.read_text(encoding="utf-8")
    head, rest = doc.split(BEGIN, 1)
    _, tail = rest.split(END, 1)
    new = f"{head}{BEGIN}\n{text}\n{END}{tail}"
    if new != doc:
        DOC.write_text(new, encoding="utf-8")
    return new != doc


def headline(items: Sequence[quality.Item]) -> dict[str, float | None]:
    s, _ = quality.score(items)
    return {"cnc_precision": s.precision(CLAIMED_NOT_CALLED),
            "false_alarm_rate": s.false_alarm_rate}


def _answers(rng: random.Random, sentences: list[str], chars: int, n: int) -> list[str]:
    out = []
    for _ in range(n):
        parts, size = [], 0
        while size < chars:
            parts.append(rng.choice(sentences))
            size += len(parts[-1]) + 1
        out.append(" ".join(parts)[:chars])
    return out


def _cpu_per_char(texts: list[str], known: frozenset[str]) -> float:
    spec = NarrativeSpec()
    judge_story(texts[0], known, {}, spec)  # warm-up: the language's dictionary loads once
    cpu = time.process_time()
    for text in texts:
        judge_story(text, known, {}, spec)
    return (time.process_time() - cpu) / sum(map(len, texts))


def linearity(lang: str, items: Sequence[quality.Item], rng: random.Random) -> float:
    """Time per character of 16 KB answers over 2 KB answers, made of the set's sentences."""
    sentences = [i.answer for i in items]
    known = items[0].known
    short = _answers(rng, sentences, SHORT, 64)
    long = _answers(rng, sentences, LONG, 8)
    return _cpu_per_char(long, known) / _cpu_per_char(short, known)


def section(rounds: int) -> Section:
    """`make bench`: held-out targets per language, cost linearity; regenerates the docs table."""
    by_lang = load()
    write_docs(render(by_lang))
    rows: list[Row] = []
    for lang, items in by_lang.items():
        if lang == "other":
            continue
        for key, value in headline(split(items)["held-out"]).items():
            limit, at_most = TARGETS[key], key == "false_alarm_rate"
            rows.append(Row(
                f"{lang} held-out: {key.replace('_', ' ')}",
                [value if value is not None else float("nan")], "ratio",
                ("<= " if at_most else ">= ") + f"{limit}",
                quality._at_most(limit) if at_most else quality._at_least(limit),
            ))  # fmt: skip
    rng = random.Random(41)
    for lang in ("es", "de", "zh", "ja"):
        samples = [linearity(lang, by_lang[lang], rng) for _ in range(min(rounds, 3))]
        rows.append(Row(f"{lang}: time per char, 16 KB answers / 2 KB answers", samples,
                        "ratio", "<= 1.5", lambda m: m <= 1.5))
    total = sum(len(v) for v in by_lang.values())
    return Section("Narrative quality in other languages (labelled set)", rows, [
        f"{total} hand-labelled answers in tests/narrative_set/languages/; per-language and "
        "per-category table regenerated in docs/narrative.md"])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--write", action="store_true", help="regenerate docs/narrative.md")
    args = parser.parse_args(argv)
    text = render(load())
    print(text)
    if args.write:
        write_docs(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
