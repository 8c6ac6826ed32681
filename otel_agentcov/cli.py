"""`agentcov`: one subcommand per thing a user does (DESIGN §7).

User errors are one line on stderr with exit code 2, never a traceback.
"""

from __future__ import annotations

import argparse
import math
import sys
from collections.abc import Sequence

from . import demo
from .reporting import FORMATS
from .spec import SpecError
from .state import StateError


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> None:  # type: ignore[override]
        self.exit(2, f"agentcov: {message}\n")


def _positive(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number, got {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"expected a number >= 1, got {value}")
    return value


def _seconds(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number of seconds, got {text!r}") from None
    if not math.isfinite(value) or value < 0:
        raise argparse.ArgumentTypeError(f"expected a finite number >= 0, got {text!r}")
    return value


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="agentcov", description="Agent behaviour coverage from OTel spans.")
    sub = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)
    p_demo = sub.add_parser(
        "demo", help="run the built-in multi-agent workload through the real OTel SDK"
    )
    p_demo.add_argument("--seed", type=int, default=7, help="workload seed (default 7)")
    p_demo.add_argument("--runs", type=_positive, default=60, help="requests to run (default 60)")
    p_demo.add_argument("--format", choices=FORMATS, default="text", help="report format")
    p_demo.add_argument(
        "--serve", type=int, nargs="?", const=9464, default=None, metavar="PORT",
        help="serve /metrics on 127.0.0.1:PORT (default 9464) while the workload runs",
    )
    p_demo.add_argument(
        "--duration", type=_seconds, default=0.0, metavar="SECONDS",
        help="keep the workload running this long (useful with --serve)",
    )
    p_serve = sub.add_parser("serve", help="OTLP receiver (gRPC and HTTP) serving /metrics")
    p_serve.add_argument("--spec", required=True, help="coverage spec (agentcov.yaml)")
    p_serve.add_argument("--listen", default="127.0.0.1", metavar="ADDR",
                         help="address to bind (default 127.0.0.1; 0.0.0.0 for all)")
    for flag, port, what in (("--otlp-grpc", 4317, "OTLP/gRPC"), ("--otlp-http", 4318,
                             "OTLP/HTTP"), ("--metrics", 9464, "/metrics and /healthz")):
        p_serve.add_argument(flag, type=int, default=port, metavar="PORT",
                             help=f"{what} port (default {port}; 0 disables)")
    p_serve.add_argument("--state-file", metavar="F",
                         help="durable state: acknowledge only what is on disk, restore at start")
    p_serve.add_argument("--token-file", metavar="F", help="require this bearer token "
                         "(or set AGENTCOV_TOKEN)")
    p_serve.add_argument("--tls-cert", metavar="F", help="TLS certificate (PEM) for all ports")
    p_serve.add_argument("--tls-key", metavar="F", help="TLS private key (PEM)")
    p_serve.add_argument("--max-body-bytes", type=_positive, default=20 << 20, metavar="N",
                         help="largest request on the wire (default 20 MiB)")
    p_serve.add_argument("--max-decompressed-bytes", type=_positive, default=80 << 20,
                         metavar="N", help="largest request after gunzip (default 80 MiB)")
    p_serve.add_argument("--max-concurrent", type=_positive, default=32, metavar="N",
                         help="requests processed at once; more get 503/UNAVAILABLE (default 32)")
    p_serve.add_argument("--request-timeout", type=_seconds, default=10.0, metavar="SECONDS",
                         help="time a client has to send a request (default 10)")
    p_serve.add_argument("--idle-ttl", type=_seconds, default=60.0, metavar="SECONDS",
                         help="finish a trace whose root never arrives after this (default 60)")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        if args.command == "demo":
            return demo.main(
                seed=args.seed, runs=args.runs, fmt=args.format,
                serve_port=args.serve, duration_s=args.duration,
            )
        if args.command == "serve":
            from .service.server import serve_from_args

            return serve_from_args(args)
    except (SpecError, StateError, OSError) as exc:
        print(f"agentcov: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130
    return 2


if __name__ == "__main__":
    sys.exit(main())
