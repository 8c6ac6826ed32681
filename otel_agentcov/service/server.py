"""`agentcov serve`: wires the store, the two receivers and `/metrics`, and shuts down cleanly.

SIGTERM/SIGINT: `/healthz` turns 503, listeners stop accepting, in-flight requests finish,
the journal is committed and folded into a snapshot.
"""

from __future__ import annotations

import argparse
import errno
import os
import signal
import socket
import ssl
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from types import FrameType

import grpc
from prometheus_client import CollectorRegistry

from ..assembler import Bounds
from ..evaluations import EvaluationQueue
from ..exporters.prometheus import (
    MAX_SERIES,
    add_runtime_collectors,
    negotiated,
)
from ..gc_bulk import collect_less
from ..spec import CoverageSpec
from .evaluation_sender import EvaluationSender, logs_url
from .grpc_receiver import make_grpc_server
from .http_receiver import ServiceHTTPServer
from .intake import Intake, RequestLimits
from .metrics import ServiceCollector
from .store import CoverageStore
from .views import Views, summary_line


@dataclass
class ServeConfig:
    """Everything `agentcov serve` takes; a port of 0 disables that listener."""

    spec: CoverageSpec
    listen: str = "127.0.0.1"
    otlp_grpc: int = 4317
    otlp_http: int = 4318
    metrics: int = 9464
    state_file: str | None = None
    token: str | None = None
    metrics_token: str | None = None  # required on /metrics when set (`/healthz` stays open)
    tls_cert: str | None = None
    tls_key: str | None = None
    limits: RequestLimits = field(default_factory=RequestLimits)
    bounds: Bounds = field(default_factory=Bounds)
    max_series: int = MAX_SERIES
    compact_bytes: int = 16 << 20  # ~40k spans: bounds replay at restart to a few seconds
    sweep_interval_s: float = 1.0
    summary_interval_s: float = 60.0  # one summary line on stderr this often; 0 = never
    evaluations_endpoint: str | None = None  # OTLP/HTTP logs URL for evaluation events
    evaluations_token: str | None = None  # bearer token sent with them
    evaluations_ca: str | None = None  # CA bundle (PEM) to verify an https endpoint
    shutdown_timeout_s: float = 5.0  # SIGTERM to exit, besides the final compaction


class Service:
    """A running `agentcov serve`; `start()` recovers state and binds, `stop()` is graceful."""

    def __init__(self, config: ServeConfig) -> None:
        self.config = config
        self.store = CoverageStore(config.spec, config.state_file, bounds=config.bounds)
        self.intake = Intake(self.store, config.limits, config.token)
        self.healthy = threading.Event()
        self._compaction_error: str | None = None
        self._stopping = threading.Event()
        self._http: list[ServiceHTTPServer] = []
        self._grpc: grpc.Server | None = None
        self._threads: list[threading.Thread] = []
        self._evaluations: EvaluationSender | None = None
        self.endpoints: dict[str, str] = {}
        self.views = Views(self.intake, self.endpoints,
                           guarded=bool(config.token or config.metrics_token))

    def start(self) -> None:
        cfg = self.config
        self.store.open()
        if cfg.evaluations_endpoint:  # after the replay: its runs' events were sent before
            queue = EvaluationQueue()
            self._evaluations = EvaluationSender(
                queue, cfg.evaluations_endpoint, token=cfg.evaluations_token,
                ca_file=cfg.evaluations_ca)
            self.store.engine.evaluations = queue
            self._evaluations.start()
            self.endpoints["evaluations"] = logs_url(cfg.evaluations_endpoint)
        own = add_runtime_collectors(CollectorRegistry(auto_describe=False))
        own.register(ServiceCollector(self.intake))

        def metrics(accept: str | None) -> tuple[bytes, str]:
            """The coverage families by the exporter's direct writer in the format asked for
            (OpenMetrics, with exemplars, or text: ~10x quicker than a registry at 20 k
            series), then the service's own few."""
            return negotiated(accept, self.store, cfg.max_series, own)

        tls = None
        if cfg.tls_cert and cfg.tls_key:
            tls = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
            try:
                tls.load_cert_chain(cfg.tls_cert, cfg.tls_key)
            except OSError as exc:  # ssl names neither file ("[SSL] PEM lib (_ssl.c:3905)")
                raise OSError(f"--tls-cert {cfg.tls_cert} / --tls-key {cfg.tls_key}: cannot "
                              f"load: {exc.strerror or exc}") from None
        scheme = "https" if tls else "http"
        host = f"[{cfg.listen}]" if ":" in cfg.listen else cfg.listen
        shared = cfg.metrics == cfg.otlp_http and cfg.metrics != 0
        if cfg.otlp_http:
            self._add_http("--otlp-http", cfg.otlp_http, self.intake,
                           metrics if shared else None, tls)
            self.endpoints["otlp_http"] = f"{scheme}://{host}:{cfg.otlp_http}/v1/traces"
        if cfg.metrics and not shared:
            self._add_http("--metrics", cfg.metrics, None, metrics, tls)
        if cfg.metrics:
            self.endpoints["metrics"] = f"{scheme}://{host}:{cfg.metrics}/metrics"
        if cfg.otlp_grpc:
            credentials = None
            if cfg.tls_cert and cfg.tls_key:
                with open(cfg.tls_key, "rb") as k, open(cfg.tls_cert, "rb") as c:
                    credentials = grpc.ssl_server_credentials([(k.read(), c.read())])
            try:
                _probe(cfg.listen, cfg.otlp_grpc)
                self._grpc = make_grpc_server(self.intake, f"{host}:{cfg.otlp_grpc}", credentials)
            except (OSError, RuntimeError) as exc:  # RuntimeError: grpcio's "Failed to bind"
                reason = exc.strerror if isinstance(exc, OSError) else exc
                raise OSError(f"cannot listen on {host}:{cfg.otlp_grpc}: {reason}"
                              f"{_hint(exc, '--otlp-grpc')}") from None
            self._grpc.start()
            self.endpoints["otlp_grpc"] = f"{host}:{cfg.otlp_grpc}"
        maintenance = threading.Thread(target=self._maintain, name="agentcov-maintenance",
                                       daemon=True)
        maintenance.start()
        self._threads.append(maintenance)
        self.healthy.set()

    def _add_http(self, flag: str, port: int, intake: Intake | None,
                  metrics: Callable[[str | None], tuple[bytes, str]] | None,
                  tls: ssl.SSLContext | None) -> None:
        try:
            server = ServiceHTTPServer(
                (self.config.listen, port), intake=intake, metrics=metrics, healthy=self.healthy,
                degraded=self.degraded,
                tls=tls, metrics_token=self.config.metrics_token,
                view_tokens=self._view_tokens(intake is not None, metrics is not None),
                request_timeout_s=self.config.limits.request_timeout_s,
                max_connections=self.config.limits.max_connections, views=self.views,
            )
        except OSError as exc:
            raise OSError(f"cannot listen on {self.config.listen}:{port}: {exc.strerror}"
                          f"{_hint(exc, flag)}") from None
        thread = threading.Thread(target=server.serve_forever, name=f"agentcov-http-{port}",
                                  daemon=True)
        thread.start()
        self._http.append(server)
        self._threads.append(thread)

    def _view_tokens(self, otlp: bool, metrics: bool) -> tuple[str, ...]:
        """The tokens that open the report on a port: those guarding what the port serves
        (OTLP, /metrics), else every token configured: a report never shows more than the
        port it is on, and is never open while any token is set (docs/service.md)."""
        cfg = self.config
        own = tuple(t for t, here in ((cfg.token, otlp), (cfg.metrics_token, metrics))
                    if here and t)
        return own or tuple(t for t in (cfg.token, cfg.metrics_token) if t)

    def _maintain(self) -> None:
        """Idle sweeps, size-triggered compaction and the periodic summary line; errors are
        reported, never fatal."""
        every = self.config.summary_interval_s
        next_summary = time.monotonic() + every
        while not self._stopping.wait(self.config.sweep_interval_s):
            try:
                self.store.sweep()
                if self.store.broken or self.store.journal_bytes > self.config.compact_bytes:
                    self.store.compact()  # retried while broken: success takes exports again
                    self._compaction_error = None
            except OSError as exc:
                self._compaction_error = f"compaction failed: {exc.strerror or exc}"
                print(f"agentcov serve: maintenance: {exc}", file=sys.stderr)
            if every and time.monotonic() >= next_summary:
                next_summary = time.monotonic() + every
                print(summary_line(self.intake), file=sys.stderr, flush=True)

    def degraded(self) -> str | None:
        """Why `/healthz` says degraded (503): the journal cannot follow the snapshot (nothing
        more is acknowledged), or the last compaction failed (the journal keeps growing)."""
        return self.store.broken or self._compaction_error

    def stop(self) -> None:
        """Stop accepting, let in-flight requests finish, commit and compact, within the
        shutdown budget: in-flight gRPC calls get up to all of it, the evaluation events
        still queued what is left (at least a second); compaction is never cut short."""
        deadline = time.monotonic() + self.config.shutdown_timeout_s
        self.healthy.clear()
        self._stopping.set()
        if self._grpc is not None:
            self._grpc.stop(grace=self.config.shutdown_timeout_s).wait()
        for server in self._http:
            server.shutdown()
            server.server_close()
        self.store.close()
        if self._evaluations is not None:
            self._evaluations.stop(max(1.0, deadline - time.monotonic()))



def _hint(exc: BaseException, flag: str) -> str:
    """For a port already taken (by another serve, a Collector...), the flag that moves it."""
    taken = (isinstance(exc, OSError) and exc.errno == errno.EADDRINUSE) or (
        isinstance(exc, RuntimeError) and "Failed to bind" in str(exc))
    return f"; choose another port with {flag} PORT (0 disables it)" if taken else ""


def _probe(host: str, port: int) -> None:
    """Bind and release `host:port` (OSError if busy or unresolvable), so that failure is one
    line: grpcio would also log its own C-core error line to stderr."""
    for family, type_, proto, _, address in socket.getaddrinfo(host, port,
                                                               type=socket.SOCK_STREAM):
        with socket.socket(family, type_, proto) as sock:
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # as grpcio does
            sock.bind(address)


def _token(path: str | None, variable: str) -> str | None:
    """A bearer token from a file (stripped) or else the environment; ValueError if unusable."""
    if not path:
        return os.environ.get(variable) or None
    try:
        with open(path, encoding="utf-8") as fh:
            token = fh.read().strip()
    except UnicodeDecodeError:
        raise ValueError(f"{path}: token file is not UTF-8 text") from None
    if not token:
        raise ValueError(f"{path}: token file is empty")
    return token


def serve_from_args(args: argparse.Namespace) -> int:
    """`agentcov serve` from parsed arguments; configuration errors are one line, exit 2."""
    try:
        token = _token(args.token_file, "AGENTCOV_TOKEN")
        metrics_token = _token(args.metrics_token_file, "AGENTCOV_METRICS_TOKEN")
        evaluations_token = _token(args.evaluations_otlp_token_file,
                                   "AGENTCOV_EVALUATIONS_TOKEN")
        if args.evaluations_otlp_endpoint:
            logs_url(args.evaluations_otlp_endpoint)
    except ValueError as exc:
        print(f"agentcov: {exc}", file=sys.stderr)
        return 2
    if bool(args.tls_cert) != bool(args.tls_key):
        print("agentcov: --tls-cert and --tls-key go together", file=sys.stderr)
        return 2
    config = ServeConfig(
        spec=CoverageSpec.from_yaml(args.spec), listen=args.listen, otlp_grpc=args.otlp_grpc,
        otlp_http=args.otlp_http, metrics=args.metrics, state_file=args.data_file, token=token,
        metrics_token=metrics_token, tls_cert=args.tls_cert, tls_key=args.tls_key,
        summary_interval_s=args.log_summary,
        bounds=Bounds(idle_ttl_s=args.idle_ttl, max_buffered_spans=args.max_buffered_spans),
        limits=RequestLimits(
            max_body_bytes=args.max_body_bytes,
            max_decompressed_bytes=args.max_decompressed_bytes,
            max_concurrent=args.max_concurrent, request_timeout_s=args.request_timeout,
            max_connections=args.max_connections, max_spans=args.max_spans_per_request,
            max_attributes=args.max_attributes_per_request,
            max_inflight_bytes=args.max_inflight_bytes,
        ),
        max_series=args.max_series, evaluations_endpoint=args.evaluations_otlp_endpoint,
        evaluations_token=evaluations_token, evaluations_ca=args.evaluations_otlp_ca,
    )
    return run(config)


def run(config: ServeConfig) -> int:
    """Run until SIGTERM/SIGINT; prints where it listens; returns the exit code."""
    collect_less()  # this process ingests for its whole life (gc_bulk.py)
    service = Service(config)
    service.start()  # the state file, TLS files and ports are checked here, in that order
    if not (config.otlp_grpc or config.otlp_http or config.metrics):  # after start: a more
        # specific configuration error (state file, TLS files) names its culprit first
        service.stop()
        print("agentcov: --otlp-grpc, --otlp-http and --metrics are all 0: nothing to listen on",
              file=sys.stderr)
        return 2
    done = threading.Event()

    def _stop(signum: int, frame: FrameType | None) -> None:
        done.set()

    signal.signal(signal.SIGTERM, _stop)
    signal.signal(signal.SIGINT, _stop)
    listening = ", ".join(f"{k} {v}" for k, v in service.endpoints.items())
    state = f"; state {config.state_file}" if config.state_file else ""
    print(f"agentcov serve: {listening}{state}", file=sys.stderr, flush=True)
    while not done.wait(1.0):
        pass
    service.stop()
    print("agentcov serve: stopped", file=sys.stderr, flush=True)
    return 0
