"""The Collector `make collector` builds, run as a subprocess on loopback.

The tests and the benchmark start it from the shipped collector-config/*.yaml with only the
addresses rewritten (free 127.0.0.1 ports, replicas instead of hostnames, a file exporter in
place of the tracing backend), so what runs is what users deploy.
"""

from __future__ import annotations

import copy
import hashlib
import subprocess
import time
import urllib.request
from pathlib import Path
from typing import Any

import yaml
from fleet import free_port, stop_process
from prometheus_client.parser import text_string_to_metric_families

ROOT = Path(__file__).resolve().parent.parent
CONFIGS = ROOT / "collector-config"
MANIFEST = CONFIGS / "builder-config.yaml"


def binary() -> Path:
    """Where `make collector` caches the binary built from the current manifest (keyed by its
    hash, like the Makefile), so a stale build is never run."""
    digest = hashlib.sha256(MANIFEST.read_bytes()).hexdigest()[:16]
    return ROOT / "build" / f"otelcol-agentcov-{digest}"


def version() -> str:
    """The Collector release every module in the manifest is pinned at."""
    manifest: dict[str, Any] = yaml.safe_load(MANIFEST.read_text())
    return str(manifest["dist"]["version"])


def shipped_configs() -> list[Path]:
    """The Collector configurations we ship (the builder manifest is not one)."""
    return sorted(p for p in CONFIGS.glob("*.yaml") if p != MANIFEST)


def load(name: str) -> dict[str, Any]:
    config: dict[str, Any] = yaml.safe_load((CONFIGS / name).read_text())
    return config


def localize(config: dict[str, Any], workdir: Path, backend_file: Path) -> dict[str, Any]:
    """The shipped config on free loopback ports, its persistent queue under `workdir`, the
    tracing backend replaced by a file exporter (what the sampled branch received) and the
    Collector's own metrics on a free port."""
    config = copy.deepcopy(config)
    for protocol in config["receivers"]["otlp"]["protocols"].values():
        protocol["endpoint"] = f"127.0.0.1:{free_port()}"
    config["extensions"]["health_check"]["endpoint"] = f"127.0.0.1:{free_port()}"
    queue = workdir / "otelcol-queue"  # the persistent queue: kept across a restart
    config["extensions"]["file_storage/queue"].update(
        directory=str(queue), compaction={"on_start": True, "directory": str(queue)})
    exporters = config["exporters"]
    del exporters["otlp_grpc/tracing"]
    exporters["file/tracing"] = {"path": str(backend_file)}
    for pipeline in config["service"]["pipelines"].values():
        pipeline["exporters"] = ["file/tracing" if e == "otlp_grpc/tracing" else e
                                 for e in pipeline["exporters"]]
    config["service"]["telemetry"] = {
        "logs": {"level": "info"},
        "metrics": {"level": "detailed", "readers": [{"pull": {"exporter": {"prometheus": {
            "host": "127.0.0.1", "port": free_port(), "without_scope_info": True}}}}]},
    }
    return config


class Collector:
    """One Collector process; started and waited for until its health_check answers."""

    def __init__(self, config: dict[str, Any], workdir: Path, env: dict[str, str]) -> None:
        self.config = config
        self.path = workdir / f"otelcol-{free_port()}.yaml"
        self.path.write_text(yaml.safe_dump(config))
        self.log = self.path.with_suffix(".log")
        self.env = env
        self.proc: subprocess.Popen[bytes] | None = None

    @property
    def grpc(self) -> str:
        endpoint: str = self.config["receivers"]["otlp"]["protocols"]["grpc"]["endpoint"]
        return endpoint

    @property
    def http(self) -> str:
        endpoint: str = self.config["receivers"]["otlp"]["protocols"]["http"]["endpoint"]
        return endpoint

    def start(self) -> None:
        health = self.config["extensions"]["health_check"]["endpoint"]
        with open(self.log, "ab") as log:
            self.proc = subprocess.Popen([str(binary()), "--config", str(self.path)],
                                         stdout=log, stderr=log, env=self.env)
        deadline = time.monotonic() + 60
        while True:
            try:
                with urllib.request.urlopen(f"http://{health}/", timeout=5) as resp:
                    if resp.status == 200:
                        return
            except OSError:
                pass
            if time.monotonic() > deadline or self.proc.poll() is not None:
                raise RuntimeError(f"collector did not start: {self.log.read_text()[-2000:]}")
            time.sleep(0.1)

    def metrics(self) -> dict[str, float]:
        """The Collector's own metrics, summed per family name (over exporters and labels)."""
        reader = self.config["service"]["telemetry"]["metrics"]["readers"][0]
        port = reader["pull"]["exporter"]["prometheus"]["port"]
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=10) as resp:
            text = resp.read().decode()
        out: dict[str, float] = {}
        for family in text_string_to_metric_families(text):
            for sample in family.samples:
                out[sample.name] = out.get(sample.name, 0.0) + sample.value
        return out

    def stop(self) -> str:
        """Stop it gracefully (exporters flush) and return its log."""
        if self.proc is not None:
            stop_process(self.proc, 60)
        return self.log.read_text()
