"""The first minutes of a new user: `make demo` and building the package, as a fresh clone runs
them (real make, real pip with build isolation)."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import tarfile
import zipfile
from pathlib import Path

import pytest

from otel_agentcov.semconv.builtin import FAMILIES

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[1]


def test_make_demo_installs_only_the_runtime_dependencies(tmp_path: Path) -> None:
    # run as a user would, not as a sub-make of `make test` (which would add its flags and
    # "Entering/Leaving directory" lines)
    env = {k: v for k, v in os.environ.items() if k not in ("MAKEFLAGS", "MAKELEVEL", "MFLAGS")}
    proc = subprocess.run(["make", "--no-print-directory", "-n", "demo",
                           f"DEMO_VENV={tmp_path / 'venv'}"], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=60, check=True)
    installs = [line for line in proc.stdout.splitlines() if "pip install" in line]
    assert installs, proc.stdout
    for line in installs:  # no extra (the test one pulls mypy, pydantic-ai, openai, ...)
        assert "[" not in line and " -e " not in line, line
    assert proc.stdout.splitlines()[-1].endswith("-m otel_agentcov.cli demo")


def test_building_the_package_prints_no_packaging_warning(tmp_path: Path) -> None:
    """A wheel built from the sources alone holds the compiled core and the data files, and the
    build warns of nothing (setuptools once warned of `project.license` on every install)."""
    source = tmp_path / "src"  # a copy: what git holds, not what earlier builds left behind
    source.mkdir()
    for name in ("pyproject.toml", "README.md"):
        shutil.copy(ROOT / name, source / name)
    shutil.copytree(ROOT / "otel_agentcov", source / "otel_agentcov",
                    ignore=shutil.ignore_patterns("__pycache__", "*.so"))
    shutil.copytree(ROOT / "core", source / "core", ignore=shutil.ignore_patterns("target"))
    proc = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "--quiet", "-w", str(tmp_path),
         str(source)],
        capture_output=True, text=True, timeout=600, check=False,
    )
    assert proc.returncode == 0, proc.stderr
    wheels = list(tmp_path.glob("otel_agentcov-*.whl"))
    assert wheels
    with zipfile.ZipFile(wheels[0]) as wheel:  # classify reads its convention tables from it
        names = wheel.namelist()
    tables = {n for n in names if n.startswith("otel_agentcov/semconv/tables/")}
    assert tables == {f"otel_agentcov/semconv/tables/{f}.json" for f in FAMILIES}
    assert sorted(n for n in names if n.startswith("otel_agentcov/_core.")) == [
        "otel_agentcov/_core.abi3.so", "otel_agentcov/_core.pyi"  # the module and its types
    ]
    warnings = re.findall(r"\w+Warning\b.*", proc.stdout + proc.stderr)
    assert warnings == []


def _make(*args: str, timeout: int = 60) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k not in ("MAKEFLAGS", "MAKELEVEL", "MFLAGS")}
    return subprocess.run(["make", "--no-print-directory", *args], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=timeout, check=False)


def test_source_builds_say_how_long_and_are_not_silent(tmp_path: Path) -> None:
    """A first build compiles the core for minutes: every make target that builds it says so
    first, and pip's build step is not --quiet (it once printed nothing for 3 minutes)."""
    for target, venv in ((f"{tmp_path / 'v'}/.installed-stamp", f"VENV={tmp_path / 'v'}"),
                         ("demo", f"DEMO_VENV={tmp_path / 'd'}"), ("dist", f"DIST={tmp_path}")):
        lines = _make("-n", "-B", target, venv).stdout.splitlines()
        builds = [i for i, line in enumerate(lines)
                  if re.search(r"pip install .*(-e '\.\[test\]'| \.$)|maturin build", line)]
        assert builds, (target, lines)
        for i in builds:
            assert "--quiet" not in lines[i], lines[i]
            assert "minutes the first time" in "\n".join(lines[:i]), target


def test_make_dist_builds_the_abi3_wheel_and_the_sdist(tmp_path: Path) -> None:
    proc = _make("dist", f"DIST={tmp_path}", timeout=1200)
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-2000:]
    (wheel,) = tmp_path.glob("otel_agentcov-0.1.0-cp311-abi3-*.whl")
    (sdist,) = tmp_path.glob("otel_agentcov-0.1.0.tar.gz")
    pages = sorted(p.name for p in (ROOT / "docs").glob("*.md"))
    with zipfile.ZipFile(wheel) as built:
        assert "otel_agentcov/_core.abi3.so" in built.namelist()
        assert "otel_agentcov/fake_openai.py" in built.namelist()
        # `agentcov docs` reads these once installed: files in the wheel, not links
        assert sorted(n.rsplit("/", 1)[1] for n in built.namelist()
                      if n.startswith("otel_agentcov/docs/")) == pages
        gate_page = built.read("otel_agentcov/docs/gate.md")
    assert gate_page == (ROOT / "docs" / "gate.md").read_bytes()
    with tarfile.open(sdist) as source:
        names = source.getnames()
        member = source.getmember("otel_agentcov-0.1.0/otel_agentcov/docs/gate.md")
        assert member.isfile()  # a wheel built from the sdist has it too
    assert "otel_agentcov-0.1.0/core/Cargo.toml" in names
    assert "otel_agentcov-0.1.0/pyproject.toml" in names
