"""Names from telemetry made safe to print in a terminal, a CI log or an XML file.

Agent, tool and model names are whatever the traced application (or an attacker) put in a span.
Printed raw, a newline in one starts a line of its own, where CI systems read commands
(GitHub's `::error::`, Azure's `##vso[`, TeamCity's `##teamcity[`), an ESC byte drives the
terminal, a bidi override reorders what a reviewer sees, and most control characters make XML
ill-formed. Every such character is shown as a visible escape instead.
"""

from __future__ import annotations

import re

_NAMED = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}
# C0 and C1 controls, DEL, line/paragraph separators, bidi embeddings/overrides/isolates, and
# lone surrogates (not encodable, so not printable either)
_UNSAFE = re.compile("[\x00-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069\ud800-\udfff]")
_COMMAND_STARTS = ("::", "##")


def _escape(match: re.Match[str]) -> str:
    char = match.group(0)
    named = _NAMED.get(char)
    if named is not None:
        return named
    code = ord(char)
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def plain(text: str) -> str:
    """`text` with every control, separator, bidi and surrogate character escaped."""
    return _UNSAFE.sub(_escape, text)


def line_safe(line: str) -> str:
    """A line that cannot be read as a CI command: one starting with `::` or `##` (after any
    indentation, which some runners strip) gets a backslash in front."""
    stripped = line.lstrip()
    if stripped.startswith(_COMMAND_STARTS):
        return line[: len(line) - len(stripped)] + "\\" + stripped
    return line
