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

import json
import sys
from typing import Any, Optional

import anyio
import mcp_types as types
from mcp.server.lowlevel import Server
from mcp.server.stdio import stdio_server

TEXT = {"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]}

TOOLS = {
    "shout": types.Tool(
        name="shout",
        title="Shouter",
        description="Say it loud.",
        input_schema=TEXT,
        output_schema={"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]},
        annotations=types.ToolAnnotations(read_only_hint=True, open_world_hint=False),
    ),
    "fail": types.Tool(name="fail", description="Always fails.", input_schema={"type": "object"}),
    "steps": types.Tool(name="steps", description="Three steps.", input_schema={"type": "object"}),
    "PythonInterpreter": types.Tool(
        name="PythonInterpreter",
        description="Pretends to run code.",
        input_schema={
            "type": "object",
            "properties": {"command": {"type": "string"}},
            "required": ["command"],
        },
    ),
}


def main() -> None:
    name, wanted = sys.argv[1], sys.argv[2:] or list(TOOLS)
    tools = [TOOLS[tool] for tool in wanted]

    async def list_tools(ctx: Any, params: Optional[types.PaginatedRequestParams]) -> types.ListToolsResult:
        return types.ListToolsResult(tools=tools)

    async def call_tool(ctx: Any, params: types.CallToolRequestParams) -> types.CallToolResult:
        tool, arguments = params.name, params.arguments or {}
        if tool == "shout":
            loud = {"text": str(arguments["text"]).upper()}
            return types.CallToolResult(
                content=[types.TextContent(text=json.dumps(loud))], structured_content=loud
            )
        if tool == "fail":
            return types.CallToolResult(
                content=[types.TextContent(text="it failed, as always")], is_error=True
            )
        if tool == "steps":
            for step, message in ((1, "one"), (2, "two"), (3, None)):
                await ctx.session.report_progress(step, 3, message)
            return types.CallToolResult(content=[types.TextContent(text="done")])
        return types.CallToolResult(
            content=[types.TextContent(text=f"{name} ran {arguments.get('command')}")]
        )

    server = Server(name, on_list_tools=list_tools, on_call_tool=call_tool)

    async def serve() -> None:
        async with stdio_server() as (read, write):
            await server.run(read, write, server.create_initialization_options())

    anyio.run(serve)


if __name__ == "__main__":
    main()
