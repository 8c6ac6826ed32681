"""When faults may act at all: only under an explicit switch (a pytest plan, the proxy command,
`AGENTCOV_FAULTS`), and never in a process marked as a service or production (docs/faults.md).

A fault injected into a production agent is an outage, so the refusal is the default and each
switch checks it before anything is installed.
"""

from __future__ import annotations

import os

ENV_PLAN = "AGENTCOV_FAULTS"  # the env switch: a plan (`boundaries`, `http_5xx,tool_exception:7`)
ENV_PRODUCTION = "AGENTCOV_PRODUCTION"  # set (to anything but "", 0, false, no): faults refused
_FALSE = ("", "0", "false", "no", "off")
_forbidden_by: list[str] = []  # set by `forbid` in a process that must never inject


class FaultsRefused(RuntimeError):
    """Faults were asked for where they must not act; `str()` is one line saying why."""


def forbid(process: str) -> None:
    """Mark this process as one faults must never act in (`agentcov serve` calls it)."""
    if process not in _forbidden_by:
        _forbidden_by.append(process)


def check(switch: str) -> None:
    """Raise FaultsRefused unless `switch` (what asked, for the message) may turn faults on."""
    if _forbidden_by:
        raise FaultsRefused(f"{switch}: fault injection refused in {_forbidden_by[0]}")
    flag = os.environ.get(ENV_PRODUCTION, "")
    if flag.strip().lower() not in _FALSE:
        raise FaultsRefused(f"{switch}: fault injection refused: {ENV_PRODUCTION} is set")
