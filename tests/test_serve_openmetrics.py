"""`agentcov serve`'s /metrics answers what the scraper asks for: OpenMetrics, with each
restricted attempt's trace id as an exemplar (the family's HELP promises it), when asked (as
Prometheus asks), else the text format; and `agentcov_gate_passed` is the gate, as `agentcov gate`
judges each agent's expect list, not only its restricted attempts.

Before, OpenMetrics was asked and `text/plain` answered, so no exemplar ever reached Prometheus;
and an agent failing a `coverage.tool` check showed `agentcov_gate_passed 1`.
"""

from __future__ import annotations

import copy
import http.client
import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from _support import get_json, poll, prometheus
from _trace_files import demo_spans, protobuf_bytes
from test_service import post, start

from otel_agentcov import CoverageSpec
from otel_agentcov.demo import DEMO_SPEC
from otel_agentcov.service import Service

OPENMETRICS = "application/openmetrics-text; version=1.0.0,text/plain;version=0.0.4;q=0.5"
# research_agent has no restricted tool: its tool-edge check passes, this one cannot
UNREACHABLE = {"target": "coverage.tool", "matcher": {"schema": {"minimum": 1.01}}}


def spec() -> CoverageSpec:
    data = copy.deepcopy(DEMO_SPEC)
    data["agents"][1]["expect"] = [UNREACHABLE]
    return CoverageSpec.from_dict(data, source="<test>")


@pytest.fixture()
def service(tmp_path: Path) -> Iterator[Service]:
    svc = start(tmp_path, spec=spec())
    status, _, _ = post(svc, protobuf_bytes(demo_spans(runs=40)),
                        {"Content-Type": "application/x-protobuf"})
    assert status == 200
    yield svc
    svc.stop()


def scrape(svc: Service, accept: str | None) -> tuple[str, str]:
    conn = http.client.HTTPConnection("127.0.0.1", svc.config.metrics, timeout=30)
    try:
        conn.request("GET", "/metrics", headers={"Accept": accept} if accept else {})
        resp = conn.getresponse()
        return resp.getheader("Content-Type") or "", resp.read().decode()
    finally:
        conn.close()


def test_openmetrics_when_asked_carries_the_trace_ids(service: Service) -> None:
    ctype, body = scrape(service, OPENMETRICS)
    assert ctype.startswith("application/openmetrics-text")
    assert body.endswith("# EOF\n") and body.count("# EOF") == 1  # one exposition, every family
    attempts = [line for line in body.splitlines()
                if line.startswith("agentcov_restricted_tool_attempts_total{")]
    assert attempts and all(re.search(r' # \{trace_id="[0-9a-f]{32}"\} 1\.0', line)
                            for line in attempts), attempts
    assert "agentcov_receiver_requests_total{" in body  # the service's own families too
    assert "process_cpu_seconds_total" in body


def test_text_format_otherwise(service: Service) -> None:
    for accept in (None, "text/plain"):
        ctype, body = scrape(service, accept)
        assert ctype.startswith("text/plain")
        assert "# EOF" not in body and "trace_id" not in body
        assert "agentcov_restricted_tool_attempts_total{" in body


def test_gate_passed_is_the_gate(service: Service) -> None:
    report = service.store.engine.snapshot().to_dict()
    _, body = scrape(service, None)
    gauges = dict(re.findall(r'^agentcov_gate_passed\{agent="(\w+)"\} (\S+)$', body, re.M))
    expected = {name: str(float(all(e["passed"] for e in a["expect"])))
                for name, a in report["agents"].items()}
    assert gauges == expected
    research = report["agents"]["research_agent"]
    assert research["edges"]["gate_passed"] == 1 and gauges["research_agent"] == "0.0"


@pytest.mark.slow
def test_prometheus_stores_the_exemplars(service: Service, tmp_path: Path) -> None:
    """A real Prometheus with exemplar storage scrapes serve and answers query_exemplars with the
    trace ids of the restricted attempts."""
    target = f"127.0.0.1:{service.config.metrics}"
    with prometheus(tmp_path, [target], [], features=["exemplar-storage"]) as api:
        def exemplars() -> list[str]:
            found = get_json(f"{api}/query_exemplars?query=agentcov_restricted_tool_attempts_total"
                             "&start=0&end=9999999999")
            return [e["labels"]["trace_id"] for s in found["data"] for e in s["exemplars"]]

        ids = poll(exemplars, 60)
    assert ids and all(re.fullmatch(r"[0-9a-f]{32}", i) for i in ids)
