"""An MCP server (the SDK's low-level ``Server``) for the proxy tests to re-serve.

Run as ``python mcp_proxy_upstream.py NAME [TOOL ...]``: a stdio server announcing
``NAME`` in its ``serverInfo`` that offers the tools named (default: all of them):

- ``shout`` (title, annotations, output schema): ``{"text": TEXT.upper()}`` as
  structured content;
- ``fail``: an ``isError`` result with a fixed text;
- ``steps``: three progress notifications (1/3 "one", 2/3 "two", 3/3 no message)
  before its result;
- ``PythonInterpreter``: has the name of a code-executing tool (echoes ``command``).
"""

from __future__ import annotations

import sys
from typing import Any, Optional

import mcp_types as types
from _upstream import COMMON_TOOLS, common_result, serve_stdio, text_result
from mcp.server.lowlevel import Server


def main() -> None:
    name, wanted = sys.argv[1], sys.argv[2:] or list(COMMON_TOOLS)
    tools = [COMMON_TOOLS[tool] for tool in wanted]

    async def list_tools(ctx: Any, params: Optional[types.PaginatedRequestParams]) -> types.ListToolsResult:
        return types.ListToolsResult(tools=tools)

    async def call_tool(ctx: Any, params: types.CallToolRequestParams) -> types.CallToolResult:
        tool, arguments = params.name, params.arguments or {}
        common = await common_result(ctx, tool, arguments)
        if common is not None:
            return common
        return text_result(f"{name} ran {arguments.get('command')}")

    serve_stdio(Server(name, on_list_tools=list_tools, on_call_tool=call_tool))


if __name__ == "__main__":
    main()
