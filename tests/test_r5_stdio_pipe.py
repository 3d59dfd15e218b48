"""A stdio server's answers to raw lines reach their senders from the read callback; nothing is left after."""

from __future__ import annotations

import asyncio
import os
import sys
import threading
from typing import Any, Optional

import pytest

pytest.importorskip("mcp", reason="needs the 'mcp' extra: pip install '.[mcp]' (or 'lagent-like[mcp]')")

from mcp.client.stdio import StdioServerParameters

from lagent_like.mcp._pipe import pass_id, piped_stdio_client

#: A server that, told to go, writes two answers and a notice in one write, the last
#: answer without its newline, and exits.
SERVER = r"""
import sys
first, last = sys.argv[1:3]
sys.stdin.readline()
sys.stdout.write(
    '{"jsonrpc":"2.0","id":"%s","result":{}}\n'
    '{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"hi"}}\n'
    '{"jsonrpc":"2.0","id":"%s","result":{"content":[]}}' % (first, last)
)
sys.stdout.flush()
"""


def _open_fds() -> Optional[int]:
    return len(os.listdir("/proc/self/fd")) if os.path.isdir("/proc/self/fd") else None


def test_answers_in_one_read_and_a_last_line_without_newline_reach_their_senders() -> None:
    async def scenario() -> tuple[dict[str, Optional[bytes]], Any]:
        first, last = pass_id(), pass_id()
        answers: dict[str, Optional[bytes]] = {}
        params = StdioServerParameters(command=sys.executable, args=["-c", SERVER, first, last])
        with open(os.devnull, "w", encoding="utf-8") as errlog:
            async with piped_stdio_client(params, errlog=errlog) as (read, _, pipe):
                for key in (first, last):
                    pipe.expect(key, lambda line, message, key=key: answers.setdefault(key, line))
                assert pipe.send(b"go\n")
                notice = await read.receive()
                await pipe.closed.wait()
        return {"first" if key == first else "last": line for key, line in answers.items()}, notice

    answers, notice = asyncio.run(scenario())
    assert answers["first"] is not None and answers["first"].endswith(b'"result":{}}')
    assert answers["last"] is not None and answers["last"].endswith(b'"result":{"content":[]}}')
    assert notice.message.method == "notifications/message"


def test_closing_the_pipe_leaves_no_thread_and_no_open_file() -> None:
    async def scenario() -> None:
        params = StdioServerParameters(command=sys.executable, args=["-c", SERVER, pass_id(), pass_id()])
        with open(os.devnull, "w", encoding="utf-8") as errlog:
            async with piped_stdio_client(params, errlog=errlog) as (_, _, pipe):
                assert pipe.send(b"go\n")
                await pipe.closed.wait()

    threads, fds = threading.active_count(), _open_fds()
    asyncio.run(scenario())
    assert (threading.active_count(), _open_fds()) == (threads, fds)
