"""collector-config/*.yaml: `otelcol validate` of the real Collector (`make collector`), plus
what validate cannot see: every component used, connectors on both sides, ports matching
`agentcov serve`'s defaults, no removed keys, and the README naming the tested version.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml
from _support import need_collector

from otel_agentcov.cli import build_parser

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "benchmarks"))

import collector  # noqa: E402

CONFIGS = Path(__file__).resolve().parent.parent / "collector-config"
SECTIONS = ("receivers", "processors", "exporters", "connectors", "extensions")
# removed or deprecated by the Collector: ballast (memory_limiter/extension), the `logging`
# exporter (now `debug`), spanmetrics' cache size, the old telemetry metrics address
DEPRECATED_KEYS = {"ballast_size_mib", "memory_ballast", "dimensions_cache_size", "address"}
DEPRECATED_COMPONENTS = {"logging", "memory_ballast"}


def load(name: str) -> dict[str, Any]:
    data: dict[str, Any] = yaml.safe_load((CONFIGS / name).read_text())
    return data


def serve_defaults() -> dict[str, int]:
    args = build_parser().parse_args(["serve", "--spec", "x.yaml"])
    return {"grpc": args.otlp_grpc, "http": args.otlp_http, "metrics": args.metrics}


def walk_keys(node: Any) -> list[str]:
    if isinstance(node, dict):
        return [k for k in node] + [x for v in node.values() for x in walk_keys(v)]
    if isinstance(node, list):
        return [x for v in node for x in walk_keys(v)]
    return []


def port_of(endpoint: str) -> int:
    return int(endpoint.rsplit(":", 1)[1])


@pytest.mark.parametrize("name", [p.name for p in collector.shipped_configs()])
def test_every_component_is_defined_used_and_wired(name: str) -> None:
    config = load(name)
    service = config["service"]
    pipelines: dict[str, dict[str, list[str]]] = service["pipelines"]
    used: dict[str, set[str]] = {s: set() for s in SECTIONS}
    connectors = set(config.get("connectors", {}))
    as_exporter: set[str] = set()
    as_receiver: set[str] = set()
    for pipe_name, pipe in pipelines.items():
        # traces to agentcov; logs: its evaluation events on to a logs backend
        assert pipe_name.split("/")[0] in ("traces", "logs"), pipe_name
        assert pipe.get("receivers") and pipe.get("exporters"), f"{pipe_name} is not wired"
        for role in ("receivers", "processors", "exporters"):
            for component in pipe.get(role, []):
                if component in connectors:
                    (as_receiver if role == "receivers" else as_exporter).add(component)
                    used["connectors"].add(component)
                    continue
                assert component in config.get(role, {}), f"{pipe_name}: {component} undefined"
                used[role].add(component)
    used["extensions"] = set(service.get("extensions", []))
    for section in SECTIONS:
        defined = set(config.get(section, {}) or {})
        assert defined == used[section], f"{name}: {section} defined but unused or vice versa"
    assert connectors and as_exporter == connectors == as_receiver, "connector not on both sides"
    assert "memory_limiter" == pipelines["traces/in"]["processors"][0]  # first, per its README


@pytest.mark.parametrize("name", [p.name for p in collector.shipped_configs()])
def test_no_deprecated_keys_or_components(name: str) -> None:
    config = load(name)
    keys = set(walk_keys(config))
    assert not keys & DEPRECATED_KEYS
    for section in SECTIONS:
        for component in config.get(section, {}) or {}:
            assert component.split("/")[0] not in DEPRECATED_COMPONENTS
    # env references use the ${env:VAR} form (bare $VAR was removed in v0.104)
    text = (CONFIGS / name).read_text()
    assert not re.search(r"\$(?!\{env:)[A-Za-z{]", text)


def test_single_sends_every_span_to_serve_on_its_default_port() -> None:
    config = load("single.yaml")
    ports = serve_defaults()
    exporter = config["exporters"]["otlp_grpc/agentcov"]
    assert port_of(exporter["endpoint"]) == ports["grpc"]
    assert exporter["retry_on_failure"]["enabled"] and exporter["sending_queue"]["enabled"]
    agentcov_pipe = config["service"]["pipelines"]["traces/agentcov"]
    assert "probabilistic_sampler" not in agentcov_pipe.get("processors", [])
    assert "otlp_grpc/tracing" in config["service"]["pipelines"]["traces/backend"]["exporters"]


def test_two_tier_routes_by_service_to_serve_replicas() -> None:
    config = load("two-tier.yaml")
    ports = serve_defaults()
    lb = config["exporters"]["load_balancing/agentcov"]
    assert lb["routing_key"] == "service"
    assert "endpoint" not in lb["protocol"]["otlp"]  # the resolver fills it in per backend
    hostnames = lb["resolver"]["static"]["hostnames"]
    assert len(hostnames) >= 2 and {port_of(h) for h in hostnames} == {ports["grpc"]}
    assert "otlp_grpc/tracing" in config["service"]["pipelines"]["traces/backend"]["exporters"]


@pytest.mark.parametrize("name", [p.name for p in collector.shipped_configs()])
def test_collector_receivers_use_the_standard_otlp_ports(name: str) -> None:
    protocols = load(name)["receivers"]["otlp"]["protocols"]
    assert port_of(protocols["grpc"]["endpoint"]) == 4317
    assert port_of(protocols["http"]["endpoint"]) == 4318


def test_one_collector_release_named_in_readme_and_configs() -> None:
    manifest = yaml.safe_load(collector.MANIFEST.read_text())
    version = manifest["dist"]["version"]
    modules = [m["gomod"] for kind in SECTIONS for m in manifest.get(kind, [])]
    assert modules and all(m.endswith(f" v{version}") for m in modules)
    assert f"Collector v{version}" in (CONFIGS / "README.md").read_text()
    for config in collector.shipped_configs():
        assert f"Collector v{version}" in config.read_text(), config.name


def validate(config: Path) -> subprocess.CompletedProcess[str]:
    env = {"PATH": os.environ.get("PATH", ""), "AGENTCOV_TOKEN": "t", "AGENTCOV_AGENT_TOKEN": "a"}
    return subprocess.run([need_collector(), "validate", "--config", str(config)], env=env,
                          capture_output=True, text=True, timeout=120)


@pytest.mark.collector
@pytest.mark.parametrize("config", collector.shipped_configs(), ids=lambda p: p.name)
def test_the_real_collector_validates_every_shipped_config(config: Path) -> None:
    result = validate(config)
    assert result.returncode == 0, result.stderr


@pytest.mark.collector
def test_validate_rejects_a_key_the_collector_does_not_know(tmp_path: Path) -> None:
    config = load("single.yaml")
    config["exporters"]["otlp_grpc/agentcov"]["dimensions_cache_size"] = 1000
    (tmp_path / "bad.yaml").write_text(yaml.safe_dump(config))
    result = validate(tmp_path / "bad.yaml")
    assert result.returncode != 0 and "dimensions_cache_size" in result.stderr


def agentcov_exporter(config: dict[str, Any]) -> dict[str, Any]:
    exporters = config["exporters"]
    name = "otlp_grpc/agentcov" if "otlp_grpc/agentcov" in exporters else "load_balancing/agentcov"
    exporter: dict[str, Any] = exporters[name]
    return exporter


@pytest.mark.parametrize("name", [p.name for p in collector.shipped_configs()])
def test_nothing_acknowledged_waits_in_memory(name: str) -> None:
    """Issue 37: a `batch` processor and an in-memory queue held what the receiver had
    acknowledged, so a Collector crash lost it. Now every pipeline's processors buffer
    nothing and the queue to agentcov is on disk, retried until serve takes it."""
    config = load(name)
    for pipeline in config["service"]["pipelines"].values():
        assert set(pipeline.get("processors", [])) <= {"memory_limiter", "probabilistic_sampler"}
    exporter = agentcov_exporter(config)
    storage = exporter["sending_queue"]["storage"]
    assert storage.split("/")[0] == "file_storage" and storage in config["extensions"]
    assert exporter["retry_on_failure"]["max_elapsed_time"] == 0  # never dropped by age
    if "protocol" in exporter:  # load_balancing: no memory queue after the disk one
        per_replica = exporter["protocol"]["otlp"]
        assert per_replica["sending_queue"]["enabled"] is False
        assert per_replica["retry_on_failure"]["max_elapsed_time"] == 0


@pytest.mark.parametrize("name", [p.name for p in collector.shipped_configs()])
def test_receivers_listen_on_loopback_and_ask_for_a_token(name: str) -> None:
    config = load(name)
    for protocol in config["receivers"]["otlp"]["protocols"].values():
        assert protocol["endpoint"].startswith("${env:OTELCOL_LISTEN:-127.0.0.1}:")
        authenticator = protocol["auth"]["authenticator"]
        assert config["extensions"][authenticator]["token"] == "${env:AGENTCOV_AGENT_TOKEN}"
    assert config["extensions"]["health_check"]["endpoint"].startswith(
        "${env:OTELCOL_LISTEN:-127.0.0.1}:")


@pytest.mark.collector
@pytest.mark.parametrize("config", collector.shipped_configs(), ids=lambda p: p.name)
def test_without_the_agents_token_the_collector_does_not_start(config: Path) -> None:
    """An unset AGENTCOV_AGENT_TOKEN must not open the receivers to anyone."""
    result = subprocess.run([need_collector(), "validate", "--config", str(config)],
                            env={"PATH": os.environ.get("PATH", ""), "AGENTCOV_TOKEN": "t"},
                            capture_output=True, text=True, timeout=120)
    assert result.returncode != 0 and "bearertokenauth" in result.stderr, result.stderr
