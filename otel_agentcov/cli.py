"""`agentcov`: one subcommand per thing a user does (docs/cli.md).

User errors are one line on stderr with exit code 2, never a traceback.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeAlias, TypeVar

from . import __version__, explain, gate, manual, offline, settings
from .compare import RENDERERS as COMPARE_FORMATS
from .compare import Settings, Side, compare, render_junit
from .compiled import CoreFailed
from .engine import CoverageEngine
from .evaluations import EvaluationQueue
from .reporting import FORMATS, render
from .snapshot.schema import Report
from .spec import CoverageSpec, SpecError
from .state import CoverageState, StateError
from .stats.verdicts import (
    EXIT_FAIL,
    EXIT_PASS,
    EXIT_USAGE,
    FAIL,
    INCONCLUSIVE,
    exit_code,
    no_runs_message,
)


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> None:  # type: ignore[override]
        self.exit(EXIT_USAGE, f"agentcov: {message}\n")


_N = TypeVar("_N", int, float)


def _number(convert: Callable[[str], _N], what: str, low: float,
            high: float = sys.float_info.max) -> Callable[[str], _N]:
    """An argparse type: `convert(text)` within [low, high] (so never NaN or inf), else a usage
    error naming the flag."""
    def parse(text: str) -> _N:
        try:
            value = convert(text)
            ok = low <= value <= high
        except ValueError:
            ok = False
        if not ok:
            raise argparse.ArgumentTypeError(f"expected {what}, got {text!r}")
        return value
    return parse


_positive = _number(int, "a whole number >= 1", 1)
_port = _number(int, "a port number from 0 to 65535", 0, 65535)
_seconds = _number(float, "a finite number of seconds >= 0", 0)
_percent = _number(float, "a percentage from 0 to 100", 0, 100)
_fraction = _number(float, "a fraction from 0 to 1", 0, 1)
_alpha = _number(float, "a significance level above 0 and at most 0.5", 1e-12, 0.5)


def _names(text: str) -> list[str]:
    names = [n.strip() for n in text.split(",") if n.strip()]
    if not names:
        raise argparse.ArgumentTypeError(f"expected comma-separated names, got {text!r}")
    return names


class _Deprecated(argparse.Action):
    """An old spelling kept for one release: it still works, and says what replaces it."""

    def __init__(self, *args: Any, new: str, **kwargs: Any) -> None:
        self.new = new
        super().__init__(*args, **kwargs)

    def __call__(self, parser: argparse.ArgumentParser, namespace: argparse.Namespace,
                 values: Any, option_string: str | None = None) -> None:
        _warn(f"{option_string} is deprecated and will be removed in the next release; "
              f"use {self.new}")
        setattr(namespace, self.dest, self.const if values is None else values)


def _add_spec(p: argparse.ArgumentParser, what: str = "", required: bool = False) -> None:
    default = "" if required else (" (default: `spec` of [tool.agentcov] in pyproject.toml, "
                                   "else the spec a data file was made with, else defaults "
                                   "everywhere)")
    p.add_argument("--spec", metavar="F", required=required, help=f"agentcov.yaml{what}{default}")
    p.add_argument("--no-inference", action="store_true",
                   help="classify only by convention tables, as the spec's `inference: off` "
                   "(agentcov docs conventions)")


def _add_output(p: argparse.ArgumentParser, what: str = "") -> None:
    p.add_argument("--output", metavar="PATH",
                   help=f"write the report to this file instead of stdout{what}")


def _add_junit(p: argparse.ArgumentParser, what: str) -> None:
    p.add_argument("--junit", metavar="F", help=f"write JUnit XML ({what})")


def _add_allow_inconclusive(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--allow-inconclusive", action="store_true",
        help="let INCONCLUSIVE verdicts pass (exit 0; JUnit: skipped); by default they exit 3",
    )


def _add_data_file(p: argparse.ArgumentParser, help_text: str) -> None:
    """`--data-file F`, the one name for a CoverageState written (`.agentcov` is one);
    `--state-file` is its old spelling."""
    p.add_argument("--data-file", metavar="F", dest="data_file", help=help_text)
    p.add_argument("--state-file", metavar="F", dest="data_file", action=_Deprecated,
                   new="--data-file", help=argparse.SUPPRESS)


def _add_inputs(p: argparse.ArgumentParser) -> None:
    """The input options `coverage` and `gate` share."""
    p.add_argument(
        "inputs", nargs="*", metavar="FILE",
        help="trace files or directories, trials JSON or state files (.agentcov), any mix; "
        "the kind is read from the content (default: the data file, "
        f"{settings.DATA_FILE}, when there is one)",
    )
    p.add_argument(
        "--traces", nargs="+", action="extend", default=[], metavar="PATH",
        help="OTLP/JSON, Collector JSON Lines or OTLP protobuf files, .gz of any, directories "
        "(recursive), or - for stdin; the format is read from the content",
    )
    p.add_argument(
        "--results", nargs="+", action="extend", default=[], metavar="F",
        help="AgentAssay-style trials JSON (a list, or an object with 'results' or 'trials')",
    )
    p.add_argument(
        "--state", nargs="+", action="extend", default=[], metavar="F",
        help="CoverageState files to merge in (.agentcov, --data-file, `agentcov serve`)",
    )
    _add_spec(p)
    p.add_argument("--tools", type=_names, metavar="a,b", help="known tools (spec defaults)")
    p.add_argument("--models", type=_names, metavar="x,y", help="known models (spec defaults)")
    p.add_argument(
        "--keep-going", action="store_true",
        help="report a bad input file and count the rest instead of stopping with exit 2",
    )
    p.add_argument(
        "--allow-empty", action="store_true",
        help="accept inputs holding no agent run (by default that is exit 2: a mistyped path "
        "must not pass CI)",
    )
    p.add_argument(
        "--progress", action="store_true",
        help="show spans read, spans/s and files done on stderr during long reads (shown "
        "anyway when stderr is a terminal)",
    )
    p.add_argument(
        "--jobs", type=_positive, default=1, metavar="N",
        help="read trace files in N processes, each taking a share of the traces (same report; "
        "default 1)",
    )


if TYPE_CHECKING:  # generic only in the stubs
    _Commands: TypeAlias = argparse._SubParsersAction[_Parser]  # each added by a function


def build_parser() -> argparse.ArgumentParser:
    """`agentcov` and its subcommands, in help order: each declared once by its own function."""
    parser = _Parser(prog="agentcov", description="Agent behaviour coverage from OTel spans.")
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    sub: _Commands = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)
    for add in (
        _demo_command, _coverage_command, _gate_command, _compare_command, _merge_command,
        _explain_command, _serve_command, _fake_openai_command, _faults_command, _docs_command,
    ):
        add(sub)
    return parser


def _demo_command(sub: _Commands) -> None:
    p_demo = sub.add_parser(
        "demo", help="run the built-in multi-agent workload through the real OTel SDK"
    )
    p_demo.add_argument("--seed", type=int, default=7, help="workload seed (default 7)")
    p_demo.add_argument("--runs", type=_positive, default=60, help="requests to run (default 60)")
    p_demo.add_argument("--format", choices=FORMATS, default="text", help="report format")
    p_demo.add_argument(
        "--metrics", type=_port, nargs="?", const=9464, default=None, metavar="PORT",
        help="serve /metrics on 127.0.0.1:PORT (default 9464) while the workload runs",
    )
    p_demo.add_argument("--serve", type=_port, nargs="?", const=9464, dest="metrics",
                        action=_Deprecated, new="--metrics", help=argparse.SUPPRESS)
    p_demo.add_argument(
        "--duration", type=_seconds, default=0.0, metavar="SECONDS",
        help="keep the workload running this long (useful with --metrics; Ctrl-C stops it and "
        "prints the report so far)",
    )
    p_demo.add_argument(
        "--traces-out", metavar="F",
        help="also write the workload's spans to F (OTLP protobuf), input for every command",
    )
    p_demo.add_argument("--spec-out", metavar="F", help="also write the demo's spec to F (YAML)")


def _coverage_command(sub: _Commands) -> None:
    p_cov = sub.add_parser(
        "coverage", help="coverage report from trace, trial and state files",
        description="Exit codes: 0 ok, 1 below --fail-under, 2 bad input or usage "
        "(no agent runs found, unless --allow-empty).",
    )
    _add_inputs(p_cov)
    p_cov.add_argument(
        "--format", choices=(*FORMATS, "html"), default="text",
        help="report format (html writes a directory: give --output DIR)",
    )
    _add_output(p_cov, " (html: this directory)")
    p_cov.add_argument(
        "--fail-under", type=_percent, metavar="N",
        help="exit 1 when the lowest agent's overall coverage is below N percent (like pytest-cov)",
    )
    _add_data_file(p_cov, "also save the merged state to F (a data file, input for every "
                   "command)")
    p_cov.add_argument(
        "--contexts", action="store_true",
        help="add who tests what: per test, what it exercised; per tool, the tests that do",
    )
    p_cov.add_argument(
        "--evaluations-out", metavar="F",
        help="also write each judged run's verdicts as OpenTelemetry evaluation events "
        "(gen_ai.evaluation.result) to F, as OTLP/JSON logs (agentcov docs evaluations)",
    )


def _gate_command(sub: _Commands) -> None:
    p_gate = sub.add_parser(
        "gate", help="evaluate each agent's expect list (default gate where absent)",
        description="Exit codes: 0 pass, 1 fail, 2 bad input or usage (no agent runs found, "
        "unless --allow-empty), 3 inconclusive (0 with --allow-inconclusive).",
    )
    _add_inputs(p_gate)
    _add_junit(p_gate, "one test case per agent x target")
    _add_allow_inconclusive(p_gate)


def _compare_command(sub: _Commands) -> None:
    p_cmp = sub.add_parser(
        "compare", help="regression verdict per agent between a baseline and a current version",
        description="Exit codes: 0 pass, 1 fail, 2 bad input or usage, 3 inconclusive "
        "(see --inconclusive). Each side is a state file, a trace file or directory, or trials "
        "JSON; the kind is read from the content.",
    )
    p_cmp.add_argument("baseline", metavar="BASELINE", help="the version compared against")
    p_cmp.add_argument("current", metavar="CURRENT", help="the version under test")
    _add_spec(p_cmp, ", applied to both sides")
    p_cmp.add_argument(
        "--tolerance", type=_fraction, default=0.05, metavar="D",
        help="largest tolerated drop in pass rate, as a fraction (default 0.05 = 5 points)",
    )
    p_cmp.add_argument("--alpha", type=_alpha, default=0.05, metavar="A",
                       help="significance level, Holm-corrected across agents (default 0.05)")
    p_cmp.add_argument(
        "--min-count", type=_positive, default=1, metavar="N",
        help="list an item as lost (new) only if baseline (current) saw it N times (default 1)",
    )
    p_cmp.add_argument("--format", choices=tuple(COMPARE_FORMATS), default="text",
                       help="report format (markdown: a pull-request comment)")
    _add_output(p_cmp)
    _add_junit(p_cmp, "one test case per agent")
    _add_allow_inconclusive(p_cmp)
    p_cmp.add_argument(
        "--inconclusive", choices=("fail", "pass"),
        help="exit 1 (fail) or 0 (pass, as --allow-inconclusive) when the worst verdict is "
        "INCONCLUSIVE (default: exit 3)",
    )


def _merge_command(sub: _Commands) -> None:
    p_merge = sub.add_parser(
        "merge", help="merge CoverageState files from several processes into one (exact)",
    )
    p_merge.add_argument("states", nargs="+", metavar="STATE", help="state files to merge")
    p_merge.add_argument("-o", "--output", required=True, metavar="OUT", help="merged state file")


def _explain_command(sub: _Commands) -> None:
    p_explain = sub.add_parser(
        "explain", help="why trace files gave no agent runs: the shapes of spans no convention "
        "matched, with the conventions: entries that would map them",
        description="Prints YAML: comments with span counts, then a conventions: list to check "
        "and add to the spec (agentcov docs conventions). Exit codes: 0 read, 2 bad input or "
        "usage.",
    )
    p_explain.add_argument("inputs", nargs="+", metavar="FILE",
                           help="trace files or directories, as `coverage --traces` reads")
    _add_spec(p_explain, ": its conventions: are tried first, so only what they leave "
              "unmatched is listed")
    p_explain.add_argument("--top", type=_positive, default=10, metavar="N",
                           help="shapes to list (default 10)")
    p_explain.add_argument("--write", metavar="F",
                           help="write what inference read as a spec (version: 1, conventions:) "
                           "that loads as it is, and check that it gives the same report")


def _serve_command(sub: _Commands) -> None:
    p_serve = sub.add_parser("serve", help="OTLP receiver (gRPC and HTTP) serving /metrics")
    _add_spec(p_serve, required=True)
    p_serve.add_argument("--listen", default="127.0.0.1", metavar="ADDR",
                         help="address to bind (default 127.0.0.1; 0.0.0.0 for all)")
    for flag, port, what in (("--otlp-grpc", 4317, "OTLP/gRPC"), ("--otlp-http", 4318,
                             "OTLP/HTTP"), ("--metrics", 9464, "/metrics and /healthz")):
        p_serve.add_argument(flag, type=_port, default=port, metavar="PORT",
                             help=f"{what} port (default {port}; 0 disables)")
    _add_data_file(p_serve, "durable state: acknowledge only what is on disk, restore at start")
    p_serve.add_argument("--token-file", metavar="F", help="require this bearer token "
                         "(or set AGENTCOV_TOKEN)")
    p_serve.add_argument("--metrics-token-file", metavar="F", help="require this bearer token "
                         "on /metrics (or set AGENTCOV_METRICS_TOKEN); /healthz stays open")
    p_serve.add_argument("--tls-cert", metavar="F", help="TLS certificate (PEM) for all ports")
    p_serve.add_argument("--tls-key", metavar="F", help="TLS private key (PEM)")
    p_serve.add_argument(
        "--evaluations-otlp-endpoint", metavar="URL",
        help="send each judged run's verdicts as OpenTelemetry evaluation events "
        "(gen_ai.evaluation.result) to this OTLP/HTTP logs endpoint (a URL without a path gets "
        "/v1/logs; agentcov docs evaluations)")
    p_serve.add_argument("--evaluations-otlp-token-file", metavar="F",
                         help="bearer token sent with them (or set AGENTCOV_EVALUATIONS_TOKEN)")
    p_serve.add_argument("--evaluations-otlp-ca", metavar="F",
                         help="CA certificates (PEM) that verify an https endpoint")
    p_serve.add_argument("--max-body-bytes", type=_positive, default=20 << 20, metavar="N",
                         help="largest request on the wire (default 20 MiB)")
    p_serve.add_argument("--max-decompressed-bytes", type=_positive, default=80 << 20,
                         metavar="N", help="largest request after gunzip (default 80 MiB)")
    p_serve.add_argument("--max-concurrent", type=_positive, default=32, metavar="N",
                         help="requests processed at once; more get 503/UNAVAILABLE (default 32)")
    p_serve.add_argument("--max-connections", type=_positive, default=256, metavar="N",
                         help="open HTTP connections per port; more get 503 (default 256)")
    p_serve.add_argument("--request-timeout", type=_seconds, default=10.0, metavar="SECONDS",
                         help="time a client has to send a whole request, headers included, "
                         "and idle keep-alive time (default 10)")
    p_serve.add_argument("--idle-ttl", type=_seconds, default=60.0, metavar="SECONDS",
                         help="finish a trace whose root never arrives after this (default 60)")
    p_serve.add_argument("--log-summary", type=_seconds, default=60.0, metavar="SECONDS",
                         help="log a one-line summary (spans, refusals, runs, restricted "
                         "attempts) this often (default 60; 0 never)")
    limits = p_serve.add_argument_group("memory bounds (agentcov docs guarantees)")
    limits.add_argument("--max-spans-per-request", type=_positive, default=50_000, metavar="N",
                        help="spans in one request; more get 413 (default 50000)")
    limits.add_argument("--max-attributes-per-request", type=_positive, default=1_000_000,
                        metavar="N", help="attributes, events and links in one request; more "
                        "get 413 (default 1000000)")
    limits.add_argument("--max-inflight-bytes", type=_positive, default=256 << 20, metavar="N",
                        help="bodies of all requests in flight, wire + inflated; past it 503 "
                        "(default 256 MiB)")
    limits.add_argument("--max-buffered-spans", type=_positive, default=500_000, metavar="N",
                        help="spans buffered across traces awaiting their root (~430 bytes "
                        "each); past it the oldest traces finish early (default 500000)")
    limits.add_argument("--max-series", type=_positive, default=100_000, metavar="N",
                        help="series of the per-agent /metrics families together; past it the "
                        "largest families are cut, counters into __overflow__ (default 100000)")


def _fake_openai_command(sub: _Commands) -> None:
    p_fake = sub.add_parser(
        "fake-openai", help="a scripted OpenAI-compatible server on 127.0.0.1, for the "
        "quickstarts and tests offline (it calls the first tool offered, then answers)")
    p_fake.add_argument("--port", type=_port, default=8000,
                        help="port (default 8000; 0 picks a free one)")


def _faults_command(sub: _Commands) -> None:
    p_proxy = sub.add_parser("faults", help="fault injection for agents (agentcov docs faults)")
    p_proxy.add_argument("action", choices=["proxy", "mcp"],
                         help="proxy: a reverse proxy on 127.0.0.1 that injects a plan's "
                         "model-endpoint faults into any client's traffic; mcp: a proxy between "
                         "an MCP client and its server that injects the plan's tool faults into "
                         "`tools/call`, over stdio (`-- COMMAND...`, the server it starts) or "
                         "streamable HTTP (--upstream)")
    p_proxy.add_argument("--upstream", metavar="URL",
                         help="the endpoint to forward to (http:// or https://); proxy: the "
                         "model endpoint (required), mcp: the MCP server, instead of a command")
    p_proxy.add_argument("--plan", default="boundaries", metavar="PLAN",
                         help="boundaries (default), chaos or fault families, with :SEED")
    p_proxy.add_argument("--port", type=_port, default=8089, metavar="PORT",
                         help="port on 127.0.0.1 (default 8089; 0 picks a free one)")
    p_proxy.add_argument("--hold", type=_seconds, default=30.0, metavar="SECONDS",
                         help="how long a `timeout` or `tool_timeout` fault leaves a request "
                         "unanswered (default 30)")
    p_proxy.add_argument("--budget-tokens", type=_positive, default=200_000, metavar="N",
                         help="input tokens a `budget` fault reports (default 200000, the "
                         "spec's default cost_limit_tokens)")
    p_proxy.add_argument("--traces-out", type=Path, metavar="F",
                         help="mcp: write the span of each faulted call, marked and joined to "
                         "the client's trace, to F (OTLP protobuf; read it with the client's)")


def _docs_command(sub: _Commands) -> None:
    p_docs = sub.add_parser(
        "docs", help="print a documentation page, shipped with the package; without TOPIC, "
        "list the pages")
    p_docs.add_argument("topic", nargs="?", metavar="TOPIC", help="a page, e.g. gate")


def _docs(topic: str | None) -> int:
    """Print the page, or the list of pages; an unknown topic is one line and exit 2."""
    if topic is None:
        sys.stdout.write(manual.listing())
        return EXIT_PASS
    text = manual.page(topic)
    if text is None:
        raise offline.InputError(manual.unknown(topic))
    sys.stdout.write(text)
    return EXIT_PASS


def _faults(args: argparse.Namespace, server: list[str]) -> int:
    """`agentcov faults proxy|mcp`: check the switch and the plan, then serve until
    interrupted (or, over stdio, until the server ends); the plan's seed is printed first."""
    from . import faults

    command = f"agentcov faults {args.action}"
    problem = _faults_usage(args, server)
    if problem is not None:
        print(f"agentcov: {command}: {problem}", file=sys.stderr)
        return EXIT_USAGE
    try:
        faults.check(command)
        chosen = faults.parse(args.plan, "--plan")
    except (faults.FaultsRefused, faults.PlanError) as exc:
        print(f"agentcov: {exc}", file=sys.stderr)
        return EXIT_USAGE
    chosen.budget_tokens = args.budget_tokens
    again = (f"plan {chosen.name}, seed {chosen.seed} "
             f"(the same faults again: --plan {chosen.reproduce})")
    if args.action == "mcp":
        return _faults_mcp(args, server, chosen, again)
    from .faults.proxy import FaultProxy

    proxy = FaultProxy(args.upstream, chosen, port=args.port, hold_s=args.hold)
    print(f"{command}: {proxy.url} -> {args.upstream}, {again}", flush=True)
    _serve(proxy)
    return EXIT_PASS


def _faults_usage(args: argparse.Namespace, server: list[str]) -> str | None:
    """What is wrong with the command line of `faults`, if anything (one line)."""
    if args.upstream is not None and not args.upstream.startswith(("http://", "https://")):
        return f"--upstream {args.upstream[:80]!r} is not an http(s) URL"
    if args.action == "proxy":
        if args.upstream is None:
            return "--upstream URL is required"
        if server or args.traces_out is not None:
            return "a server command and --traces-out are for `agentcov faults mcp`"
    elif (args.upstream is None) == (not server):
        return "give the MCP server as --upstream URL or as `-- COMMAND...`, one of the two"
    return None


def _faults_mcp(args: argparse.Namespace, server: list[str], chosen: Any, again: str) -> int:
    """`agentcov faults mcp`: over stdio stdout is the protocol's, so everything said goes to
    stderr; the exit code is the server's."""
    from .faults.mcp import McpFaults, file_tracer
    from .faults.mcp_http import McpHttpProxy
    from .faults.mcp_stdio import StdioRelay

    tracer = file_tracer(args.traces_out) if args.traces_out is not None else None
    mcp_faults = McpFaults(chosen, tracer, hold_s=args.hold)
    if server:
        print(f"agentcov faults mcp: {server[0]}, {again}", file=sys.stderr, flush=True)
        return StdioRelay(server, mcp_faults).run()
    proxy = McpHttpProxy(args.upstream, mcp_faults, port=args.port)
    print(f"agentcov faults mcp: {proxy.url} -> {args.upstream}, {again}", flush=True)
    _serve(proxy)
    return EXIT_PASS


def _serve(proxy: Any) -> None:
    try:
        proxy.serve_forever()
    finally:
        proxy.server_close()


def _warn(message: str) -> None:
    print(f"agentcov: {message}", file=sys.stderr)


def _project() -> settings.Settings:
    """`[tool.agentcov]` of the project the command runs in (the nearest pyproject.toml)."""
    return settings.find(Path.cwd())


def _default_data_file(project: settings.Settings) -> Path | None:
    """The data file `pytest --agentcov` writes for this project, if it is there."""
    path = settings.data_file(project, project.root or Path.cwd())
    return path if path is not None and path.is_file() else None


def _spec(args: argparse.Namespace, project: settings.Settings) -> CoverageSpec | None:
    """--spec, else the project's; None when neither (a data file then brings its own)."""
    path = args.spec or project.spec
    spec = CoverageSpec.from_yaml(path) if path else None
    if args.no_inference:
        return (spec or CoverageSpec.empty()).without_inference()
    return spec


def _inputs(args: argparse.Namespace, project: settings.Settings) -> dict[str, list[str]]:
    """Every input by kind: the flags' own, and each positional FILE by its content; with none
    at all, the project's data file."""
    kinds: dict[str, list[str]] = {
        "traces": list(args.traces), "results": list(args.results), "states": list(args.state)}
    positional = list(args.inputs)
    if not positional and not any(kinds.values()):
        found = _default_data_file(project)
        if found is None:
            raise offline.InputError(
                "nothing to read; give FILE… (trace, trials or state files) or run "
                f"`pytest --agentcov` first to write {settings.DATA_FILE}")
        positional = [str(found)]
    for path in positional:
        kinds[offline.input_kind(path)].append(path)
    return kinds


MAX_FILE_EVALUATIONS = 1 << 18  # events `--evaluations-out` holds before writing (~80 MB)


def _load(args: argparse.Namespace, evaluations: EvaluationQueue | None = None
          ) -> tuple[CoverageSpec, CoverageEngine, Report]:
    """The spec and the report of every input; no agent run at all is a usage error (exit 2)
    unless --allow-empty."""
    project = _project()
    kinds = _inputs(args, project)
    args.input_names = inputs = [*kinds["traces"], *kinds["results"], *kinds["states"]]
    spec = _spec(args, project)
    if args.tools is not None or args.models is not None:
        spec = (spec or CoverageSpec.empty()).with_inventory(args.tools, args.models)
    engine = offline.load(
        spec, traces=kinds["traces"], results=kinds["results"], states=kinds["states"],
        keep_going=args.keep_going, warn=_warn, jobs=args.jobs,
        progress=args.progress or sys.stderr.isatty(), evaluations=evaluations,
    )
    report = offline.report(engine, contexts=getattr(args, "contexts", False))
    missing = offline.incomplete_warnings(engine)
    if not args.allow_empty and offline.run_count(report) == 0:
        if missing:  # why there are none comes first: the hint to instrument would mislead
            raise offline.InputError(f"{', '.join(inputs)}: {'; '.join(missing)}")
        raise offline.InputError(no_runs_message(inputs) + explain.hint(engine, kinds["traces"]))
    for warning in missing:
        _warn(warning)
    return engine.spec, engine, report


def _explain(args: argparse.Namespace) -> int:
    engine = offline.load(_spec(args, _project()) or CoverageSpec.empty(), traces=args.inputs,
                          warn=_warn)
    sys.stdout.write(explain.render(engine, args.inputs, args.top))
    if args.write:
        if args.spec:
            raise offline.InputError("--write writes a spec of its own: give no --spec with it")
        _write(args.write, explain.pinned_spec(engine))
        pinned = offline.load(CoverageSpec.from_yaml(args.write), traces=args.inputs, warn=_warn)
        same = offline.report(pinned)["agents"] == offline.report(engine)["agents"]
        print(f"# wrote {args.write}: loading it gives "
              + ("the same report as inference" if same else
                 "another report than inference (check the entries: some spans read "
                 "differently once pinned)"), file=sys.stderr)
    return EXIT_PASS


def _write(path: str | None, text: str) -> None:
    if path is None:
        sys.stdout.write(text)
        return
    with open(path, "w", encoding="utf-8") as fh:
        fh.write(text)


def _coverage(args: argparse.Namespace) -> int:
    if args.format == "html" and not args.output:
        raise offline.InputError("--format html writes a directory; give --output DIR")
    evaluations = EvaluationQueue(MAX_FILE_EVALUATIONS) if args.evaluations_out else None
    if evaluations is not None and args.jobs > 1:
        _warn("--jobs is ignored with --evaluations-out: one process reads the files")
    spec, engine, report = _load(args, evaluations)
    fail_under = _project().fail_under if args.fail_under is None else args.fail_under
    if args.format == "html":
        from .reporting.html import report_meta, write_html  # jinja2: only for this format

        meta = report_meta(args.input_names, args.spec)
        print(write_html(report, Path(args.output), meta, spec))
    else:
        _write(args.output, render(report, args.format, spec))
    if args.data_file:
        offline.save_data_file(engine.state, spec, args.data_file, engine.lost())
    if evaluations is not None:
        offline.write_evaluations(args.evaluations_out, evaluations)
        if evaluations.dropped["queue_full"]:
            _warn(f"{args.evaluations_out}: {evaluations.dropped['queue_full']} evaluation "
                  f"events not written (more than {MAX_FILE_EVALUATIONS})")
    if fail_under is not None:
        miss = gate.fail_under(report, fail_under)
        if miss is not None:
            _warn(miss)
            return EXIT_FAIL
    return EXIT_PASS


def _gate(args: argparse.Namespace) -> int:
    spec, engine, report = _load(args)
    checks = gate.evaluate(report, spec, args.allow_empty) + gate.incomplete(
        engine.state.incomplete) + gate.dropped(engine.lost())
    for warning in gate.warnings(report, spec):
        _warn(warning)
    sys.stdout.write(gate.render_table(checks, args.allow_inconclusive))
    sys.stdout.write(gate.contract_violations(report))
    if args.junit:
        _write(args.junit, gate.junit_xml(checks, args.allow_inconclusive))
    return gate.outcome(checks, args.allow_inconclusive)


def _compare(args: argparse.Namespace) -> int:
    """Both sides through the coverage loader under one spec; a side with no run is exit 2."""
    spec = _spec(args, _project())
    sides = []
    for path in (args.baseline, args.current):
        engine = offline.load_path(spec, path, _warn)
        report = offline.report(engine)
        if offline.run_count(report) == 0:
            raise offline.InputError(f"{path}: no agent runs found; nothing to compare")
        sides.append(Side(engine.state, report))
    result = compare(sides[0], sides[1], Settings(args.tolerance, args.alpha, args.min_count))
    _write(args.output, COMPARE_FORMATS[args.format](result))
    allow = args.inconclusive == "pass" or args.allow_inconclusive
    if args.junit:
        _write(args.junit, render_junit(result, allow))
    verdicts = [a["verdict"] for a in result["agents"].values()]
    if args.inconclusive == "fail":
        verdicts = [FAIL if v == INCONCLUSIVE else v for v in verdicts]
    return exit_code(verdicts, allow)


def _merge(args: argparse.Namespace) -> int:
    _, states = offline.read_states(None, args.states)  # refuses states of different specs
    merged = CoverageState()
    for state in states:
        merged.merge(state)  # keeps the recorded spec and every incomplete mark
    merged.save(args.output)
    return 0


# Subcommands that do nothing useful without arguments: bare, they print their help.
_NEED_ARGUMENTS = ("coverage", "gate", "merge", "serve", "explain")


def _help(parser: argparse.ArgumentParser, argv: Sequence[str]) -> bool:
    """Print the help a bare `agentcov` or bare subcommand calls for; True if it did (the
    caller exits 2: a CI line whose arguments expanded to nothing must not pass)."""
    if not argv:
        parser.print_help()
        return True
    if len(argv) == 1 and argv[0] in _NEED_ARGUMENTS:
        if argv[0] in ("coverage", "gate") and _default_data_file(_project()) is not None:
            return False  # like `coverage report`: the data file is the input
        for action in parser._actions:
            if isinstance(action, argparse._SubParsersAction):
                action.choices[argv[0]].print_help()
        return True
    return False


def _fake_openai(port: int) -> int:
    """Serve until interrupted; the first line says what to export (docs/quickstarts.md)."""
    from .fake_openai import FakeOpenAI

    server = FakeOpenAI(port)
    print(f"export OPENAI_BASE_URL={server.base_url} OPENAI_API_KEY=fake", flush=True)
    try:
        server.serve_forever()
    finally:
        server.server_close()
    return EXIT_PASS


def _server_command(argv: Sequence[str]) -> tuple[list[str], list[str]]:
    """`agentcov faults mcp [OPTIONS] -- COMMAND...`: the options, and the server's command
    line (argparse cannot take a command with options of its own after its own)."""
    argv = list(argv)
    if argv[:1] == ["faults"] and "--" in argv:
        cut = argv.index("--")
        return argv[:cut], argv[cut + 1:]
    return argv, []


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    argv, server = _server_command(sys.argv[1:] if argv is None else argv)
    try:
        if _help(parser, argv):
            return EXIT_USAGE
    except settings.SettingsError as exc:
        print(f"agentcov: {exc}", file=sys.stderr)
        return EXIT_USAGE
    args = parser.parse_args(argv)
    try:
        if args.command == "demo":
            from . import demo  # the OpenTelemetry SDK: only the demo and serve need it

            return demo.main(
                seed=args.seed, runs=args.runs, fmt=args.format,
                serve_port=args.metrics, duration_s=args.duration,
                traces_out=args.traces_out, spec_out=args.spec_out,
            )
        if args.command == "coverage":
            return _coverage(args)
        if args.command == "gate":
            return _gate(args)
        if args.command == "compare":
            return _compare(args)
        if args.command == "merge":
            return _merge(args)
        if args.command == "explain":
            return _explain(args)
        if args.command == "serve":
            from .faults import forbid
            from .service.server import serve_from_args

            forbid("agentcov serve")
            return serve_from_args(args)
        if args.command == "fake-openai":
            return _fake_openai(args.port)
        if args.command == "faults":
            return _faults(args, server)
        if args.command == "docs":
            return _docs(args.topic)
    except OSError as exc:
        name = f"{exc.filename}: " if exc.filename else ""
        print(f"agentcov: {name}{exc.strerror or exc}", file=sys.stderr)
        return EXIT_USAGE
    # CoreFailed: a panic of the compiled core on an input, past the readers (a trial file's
    # fold, say): one line, as bad input is
    except (SpecError, StateError, offline.InputError, settings.SettingsError,
            CoreFailed) as exc:
        print(f"agentcov: {exc}", file=sys.stderr)
        return EXIT_USAGE
    except KeyboardInterrupt:
        return 130
    return EXIT_USAGE


if __name__ == "__main__":
    sys.exit(main())
