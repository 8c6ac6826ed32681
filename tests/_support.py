"""Helpers shared by the tests that use real servers, Prometheus binaries and browsers."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))
# one port allocator for the tests and the benchmarks' servers: never the same port twice
from fleet import free_port  # noqa: E402


def start_service(spec: Any, **kw: Any) -> Any:
    """An `agentcov serve` Service on three free ports; another process can take a probed port
    before the service binds it (parallel sessions on one machine), so a taken port means fresh
    ones, a few times."""
    from otel_agentcov.service import ServeConfig, Service

    for attempt in range(5):
        service = Service(ServeConfig(spec=spec, otlp_grpc=free_port(), otlp_http=free_port(),
                                      metrics=free_port(), **kw))
        try:
            service.start()
        except OSError as error:
            service.stop()
            if "already in use" not in str(error) or attempt == 4:
                raise
            continue
        return service
    raise AssertionError("unreachable")


def run_agentcov(cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """`agentcov ARGS` run from the checkout in `cwd`, asserted to print no traceback."""
    root = Path(__file__).resolve().parents[1]
    proc = subprocess.run([sys.executable, "-m", "otel_agentcov.cli", *args], cwd=cwd,
                          capture_output=True, text=True, timeout=120, check=False,
                          env={"PYTHONPATH": str(root), "PATH": "/usr/bin:/bin"})
    assert "Traceback" not in proc.stderr, proc.stderr
    return proc


def need_binary(name: str) -> str:
    """Path of a system binary; skipped locally when absent, a failure under CI=true."""
    path = shutil.which(name)
    if path is None:
        if os.environ.get("CI") == "true":
            pytest.fail(f"{name} is required under CI=true (make test installs it)")
        pytest.skip(f"{name} not installed (make test installs it)")
    return path


def need_collector() -> str:
    """The Collector `make collector` built from the current manifest; skipped locally when it
    is not built, a failure under CI=true (make test builds it)."""
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "benchmarks"))
    import collector

    path = collector.binary()
    if not path.is_file():
        if os.environ.get("CI") == "true":
            pytest.fail(f"{path} is required under CI=true (make test runs make collector)")
        pytest.skip("the Collector is not built (make collector)")
    return str(path)


def get_json(url: str) -> Any:
    """GET a JSON document (the Prometheus HTTP API)."""
    with urllib.request.urlopen(url, timeout=5) as resp:
        return json.loads(resp.read())


@contextmanager
def prometheus(
    tmp_path: Path, targets: Sequence[str], rule_files: Sequence[Path],
    features: Sequence[str] = (),
) -> Iterator[str]:
    """A real Prometheus scraping `targets` (job `agentcov`) every second with `rule_files`
    loaded (and `--enable-feature` for each of `features`); yields its API base URL and stops it
    afterwards."""
    binary = need_binary("prometheus")
    port = free_port()
    config = tmp_path / "prometheus.yml"
    config.write_text(
        "global: {scrape_interval: 1s, evaluation_interval: 1s}\n"
        f"rule_files: {json.dumps([str(f) for f in rule_files])}\n"
        "scrape_configs:\n"
        f"  - job_name: agentcov\n    static_configs: [{{targets: {json.dumps(list(targets))}}}]\n"
    )
    proc = subprocess.Popen(
        [binary, f"--config.file={config}", f"--storage.tsdb.path={tmp_path / 'data'}",
         f"--web.listen-address=127.0.0.1:{port}",
         *(f"--enable-feature={feature}" for feature in features)],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )  # fmt: skip
    try:
        yield f"http://127.0.0.1:{port}/api/v1"
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()


def poll(check: Any, timeout_s: float) -> Any:
    """Call `check()` every second until it returns something truthy or time runs out."""
    deadline = time.monotonic() + timeout_s
    result = None
    while time.monotonic() < deadline:
        try:
            result = check()
        except OSError:
            result = None
        if result:
            return result
        time.sleep(1)
    return result


@contextmanager
def demo_processor() -> Iterator[Any]:
    """A processor fed the demo workload by real SDK spans: delegations, restricted attempts,
    boundaries, the run histogram, several agents. Shut down on exit."""
    from opentelemetry.sdk.trace import TracerProvider

    from otel_agentcov import demo
    from otel_agentcov.processor import AgentCoverageProcessor
    from otel_agentcov.spec import CoverageSpec

    provider = TracerProvider()
    proc = AgentCoverageProcessor(CoverageSpec.from_dict(demo.DEMO_SPEC, source="<demo>"))
    provider.add_span_processor(proc)
    demo.run_workload(provider)
    provider.force_flush()
    try:
        yield proc
    finally:
        provider.shutdown()


def rendered_outputs(processor: Any, tmp_path: Path) -> dict[str, str]:
    """Every output a processor's coverage reaches, rendered, for the content canaries: /metrics,
    the saved state file and that file reloaded, each report format and the HTML pages."""
    from otel_agentcov.exporters.prometheus import render
    from otel_agentcov.reporting import FORMATS, write_html
    from otel_agentcov.reporting import render as render_report
    from otel_agentcov.state import CoverageState

    report = processor.snapshot().to_dict()
    state_file = tmp_path / "outputs-state.json"
    processor.engine.state.save(state_file)
    html_dir = tmp_path / "outputs-html"
    write_html(report, html_dir)
    return {
        "/metrics": render(processor).decode("utf-8"),
        "state file": state_file.read_text(encoding="utf-8"),
        "state reloaded": json.dumps(CoverageState.load(state_file).to_dict()),
        **{f"{fmt} report": render_report(report, fmt) for fmt in FORMATS},
        **{f"html {p.name}": p.read_text(encoding="utf-8") for p in html_dir.glob("*.html")},
    }
