"""An MCP server written with the SDK's own low-level ``Server``, misbehaving on purpose.

Run as ``python mcp_sdk_server.py GENERATION_FILE``. Each start increments the number
in GENERATION_FILE and offers a tool ``gen<N>`` besides fixed ones:

- ``count`` (title, annotations, output schema): ``{"words": N}`` as structured content;
- ``broken``: structured content that breaks its own output schema;
- ``grow``: adds tool ``extra`` and sends ``notifications/tools/list_changed``;
- ``die``: ends the process in the middle of the call;
- ``stats``: how many ``tools/list`` requests this process answered.

``tools/list`` is paginated two tools a page, so that tools beyond the first page
show whether a client lists again per call.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Any, Optional

import anyio
import mcp_types as types
from mcp.server.lowlevel import NotificationOptions, Server
from mcp.server.stdio import stdio_server

EMPTY: dict[str, Any] = {"type": "object", "properties": {}}


def _tools(generation: int) -> list[types.Tool]:
    return [
        types.Tool(
            name="count",
            title="Word counter",
            description="Count the words of a text.",
            input_schema={"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]},
            output_schema={
                "type": "object",
                "properties": {"words": {"type": "integer"}},
                "required": ["words"],
            },
            annotations=types.ToolAnnotations(
                read_only_hint=True, idempotent_hint=True, open_world_hint=False
            ),
        ),
        types.Tool(
            name="broken",
            description="Promise a number, give a string.",
            input_schema=EMPTY,
            output_schema={"type": "object", "properties": {"n": {"type": "integer"}}, "required": ["n"]},
        ),
        types.Tool(name="grow", description="Offer one more tool.", input_schema=EMPTY),
        types.Tool(name="die", description="End the server.", input_schema=EMPTY),
        types.Tool(name="stats", description="Count tools/list requests.", input_schema=EMPTY),
        types.Tool(name=f"gen{generation}", description="Name this start.", input_schema=EMPTY),
    ]


def main() -> None:
    counter = Path(sys.argv[1])
    generation = int(counter.read_text() or "0") + 1 if counter.exists() else 1
    counter.write_text(str(generation))
    tools = _tools(generation)
    lists = [0]

    async def list_tools(ctx: Any, params: Optional[types.PaginatedRequestParams]) -> types.ListToolsResult:
        lists[0] += 1
        start = int(params.cursor) if params is not None and params.cursor else 0
        following = str(start + 2) if start + 2 < len(tools) else None
        return types.ListToolsResult(tools=tools[start : start + 2], next_cursor=following)

    async def call_tool(ctx: Any, params: types.CallToolRequestParams) -> types.CallToolResult:
        name, arguments = params.name, params.arguments or {}
        if name == "count":
            words = {"words": len(str(arguments.get("text", "")).split())}
            return types.CallToolResult(
                content=[types.TextContent(text=json.dumps(words))], structured_content=words
            )
        if name == "broken":
            return types.CallToolResult(
                content=[types.TextContent(text='{"n": "many"}')], structured_content={"n": "many"}
            )
        if name == "grow":
            tools.append(types.Tool(name="extra", description="Added at run time.", input_schema=EMPTY))
            await ctx.session.send_tool_list_changed()
            return types.CallToolResult(content=[types.TextContent(text="grown")])
        if name == "die":
            os._exit(3)
        if name == "stats":
            return types.CallToolResult(content=[types.TextContent(text=f"lists {lists[0]}")])
        return types.CallToolResult(content=[types.TextContent(text=name)])

    server = Server("misbehaving", on_list_tools=list_tools, on_call_tool=call_tool)

    async def serve() -> None:
        options = server.create_initialization_options(NotificationOptions(tools_changed=True))
        async with stdio_server() as (read, write):
            await server.run(read, write, options)

    anyio.run(serve)


if __name__ == "__main__":
    main()
