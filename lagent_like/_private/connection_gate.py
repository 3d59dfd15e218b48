"""Limits that hold before authentication, for the package's uvicorn servers.

A token check runs only once a request head has arrived, so a client without the
token could still hold connections open for good (half-sent heads, or nothing at
all) until the server runs out of descriptors, and every legitimate client waits.
uvicorn bounds neither: ``limit_concurrency`` answers 503 only to a complete head,
and its keep-alive timer stops at the first byte. The :class:`ConnectionGate` adds
what is missing, in front of whichever HTTP protocol uvicorn picked:

* at most ``max_connections`` open connections, and ``max_connections_per_peer`` from one
  address; a connection over either is answered at once (503 or 429) and closed;
* a connection must complete each request head within ``head_timeout`` seconds of
  opening, or of its previous answer; otherwise it is answered 408 and closed.

It has two halves that share per-connection state on the server's event loop: an
asyncio protocol wrapper (counts, timers) and an ASGI wrapper (which tells the
connection that a head arrived, and when its answer is done).
"""

from __future__ import annotations

import asyncio
from collections import Counter
from collections.abc import Awaitable, MutableMapping
from typing import Any, Callable, ClassVar, Optional, cast

__all__ = [
    "DEFAULT_HEAD_TIMEOUT",
    "DEFAULT_MAX_CONNECTIONS",
    "DEFAULT_MAX_PER_PEER",
    "ConnectionGate",
    "refusal_bytes",
]

#: Seconds a connection has to send a whole request head.
DEFAULT_HEAD_TIMEOUT = 10.0
#: Connections open at once (well under the usual 1,024 descriptors).
DEFAULT_MAX_CONNECTIONS = 256
#: Connections open at once from one address.
DEFAULT_MAX_PER_PEER = 64

Scope = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[MutableMapping[str, Any]]]
Send = Callable[[MutableMapping[str, Any]], Awaitable[None]]
App = Callable[[Scope, Receive, Send], Awaitable[None]]
Peer = tuple[str, int]


def refusal_bytes(status: int, reason: str, message: str) -> bytes:
    """The whole HTTP/1.1 answer the gate writes before closing a connection."""
    body = (message + "\n").encode()
    head = (
        f"HTTP/1.1 {status} {reason}\r\ncontent-type: text/plain; charset=utf-8\r\n"
        f"content-length: {len(body)}\r\nconnection: close\r\n\r\n"
    )
    return head.encode() + body


class ConnectionGate:
    """Connection limits for one server: counts per address, and a head timeout.

    Args:
        max_connections: connections open at once.
        max_connections_per_peer: connections open at once from one address.
        head_timeout: seconds a connection has to send a whole request head.

    Raises:
        ValueError: a limit is not positive.
    """

    def __init__(
        self,
        max_connections: int = DEFAULT_MAX_CONNECTIONS,
        max_connections_per_peer: int = DEFAULT_MAX_PER_PEER,
        head_timeout: float = DEFAULT_HEAD_TIMEOUT,
    ) -> None:
        limits = (
            ("max_connections", max_connections),
            ("max_connections_per_peer", max_connections_per_peer),
        )
        for name, value in limits:
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise ValueError(f"{name} must be a positive integer, got {value!r}")
        if isinstance(head_timeout, bool) or not isinstance(head_timeout, (int, float)) or head_timeout <= 0:
            raise ValueError(f"head_timeout must be a positive number of seconds, got {head_timeout!r}")
        self.max_connections = max_connections
        self.max_per_peer = max_connections_per_peer
        self.head_timeout = float(head_timeout)
        self._open: dict[Peer, _GatedProtocol] = {}
        self._per_host: Counter[str] = Counter()

    def uvicorn_options(self, app: App) -> dict[str, Any]:
        """Keyword arguments of ``uvicorn.Config`` that serve ``app`` behind this gate.

        WebSocket upgrades are off (neither server has a WebSocket route, and an upgraded
        connection would leave the gate's count) and ``X-Forwarded-For`` is not trusted
        (the peer address is what the per-address cap counts).
        """
        from uvicorn.protocols.http.auto import AutoHTTPProtocol

        protocol = type("GatedHTTPProtocol", (_GatedProtocol,), {"gate": self, "inner": AutoHTTPProtocol})
        return {"app": self.wrap(app), "http": protocol, "ws": "none", "proxy_headers": False}

    def wrap(self, app: App) -> App:
        """``app`` telling each connection when its request head arrived and its answer ended."""

        async def gated(scope: Scope, receive: Receive, send: Send) -> None:
            client = scope.get("client") if scope["type"] == "http" else None
            connection = self._open.get((str(client[0]), int(client[1]))) if client else None
            if connection is None:
                await app(scope, receive, send)
                return
            connection.request_started()
            try:
                await app(scope, receive, send)
            finally:
                connection.request_finished()

        return gated

    def _admit(self, peer: Peer, connection: _GatedProtocol) -> Optional[bytes]:
        """``None`` when ``peer`` may connect (and it is counted), else the answer that refuses it."""
        if len(self._open) >= self.max_connections:
            return refusal_bytes(
                503, "Service Unavailable", f"too many connections: this server takes {self.max_connections}"
            )
        if self._per_host[peer[0]] >= self.max_per_peer:
            return refusal_bytes(
                429,
                "Too Many Requests",
                f"too many connections from {peer[0]}: this server takes {self.max_per_peer} per address",
            )
        self._open[peer] = connection
        self._per_host[peer[0]] += 1
        return None

    def _release(self, peer: Peer) -> None:
        self._open.pop(peer, None)
        self._per_host[peer[0]] -= 1
        if self._per_host[peer[0]] <= 0:
            del self._per_host[peer[0]]


class _GatedProtocol(asyncio.Protocol):
    """One connection: admitted or refused on arrival, then timed while no request runs."""

    gate: ClassVar[ConnectionGate]
    inner: ClassVar[Callable[..., asyncio.Protocol]]

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        # uvicorn's arguments for its own protocol, which is made only once admitted.
        self._arguments = (args, kwargs)
        self._protocol: Optional[asyncio.Protocol] = None
        self._transport: Optional[asyncio.Transport] = None
        self._peer: Peer = ("", 0)
        self._timer: Optional[asyncio.TimerHandle] = None
        self._running = 0

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        # A stream transport by duck type, not by class: uvloop's does not derive from
        # asyncio.Transport (an isinstance check reset every connection under uvloop).
        stream = self._transport = cast(asyncio.Transport, transport)
        address = stream.get_extra_info("peername")
        self._peer = (str(address[0]), int(address[1])) if address else ("", 0)
        refusal = self.gate._admit(self._peer, self)
        if refusal is not None:
            stream.write(refusal)
            stream.close()
            return
        args, kwargs = self._arguments
        self._protocol = self.inner(*args, **kwargs)
        self._arm()
        self._protocol.connection_made(transport)

    def data_received(self, data: bytes) -> None:
        if self._protocol is not None:
            self._protocol.data_received(data)

    def eof_received(self) -> Optional[bool]:
        return self._protocol.eof_received() if self._protocol is not None else None

    def pause_writing(self) -> None:
        if self._protocol is not None:
            self._protocol.pause_writing()

    def resume_writing(self) -> None:
        if self._protocol is not None:
            self._protocol.resume_writing()

    def connection_lost(self, exc: Optional[Exception]) -> None:
        self._disarm()
        if self._protocol is not None:
            self.gate._release(self._peer)
            self._protocol.connection_lost(exc)

    def request_started(self) -> None:
        """A whole head arrived: the request is the app's now, however long it takes."""
        self._running += 1
        self._disarm()

    def request_finished(self) -> None:
        """The answer is sent: the next head must arrive within the timeout."""
        self._running -= 1
        if self._running == 0 and self._transport is not None and not self._transport.is_closing():
            self._arm()

    def _arm(self) -> None:
        self._disarm()
        loop = asyncio.get_running_loop()
        self._timer = loop.call_later(self.gate.head_timeout, self._expire)

    def _disarm(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None

    def _expire(self) -> None:
        self._timer = None
        if self._transport is not None and not self._transport.is_closing():
            timeout = f"{self.gate.head_timeout:g}"
            message = f"the request head did not arrive within {timeout} s"
            self._transport.write(refusal_bytes(408, "Request Timeout", message))
            self._transport.close()
