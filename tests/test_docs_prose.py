"""Prose the docs pages must not carry: a paragraph cut at its start (docs/processor.md's measured
cost once began "under the GIL ...") and an option spelling the CLI only keeps for one release
(docs/metrics.md once said `agentcov demo --serve`)."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
FENCE = re.compile(r"^[ \t]*(```|~~~).*?^[ \t]*\1[^\n]*", re.S | re.M)
COMMENT = re.compile(r"<!--.*?-->", re.S)


def paragraphs(text: str) -> list[tuple[str, bool]]:
    """Each prose paragraph, and whether a code block came right before it (a sentence may go
    on after one: "... is:", the block, "and ...")."""
    out: list[tuple[str, bool]] = []
    for i, part in enumerate(FENCE.split(COMMENT.sub("", text))):
        if i % 2:  # the fence's own marker (``` or ~~~), captured by the split
            continue
        for j, p in enumerate(q.strip() for q in re.split(r"\n\s*\n", part) if q.strip()):
            out.append((p, i > 0 and j == 0))
    return out


# Names spelt in lower case on purpose may start a paragraph.
NAMES = re.compile(r"(otel_agentcov|agentcov)\b")


def test_no_paragraph_starts_mid_sentence() -> None:
    cut = [(page.name, p[:60]) for page in PAGES for p, after_code in paragraphs(
        page.read_text("utf-8")) if re.match(r"[a-z]", p) and not after_code
           and not NAMES.match(p)]
    assert cut == []


def test_paragraphs_helper_sees_a_cut_paragraph() -> None:
    found = paragraphs("One.\n\n```sh\nls\n```\n\nand so on.\n\nunder the GIL.")
    assert [(p[:5], after) for p, after in found] == [
        ("One.", False), ("and s", True), ("under", False)]


# Each old spelling, and the sentence of docs/cli.md that lists it (the only place it may appear).
OLD_SPELLINGS = {"demo --serve": "now `demo --metrics`", "--state-file": "now `--data-file`"}


def test_no_page_uses_an_old_option_spelling() -> None:
    found = []
    for page in PAGES:
        flat = re.sub(r"\s+", " ", page.read_text("utf-8"))
        for old, note in OLD_SPELLINGS.items():
            for m in re.finditer(re.escape(old) + r"\b", flat):
                if note not in flat[m.end(): m.end() + 40]:
                    found.append((page.name, flat[max(0, m.start() - 30): m.end() + 10]))
    assert found == []
