"""Who a request belongs to: executor sessions per MCP connection, and each client's fair share.

An MCP server serves many clients from one executor. Each connection gets an executor
session of its own (its ``ToolContext.state``, its interpreter session), opened on its
first call and ended (``executor.end_session``) when the connection closes; and each
client may run only so many calls at once, so that one busy client cannot hold every
worker thread while another's trivial call waits.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import threading
from collections.abc import AsyncIterator
from typing import TYPE_CHECKING, Any, Callable, Optional, Protocol

import anyio
from mcp.server.subscriptions import InMemorySubscriptionBus, ListenHandler, ToolsListChanged
from mcp_types import SubscriptionsListenRequestParams, SubscriptionsListenResult
from mcp_types.version import MODERN_PROTOCOL_VERSIONS

if TYPE_CHECKING:
    from mcp.server.context import ServerRequestContext

__all__ = ["ClientLimits", "Sessions", "ToolListNotices", "client_key"]


class _EndsSessions(Protocol):
    """An executor, either kind: what ``Sessions`` needs of it."""

    def end_session(self, session_id: str) -> None: ...


class Sessions:
    """An executor session per MCP connection, ended (``executor.end_session``) with it.

    A connection of the handshake protocol (stdio, or an HTTP session with an
    ``Mcp-Session-Id``) keeps one session for its lifetime, so each client has its own
    ``ToolContext.state`` (and interpreter session). A request without a session (the
    2026-07-28 protocol) gets a session of its own that ends with the request: there is
    no client to keep state for, and sharing one would let strangers see each other's.
    """

    def __init__(self, executor: _EndsSessions) -> None:
        self._executor = executor
        self._count = itertools.count(1)

    def id_of(self, ctx: ServerRequestContext[Any]) -> str:
        """The executor session of the request's connection, opened on first use."""
        connection = _connection_of(ctx)
        state = getattr(connection, "state", None)
        if connection is None or not isinstance(state, dict):
            # No connection object to hang the session on (not expected in mcp 2.x):
            # the request still gets a session of its own, never a shared one.
            return f"mcp-request-{next(self._count)}"
        session_id = state.get(_SESSION_KEY)
        if session_id is None:
            session_id = state[_SESSION_KEY] = f"mcp-{next(self._count)}"
            connection.exit_stack.push_async_callback(self._end, session_id)
        return str(session_id)

    async def _end(self, session_id: str) -> None:
        # Ending a session may stop a process (an interpreter's): not on the loop.
        await anyio.to_thread.run_sync(self._end_now, session_id)

    def _end_now(self, session_id: str) -> None:
        """End ``session_id`` in the executor, which releases every tool's share of it."""
        self._executor.end_session(session_id)


def _connection_of(ctx: ServerRequestContext[Any]) -> Any:
    """The SDK's ``Connection`` behind a request or notification, or ``None`` if it has none.

    The low-level context offers only the session; the connection (its ``state``,
    ``exit_stack`` and standalone channel) is what lives as long as the client.
    """
    return getattr(ctx.session, "_connection", None)


class ToolListNotices:
    """The connected clients, told when the served tool list changes.

    A client of a handshake protocol that listed the tools keeps that list until the
    server sends ``notifications/tools/list_changed`` on the connection's standalone
    channel (stdio, or an HTTP session's event stream). Connections are noted once
    they are initialized and forgotten when they end.

    A client of the 2026-07-28 protocol has no connection to be told on: it opens a
    ``subscriptions/listen`` stream instead (:meth:`on_listen`, served by the SDK's
    ``ListenHandler``), and is sent the notification on it when it asked for tool
    changes. :meth:`announce` tells both kinds; it may be called from any thread (an
    ``MCPToolkit``'s loop tells of its server's change).
    """

    def __init__(self) -> None:
        self._open: dict[int, tuple[Any, asyncio.AbstractEventLoop]] = {}
        # One bus per serving loop: the SDK's bus hands events to the streams synchronously.
        self._buses: dict[asyncio.AbstractEventLoop, tuple[InMemorySubscriptionBus, ListenHandler]] = {}
        self._lock = threading.Lock()

    async def on_listen(
        self, ctx: ServerRequestContext[Any], params: SubscriptionsListenRequestParams
    ) -> SubscriptionsListenResult:
        """The ``subscriptions/listen`` handler: the client's stream of change notifications."""
        loop = asyncio.get_running_loop()
        with self._lock:
            found = self._buses.get(loop)
            if found is None:
                bus = InMemorySubscriptionBus()
                found = self._buses[loop] = (bus, ListenHandler(bus))
        return await found[1](ctx, params)

    async def on_initialized(self, ctx: ServerRequestContext[Any], params: Any) -> None:
        """The ``notifications/initialized`` handler: note the client's connection until it ends."""
        connection = _connection_of(ctx)
        if connection is None or not getattr(connection, "has_standalone_channel", False):
            return  # no channel to tell it on
        key = id(connection)
        with self._lock:
            self._open[key] = (connection, asyncio.get_running_loop())
        connection.exit_stack.callback(self._forget, key)

    def _forget(self, key: int) -> None:
        with self._lock:
            self._open.pop(key, None)

    def announce(self) -> None:
        """Send ``notifications/tools/list_changed`` to every connected client (never raises)."""
        with self._lock:
            listeners = list(self._open.values())
            buses = [(loop, bus) for loop, (bus, _) in self._buses.items()]
        for connection, loop in listeners:
            _on(loop, connection.send_tool_list_changed())  # never raises: a closed stream drops it
        for loop, bus in buses:
            _on(loop, bus.publish(ToolsListChanged()))


def _on(loop: asyncio.AbstractEventLoop, notice: Any) -> None:
    """Run coroutine ``notice`` on ``loop``, if it still runs (else nobody is left to tell)."""
    try:
        asyncio.run_coroutine_threadsafe(notice, loop)
    except RuntimeError:
        notice.close()


#: Where a connection's ``state`` keeps its executor session id.
_SESSION_KEY = "lagent_like.session_id"


def _nothing() -> None:
    """The release of a slot that was never limited."""


def client_key(ctx: ServerRequestContext[Any], session_id: str) -> Any:
    """Whose share of the server a request counts against.

    A connection with a lifetime is one client. Sessionless requests are counted by
    the peer address they come from (all in-process ones together).
    """
    if ctx.protocol_version not in MODERN_PROTOCOL_VERSIONS:
        return session_id
    client = getattr(ctx.request, "client", None)
    return ("peer", getattr(client, "host", None))


class ClientLimits:
    """At most ``limit`` calls of one client run at once; the others queue, for a while.

    The executor has a fixed number of worker threads: without a per-client limit,
    one client sending many slow calls holds all of them and every other client's
    trivial call waits. Runs on the server's event loop only, so it needs no lock.
    """

    def __init__(self, limit: Optional[int], timeout: Optional[float]) -> None:
        self._limit = limit
        self._timeout = timeout
        self._gates: dict[Any, tuple[anyio.Semaphore, list[int]]] = {}

    def take(self, key: Any) -> Optional[Callable[[], None]]:
        """Hold one of ``key``'s slots if one is free right now: how to release it; ``None`` if none is.

        For a caller that cannot wait here (a line passed through as it is read):
        ``None`` means it must queue through :meth:`slot` instead.
        """
        if self._limit is None:
            return _nothing
        gate, users = self._gates.get(key) or self._gates.setdefault(key, (anyio.Semaphore(self._limit), [0]))
        if gate.value <= 0:
            return None
        gate.acquire_nowait()
        users[0] += 1

        def release() -> None:
            gate.release()
            users[0] -= 1
            if not users[0]:
                self._gates.pop(key, None)

        return release

    @contextlib.asynccontextmanager
    async def slot(self, key: Any) -> AsyncIterator[Optional[str]]:
        """Hold one of ``key``'s slots; yields why the call is refused (``None``: go on)."""
        if self._limit is None:
            yield None
            return
        gate, users = self._gates.get(key) or self._gates.setdefault(key, (anyio.Semaphore(self._limit), [0]))
        users[0] += 1
        try:
            try:
                if gate.value > 0:
                    gate.acquire_nowait()  # the common case: no timer to set up per call
                else:
                    with anyio.fail_after(self._timeout):
                        await gate.acquire()
            except TimeoutError:
                yield (
                    f"this client already has {self._limit} calls running; this call waited "
                    f"{self._timeout:g}s for one of them to finish. Wait for your calls to end, "
                    "then try again"
                )
                return
            try:
                yield None
            finally:
                gate.release()
        finally:
            users[0] -= 1
            if not users[0]:
                self._gates.pop(key, None)
