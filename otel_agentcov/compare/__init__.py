"""Regression verdicts between two versions of an agent (docs/compare.md): `agentcov compare`."""

from .comparison import Settings, Side, compare
from .render import RENDERERS, render_junit

__all__ = ["RENDERERS", "Settings", "Side", "compare", "render_junit"]
