"""collector-config/*.yaml, checked structurally.

This is a STRUCTURAL STAND-IN: the OpenTelemetry Collector binary cannot run here (no usable
build; see the project's ecosystem reference §1.4), so instead of `otelcol-contrib validate`
these tests check what that would catch for these files: every component defined and used,
connectors on both sides, pipelines wired, ports matching `agentcov serve`'s defaults, and no
keys the pinned Collector version removed.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
import yaml

from otel_agentcov.cli import build_parser

CONFIGS = Path(__file__).resolve().parent.parent / "collector-config"
SECTIONS = ("receivers", "processors", "exporters", "connectors", "extensions")
# removed or deprecated by contrib v0.115.0: ballast (memory_limiter/extension), the `logging`
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


@pytest.mark.parametrize("name", ["single.yaml", "two-tier.yaml"])
def test_every_component_is_defined_used_and_wired(name: str) -> None:
    config = load(name)
    service = config["service"]
    pipelines: dict[str, dict[str, list[str]]] = service["pipelines"]
    used: dict[str, set[str]] = {s: set() for s in SECTIONS}
    connectors = set(config.get("connectors", {}))
    as_exporter: set[str] = set()
    as_receiver: set[str] = set()
    for pipe_name, pipe in pipelines.items():
        assert pipe_name.split("/")[0] == "traces", pipe_name
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


@pytest.mark.parametrize("name", ["single.yaml", "two-tier.yaml"])
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
    exporter = config["exporters"]["otlp/agentcov"]
    assert port_of(exporter["endpoint"]) == ports["grpc"]
    assert exporter["retry_on_failure"]["enabled"] and exporter["sending_queue"]["enabled"]
    agentcov_pipe = config["service"]["pipelines"]["traces/agentcov"]
    assert "probabilistic_sampler" not in agentcov_pipe.get("processors", [])
    assert "otlp/tracing" in config["service"]["pipelines"]["traces/backend"]["exporters"]


def test_two_tier_routes_by_service_to_serve_replicas() -> None:
    config = load("two-tier.yaml")
    ports = serve_defaults()
    lb = config["exporters"]["loadbalancing/agentcov"]
    assert lb["routing_key"] == "service"
    assert "endpoint" not in lb["protocol"]["otlp"]  # the resolver fills it in per backend
    hostnames = lb["resolver"]["static"]["hostnames"]
    assert len(hostnames) >= 2 and {port_of(h) for h in hostnames} == {ports["grpc"]}
    assert "otlp/tracing" in config["service"]["pipelines"]["traces/backend"]["exporters"]


@pytest.mark.parametrize("name", ["single.yaml", "two-tier.yaml"])
def test_collector_receivers_use_the_standard_otlp_ports(name: str) -> None:
    protocols = load(name)["receivers"]["otlp"]["protocols"]
    assert port_of(protocols["grpc"]["endpoint"]) == 4317
    assert port_of(protocols["http"]["endpoint"]) == 4318


def test_readme_pins_the_collector_version() -> None:
    readme = (CONFIGS / "README.md").read_text()
    version = re.search(r"opentelemetry-collector-contrib v(0\.\d+\.\d+)", readme)
    assert version is not None
    for name in ("single.yaml", "two-tier.yaml"):
        assert f"v{version.group(1)}" in (CONFIGS / name).read_text()
