"""A small real MCP server (the mcp SDK's MCPServer) for the MCP fault proxy's tests: one tool,
over stdio (no argument) or streamable HTTP on 127.0.0.1 (`http PORT`)."""

from __future__ import annotations

import sys

from mcp.server.mcpserver import MCPServer

server = MCPServer("orders")


@server.tool()
def lookup_order(order_id: str) -> str:
    """Where an order is."""
    return f"order {order_id}: CANARY-RESULT-5e0b shipped"


if __name__ == "__main__":
    if sys.argv[1:2] == ["http"]:
        server.run("streamable-http", host="127.0.0.1", port=int(sys.argv[2]))
    else:
        server.run()
