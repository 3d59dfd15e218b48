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

import sys
from typing import Any, Optional

import mcp_types as types
from _upstream import COMMON_TOOLS, PIPE_TOOLS, PipeTools, common_result, serve_stdio, text_result
from mcp.server.lowlevel import Server

TOOLS = [
    *(COMMON_TOOLS[name] for name in ("shout", "fail", "steps")),
    *(PIPE_TOOLS[name] for name in ("gate", "hang", "cancelled", "whoami", "die")),
    COMMON_TOOLS["PythonInterpreter"],
]


def main() -> None:
    pipe_tools = PipeTools(sys.argv[1])

    async def list_tools(ctx: Any, params: Optional[types.PaginatedRequestParams]) -> types.ListToolsResult:
        return types.ListToolsResult(tools=TOOLS)

    async def call_tool(ctx: Any, params: types.CallToolRequestParams) -> types.CallToolResult:
        tool, arguments = params.name, params.arguments or {}
        answer = await common_result(ctx, tool, arguments) or await pipe_tools.answer(ctx, tool)
        return answer or text_result(f"ran {arguments.get('command')}")

    serve_stdio(Server("passthrough-upstream", on_list_tools=list_tools, on_call_tool=call_tool))


if __name__ == "__main__":
    main()
