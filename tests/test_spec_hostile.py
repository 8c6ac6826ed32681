"""Hostile specs (issue 14, item 13): a YAML alias bomb is refused in one line before any object
is built, even under a key the spec does not know; a matcher's `$ref` never fetches anything; a
spec past the size limit is refused. A real local HTTP server counts every fetch attempt.
"""

from __future__ import annotations

import http.server
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from otel_agentcov.spec import MAX_SPEC_BYTES, CoverageSpec, ExpectItem, SpecError, evaluate_expect


def _bomb(levels: int) -> str:
    """Nine aliases of nine aliases ...: 9**levels leaves from a few hundred bytes."""
    lines = ["  l0: &l0 [x, x, x, x, x, x, x, x, x]"]
    for i in range(1, levels):
        lines.append(f"  l{i}: &l{i} [" + ", ".join([f"*l{i - 1}"] * 9) + "]")
    return "version: 1\nnot_a_spec_key:\n" + "\n".join(lines) + "\n"


def test_alias_bomb_under_an_unknown_key_is_refused_in_one_line(tmp_path: Path) -> None:
    spec = tmp_path / "agentcov.yaml"
    spec.write_text(_bomb(10))  # 9**10 = 3.5 billion nodes expanded, 400 bytes on disk
    assert spec.stat().st_size < 1024
    with pytest.raises(SpecError) as err:
        CoverageSpec.from_yaml(spec)
    message = str(err.value)
    assert message.startswith(f"{spec}: ") and "\n" not in message
    assert "expands to more than" in message


def test_a_self_referencing_alias_is_refused(tmp_path: Path) -> None:
    spec = tmp_path / "agentcov.yaml"
    spec.write_text("version: 1\nx: &a [1, *a]\n")
    with pytest.raises(SpecError, match="alias refers to the collection that contains it"):
        CoverageSpec.from_yaml(spec)


def test_aliases_within_the_bound_still_load(tmp_path: Path) -> None:
    spec = tmp_path / "agentcov.yaml"
    spec.write_text("version: 1\ndefaults:\n  tools: &t [search, fetch]\n"
                    "agents:\n  - {name: a, tools: *t}\n  - {name: b, tools: *t}\n")
    loaded = CoverageSpec.from_yaml(spec)
    assert loaded.for_agent("b").tools == ("search", "fetch")


def test_a_spec_past_the_size_limit_is_refused(tmp_path: Path) -> None:
    spec = tmp_path / "agentcov.yaml"
    comment = "# " + "x" * 78 + "\n"
    spec.write_text("version: 1\n" + comment * (MAX_SPEC_BYTES // len(comment) + 1))
    assert spec.stat().st_size > MAX_SPEC_BYTES
    with pytest.raises(SpecError, match=f"larger than {MAX_SPEC_BYTES} bytes"):
        CoverageSpec.from_yaml(spec)
    spec.write_text("version: 1\n" + comment * (MAX_SPEC_BYTES // len(comment) - 1))
    assert CoverageSpec.from_yaml(spec).agents == {}


@pytest.fixture()
def schema_server() -> Iterator[tuple[str, list[str]]]:
    """A real HTTP server on loopback that serves a permissive schema and logs each request."""
    hits: list[str] = []

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            hits.append(self.path)
            body = b'{"minimum": 0}'
            self.send_response(200)
            self.send_header("Content-Type", "application/schema+json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, format: str, *args: object) -> None:
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/schema.json", hits
    finally:
        server.shutdown()
        server.server_close()


def test_a_remote_ref_is_refused_at_load_and_never_fetched(
    tmp_path: Path, schema_server: tuple[str, list[str]]
) -> None:
    url, hits = schema_server
    spec = tmp_path / "agentcov.yaml"
    spec.write_text("version: 1\nagents:\n  - name: a\n    expect:\n"
                    "      - target: coverage.tool\n"
                    f"        matcher: {{schema: {{allOf: [{{$ref: '{url}'}}]}}}}\n")
    with pytest.raises(SpecError) as err:
        CoverageSpec.from_yaml(spec)
    assert "agents[0].expect[0].matcher.schema.allOf[0].$ref" in str(err.value)
    assert "never fetches" in str(err.value)
    # a matcher built around the loader (the library API) still fetches nothing and never passes
    (result,) = evaluate_expect([ExpectItem("coverage.tool", {"$ref": url})],
                                {"coverage.tool": 0.5})
    assert not result.passed and "unresolvable" in result.reason
    assert hits == []


def test_a_local_ref_works() -> None:
    schema = {"$defs": {"high": {"minimum": 0.8}}, "$ref": "#/$defs/high"}
    spec = CoverageSpec.from_dict({"version": 1, "agents": [{"name": "a", "expect": [
        {"target": "coverage.tool", "matcher": {"schema": schema}}]}]})
    item = spec.agents["a"].expect[0]
    low, high = (evaluate_expect([item], {"coverage.tool": v})[0] for v in (0.5, 0.9))
    assert (low.passed, high.passed) == (False, True)
