"""What the suite's upstream MCP servers share (not a test file).

The proxy and pass-through tests re-serve small servers built on the SDK's low-level
``Server`` (``mcp_proxy_upstream.py``, ``r4_passthrough_upstream.py``,
``r5_http_server.py``). They offer ``shout``, ``fail``, ``steps`` and a
``PythonInterpreter`` look-alike, the pass-through ones also the pipe-driven tools of
:class:`PipeTools`, defined and answered here once, and serve over stdio the same way.
Imported by those scripts (run as programs, their folder first on ``sys.path``); holds
no state.
"""

from __future__ import annotations

import json
import os
from typing import Any, Optional

import anyio
import mcp_types as types
from mcp.server.lowlevel import Server
from mcp.server.stdio import stdio_server

TEXT = {"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]}
ANY = {"type": "object"}

#: ``shout`` (title, annotations, output schema), ``fail``, ``steps`` and ``PythonInterpreter``.
COMMON_TOOLS = {
    "shout": types.Tool(
        name="shout",
        title="Shouter",
        description="Say it loud.",
        input_schema=TEXT,
        output_schema={"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]},
        annotations=types.ToolAnnotations(read_only_hint=True, open_world_hint=False),
    ),
    "fail": types.Tool(name="fail", description="Always fails.", input_schema=ANY),
    "steps": types.Tool(name="steps", description="Three steps.", input_schema=ANY),
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


def text_result(text: str, error: bool = False) -> types.CallToolResult:
    """A result of one text block (an ``isError`` one when ``error``)."""
    return types.CallToolResult(content=[types.TextContent(text=text)], is_error=error)


async def common_result(ctx: Any, tool: str, arguments: dict[str, Any]) -> Optional[types.CallToolResult]:
    """The answer of ``shout``, ``fail`` or ``steps``; ``None`` for any other tool.

    ``shout`` answers ``{"text": TEXT.upper()}`` as structured content, ``fail`` an
    ``isError`` result with a fixed text, ``steps`` three progress notifications (1/3
    "one", 2/3 "two", 3/3 no message) and then "done".
    """
    if tool == "shout":
        loud = {"text": str(arguments["text"]).upper()}
        return types.CallToolResult(
            content=[types.TextContent(text=json.dumps(loud))], structured_content=loud
        )
    if tool == "fail":
        return text_result("it failed, as always", error=True)
    if tool == "steps":
        for step, message in ((1, "one"), (2, "two"), (3, None)):
            await ctx.session.report_progress(step, 3, message)
        return text_result("done")
    return None


#: The pass-through tests' tools driven by the test through a named pipe (see :class:`PipeTools`).
PIPE_TOOLS = {
    "gate": types.Tool(name="gate", description="Waits for the test.", input_schema=ANY),
    "hang": types.Tool(name="hang", description="Never answers.", input_schema=ANY),
    "held": types.Tool(name="held", description="Signals, then never answers.", input_schema=ANY),
    "cancelled": types.Tool(name="cancelled", description="Cancelled hangs.", input_schema=ANY),
    "whoami": types.Tool(name="whoami", description="Its request id.", input_schema=ANY),
    "die": types.Tool(name="die", description="Exits mid-call.", input_schema=ANY),
}


def _read_line(path: str) -> str:
    with open(path, encoding="utf-8") as fifo:
        return fifo.readline()


class PipeTools:
    """The answers of :data:`PIPE_TOOLS`; the test drives them through the named pipe ``fifo``.

    ``gate`` answers "gate passed" once a line can be read from ``fifo`` (no clock
    involved); ``hang`` never answers, and a cancelled one is counted; ``held`` reads a
    line (so the test knows it runs), then hangs; ``cancelled`` says how many hangs were
    cancelled; ``whoami`` the JSON-RPC id of its own request; ``die`` exits mid-call.
    """

    def __init__(self, fifo: str) -> None:
        self.fifo = fifo
        self.cancelled = 0

    async def answer(self, ctx: Any, tool: str) -> Optional[types.CallToolResult]:
        """The answer of ``tool``, one of :data:`PIPE_TOOLS`; ``None`` for any other tool."""
        if tool in ("gate", "held"):
            await anyio.to_thread.run_sync(_read_line, self.fifo)
            if tool == "gate":
                return text_result("gate passed")
        if tool in ("hang", "held"):
            return await self._hang()
        if tool == "cancelled":
            return text_result(str(self.cancelled))
        if tool == "whoami":
            return text_result(str(ctx.request_id))
        if tool == "die":
            os._exit(3)
        return None

    async def _hang(self) -> types.CallToolResult:
        try:
            await anyio.sleep_forever()
        finally:
            self.cancelled += 1
        raise AssertionError("unreachable")


def serve_stdio(server: Server[Any]) -> None:
    """Run ``server`` over this process's stdin and stdout until the client leaves."""

    async def serve() -> None:
        async with stdio_server() as (read, write):
            await server.run(read, write, server.create_initialization_options())

    anyio.run(serve)
