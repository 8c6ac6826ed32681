"""Reporters: each renders the same report dict (``Snapshot.to_dict()``), none recomputes it."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from otel_agentcov.reporting.json_report import render_json
from otel_agentcov.reporting.markdown import render_markdown
from otel_agentcov.reporting.text import render_text
from otel_agentcov.snapshot import Snapshot
from otel_agentcov.snapshot.schema import Report

_RENDERERS: dict[str, Callable[[Report], str]] = {
    "text": render_text,
    "json": render_json,
    "markdown": render_markdown,
}
FORMATS = tuple(_RENDERERS)  # ("text", "json", "markdown")

if TYPE_CHECKING:
    from otel_agentcov.reporting.html import write_html
    from otel_agentcov.spec import CoverageSpec


def __getattr__(name: str) -> Any:
    """`write_html` loads jinja2 on first use, so the other formats start without it."""
    if name == "write_html":
        from otel_agentcov.reporting.html import write_html

        return write_html
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def render(report: Report, fmt: str, spec: CoverageSpec | None = None) -> str:
    """Render ``report`` in ``fmt``; an unknown format is a one-line user error. ``spec``, the
    one the report was made with, gives Markdown's Expectations tables their matchers (the
    text and JSON reports stay as they are)."""
    renderer = _RENDERERS.get(fmt)
    if renderer is None:
        raise ValueError(f"unknown report format {fmt!r} (expected one of: {', '.join(FORMATS)})")
    return render_markdown(report, spec) if fmt == "markdown" else renderer(report)



class RenderedSnapshot(Snapshot):
    """The Snapshot the engine and processor hand out: it prints as its text report (the
    snapshot layer renders nothing itself, so rendering is added here, one layer up)."""

    def render(self, fmt: str = "text") -> str:
        """The report in `fmt` (text, json, markdown): what `agentcov coverage` prints."""
        return render(self.data, fmt)

    def __str__(self) -> str:
        return self.render("text")


__all__ = [
    "FORMATS", "RenderedSnapshot", "render", "render_json", "render_markdown", "render_text",
    "write_html",
]
