"""`[tool.agentcov]` in pyproject.toml: the project's defaults, read the same way by the pytest
plugin and the `agentcov` CLI (as pytest-cov and coverage.py share `[tool.coverage]`).

Paths in it are relative to the pyproject.toml that holds them. A wrong type or an unknown key is
one line naming the file and the valid keys (docs/ci.md).
"""

from __future__ import annotations

import tomllib
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

DATA_FILE = ".agentcov"  # the default data file, like coverage.py's .coverage


class SettingsError(ValueError):
    """A `[tool.agentcov]` the user must fix; `str()` is one line naming the file."""


@dataclass(frozen=True)
class Settings:
    """The keys of `[tool.agentcov]`; None (or empty) where the project sets nothing."""

    spec: Path | None = None
    report: tuple[str, ...] = ()
    fail_under: float | None = None
    show_missing: bool = False
    data_file: Path | None = None  # None: DATA_FILE in the rootdir
    data_file_off: bool = False  # `data_file = ""`: write none
    root: Path | None = None  # the directory of the pyproject.toml read, if one was


def _number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool) and 0 <= value <= 100


# key -> (check, what the check wants, in the words of the error)
_KEYS: Mapping[str, tuple[Any, str]] = {
    "spec": (lambda v: isinstance(v, str) and v != "", "a path string"),
    "report": (lambda v: isinstance(v, str) or (isinstance(v, list) and all(
        isinstance(x, str) for x in v)), "a report type or a list of them"),
    "fail_under": (_number, "a percentage from 0 to 100"),
    "show_missing": (lambda v: isinstance(v, bool), "true or false"),
    "data_file": (lambda v: isinstance(v, str), "a path string (\"\" writes none)"),
}


def parse(section: Any, root: Path, source: str) -> Settings:
    """Settings from an already parsed `[tool.agentcov]` table."""
    if not isinstance(section, dict):
        raise SettingsError(f"{source}: [tool.agentcov] must be a table")
    unknown = sorted(set(section) - set(_KEYS))
    if unknown:
        raise SettingsError(f"{source}: [tool.agentcov] has unknown key(s) {', '.join(unknown)}; "
                            f"valid keys: {', '.join(_KEYS)}")
    for key, value in section.items():
        check, wanted = _KEYS[key]
        if not check(value):
            raise SettingsError(f"{source}: [tool.agentcov] {key} must be {wanted}, got "
                                f"{value!r}"[:300])
    report = section.get("report", ())
    data_file = section.get("data_file")
    return Settings(
        spec=root / section["spec"] if "spec" in section else None,
        report=(report,) if isinstance(report, str) else tuple(report),
        fail_under=float(section["fail_under"]) if "fail_under" in section else None,
        show_missing=bool(section.get("show_missing", False)),
        data_file=root / data_file if data_file else None,
        data_file_off=data_file == "",
        root=root,
    )


def load(path: Path) -> Settings:
    """`[tool.agentcov]` of the pyproject.toml at `path`; no file or no table: no settings."""
    try:
        with path.open("rb") as fh:
            section = tomllib.load(fh).get("tool", {}).get("agentcov")
    except FileNotFoundError:
        return Settings()
    except (OSError, tomllib.TOMLDecodeError) as exc:
        raise SettingsError(f"{path}: cannot read [tool.agentcov]: {exc}") from None
    if section is None:
        return Settings(root=path.parent)
    return parse(section, path.parent, str(path))


def find(start: Path) -> Settings:
    """The settings of the nearest pyproject.toml at or above `start` (how the CLI finds the
    project it runs in); none found: no settings."""
    for directory in (start, *start.parents):
        candidate = directory / "pyproject.toml"
        if candidate.is_file():
            return load(candidate)
    return Settings()


def data_file(settings: Settings, root: Path) -> Path | None:
    """Where the data file goes: `data_file` (relative to its pyproject), else `.agentcov` in
    `root`; None when `data_file = ""` turns it off."""
    if settings.data_file_off:
        return None
    return settings.data_file or root / DATA_FILE
