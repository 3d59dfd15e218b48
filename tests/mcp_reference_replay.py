"""The official MCP reference servers, replayed: their tool lists and answers, recorded.

Run as ``python mcp_reference_replay.py SERVER`` (``time``, ``git``, ``fetch`` or
``fetch-public-only``). It lists the tools ``mcp-server-<SERVER>`` listed and answers
each recorded call with the result (or the protocol error) the real server gave when
called directly with the SDK's client; see ``data/mcp_reference_servers.json`` (the
git server worked on a small repository at ``/repo``, the fetch server fetched from a
local HTTP server at ``127.0.0.1:8000``). A call that was not recorded is an error
result saying so; a tool the server does not have is the server's protocol error.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any, Optional

import anyio
import mcp_types as types
from mcp.server.lowlevel import Server
from mcp.server.stdio import stdio_server
from mcp.shared.exceptions import MCPError

RECORDED = Path(__file__).parent / "data" / "mcp_reference_servers.json"


def recorded(server: str) -> dict[str, Any]:
    """The recording of reference server ``server``: ``command``, ``tools`` and ``calls``."""
    servers = json.loads(RECORDED.read_text(encoding="utf-8"))
    data: dict[str, Any] = servers[server]
    if "tools_of" in data:  # the same server started with other flags
        data["tools"] = servers[data["tools_of"]]["tools"]
    return data


def main() -> None:
    record = recorded(sys.argv[1])
    tools = [types.Tool.model_validate(tool) for tool in record["tools"]]
    names = {tool.name for tool in tools}

    async def list_tools(ctx: Any, params: Optional[types.PaginatedRequestParams]) -> types.ListToolsResult:
        return types.ListToolsResult(tools=tools)

    async def call_tool(ctx: Any, params: types.CallToolRequestParams) -> types.CallToolResult:
        arguments = params.arguments or {}
        for call in record["calls"]:
            if call["name"] == params.name and call["arguments"] == arguments:
                if "error" in call:
                    raise MCPError(call["error"]["code"], call["error"]["message"])
                return types.CallToolResult.model_validate(call["result"])
        if params.name not in names:
            raise MCPError(types.INVALID_PARAMS, f"Unknown tool: {params.name}")
        text = f"no recorded answer for {params.name} {json.dumps(arguments, sort_keys=True)}"
        return types.CallToolResult(content=[types.TextContent(text=text)], is_error=True)

    server = Server(f"mcp-server-{sys.argv[1]} (replayed)", on_list_tools=list_tools, on_call_tool=call_tool)

    async def serve() -> None:
        async with stdio_server() as (read, write):
            await server.run(read, write, server.create_initialization_options())

    anyio.run(serve)


if __name__ == "__main__":
    main()
