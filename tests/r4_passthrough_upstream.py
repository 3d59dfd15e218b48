"""A stdio MCP server (the SDK's low-level ``Server``) for the pass-through tests.

Run as ``python r4_passthrough_upstream.py FIFO``. Its tools:

- ``shout`` (title, annotations, output schema): ``{"text": TEXT.upper()}`` as structured content;
- ``fail``: an ``isError`` result with a fixed text;
- ``steps``: three progress notifications (1/3 "one", 2/3 "two", 3/3 no message), then "done";
- ``gate``: answers "gate passed" once a line can be read from the named pipe ``FIFO``
  (the test writes it: no clock involved);
- ``hang``: never answers; a cancelled one is counted;
- ``cancelled``: how many ``hang`` calls were cancelled so far;
- ``whoami``: the JSON-RPC id of its own request, as text;
- ``die``: the process exits in the middle of the call;
- ``PythonInterpreter``: has the name of a code-executing tool (echoes ``command``).
"""

from __future__ import annotations

import os
import sys
from typing import Any, Optional

import anyio
import mcp_types as types
from _upstream import ANY, COMMON_TOOLS, common_result, serve_stdio, text_result
from mcp.server.lowlevel import Server

TOOLS = [
    *(COMMON_TOOLS[name] for name in ("shout", "fail", "steps")),
    types.Tool(name="gate", description="Waits for the test.", input_schema=ANY),
    types.Tool(name="hang", description="Never answers.", input_schema=ANY),
    types.Tool(name="cancelled", description="Cancelled hangs.", input_schema=ANY),
    types.Tool(name="whoami", description="Its request id.", input_schema=ANY),
    types.Tool(name="die", description="Exits mid-call.", input_schema=ANY),
    COMMON_TOOLS["PythonInterpreter"],
]


def _read_fifo(path: str) -> str:
    with open(path, encoding="utf-8") as fifo:
        return fifo.readline()


def main() -> None:
    fifo = sys.argv[1]
    cancelled = [0]

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
        common = await common_result(ctx, tool, arguments)
        if common is not None:
            return common
        if tool == "gate":
            await anyio.to_thread.run_sync(_read_fifo, fifo)
            return text_result("gate passed")
        if tool == "hang":
            return await hang()
        if tool == "cancelled":
            return text_result(str(cancelled[0]))
        if tool == "whoami":
            return text_result(str(ctx.request_id))
        if tool == "die":
            os._exit(3)
        return text_result(f"ran {arguments.get('command')}")

    serve_stdio(Server("passthrough-upstream", on_list_tools=list_tools, on_call_tool=call_tool))


if __name__ == "__main__":
    main()
