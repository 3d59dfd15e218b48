"""A tiny MCP server for the inspector's Servers panel tests and benchmark.

Run as ``python r3_inspector_mcp_server.py NAME TOOLS [--http TOKEN]``: a server
announcing ``NAME`` in its ``serverInfo`` whose tools are named in ``TOOLS``: a file
with one tool name a line (read at each start, so that a test can change the list
between two connections), or a number ``N`` for ``tool_1`` .. ``tool_N``. Each tool
takes ``text`` (a string) and ``times`` (an integer, default 1) and answers
``<tool>: <text>`` repeated. Over stdio by default; with ``--http TOKEN`` over
streamable HTTP on 127.0.0.1 (a free port, printed as ``serving MCP on URL`` on stderr).
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Callable

from lagent_like import ActionExecutor
from lagent_like.mcp import serve_mcp


def echo_tool(name: str) -> Callable[..., str]:
    """A function tool called ``name`` that repeats its text."""

    def echo(text: str, times: int = 1) -> str:
        return " ".join([f"{name}: {text}"] * times)

    echo.__name__ = echo.__qualname__ = name
    echo.__doc__ = (
        f"Repeat a text, as tool {name} says it.\n\n"
        "Args:\n    text: the text to repeat.\n    times: how many times.\n\n"
        "Returns:\n    The text, repeated.\n"
    )
    return echo


def tool_names(spec: str) -> list[str]:
    """The tool names ``spec`` gives: a count or a file of names."""
    if spec.isdigit():
        return [f"tool_{n}" for n in range(1, int(spec) + 1)]
    return [line.strip() for line in Path(spec).read_text().splitlines() if line.strip()]


def main() -> None:
    """Serve the tools named on the command line until stdin closes or the process stops."""
    name, spec, *rest = sys.argv[1:]
    executor = ActionExecutor(actions=[echo_tool(tool) for tool in tool_names(spec)])
    if rest[:1] == ["--http"]:
        serve_mcp(executor, transport="http", port=0, token=rest[1], name=name)
    else:
        serve_mcp(executor, name=name)


if __name__ == "__main__":
    main()
