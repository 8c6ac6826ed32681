"""What every served `/metrics` carries besides coverage: process and Python collectors, the build
info, trace-id exemplars on the restricted-attempt counter (OpenMetrics only), and HELP texts that
say what a series means when the spec has its own `expect` list. Real servers, real SDK spans."""

from __future__ import annotations

import platform
import urllib.request
from typing import Any

from _support import free_port, need_binary
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from prometheus_client.openmetrics.parser import text_string_to_metric_families

from otel_agentcov import AgentCoverageProcessor, CoverageSpec, __version__
from otel_agentcov.demo import DEMO_SPEC, run_workload
from otel_agentcov.service import ServeConfig, Service

OPENMETRICS = "application/openmetrics-text; version=1.0.0; charset=utf-8"


def _get(url: str, accept: str | None = None) -> str:
    request = urllib.request.Request(url, headers={"Accept": accept} if accept else {})
    with urllib.request.urlopen(request, timeout=10) as resp:
        return str(resp.read().decode())


def _runtime_families_present(text: str) -> None:
    assert "process_cpu_seconds_total " in text and "process_resident_memory_bytes " in text
    assert "python_info{" in text and "python_gc_objects_collected_total{" in text
    build = (f'agentcov_build_info{{python="{platform.python_version()}",'
             f'version="{__version__}"}} 1.0')
    assert build in text, [line for line in text.splitlines() if "build_info" in line]


def test_in_process_exporter_exemplars_and_runtime_families() -> None:
    exported = InMemorySpanExporter()
    provider = TracerProvider()
    processor = AgentCoverageProcessor(CoverageSpec.from_dict(DEMO_SPEC))
    provider.add_span_processor(processor)
    provider.add_span_processor(SimpleSpanProcessor(exported))
    run_workload(provider, seed=7, runs=30)
    provider.force_flush()
    # independent of the report: the traces in which each restricted tool span ended
    restricted = {t for a in DEMO_SPEC["agents"] for t in a["tool_edges"].get("restricted", ())}
    traces_by_tool: dict[str, set[str]] = {}
    for span in exported.get_finished_spans():
        tool = (span.attributes or {}).get("gen_ai.tool.name")
        if tool in restricted:
            traces_by_tool.setdefault(str(tool), set()).add(f"{span.context.trace_id:032x}")
    assert traces_by_tool  # the demo attempts restricted tools
    server, _ = processor.serve_metrics(port=0)
    try:
        url = f"http://127.0.0.1:{server.server_port}/metrics"
        text = _get(url)
        openmetrics = _get(url, OPENMETRICS)
    finally:
        server.shutdown()
        server.server_close()
        provider.shutdown()
    _runtime_families_present(text)
    assert " # {" not in text  # the text format has no exemplars
    families = {f.name: f for f in text_string_to_metric_families(openmetrics)}
    samples = [s for s in families["agentcov_restricted_tool_attempts"].samples
               if s.name.endswith("_total")]
    assert samples
    for sample in samples:
        exemplar: Any = sample.exemplar
        assert exemplar is not None, sample
        assert exemplar.labels["trace_id"] in traces_by_tool[sample.labels["tool"]]
        assert exemplar.value == 1.0
    assert "agentcov_build_info" in families


def test_serve_metrics_carry_runtime_families_and_pass_promtool(tmp_path: Any) -> None:
    import subprocess

    svc = Service(ServeConfig(spec=CoverageSpec.from_dict(DEMO_SPEC), otlp_grpc=0,
                              otlp_http=free_port(), metrics=free_port()))
    svc.start()
    try:
        text = _get(f"http://127.0.0.1:{svc.config.metrics}/metrics")
    finally:
        svc.stop()
    _runtime_families_present(text)
    checked = subprocess.run([need_binary("promtool"), "check", "metrics"], input=text,
                             capture_output=True, text=True, timeout=60)
    assert checked.returncode == 0, checked.stdout + checked.stderr


def test_gate_gauge_is_the_agents_gate() -> None:
    """With an expect list that fails and no restricted attempt, agentcov_gate_passed is 0: it is
    the agent's gate as `agentcov gate` judges it (it once said 1 here), and its HELP says so."""
    from otel_agentcov.engine import CoverageEngine
    from otel_agentcov.exporters.prometheus import render
    from otel_agentcov.records import SpanRecord

    spec = CoverageSpec.from_dict({"version": 1, "agents": [{"name": "a", "expect": [
        {"target": "runs.count", "matcher": {"schema": {"minimum": 100}}}]}]})
    engine = CoverageEngine(spec)
    engine.ingest(SpanRecord(trace_id=1, span_id=1, parent_id=None, name="invoke_agent a",
                             start_ns=0, end_ns=5, attributes={
                                 "gen_ai.operation.name": "invoke_agent",
                                 "gen_ai.agent.name": "a"}))
    engine.flush_all()
    assert engine.snapshot().gate_passed is False  # the expect list fails
    text = render(engine).decode()
    assert 'agentcov_gate_passed{agent="a"} 0.0' in text
    help_line = next(line for line in text.splitlines()
                     if line.startswith("# HELP agentcov_gate_passed "))
    assert "agentcov gate" in help_line and "expect" in help_line
