"""The files `agentcov serve` owns (issue 14, items 9 and 12): one service per state file (a
second refuses in one line instead of silently sharing the journal), temporary and journal files
never written through a planted symlink, and a state path that is itself a symlink written
through to its target so the link survives compaction.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from _support import free_port
from _trace_files import demo_spans, protobuf_bytes

from otel_agentcov import CoverageSpec
from otel_agentcov.demo import DEMO_SPEC
from otel_agentcov.service.store import PROTOBUF, CoverageStore, decode_records
from otel_agentcov.state import CoverageState

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "benchmarks"))

import fleet  # noqa: E402 - the fleet proof's ServeProcess drives this test's server too

SPEC = CoverageSpec.from_dict(DEMO_SPEC, source="<demo>")


def _serve_args(spec: Path, state: Path, metrics: int) -> list[str]:
    return ["--spec", str(spec), "--otlp-grpc", "0", "--otlp-http", str(free_port()),
            "--metrics", str(metrics), "--data-file", str(state)]


@pytest.mark.slow
def test_a_second_serve_on_the_same_state_file_refuses_in_one_line(tmp_path: Path) -> None:
    spec = tmp_path / "agentcov.yaml"
    spec.write_text(yaml.safe_dump(DEMO_SPEC))
    state = tmp_path / "state.json"
    alias = tmp_path / "alias.json"
    alias.symlink_to(state)  # the same file by another name: still the same lock
    first_metrics = free_port()
    first = fleet.ServeProcess(_serve_args(spec, state, first_metrics), first_metrics)
    first.start()
    try:
        assert first.proc is not None
        for path in (state, alias):
            second = subprocess.run(
                [sys.executable, "-m", "otel_agentcov.cli", "serve",
                 *_serve_args(spec, path, free_port())],
                capture_output=True, text=True, timeout=60,
            )
            assert second.returncode == 2, second.stderr
            lines = second.stderr.strip().splitlines()
            assert lines == [f"agentcov: {state}: in use by another agentcov serve "
                             f"(pid {first.proc.pid})"], second.stderr
            assert first.healthy()
    finally:
        first.stop()
    # once the first has stopped, the state file is free again
    again_metrics = free_port()
    again = fleet.ServeProcess(_serve_args(spec, state, again_metrics), again_metrics)
    again.start()
    again.stop()


def _submit(store: CoverageStore, seed: int) -> None:
    payload = protobuf_bytes(list(demo_spans(runs=2, seed=seed)))
    store.submit(decode_records(PROTOBUF, payload, "test"))


def test_planted_symlinks_are_never_written_through(tmp_path: Path) -> None:
    victim = tmp_path / "victim"
    victim.write_text("precious\n")
    state = tmp_path / "state.json"
    for planted in (f"{state}.journal.tmp", f"{state}.journal"):
        if os.path.exists(planted):
            os.unlink(planted)
        os.symlink(victim, planted)
        store = CoverageStore(SPEC, str(state))
        store.open()
        _submit(store, seed=1)
        store.close()
        assert victim.read_text() == "precious\n", planted
        assert not os.path.islink(f"{state}.journal")
    # the journal that was a link was set aside (the link itself renamed), counted once
    assert [p for p in tmp_path.iterdir() if p.is_symlink()] == [
        p for p in tmp_path.iterdir() if p.name.startswith("state.json.journal.corrupt-")]


def test_a_planted_lock_symlink_is_refused_naming_it(tmp_path: Path) -> None:
    """Before, the one line read `state.json: Too many levels of symbolic links` (issue 29)."""
    state = tmp_path / "state.json"
    Path(f"{state}.lock").symlink_to(tmp_path / "elsewhere")
    with pytest.raises(OSError) as caught:
        CoverageStore(SPEC, str(state)).open()
    assert caught.value.filename == str(state)
    assert caught.value.strerror == (
        f"its lock file {state}.lock is a symlink: refused (a lock is never taken through a "
        "link; remove it if it is stale)")
    assert not (tmp_path / "elsewhere").exists()


def test_a_symlinked_state_path_is_written_through_to_its_target(tmp_path: Path) -> None:
    real = tmp_path / "data" / "state.json"
    real.parent.mkdir()
    link = tmp_path / "state.json"
    link.symlink_to(real)
    store = CoverageStore(SPEC, str(link))
    store.open()
    _submit(store, seed=2)
    store.compact()
    expected = store.engine.state.to_dict()
    store.close()
    assert link.is_symlink() and os.readlink(link) == str(real)
    assert CoverageState.load(real).to_dict() == expected
    assert (real.parent / "state.json.journal").is_file()
    assert not (tmp_path / "state.json.journal").exists()
    # the offline writer too: `agentcov coverage --data-file <link>`
    CoverageState().save(link)
    assert link.is_symlink() and CoverageState.load(real).to_dict()["agents"] == {}
