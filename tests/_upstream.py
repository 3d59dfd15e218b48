"""What the suite's stdio upstream MCP servers share (not a test file).

The proxy and pass-through tests re-serve small servers built on the SDK's low-level
``Server`` (``mcp_proxy_upstream.py``, ``r4_passthrough_upstream.py``). Both offer
``shout``, ``fail``, ``steps`` and a ``PythonInterpreter`` look-alike, defined and
answered here once, and serve over stdio the same way. Imported by those scripts
(run as programs, their folder first on ``sys.path``); holds no state.
"""

from __future__ import annotations

import json
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


def serve_stdio(server: Server[Any]) -> None:
    """Run ``server`` over this process's stdin and stdout until the client leaves."""

    async def serve() -> None:
        async with stdio_server() as (read, write):
            await server.run(read, write, server.create_initialization_options())

    anyio.run(serve)
