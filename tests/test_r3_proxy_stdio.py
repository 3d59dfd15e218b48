"""``serve-mcp`` over stdio reads and writes its pipes on the event loop, and still guards them.

The server's stdin and stdout are asyncio pipe streams when both are pipes (as an MCP
host starts a server); while it serves, a tool that prints or reads cannot reach the
protocol's streams (its output goes to stderr, its input is empty). Messages longer
than asyncio's default line limit pass.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("mcp", reason="needs the 'mcp' extra: pip install '.[mcp]' (or 'lagent-like[mcp]')")

import anyio
import mcp_types as types
from mcp.client.session import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client

import lagent_like

ROOT = Path(lagent_like.__file__).parent.parent

TOOLS = '''
from lagent_like import BaseAction


class R3Noisy(BaseAction):
    """Prints, reads, then answers."""

    def run(self, text: str) -> str:
        """Answer quietly.

        Args:
            text: what to answer.
        """
        print("noise on stdout", flush=True)
        try:
            typed = input()
        except EOFError:
            typed = "<eof>"
        return f"{text} {typed}"


class R3Long(BaseAction):
    """Answers at length."""

    def run(self, text: str) -> str:
        """Repeat the text's length.

        Args:
            text: a long text.
        """
        return "x" * len(text)
'''


def serve_command(tmp_path: Path) -> tuple[list[str], dict[str, str]]:
    (tmp_path / "r3_stdio_tools.py").write_text(TOOLS, encoding="utf-8")
    paths = (str(ROOT), str(tmp_path), os.environ.get("PYTHONPATH", ""))
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(p for p in paths if p)}
    return [sys.executable, "-m", "lagent_like", "-m", "r3_stdio_tools", "serve-mcp"], env


def calls(tmp_path: Path, errlog: Any, *requests: tuple[str, dict[str, Any]]) -> list[str]:
    """The text of each ``(tool, arguments)`` call's result, over one stdio session."""
    command, env = serve_command(tmp_path)

    async def run() -> list[str]:
        params = StdioServerParameters(command=command[0], args=command[1:], env=env)
        async with (
            stdio_client(params, errlog=errlog) as (read, write),
            ClientSession(read, write) as session,
        ):
            await session.initialize()
            texts = []
            for tool, arguments in requests:
                block = (await session.call_tool(tool, arguments)).content[0]
                assert isinstance(block, types.TextContent)
                texts.append(block.text)
            return texts

    result: list[str] = anyio.run(run)
    return result


def test_a_tool_that_prints_and_reads_cannot_reach_the_protocol(tmp_path: Path) -> None:
    log = tmp_path / "stderr.txt"
    with log.open("w") as errlog:
        texts = calls(tmp_path, errlog, ("R3Noisy", {"text": "hi"}), ("R3Noisy", {"text": "again"}))
    assert texts == ["hi <eof>", "again <eof>"]
    assert log.read_text().splitlines().count("noise on stdout") == 2


def test_messages_longer_than_a_line_buffer_pass(tmp_path: Path) -> None:
    long = "y" * 300_000  # asyncio's default line limit is 64 KiB
    assert calls(tmp_path, None, ("R3Long", {"text": long})) == ["x" * 300_000]
