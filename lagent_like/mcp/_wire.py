"""The SDK side of ``MCPToolkit``: the loop thread, the checked session, listings and results.

``MCPToolkit`` is synchronous and the SDK is not: a daemon thread runs an event loop
that owns the MCP session. This module holds the pieces that talk to the SDK there
(so the toolkit itself is about APIs and records): the loop thread, the session that
tells a result breaking its output schema apart from a broken connection, the paged
tool listing, the conversion of MCP results to result items, and the real cause of
an error out of the exception groups the SDK's task groups wrap it in.
"""

from __future__ import annotations

import asyncio
import json
import threading
from typing import Any, NamedTuple, Optional

import mcp_types as types
from mcp.client.session import ClientSession

from ..exceptions import LagentLikeError
from ..spec._describe import copy_description

__all__ = [
    "CLOSE_GRACE",
    "BadResult",
    "CheckedSession",
    "Connection",
    "LoopThread",
    "Progress",
    "all_tools",
    "definitions",
    "error_text",
    "reason",
    "result_items",
    "tool_extras",
]

#: Seconds a closing toolkit waits for the server to shut down cleanly.
CLOSE_GRACE = 5.0


class LoopThread:
    """A daemon thread running an asyncio loop, and a way to run coroutines on it."""

    def __init__(self, name: str) -> None:
        self.loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._run, name=name, daemon=True)
        self._thread.start()

    def _run(self) -> None:
        asyncio.set_event_loop(self.loop)
        self.loop.run_forever()

    def run(self, coro: Any, timeout: Optional[float]) -> Any:
        """Run ``coro`` on the loop and wait for its result from this (another) thread."""
        return asyncio.run_coroutine_threadsafe(coro, self.loop).result(timeout)

    def stop(self) -> None:
        if self.loop.is_closed():
            return
        self.loop.call_soon_threadsafe(self.loop.stop)
        self._thread.join(CLOSE_GRACE)
        if not self._thread.is_alive():
            self.loop.close()


class Connection:
    """One live MCP session and the task that owns it (its transport lives in that task).

    ``pipe`` is the stdio server's :class:`~lagent_like.mcp._pipe.UpstreamPipe`, for
    lines passed through raw (``None`` for other transports).
    """

    def __init__(
        self, session: ClientSession, stop: asyncio.Event, task: asyncio.Task[None], pipe: Any = None
    ) -> None:
        self.session = session
        self.stop = stop
        self.task = task
        self.pipe = pipe

    @property
    def alive(self) -> bool:
        """Whether the session can still be used (a stdio server's pipe is still open)."""
        return not self.task.done() and (self.pipe is None or not self.pipe.closed.is_set())


def cause(exc: BaseException) -> BaseException:
    """The error that really happened, out of the exception groups task groups wrap it in.

    The SDK's transports run in task groups, so a refused connection arrives as
    "ExceptionGroup: unhandled errors in a TaskGroup (1 sub-exception)"; the first
    member that is not a cancellation (a consequence, not a cause) is the reason.
    """
    while True:
        members = getattr(exc, "exceptions", None)
        if not isinstance(members, (list, tuple)) or not members:
            return exc
        causes = [m for m in members if not isinstance(m, asyncio.CancelledError)]
        exc = (causes or list(members))[0]


def reason(exc: BaseException) -> str:
    exc = cause(exc)
    text = str(exc)
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__


async def all_tools(session: ClientSession) -> list[types.Tool]:
    """Every tool the server lists, following pagination."""
    tools: list[types.Tool] = []
    cursor: Optional[str] = None
    while True:
        params = types.PaginatedRequestParams(cursor=cursor) if cursor is not None else None
        page = await session.list_tools(params=params)
        tools += page.tools
        cursor = page.next_cursor
        if not cursor:
            return tools


def content_item(block: Any) -> dict[str, Any]:
    """One MCP content block as a result item (``{'type', 'content'}``)."""
    if isinstance(block, types.TextContent):
        return {"type": "text", "content": block.text}
    if isinstance(block, (types.ImageContent, types.AudioContent)):
        return {"type": block.type, "content": f"data:{block.mime_type};base64,{block.data}"}
    # Resources and future block types: keep everything the server sent, as JSON text.
    return {"type": "text", "content": block.model_dump_json(by_alias=True, exclude_none=True)}


def result_items(result: types.CallToolResult) -> list[dict[str, Any]]:
    items = [content_item(block) for block in result.content]
    if not items and result.structured_content is not None:
        items = [{"type": "text", "content": json.dumps(result.structured_content, ensure_ascii=False)}]
    return items or [{"type": "text", "content": ""}]


def error_text(result: types.CallToolResult) -> str:
    text = "\n".join(str(item["content"]) for item in result_items(result))
    return text or "the MCP tool reported an error without a message"


class Progress(NamedTuple):
    """A server's progress notification during a call, handed on as one chunk of progress.

    ``MCPToolkit`` gives each one to the call's ``on_progress``; a server serving the
    toolkit again (``lagent_like.mcp.server``) sends it on with these very values.
    """

    progress: float
    total: Optional[float]
    message: Optional[str]


class BadResult(LagentLikeError):
    """A result whose structured content breaks the tool's own output schema."""


class CheckedSession(ClientSession):
    """The SDK session, with a result that breaks its output schema told apart.

    The SDK raises a bare ``RuntimeError`` for it, which cannot be told from a broken
    connection; the server did answer, so the call is an error record and the
    connection stays.
    """

    async def validate_tool_result(self, name: str, result: types.CallToolResult) -> None:
        try:
            await super().validate_tool_result(name, result)
        except RuntimeError as exc:
            # jsonschema's own text runs to many lines: keep its first, with the path.
            cause = exc.__cause__
            detail = getattr(cause, "message", None)
            if not isinstance(detail, str):
                raise BadResult(str(exc)) from exc
            path = ".".join(str(part) for part in getattr(cause, "absolute_path", ()))
            raise BadResult(f"at {path!r}: {detail}" if path else detail) from exc


def definitions(tools: list[types.Tool]) -> list[dict[str, Any]]:
    return [tool.model_dump(by_alias=True, exclude_none=True) for tool in tools]


def tool_extras(tool: types.Tool) -> dict[str, Any]:
    """What MCP says about a tool beyond name, description and input: kept to serve it again."""
    extras: dict[str, Any] = {}
    if tool.title is not None:
        extras["title"] = tool.title
    if tool.annotations is not None:
        extras["annotations"] = tool.annotations.model_dump(by_alias=True, exclude_none=True)
    if tool.output_schema is not None:
        extras["outputSchema"] = copy_description(tool.output_schema)
    return extras
