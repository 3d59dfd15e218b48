"""A streamable-HTTP MCP server (the SDK's low-level ``Server``) for the HTTP pass-through tests.

Run as ``python r5_http_server.py FIFO``: it listens on a free port of 127.0.0.1 and
says ``serving MCP on URL`` on stderr (with ``--stdio`` after ``FIFO``: it serves over
stdio instead). Its tools:

- ``shout`` (title, annotations, output schema): ``{"text": TEXT.upper()}`` as structured content;
- ``fail``: an ``isError`` result with a fixed text;
- ``steps``: three progress notifications (1/3 "one", 2/3 "two", 3/3 no message), then "done";
- ``gate``: answers "gate passed" once a line can be read from the named pipe ``FIFO``
  (the test writes it: no clock involved);
- ``hang``: never answers; a cancelled one is counted;
- ``held``: reads a line from ``FIFO`` (so the test knows it runs), then as ``hang``;
- ``cancelled``: how many ``hang`` calls were cancelled so far;
- ``whoami``: the JSON-RPC id of its own request, as text;
- ``count``: how many times it was called in this MCP session (state of the session);
- ``die``: the process exits in the middle of the call;
- ``PythonInterpreter``: has the name of a code-executing tool (echoes ``command``).
"""

from __future__ import annotations

import json
import os
import socket
import sys
from typing import Any, Optional

import anyio
import mcp_types as types
import uvicorn
from mcp.server.lowlevel import Server
from mcp.server.stdio import stdio_server

TEXT = {"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]}
ANY = {"type": "object"}

TOOLS = [
    types.Tool(
        name="shout",
        title="Shouter",
        description="Say it loud.",
        input_schema=TEXT,
        output_schema={"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]},
        annotations=types.ToolAnnotations(read_only_hint=True, open_world_hint=False),
    ),
    types.Tool(name="fail", description="Always fails.", input_schema=ANY),
    types.Tool(name="steps", description="Three steps.", input_schema=ANY),
    types.Tool(name="gate", description="Waits for the test.", input_schema=ANY),
    types.Tool(name="hang", description="Never answers.", input_schema=ANY),
    types.Tool(name="held", description="Signals, then never answers.", input_schema=ANY),
    types.Tool(name="cancelled", description="Cancelled hangs.", input_schema=ANY),
    types.Tool(name="whoami", description="Its request id.", input_schema=ANY),
    types.Tool(name="count", description="Calls in this session.", input_schema=ANY),
    types.Tool(name="die", description="Exits mid-call.", input_schema=ANY),
    types.Tool(
        name="PythonInterpreter",
        description="Pretends to run code.",
        input_schema={
            "type": "object",
            "properties": {"command": {"type": "string"}},
            "required": ["command"],
        },
    ),
]


def _text(text: str, error: bool = False) -> types.CallToolResult:
    return types.CallToolResult(content=[types.TextContent(text=text)], is_error=error)


def _read_fifo(path: str) -> str:
    with open(path, encoding="utf-8") as fifo:
        return fifo.readline()


def main() -> None:
    fifo = sys.argv[1]
    cancelled = [0]
    counts: dict[int, int] = {}

    async def list_tools(ctx: Any, params: Optional[types.PaginatedRequestParams]) -> types.ListToolsResult:
        return types.ListToolsResult(tools=TOOLS)

    async def hang() -> types.CallToolResult:
        try:
            await anyio.sleep_forever()
        finally:
            cancelled[0] += 1
        raise AssertionError("unreachable")

    async def call_tool(ctx: Any, params: types.CallToolRequestParams) -> types.CallToolResult:
        tool, arguments = params.name, params.arguments or {}
        if tool == "shout":
            loud = {"text": str(arguments["text"]).upper()}
            return types.CallToolResult(
                content=[types.TextContent(text=json.dumps(loud))], structured_content=loud
            )
        if tool == "fail":
            return _text("it failed, as always", error=True)
        if tool == "steps":
            for step, message in ((1, "one"), (2, "two"), (3, None)):
                await ctx.session.report_progress(step, 3, message)
            return _text("done")
        if tool == "gate":
            await anyio.to_thread.run_sync(_read_fifo, fifo)
            return _text("gate passed")
        if tool == "hang":
            return await hang()
        if tool == "held":
            await anyio.to_thread.run_sync(_read_fifo, fifo)
            return await hang()
        if tool == "cancelled":
            return _text(str(cancelled[0]))
        if tool == "whoami":
            return _text(str(ctx.request_id))
        if tool == "count":
            key = id(getattr(ctx.session, "_connection", ctx.session))
            counts[key] = counts.get(key, 0) + 1
            return _text(str(counts[key]))
        if tool == "die":
            os._exit(3)
        return _text(f"ran {arguments.get('command')}")

    server = Server("http-passthrough-upstream", on_list_tools=list_tools, on_call_tool=call_tool)
    if sys.argv[2:] == ["--stdio"]:

        async def serve() -> None:
            async with stdio_server() as (read, write):
                await server.run(read, write, server.create_initialization_options())

        anyio.run(serve)
        return
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    print(f"serving MCP on http://127.0.0.1:{sock.getsockname()[1]}/mcp", file=sys.stderr, flush=True)
    config = uvicorn.Config(server.streamable_http_app(), log_level="warning", lifespan="on")
    uvicorn.Server(config).run(sockets=[sock])


if __name__ == "__main__":
    main()
