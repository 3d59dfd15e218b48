"""The connection behind an ``MCPToolkit``: open a session, keep it, reopen it, end it.

The SDK's transports are task-scoped (one task must both open and close them), a
dead server must be replaced on the next call, and two calls that find the
connection gone must not both reconnect nor end each other's new one. That life
cycle is the same whatever the toolkit does with the session, so it lives here,
apart from the toolkit's APIs and records (:mod:`.client`). Everything here runs on
the toolkit's background loop.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Awaitable
from contextlib import AbstractAsyncContextManager, AsyncExitStack
from dataclasses import dataclass, field
from typing import Any, Callable, Optional

from mcp.client.session import ClientSession, MessageHandlerFnT

from .._private.log import logger
from ..exceptions import LagentLikeError
from ._pipe import UpstreamPipe
from ._wire import CLOSE_GRACE, CheckedSession, Connection, reason

__all__ = ["MCPConnectionError", "ServerLink", "SessionLinks", "drop_all"]


class MCPConnectionError(LagentLikeError, ConnectionError):
    """The MCP server could not be reached, or did not answer the handshake or tool listing."""


@dataclass(eq=False)
class ServerLink:
    """One MCP session at a time with one server, (re)opened on demand.

    Args:
        transport: opens the transport (stdio or HTTP streams) each time a session starts.
        target: the server as messages name it (its URL or command line).
        connect_timeout: seconds for the server to start and finish the handshake.
        on_message: the session's handler of server notifications.
        on_connect: run on each new session before it is used (the toolkit lists the
            tools); if it raises, the session is ended and the error goes to the caller.
    """

    transport: Callable[[], AbstractAsyncContextManager[Any]]
    target: str
    connect_timeout: Optional[float]
    on_message: MessageHandlerFnT
    on_connect: Callable[[ClientSession], Awaitable[None]]
    _conn: Optional[Connection] = field(default=None, init=False)
    _connecting: Optional[asyncio.Lock] = field(default=None, init=False)

    @property
    def connection(self) -> Optional[Connection]:
        """The current connection, alive or not; ``None`` when there is none."""
        return self._conn

    @property
    def connected(self) -> bool:
        """Whether a session is open right now."""
        conn = self._conn
        return conn is not None and conn.alive

    async def _own_session(
        self, ready: asyncio.Future[tuple[ClientSession, Any]], stop: asyncio.Event
    ) -> None:
        """Open the transport and session, hand the session over, and hold both until ``stop``.

        The SDK's transports are task-scoped, so one task must both open and close them.
        A stdio server's raw pipe (a third stream) is handed over too; its end (the
        server went away) ends the connection, so that the next call opens a new one.
        """
        try:
            async with AsyncExitStack() as stack:
                streams = await stack.enter_async_context(self.transport())
                pipe = streams[2] if len(streams) > 2 and isinstance(streams[2], UpstreamPipe) else None
                # No session-wide read timeout: a starting server may take seconds to read
                # the handshake; connecting has its own limit, calls pass theirs.
                session = CheckedSession(streams[0], streams[1], message_handler=self.on_message)
                await stack.enter_async_context(session)
                await session.initialize()
                ready.set_result((session, pipe))
                await _until(stop, pipe)
        except asyncio.CancelledError:
            if not ready.done():
                ready.set_exception(MCPConnectionError(f"connecting to {self.target} was cancelled"))
            raise
        except BaseException as exc:  # noqa: BLE001 - reported to the waiting caller, or logged
            if not ready.done():
                ready.set_exception(exc)
            else:
                logger().info("MCP session with %s ended: %s", self.target, reason(exc))

    async def session(self) -> ClientSession:
        """The live session, connecting (and running ``on_connect``) when there is none."""
        if self._connecting is None:
            self._connecting = asyncio.Lock()
        async with self._connecting:
            if self._conn is not None and self._conn.alive:
                return self._conn.session
            await self.drop()
            loop = asyncio.get_running_loop()
            ready: asyncio.Future[tuple[ClientSession, Any]] = loop.create_future()
            stop = asyncio.Event()
            task = loop.create_task(self._own_session(ready, stop))
            try:
                session, pipe = await asyncio.wait_for(asyncio.shield(ready), self.connect_timeout)
            except BaseException:
                task.cancel()
                await asyncio.gather(task, return_exceptions=True)
                raise
            self._conn = Connection(session, stop, task, pipe)
            try:
                await self.on_connect(session)
            except BaseException:
                await self.drop(session)
                raise
            return session

    async def drop(self, session: Optional[ClientSession] = None) -> None:
        """End the current connection (only if it is ``session``'s, when given) and wait for it.

        A call that saw its session fail names it, so that it cannot end a newer
        connection another call has opened meanwhile.
        """
        conn = self._conn
        if conn is None or (session is not None and conn.session is not session):
            return
        self._conn = None
        conn.stop.set()
        try:
            await asyncio.wait_for(asyncio.shield(conn.task), CLOSE_GRACE)
        except (asyncio.TimeoutError, Exception):  # noqa: BLE001 - a dying session has nothing more to say
            conn.task.cancel()
            await asyncio.gather(conn.task, return_exceptions=True)


class SessionLinks:
    """A toolkit's links to its server: one per executor session, or one shared by all.

    An MCP session has state on the server (an interpreter's names, a browser page, the
    memo of a ``ToolContext``): two executor sessions sharing one would see each
    other's. So each executor session gets a link of its own, opened on its first
    call and ended with the session (``executor.end_session``); ``shared`` keeps the
    single link of a stateless server instead. The table is read and changed from the
    callers' threads; the links themselves run on the toolkit's loop.

    Args:
        transport, target, connect_timeout, on_connect: each link's (see :class:`ServerLink`).
        on_message: the handler of server notifications, called with the link they came by.
        shared: one link serves every session, and ending a session leaves it open.
    """

    def __init__(
        self,
        transport: Callable[[], AbstractAsyncContextManager[Any]],
        target: str,
        connect_timeout: Optional[float],
        on_message: Callable[[ServerLink, Any], Awaitable[None]],
        on_connect: Callable[[ClientSession], Awaitable[None]],
        shared: bool,
    ) -> None:
        self._link_args = (transport, target, connect_timeout)
        self._on_message = on_message
        self._on_connect = on_connect
        self._shared = shared
        self._links: dict[str, ServerLink] = {}
        self._lock = threading.Lock()

    def get(self, session_id: str) -> ServerLink:
        """The link of ``session_id``, made on first use (the shared one when ``shared``)."""
        key = "" if self._shared else session_id
        with self._lock:
            link = self._links.get(key)
            if link is None:
                link = self._links[key] = self._make()
            return link

    def _make(self) -> ServerLink:
        """A new, unopened link; its notifications are handled with it."""

        async def on_message(message: Any) -> None:
            await self._on_message(link, message)

        link = ServerLink(*self._link_args, on_message, self._on_connect)
        return link

    def pop(self, session_id: str) -> Optional[ServerLink]:
        """Forget ``session_id``'s own link and return it (``None``: none, or links are shared)."""
        if self._shared:
            return None
        with self._lock:
            return self._links.pop(session_id, None)

    def pop_all(self) -> list[ServerLink]:
        """Forget every link and return them."""
        with self._lock:
            links, self._links = list(self._links.values()), {}
        return links

    def connected(self) -> list[str]:
        """The sessions whose link is open right now, sorted (``[""]`` for the shared one)."""
        with self._lock:
            return sorted(key for key, link in self._links.items() if link.connected)


async def _until(stop: asyncio.Event, pipe: Optional[UpstreamPipe]) -> None:
    """Wait for ``stop``, or for ``pipe`` to close (its server went away)."""
    if pipe is None:
        await stop.wait()
        return
    waits = [asyncio.ensure_future(stop.wait()), asyncio.ensure_future(pipe.closed.wait())]
    try:
        await asyncio.wait(waits, return_when=asyncio.FIRST_COMPLETED)
    finally:
        for wait in waits:
            wait.cancel()
        await asyncio.gather(*waits, return_exceptions=True)


async def drop_all(links: list[ServerLink]) -> None:
    """End every connection of ``links`` at once and wait for them (failures are the links' own)."""
    await asyncio.gather(*(link.drop() for link in links), return_exceptions=True)
