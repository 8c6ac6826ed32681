"""`agentcov docs [TOPIC]`: the documentation pages, shipped in the package, so a message that
cites `agentcov docs TOPIC` points an installed user at a page they have (a repository path such
as docs/gate.md exists only in a checkout).

The pages are docs/*.md; the package holds them as `otel_agentcov/docs/*.md`, one link per page in
the repository that the build (maturin) copies into the wheel and the sdist as a file.
"""

from __future__ import annotations

from importlib import resources
from importlib.abc import Traversable

SUFFIX = ".md"


def _pages() -> dict[str, Traversable]:
    root = resources.files("otel_agentcov") / "docs"
    return {p.name[: -len(SUFFIX)]: p for p in root.iterdir() if p.name.endswith(SUFFIX)}


def topics() -> list[tuple[str, str]]:
    """(topic, title) of every page, by name; the title is the page's first heading."""
    out = []
    for name, path in sorted(_pages().items()):
        first = path.read_text(encoding="utf-8").split("\n", 1)[0]
        out.append((name, first.lstrip("# ").strip()))
    return out


def page(topic: str) -> str | None:
    """The page's Markdown, or None when no page has that name."""
    path = _pages().get(topic)
    return path.read_text(encoding="utf-8") if path is not None else None


def listing() -> str:
    """Every topic with its title, one a line, and how to read one."""
    shown = topics()
    width = max(len(name) for name, _ in shown)
    return "".join(f"{name:<{width}}  {title}\n" for name, title in shown) + (
        "\nread one with: agentcov docs TOPIC\n")


def unknown(topic: str) -> str:
    """The one line for a topic no page has."""
    return f"no documentation topic {topic[:80]!r}; topics: " + ", ".join(
        name for name, _ in topics())
