"""The seam between the package and its compiled core (docs/architecture.md#the-seam): one
module imports `_core`; the core's panics leave it as its own error, so no module handles a
panic; the core imports nothing from the package; import-linter places the seam."""

from __future__ import annotations

import ast
import re
import tomllib
from pathlib import Path

import pytest

from otel_agentcov import _core, compiled
from otel_agentcov.readers.errors import TraceFormatError
from otel_agentcov.readers.otlp_size import TooLarge

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "otel_agentcov"
SECRET = "CANARY-seam-77c2"


def _imports_core(path: Path) -> bool:
    """Whether a module imports `_core` anyhow: `from . import _core`, `from ._core import x`,
    `import otel_agentcov._core` (type-checking imports included: the seam is the one door)."""
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom):
            module = node.module or ""
            if module.split(".")[-1] == "_core" or any(a.name == "_core" for a in node.names):
                return True
        elif isinstance(node, ast.Import):
            if any(a.name.split(".")[-1] == "_core" for a in node.names):
                return True
    return False


def test_one_package_module_imports_the_core() -> None:
    importers = sorted(str(p.relative_to(PACKAGE)) for p in PACKAGE.rglob("*.py")
                       if _imports_core(p))
    assert importers == ["compiled.py"]  # the bound is three; one is all it takes


def test_the_scan_finds_every_form_of_import(tmp_path: Path) -> None:
    """The scan above would pass on a scan that finds nothing: each form is found here."""
    forms = ["from . import _core", "from .. import _core, x", "from ._core import Classifier",
             "from otel_agentcov._core import otlp_spans", "import otel_agentcov._core",
             "if TYPE_CHECKING:\n    from ._core import TrialFile"]
    for i, form in enumerate(forms):
        (tmp_path / f"m{i}.py").write_text(form + "\n", encoding="utf-8")
        assert _imports_core(tmp_path / f"m{i}.py"), form
    (tmp_path / "no.py").write_text("from prometheus_client.metrics_core import Metric\n",
                                    encoding="utf-8")
    assert not _imports_core(tmp_path / "no.py")


def test_no_module_names_a_panic() -> None:
    """A panic is the core's `CoreFailed`: pyo3's PanicException is handled nowhere, and the core
    no longer exports it."""
    mentions = [str(p.relative_to(PACKAGE)) for p in PACKAGE.rglob("*.py*")
                if p.suffix in (".py", ".pyi")
                and "PanicException" in p.read_text(encoding="utf-8")]
    assert mentions == []
    assert not hasattr(_core, "PanicException")


def test_a_panic_in_the_core_leaves_it_as_its_own_error(capfd: pytest.CaptureFixture[str]) -> None:
    """A real panic (the core's test entry panics quoting its argument, as Rust's message of a
    bad slice quotes span text): what crosses the door is CoreFailed, a TraceFormatError and so a
    ValueError, worded without the panic's message, and nothing is printed."""
    with pytest.raises(compiled.CoreFailed) as caught:
        _core._panic(SECRET)
    error = caught.value
    assert isinstance(error, TraceFormatError) and isinstance(error, ValueError)
    assert str(error) == "the compiled core failed on this input (a bug: please report it)"
    assert str(error) == compiled.CORE_FAILED
    out, err = capfd.readouterr()
    assert SECRET not in out + err and err == ""  # the default hook would print the message


def test_the_errors_that_cross_the_seam_are_the_cores() -> None:
    """The readers' error types are the core's, so a Python reader's refusal and the core's are
    caught by the same `except`, and each is a ValueError for the sites that catch those."""
    assert TraceFormatError is compiled.TraceFormatError is _core.TraceFormatError
    assert TooLarge is compiled.TooLarge is _core.TooLarge
    assert issubclass(compiled.CoreFailed, TraceFormatError)
    assert issubclass(TraceFormatError, ValueError) and issubclass(TooLarge, ValueError)
    assert not issubclass(TooLarge, TraceFormatError)  # a cap passed is not bad bytes
    assert TraceFormatError.__module__ == "otel_agentcov._core"
    with pytest.raises(TraceFormatError, match="ExportTraceServiceRequest"):
        compiled.otlp_spans(b"\x13")  # bad bytes, refused by the core itself


# A Rust exported function and the first thing its body does (attributes stand between
# `#[pyfunction]` / a `#[pymethods]` block and each `fn`); a signature holds no brace.
_FN = re.compile(r"\bfn\s+(\w+)\b[^{;]*\{\s*(\S+)")


def _methods_blocks(text: str) -> list[str]:
    """The bodies of the `#[pymethods] impl ... { }` blocks (braces matched, strings skipped)."""
    blocks = []
    for start in (m.end() for m in re.finditer(r"#\[pymethods\]\s*impl[^{]*\{", text)):
        depth, i = 1, start
        while depth:
            if text[i] == '"':  # a string: its braces are text
                i += 1
                while text[i] != '"':
                    i += 2 if text[i] == "\\" else 1
            depth += {"{": 1, "}": -1}.get(text[i], 0)
            i += 1
        blocks.append(text[start:i - 1])
    return blocks


def _exported_bodies() -> dict[str, str]:
    """Each exported function or method of the core: its name and its body's first token."""
    found: dict[str, str] = {}
    for path in sorted((ROOT / "core" / "src").rglob("*.rs")):
        text = path.read_text(encoding="utf-8")
        for at in (m.end() for m in re.finditer(r"#\[pyfunction\]", text)):
            fn = _FN.search(text, at)
            assert fn is not None, path
            found[f"{path.name}:{fn[1]}"] = fn[2]
        for block in _methods_blocks(text):
            for fn in _FN.finditer(block):
                found[f"{path.name}:{fn[1]}"] = fn[2]
    return found


def test_every_function_the_core_exports_runs_behind_its_door() -> None:
    bodies = _exported_bodies()
    # what the module exports, so the scan cannot miss a file or a block
    assert {"otlp_py.rs:otlp_spans", "py.rs:otlp_steps", "py.rs:new", "sdk_py.rs:sdk_step",
            "mod.rs:fold", "mod.rs:__len__", "trace_scan.rs:trace_ids",
            "fields_py.rs:_py_str", "door.rs:_panic"} <= set(bodies)
    assert len(bodies) >= 25
    outside = {name: first for name, first in bodies.items() if not first.startswith("door(")}
    assert outside == {"otlp_records.rs:bind_record_type": "let"}  # it only stores a type


def test_the_core_imports_nothing_from_the_package() -> None:
    """The types it builds are handed in (SpanRecord by the seam, Step by semconv): no Rust
    source holds the name of a package module to import, only its own (`module = ...`)."""
    named = set()
    for path in (ROOT / "core" / "src").rglob("*.rs"):
        named |= set(re.findall(r'"(otel_agentcov[\w.]*)"', path.read_text(encoding="utf-8")))
    assert named == {"otel_agentcov._core"}


def test_import_linter_places_the_seam_right_above_the_bottom() -> None:
    """`make lint` holds the layers: the seam below everything that uses the core (semconv is the
    lowest), above `records`, the type it hands the core."""
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    (layers,) = [c["layers"] for c in config["tool"]["importlinter"]["contracts"]
                 if c["type"] == "layers"]
    at = {name.strip(): i for i, layer in enumerate(layers) for name in layer.split("|")}
    assert at["otel_agentcov.compiled"] == at["otel_agentcov.semconv"] + 1
    assert at["otel_agentcov.records"] == at["otel_agentcov.compiled"] + 1
    assert layers[at["otel_agentcov.compiled"]] == "otel_agentcov.compiled"  # alone in its layer
