"""The one place a regular expression written by a user (spec contracts, narrative claims) is
compiled, so the engine behind them is chosen here once."""

from __future__ import annotations

import re

UserRegexError = re.error


def compile_user_regex(pattern: str) -> re.Pattern[str]:
    """Compile a spec's regex; raises UserRegexError (checked at spec load, never while judging)."""
    return re.compile(pattern)
