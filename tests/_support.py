"""Helpers shared by the tests that use real servers and Prometheus binaries."""

from __future__ import annotations

import os
import shutil
import socket

import pytest


def free_port() -> int:
    """An ephemeral port on loopback, for servers the tests start."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


def need_binary(name: str) -> str:
    """Path of a Prometheus binary; skipped locally when absent, a failure under CI=true."""
    path = shutil.which(name)
    if path is None:
        if os.environ.get("CI") == "true":
            pytest.fail(f"{name} is required under CI=true (make test installs it)")
        pytest.skip(f"{name} not installed (make test installs Debian's prometheus)")
    return path
