"""Generator tools over MCP (issue 20, item 5): chunks as progress notifications, the whole output as result.

The server sends each chunk as MCP's ``notifications/progress`` for a request that
carried a ``progressToken`` (the SDK client sets one when given a
``progress_callback``), numbered from 1 with the chunk as ``message``, before the
result, which holds the whole output.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Iterator
from typing import Any, Optional

import pytest

pytest.importorskip("mcp", reason="needs the 'mcp' extra: pip install '.[mcp]' (or 'lagent-like[mcp]')")

import anyio
from mcp import Client

from lagent_like import ActionExecutor, AsyncActionExecutor, BaseAction, ToolSettings, tool_api
from lagent_like.mcp import build_mcp_server

#: Seconds any one test may wait for the in-memory server.
LIMIT = 30


class Feed(BaseAction, register=False):
    """Tools that stream their output."""

    @tool_api
    def words(self, text: str) -> Iterator[str]:
        """Say a text word by word.

        Args:
            text: the text to say
        """
        for word in text.split():
            yield word + " "

    @tool_api
    async def rows(self, n: int) -> AsyncIterator[dict[str, int]]:
        """Yield n rows.

        Args:
            n: how many rows
        """
        for i in range(n):
            await asyncio.sleep(0)
            yield {"row": i}

    @tool_api
    def nothing(self) -> None:
        """Do nothing, say nothing."""


def _call(executor: Any, name: str, arguments: dict[str, Any]) -> tuple[list[Any], Any]:
    events: list[tuple[float, Optional[float], Optional[str]]] = []

    async def progress(done: float, total: Optional[float], message: Optional[str]) -> None:
        events.append((done, total, message))

    async def run() -> Any:
        with anyio.fail_after(LIMIT):
            async with Client(build_mcp_server(executor)) as client:
                return await client.call_tool(name, arguments, progress_callback=progress)

    return events, anyio.run(run)


EXECUTORS = [
    pytest.param(ActionExecutor, id="sync-executor"),
    pytest.param(AsyncActionExecutor, id="async-executor"),
    pytest.param(lambda tools: ActionExecutor(tools, timeout=20), id="sync-executor-with-timeout"),
]


@pytest.mark.parametrize("make", EXECUTORS)
@pytest.mark.parametrize(
    ("name", "arguments", "events", "text"),
    [
        pytest.param(
            "Feed__words",
            {"text": "one two"},
            [(1, None, "one "), (2, None, "two ")],
            "one two ",
            id="sync-generator",
        ),
        pytest.param(
            "Feed__rows",
            {"n": 2},
            [(1, None, '{"row": 0}'), (2, None, '{"row": 1}')],
            '[{"row": 0}, {"row": 1}]',
            id="async-generator",
        ),
        pytest.param("Feed__nothing", {}, [], "", id="none-is-an-empty-result"),
    ],
)
def test_server_sends_each_chunk_as_a_progress_notification(
    make: Any, name: str, arguments: dict[str, Any], events: list[Any], text: str
) -> None:
    got, result = _call(make([Feed()]), name, arguments)
    assert got == events
    assert result.is_error is False
    assert [block.text for block in result.content] == [text]


def test_server_times_out_a_stalled_generator_with_an_error_result() -> None:
    class Stall(BaseAction, register=False):
        """A feed that stalls."""

        __tool_settings__ = ToolSettings(timeout=0.5)

        @tool_api
        async def run(self) -> AsyncIterator[str]:
            """Yield once, then stall."""
            yield "early"
            await asyncio.Event().wait()

    got, result = _call(AsyncActionExecutor([Stall()]), "Stall", {})
    assert got == [(1, None, "early")]
    assert result.is_error is True
    assert [block.text for block in result.content] == ["'Stall' timed out after 0.5 s"]
