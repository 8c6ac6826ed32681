"""Machine-readable report: the snapshot dict as stable JSON."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any


def render_json(report: Mapping[str, Any]) -> str:
    """Serialize in the dict's own (schema) key order, so diffs between runs stay small."""
    return json.dumps(report, indent=2) + "\n"
