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
- ``ask``: sends the client ping, roots/list, sampling/createMessage and elicitation/create
  requests on its own call's stream and says, a line each, what each got back;
- ``PythonInterpreter``: has the name of a code-executing tool (echoes ``command``).
"""

from __future__ import annotations

import socket
import sys
from typing import Any, Optional

import mcp_types as types
import uvicorn
from _upstream import ANY, COMMON_TOOLS, PIPE_TOOLS, PipeTools, common_result, serve_stdio, text_result
from mcp.server.lowlevel import Server
from mcp.shared.exceptions import MCPError
from mcp.shared.message import ServerMessageMetadata

TOOLS = [
    *(COMMON_TOOLS[name] for name in ("shout", "fail", "steps")),
    *(PIPE_TOOLS[name] for name in ("gate", "hang", "held", "cancelled", "whoami")),
    types.Tool(name="count", description="Calls in this session.", input_schema=ANY),
    PIPE_TOOLS["die"],
    COMMON_TOOLS["PythonInterpreter"],
    types.Tool(name="ask", description="Asks the client.", input_schema=ANY),
]

#: What ``ask`` sends the client, and the result type each expects.
QUESTIONS = [
    (types.PingRequest(), types.EmptyResult),
    (types.ListRootsRequest(), types.ListRootsResult),
    (
        types.CreateMessageRequest(
            params=types.CreateMessageRequestParams(
                messages=[types.SamplingMessage(role="user", content=types.TextContent(text="hi"))],
                max_tokens=5,
            )
        ),
        types.CreateMessageResult,
    ),
    (
        types.ElicitRequest(
            params=types.ElicitRequestFormParams(
                message="Name?", requested_schema={"type": "object", "properties": {}}
            )
        ),
        types.ElicitResult,
    ),
]


async def ask(ctx: Any) -> types.CallToolResult:
    """Send each of :data:`QUESTIONS` on this call's own stream; a line per answer."""
    lines = []
    for request, result_type in QUESTIONS:
        try:
            await ctx.session.send_request(
                request, result_type, metadata=ServerMessageMetadata(related_request_id=ctx.request_id)
            )
        except MCPError as exc:
            lines.append(f"{request.method}: error {exc.error.code} {exc.error.message}")
        else:
            lines.append(f"{request.method}: answered")
    return text_result("\n".join(lines))


def main() -> None:
    pipe_tools = PipeTools(sys.argv[1])
    counts: dict[int, int] = {}

    async def list_tools(ctx: Any, params: Optional[types.PaginatedRequestParams]) -> types.ListToolsResult:
        return types.ListToolsResult(tools=TOOLS)

    async def call_tool(ctx: Any, params: types.CallToolRequestParams) -> types.CallToolResult:
        tool, arguments = params.name, params.arguments or {}
        answer = await common_result(ctx, tool, arguments) or await pipe_tools.answer(ctx, tool)
        if answer is not None:
            return answer
        if tool == "ask":
            return await ask(ctx)
        if tool == "count":
            key = id(getattr(ctx.session, "_connection", ctx.session))
            counts[key] = counts.get(key, 0) + 1
            return text_result(str(counts[key]))
        return text_result(f"ran {arguments.get('command')}")

    server = Server("http-passthrough-upstream", on_list_tools=list_tools, on_call_tool=call_tool)
    if sys.argv[2:] == ["--stdio"]:
        serve_stdio(server)
        return
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    print(f"serving MCP on http://127.0.0.1:{sock.getsockname()[1]}/mcp", file=sys.stderr, flush=True)
    config = uvicorn.Config(server.streamable_http_app(), log_level="warning", lifespan="on")
    uvicorn.Server(config).run(sockets=[sock])


if __name__ == "__main__":
    main()
