"""`agentcov faults proxy` for a client that is not Python: node's own `fetch` against the proxy,
which forwards to the fake OpenAI-compatible server (docs/faults.md#the-proxy). The proxy binds
to loopback, injects the plan's model faults in order, tells the client in a header, and logs
no content."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from otel_agentcov import faults
from otel_agentcov.cli import main
from otel_agentcov.faults.proxy import FaultProxy

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "fixtures" / "record"))

from _common import FakeOpenAI, text  # noqa: E402

pytestmark = pytest.mark.skipif(shutil.which("node") is None, reason="node is not installed")
ANSWER = "CANARY-ANSWER-41d0 shipped"
NODE = r"""
const url = process.argv[2];
const out = [];
for (let i = 0; i < 5; i++) {
  const t0 = Date.now();
  try {
    const r = await fetch(url + "/v1/chat/completions", {
      method: "POST", headers: {"content-type": "application/json"},
      body: JSON.stringify({model: "gpt-4o", messages: [{role: "user", content: "hi"}]}),
      signal: AbortSignal.timeout(1500)});
    const body = await r.text();
    let usage = null;
    try { usage = JSON.parse(body).usage ?? null; } catch (e) {}
    out.push({status: r.status, fault: r.headers.get("agentcov-fault"),
              retry: r.headers.get("retry-after"), usage,
              canary: body.includes("CANARY")});
  } catch (e) {
    out.push({error: e.name});
  }
}
console.log(JSON.stringify(out));
"""


@pytest.fixture
def proxy() -> Iterator[FaultProxy]:
    with FakeOpenAI(lambda body: text(body["model"], ANSWER)) as server:
        plan = faults.parse("http_5xx,rate_limit,budget,timeout:3")
        log = _Log()
        p = FaultProxy(server.url, plan, hold_s=3.0, log=log)  # type: ignore[arg-type]
        thread = threading.Thread(target=p.serve_forever, daemon=True)
        thread.start()
        p.log_lines = log  # type: ignore[attr-defined]
        try:
            yield p
        finally:
            p.shutdown()
            p.server_close()


class _Log(list[str]):
    def write(self, text: str) -> None:
        self.append(text)

    def flush(self) -> None:
        pass


def test_node_fetch_through_the_proxy(proxy: FaultProxy, tmp_path: Path) -> None:
    assert proxy.server_address[0] == "127.0.0.1"
    script = tmp_path / "client.mjs"
    script.write_text(NODE)
    done = subprocess.run(["node", str(script), proxy.url], capture_output=True, text=True,
                          timeout=60, check=True)
    results = json.loads(done.stdout)
    # plan order: budget rides along first (it leaves the exchange going), then one a request
    assert results[0]["fault"].startswith("budget; plan=http_5xx,rate_limit,budget,timeout")
    assert results[0]["status"] == 200 and results[0]["usage"]["prompt_tokens"] == 200_000
    assert results[0]["canary"]  # the answer itself passes through, untouched
    assert results[1]["status"] in (500, 503) and results[1]["fault"].startswith("http_5xx;")
    assert (results[2]["status"], results[2]["retry"]) == (429, "1")
    assert results[3] == {"error": "TimeoutError"}  # held past the client's own timeout
    assert results[4]["status"] == 200 and results[4]["fault"] is None  # the plan is spent
    log = "".join(proxy.log_lines)  # type: ignore[attr-defined]
    assert "CANARY" not in log and log.count("injected") == 4


def test_the_proxy_command_refuses_under_the_production_flag(
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setenv("AGENTCOV_PRODUCTION", "1")
    assert main(["faults", "proxy", "--upstream", "http://127.0.0.1:9"]) == 2
    assert capsys.readouterr().err.strip() == (
        "agentcov: agentcov faults proxy: fault injection refused: AGENTCOV_PRODUCTION is set")


def test_the_proxy_command_wants_an_http_upstream(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["faults", "proxy", "--upstream", "file:///etc/passwd"]) == 2
    assert "is not an http(s) URL" in capsys.readouterr().err
