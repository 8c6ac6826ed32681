"""The quickstarts run verbatim: every Python block of docs/quickstarts.md and README's
Quickstart 1, each in a fresh interpreter, as a user pastes it.

pydantic-ai runs on its own TestModel; the OpenAI Agents SDK and LangGraph on the fake
OpenAI-compatible server the package ships (`agentcov fake-openai`, docs/quickstarts.md), which
asks for the first tool offered (`lookup_order`) once and then answers. Before, README's snippet
processed 0 spans (a provider that was not the global one) and still reported `gate_passed:
True`; LangChain's `create_agent(..., name="support")` was reported as `unknown_service:python`
(its name is in the graph span's `metadata.lc_agent_name`).
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from otel_agentcov.fake_openai import FakeOpenAI

ROOT = Path(__file__).resolve().parents[1]

BLOCK = re.compile(r"```python\n(.*?)```", re.S)
PAGE = ROOT / "docs" / "quickstarts.md"


def blocks(path: Path) -> list[str]:
    return BLOCK.findall(path.read_text(encoding="utf-8"))


def snippets() -> dict[str, str]:
    """Heading -> the first Python block under it."""
    out: dict[str, str] = {}
    for section in re.split(r"^## ", PAGE.read_text(encoding="utf-8"), flags=re.M)[1:]:
        heading, found = section.splitlines()[0], BLOCK.search(section)
        if found:
            out[heading] = found.group(1)
    return out


@pytest.fixture(scope="module")
def server() -> Iterator[FakeOpenAI]:
    with FakeOpenAI() as fake:
        yield fake


def run(code: str, server: FakeOpenAI, tmp_path: Path) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ, OPENAI_BASE_URL=server.base_url, OPENAI_API_KEY="test",
               PYTHONPATH=str(ROOT))
    script = tmp_path / "quickstart.py"
    script.write_text(code, encoding="utf-8")
    return subprocess.run([sys.executable, str(script)], cwd=tmp_path, env=env,
                          capture_output=True, text=True, timeout=180, check=False)


def test_the_page_has_the_three_frameworks() -> None:
    assert set(snippets()) == {"pydantic-ai", "OpenAI Agents SDK", "LangGraph"}


@pytest.mark.parametrize("framework", ["pydantic-ai", "OpenAI Agents SDK", "LangGraph"])
def test_quickstart_runs_verbatim(framework: str, server: FakeOpenAI, tmp_path: Path) -> None:
    before = server.requests
    proc = run(snippets()[framework], server, tmp_path)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "agent coverage: support (1 run)" in proc.stdout  # the text report, one run seen
    assert "Tool coverage       ████████████████████  100%  (1/1" in proc.stdout
    if framework != "pydantic-ai":  # the fake server was asked, then answered the tool result
        assert server.requests - before == 2


def test_readme_quickstart_is_the_pydantic_ai_one(server: FakeOpenAI, tmp_path: Path) -> None:
    readme = blocks(ROOT / "README.md")
    assert snippets()["pydantic-ai"] in readme  # README shows the tested snippet itself
    proc = run(readme[readme.index(snippets()["pydantic-ai"])], server, tmp_path)
    assert proc.returncode == 0, proc.stderr


def test_a_snippet_that_sees_no_run_fails(server: FakeOpenAI, tmp_path: Path) -> None:
    """Without the global provider, instrument_all reports nowhere: the gate must not pass."""
    broken = snippets()["pydantic-ai"].replace("trace.set_tracer_provider(provider)", "pass")
    proc = run(broken, server, tmp_path)
    assert proc.returncode == 1 and "no agent run was seen" in proc.stderr
