"""Every endpoint of `agentcov serve` that shows data asks for the token guarding its port
(issue 29, item 2); `/healthz` alone stays open. Before, with only `--metrics-token-file` set,
`/metrics` answered 401 while `/report` and every HTML page on the same port answered 200.

The whole matrix: no token, the OTLP token, the metrics token, both (on two ports and on one
shared port) × every path × every credential. The rule the expectations follow, written out
here: a view opens with a token guarding what its port serves (OTLP, /metrics), else with any
configured token, else without one; `/metrics` with the metrics token; OTLP with the OTLP token.
"""

from __future__ import annotations

import re

import pytest
from _support import free_port
from _trace_files import demo_spans, protobuf_bytes
from test_serve_views import PROTOBUF, SPEC, request

from otel_agentcov.service import ServeConfig, Service

OTLP, METRICS = "otlp-secret", "scrape-secret"
CREDENTIALS = (None, "wrong", OTLP, METRICS)
VIEWS = ("/", "/report", "/report?format=text", "/report?format=markdown", "/report/index.html")


def _opens(tokens: tuple[str | None, ...], given: str | None) -> bool:
    needed = {t for t in tokens if t}
    return not needed or given in needed


@pytest.mark.parametrize(("token", "metrics_token", "shared"), [
    (None, None, False), (OTLP, None, False), (None, METRICS, False), (OTLP, METRICS, False),
    (OTLP, METRICS, True), (None, METRICS, True),
])
def test_every_path_asks_for_its_ports_token(token: str | None, metrics_token: str | None,
                                             shared: bool) -> None:
    port = free_port()
    svc = Service(ServeConfig(
        spec=SPEC, otlp_grpc=free_port(), otlp_http=port, metrics=port if shared else free_port(),
        token=token, metrics_token=metrics_token))
    svc.start()
    try:
        cfg = svc.config
        auth = {"Authorization": f"Bearer {token}"} if token else {}
        body = protobuf_bytes(demo_spans(runs=3, seed=5))
        assert request(cfg.otlp_http, "/v1/traces", body, "POST", {**PROTOBUF, **auth})[0] == 200
        ports = {cfg.otlp_http: (True, shared), cfg.metrics: (shared, True)}
        opener = metrics_token or token  # opens the views on the metrics port in every case
        everything = {"Authorization": f"Bearer {opener}"} if opener else {}
        index = request(cfg.metrics, "/report/index.html", headers=everything)[2].decode()
        agent_page = "/report/" + sorted(re.findall(r'href="(agent-[^"]+\.html)"', index))[0]
        checked = 0
        for port, (otlp_here, metrics_here) in ports.items():
            own = tuple(t for t, here in ((token, otlp_here), (metrics_token, metrics_here))
                        if here and t)
            view_tokens = own or (token, metrics_token)
            for given in CREDENTIALS:
                headers = {"Authorization": f"Bearer {given}"} if given else {}
                assert request(port, "/healthz", headers=headers)[0] == 200
                for path in (*VIEWS, agent_page):
                    status, response_headers, page = request(port, path, headers=headers)
                    if _opens(view_tokens, given):
                        assert status == 200, (port, path, given)
                    else:
                        assert status == 401, (port, path, given, page[:80])
                        assert response_headers["WWW-Authenticate"] == "Bearer"
                        assert b"agent" not in page.lower()
                    checked += 1
                if metrics_here:
                    status, _, page = request(port, "/metrics", headers=headers)
                    assert status == (200 if _opens((metrics_token,), given) else 401), given
                    assert (b"agentcov_runs_total" in page) == (status == 200)
                if otlp_here:
                    status = request(port, "/v1/traces", b"", "POST", {**PROTOBUF, **headers})[0]
                    assert status == (200 if _opens((token,), given) else 401), given
        assert checked == len(ports) * len(CREDENTIALS) * (len(VIEWS) + 1)
    finally:
        svc.stop()
