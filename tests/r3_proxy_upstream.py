"""An MCP server whose tool list changes on request, for the proxy's list_changed tests.

Run as ``python r3_proxy_upstream.py NAME TOOL ...``: a stdio server (the SDK's
low-level ``Server``) announcing ``NAME`` that offers the tools named, each answering
``"NAME TOOL"``, plus ``change``: its arguments ``add`` and ``remove`` (lists of tool
names) change the list, after which the server sends
``notifications/tools/list_changed``, as a server that loads plug-ins would.
"""

from __future__ import annotations

import sys
from typing import Any, Optional

import anyio
import mcp_types as types
from mcp.server.lowlevel import NotificationOptions, Server
from mcp.server.stdio import stdio_server

CHANGE = types.Tool(
    name="change",
    description="Add and remove tools.",
    input_schema={
        "type": "object",
        "properties": {
            "add": {"type": "array", "items": {"type": "string"}},
            "remove": {"type": "array", "items": {"type": "string"}},
        },
    },
)


def plain(name: str) -> types.Tool:
    """The definition of a tool that only names itself."""
    return types.Tool(name=name, description=f"The {name} tool.", input_schema={"type": "object"})


def main() -> None:
    server_name = sys.argv[1]
    tools = {name: plain(name) for name in sys.argv[2:]}
    tools["change"] = CHANGE

    async def list_tools(ctx: Any, params: Optional[types.PaginatedRequestParams]) -> types.ListToolsResult:
        return types.ListToolsResult(tools=list(tools.values()))

    async def call_tool(ctx: Any, params: types.CallToolRequestParams) -> types.CallToolResult:
        arguments = params.arguments or {}
        if params.name == "change":
            for name in arguments.get("remove", []):
                tools.pop(name, None)
            for name in arguments.get("add", []):
                tools[name] = plain(name)
            await ctx.session.send_tool_list_changed()
            return types.CallToolResult(content=[types.TextContent(text="changed")])
        return types.CallToolResult(content=[types.TextContent(text=f"{server_name} {params.name}")])

    server = Server(server_name, on_list_tools=list_tools, on_call_tool=call_tool)

    async def serve() -> None:
        async with stdio_server() as (read, write):
            options = server.create_initialization_options(NotificationOptions(tools_changed=True))
            await server.run(read, write, options)

    anyio.run(serve)


if __name__ == "__main__":
    main()
