"""`agentcov faults mcp -- COMMAND...`: the MCP stdio transport with tool faults in between.

The client starts the proxy as its server command; the proxy starts the real server and relays
newline-delimited JSON-RPC both ways, line by line, unchanged, except for the `tools/call`
requests a fault takes: those never reach the server and get the fault's answer instead
(`mcp.McpFaults`). The server's stderr is the proxy's own.
"""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import threading
from typing import IO

from .mcp import Fault, McpFaults, parse_message


class StdioRelay:
    """One client (this process's stdin and stdout) and one server (`command`'s)."""

    def __init__(self, command: list[str], faults: McpFaults,
                 client_in: IO[bytes] | None = None, client_out: IO[bytes] | None = None) -> None:
        self.faults = faults
        self.client_in = client_in if client_in is not None else sys.stdin.buffer
        self.client_out = client_out if client_out is not None else sys.stdout.buffer
        self.server = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE)
        self._out = threading.Lock()  # the server's lines and the faults' answers interleave

    def run(self) -> int:
        """Relay until the server's stdout ends; the server's exit code."""
        if threading.current_thread() is threading.main_thread():
            signal.signal(signal.SIGTERM, self._terminate)
        threading.Thread(target=self._from_client, daemon=True).start()
        assert self.server.stdout is not None
        for line in iter(self.server.stdout.readline, b""):
            self._send(line)
        return self.server.wait()

    def _terminate(self, signum: int, frame: object) -> None:
        """The client stopping the proxy stops the server it started."""
        self.server.terminate()
        sys.exit(128 + signum)

    def _send(self, line: bytes) -> None:
        with self._out:
            try:
                self.client_out.write(line)
                self.client_out.flush()
            except (BrokenPipeError, ValueError):  # the client is gone
                pass

    def _from_client(self) -> None:
        to_server = self.server.stdin
        assert to_server is not None
        for line in iter(self.client_in.readline, b""):
            message = parse_message(line)
            fault = self.faults.take(message)
            if fault is not None:
                if fault.family == "tool_timeout":
                    timer = threading.Timer(self.faults.hold_s, self._deliver, (fault,))
                    timer.daemon = True
                    timer.start()
                else:
                    self._deliver(fault)
                continue
            if self.faults.drops(message):
                continue
            try:
                to_server.write(line)
                to_server.flush()
            except (BrokenPipeError, ValueError):  # the server is gone: run() returns
                return
        to_server.close()  # the client's end of input is the server's

    def _deliver(self, fault: Fault) -> None:
        answer = self.faults.answer(fault)
        if answer is not None:
            self._send(json.dumps(answer).encode() + b"\n")
