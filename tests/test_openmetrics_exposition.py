"""The direct writer's OpenMetrics (what `agentcov serve` answers Prometheus, which asks for that
format first) equals prometheus_client's OpenMetrics encoder of the registry byte for byte: the
headers (a counter's family named without `_total`), the restricted attempts' trace-id
exemplars, escaping, numbers, the histogram, the series budget's cuts, and a server's runtime
families before the one `# EOF`. Before, this format came from the registry path (~10x slower)."""

from __future__ import annotations

import copy
import gzip
import urllib.request
from typing import Any

from _builders import agent_run, ingest
from _support import demo_processor, free_port
from prometheus_client import CollectorRegistry, PlatformCollector, generate_latest
from prometheus_client.openmetrics.exposition import generate_latest as openmetrics
from test_prometheus_exposition import _awkward_engine, _Fixed

from otel_agentcov.engine import CoverageEngine
from otel_agentcov.exporters.prometheus import (
    MAX_SERIES,
    BuildInfoCollector,
    CoverageCollector,
    exposition,
    make_registry,
    negotiated,
    render,
)
from otel_agentcov.snapshot.schema import DIMENSIONS, Report


def _oracle(source: Any, max_series: int = MAX_SERIES) -> bytes:
    return openmetrics(make_registry(source, max_series))


def _restricted(data: Any) -> Any:
    """`data` with restricted attempts and trace ids on every agent, awkward ones included."""
    data = copy.deepcopy(data)
    for n, rep in enumerate(data["agents"].values()):
        rep["edges"]["restricted"] = [
            {"tool": "drop_db", "outcome": "denied", "count": 3 + n},
            {"tool": 'quo"te\\', "outcome": "allowed", "count": 1},
            {"tool": "no_trace", "outcome": "denied", "count": 2},
        ]
        rep["edges"]["restricted_traces"] = {"drop_db": [f"{n:032x}", "0" * 32],
                                             'quo"te\\': ['tr"ace\n\\']}
    return data


def test_demo_workload_is_byte_equal_with_its_exemplars() -> None:
    with demo_processor() as proc:
        fast = render(proc, openmetrics=True)
        assert fast == _oracle(proc)
        assert fast.endswith(b"# EOF\n") and fast.count(b"# EOF") == 1
        assert b"# TYPE agentcov_restricted_tool_attempts counter\n" in fast
        assert b'"} 1.0\n' in fast and b' # {trace_id="' in fast
        assert render(proc, openmetrics=True) == fast  # every agent's text reused


def test_benchmark_state_is_byte_equal() -> None:
    import metrics_render  # benchmarks/ (on the path _support sets): 100 agents x 50 tools

    engine = metrics_render.build()
    assert render(engine, openmetrics=True) == _oracle(engine)


def test_exemplars_escaped_names_and_every_number_form() -> None:
    """Exemplar label values escaped as the encoder escapes them, a row without a trace id
    bare; awkward agent, tool and model names; every number form (zeros of both signs, NaN,
    infinities, booleans, huge and tiny, nulls) in families of 0 to 5 labels and the histogram."""
    data: Any = _restricted(_awkward_engine().measures())
    forms = [-0.0, 0.0, 0, False, True, 2**63 + 1, 1e-7, 1e22, float("nan"), float("inf"),
             float("-inf"), 7, 2.5, None]
    for n, rep in enumerate(data["agents"].values()):
        rep["coverage"].update({d: forms[(n + i) % len(forms)] for i, d in enumerate(DIMENSIONS)})
        rep["runs"]["count"] = forms[n]
        rep["runs"]["duration_histogram"]["sum"] = forms[n]
        rep["runs"]["duration_histogram"]["bounds"][0] = forms[n % 2]
        rep["tools"]["called"] = {f"t{i}": {"ok": form, "error": forms[-1 - i]}
                                  for i, form in enumerate(forms)}
        rep["edges"]["restricted"][0]["count"] = forms[n]
    data["spans"]["internal_errors"] = -0.0
    fast = exposition(data, openmetrics=True)
    assert fast == openmetrics(make_registry(_Fixed(data)))
    assert b' # {trace_id="tr\\"ace\\n\\\\"} 1.0\n' in fast
    assert b'agentcov_restricted_tool_attempts_total{agent="quo\\"te",outcome="denied",' \
           b'tool="no_trace"} 2.0\n' in fast
    assert b"agentcov_internal_errors_total -0.0\n" in fast


def test_empty_state() -> None:
    engine = CoverageEngine()
    assert render(engine, openmetrics=True) == _oracle(engine)
    assert exposition({}, openmetrics=True) == _oracle(_Fixed({}))


def test_series_budget_cuts_keep_the_kept_rows_exemplars() -> None:
    """Under a budget the families are written from their (cut) rows: a counter's folded
    `__overflow__` series has no exemplar, its kept ones theirs; scrape after scrape, with
    reports that change, the reused text is the current report's."""
    data: Report = _restricted(_awkward_engine().measures())
    for budget in (MAX_SERIES, 40, 12, 1):
        fast = exposition(data, budget, openmetrics=True)
        assert fast == _oracle(_Fixed(data), budget), budget
    assert b"__overflow__" in exposition(data, 12, openmetrics=True)
    engine = CoverageEngine()
    for trace in range(1, 40):
        ingest(engine, agent_run(trace, f"agent{trace % 5}", [f"t{trace % 7}", "book"]))
        budget = (MAX_SERIES, 20)[trace % 2]
        assert render(engine, budget, openmetrics=True) == _oracle(engine, budget), trace
        assert render(engine, budget) == exposition(engine.measures(), budget), trace


def _runtime() -> CollectorRegistry:
    """Runtime families whose values do not move between two scrapes (the process's do)."""
    registry = CollectorRegistry(auto_describe=False)
    PlatformCollector(registry=registry)
    registry.register(BuildInfoCollector())
    return registry


def test_runtime_families_come_before_the_one_eof() -> None:
    """A server's few families (prometheus_client encodes those) follow the coverage ones as
    in one registry of every collector, and the exposition ends once; the text format's too."""
    with demo_processor() as proc:
        every = CollectorRegistry(auto_describe=False)
        for collector in (CoverageCollector(proc), *_runtime()._collector_to_names):  # noqa: SLF001
            every.register(collector)
        fast = render(proc, MAX_SERIES, _runtime(), openmetrics=True)
        assert fast == openmetrics(every)
        assert fast.count(b"# EOF") == 1 and b"# TYPE agentcov_build_info gauge\n" in fast
        assert render(proc, MAX_SERIES, _runtime()) == generate_latest(every)


def test_negotiation_answers_each_format_from_the_direct_writer() -> None:
    engine = _awkward_engine()
    runtime = _runtime()
    prometheus3 = ("application/openmetrics-text;version=1.0.0;escaping=allow-utf-8;q=0.6,"
                   "application/openmetrics-text;version=0.0.1;q=0.5,"
                   "text/plain;version=1.0.0;escaping=allow-utf-8;q=0.4,"
                   "text/plain;version=0.0.4;q=0.3,*/*;q=0.2")
    body, ctype = negotiated(prometheus3, engine, MAX_SERIES, runtime)
    assert ctype == ("application/openmetrics-text; version=1.0.0; charset=utf-8; "
                     "escaping=allow-utf-8")
    assert body == render(engine, MAX_SERIES, runtime, openmetrics=True)
    _, ctype = negotiated("application/openmetrics-text;version=1.0.0;escaping=dots", engine)
    assert ctype.endswith("escaping=underscores")  # the names as written, not dot-escaped
    body, ctype = negotiated("text/plain", engine, MAX_SERIES, runtime)
    assert ctype.startswith("text/plain") and body == render(engine, MAX_SERIES, runtime)


def test_serve_metrics_and_metrics_app_answer_from_the_direct_writer() -> None:
    """The processor's endpoints too: a real HTTP scrape asking for OpenMetrics (gzipped, as
    Prometheus asks) gets the direct writer's coverage families, then the runtime ones, one
    `# EOF`; what else prometheus_client's app answers (OPTIONS) it still answers."""
    with demo_processor() as proc:
        port = free_port()
        server, thread = proc.serve_metrics(port=port)
        try:
            request = urllib.request.Request(f"http://127.0.0.1:{port}/metrics", headers={
                "Accept": "application/openmetrics-text;version=1.0.0",
                "Accept-Encoding": "gzip"})
            with urllib.request.urlopen(request, timeout=30) as resp:
                assert resp.headers["Content-Encoding"] == "gzip"
                assert resp.headers["Content-Type"].startswith("application/openmetrics-text")
                body = gzip.decompress(resp.read())
            options = urllib.request.Request(f"http://127.0.0.1:{port}/metrics", method="OPTIONS")
            with urllib.request.urlopen(options, timeout=30) as resp:
                assert resp.headers["Allow"] == "OPTIONS,GET"
        finally:
            server.shutdown()
            server.server_close()
            thread.join(timeout=5)
        coverage = exposition(proc.measures(), openmetrics=True).removesuffix(b"# EOF\n")
        assert body.startswith(coverage) and body.endswith(b"# EOF\n")
        assert body.count(b"# EOF") == 1 and b"\nprocess_cpu_seconds_total " in body
        assert b"# TYPE agentcov_build_info gauge\n" in body

        app, status = proc.metrics_app(), []
        environ = {"REQUEST_METHOD": "GET", "PATH_INFO": "/metrics", "QUERY_STRING": "",
                   "HTTP_ACCEPT": "application/openmetrics-text;version=1.0.0"}
        body = b"".join(app(environ, lambda s, headers, exc=None: status.append(s)))
        assert status == ["200 OK"] and body.startswith(coverage) and body.count(b"# EOF") == 1
