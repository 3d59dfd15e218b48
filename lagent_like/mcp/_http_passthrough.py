"""A proxied tool's call passed through over streamable HTTP: client POST to upstream POST and back.

A proxy served over HTTP (``serve-mcp --mcp URL --transport http``) spent 4 to 5 ms of
CPU on each proxied call: the SDK's streamable-HTTP server (the session's message
streams, JSON-RPC dispatch, an SSE answer) and its client (the session, ``httpx2``,
the SSE decoder), where the upstream's own server spends 1.6 to 2. For a proxied
tool neither adds anything: the upstream checks the arguments and writes the result
a direct client would get. So an ASGI layer in front of the SDK's app takes a POST
that is one ``tools/call`` request for such a tool, sends it to the upstream (only
the tool's name and the JSON-RPC id replaced) on the upstream session the proxy's
``MCPToolkit`` holds, and answers the client with the upstream's response as
``application/json`` (which the specification allows a client that accepts it),
the client's id restored and every other byte as the upstream wrote it.

It runs after :class:`~lagent_like.mcp._http.HttpGuard` (Host, Origin, bearer
token), and only when the SDK would take the same request to the session's
transport: the path is the SDK's, the ``Mcp-Session-Id`` names a session its
manager holds (with no other credential bound to it), the protocol version is one
of the handshake versions, ``Accept`` and ``Content-Type`` pass the SDK's own checks,
and the body is within the SDK's size limit. Anything else (batches, GETs, DELETEs,
notifications, ``initialize``, other methods, unknown or withheld tools, oversized
arguments, a call with a ``progressToken``, which wants its progress on an event
stream) goes to the SDK as before, the body read here handed on unchanged. A call
the upstream refuses at the HTTP level (its session is gone) goes to the SDK too:
the slow path answers it as it always did.

The slow path's other rules stay: the per-client slot is held from the request's
arrival to its answer (a call beyond the client's share waits, then gets the same
error result), a call the upstream does not answer in time gets the slow path's
timeout result (and the upstream a ``notifications/cancelled``), a lost connection
its lost-answer result, and the session's idle timer is held while the call runs.
"""

from __future__ import annotations

import asyncio
import json
import math
from asyncio import FIRST_COMPLETED
from collections.abc import Awaitable, MutableMapping
from typing import Any, Callable, Optional, Union

import anyio
from mcp.server.streamable_http import MCP_SESSION_ID_HEADER, REQUEST_CANCELLED, check_accept_headers
from mcp.shared.inbound import MCP_PROTOCOL_VERSION_HEADER
from mcp_types.version import HANDSHAKE_PROTOCOL_VERSIONS
from starlette.requests import Request

from .._private.log import logger
from ._passthrough import PassRules, _key, restored_answer
from ._pipe import pass_id
from ._upstream_http import Refused, UpstreamHttp, UpstreamLost, http_endpoint

__all__ = ["HttpPassThrough", "HttpSessionNotes"]

Scope = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[MutableMapping[str, Any]]]
Send = Callable[[MutableMapping[str, Any]], Awaitable[None]]
App = Callable[[Scope, Receive, Send], Awaitable[None]]

_CALL = b'"tools/call"'
_CANCEL = b'"notifications/cancelled"'
#: The SDK's answer to a request its client cancelled (the handshake protocols answer one).
_CANCELLED = {"code": REQUEST_CANCELLED, "message": "Request cancelled"}
_COMPACT = (",", ":")
_SESSION = MCP_SESSION_ID_HEADER.encode()
_VERSION = MCP_PROTOCOL_VERSION_HEADER.lower().encode()


class HttpSessionNotes:
    """The session id and protocol version the SDK's transport sends on an ``MCPToolkit``'s HTTP client.

    The SDK keeps its upstream session id inside its transport; the headers of the
    requests it sends after the handshake carry it, so a hook on the client reads
    them. The hook runs on the toolkit's loop; :meth:`current` is read from the
    proxy's (one tuple, swapped whole).
    """

    def __init__(self) -> None:
        self._client: Any = None
        self._seen: Optional[tuple[str, str]] = None

    def watch(self, client: Any) -> None:
        """Read the headers of every request ``client`` (a new connection's) sends from now on."""
        self._client, self._seen = client, None
        client.event_hooks["request"].append(self._note)

    async def _note(self, request: Any) -> None:
        session_id = request.headers.get(MCP_SESSION_ID_HEADER)
        version = request.headers.get(MCP_PROTOCOL_VERSION_HEADER)
        if session_id and version:
            self._seen = (session_id, version)

    def current(self) -> Optional[tuple[str, str]]:
        """``(session id, protocol version)`` of the open connection (``None``: not open, or closed)."""
        client = self._client
        if client is None or getattr(client, "is_closed", True):
            return None
        return self._seen


class _HttpUpstream:
    """A proxied toolkit's HTTP server as the fast path reaches it: its session's notes, its connections."""

    def __init__(self, toolkit: Any, url: str) -> None:
        self.toolkit = toolkit
        self.notes = HttpSessionNotes()
        self._http = UpstreamHttp(url)

    def route(self, session_id: str) -> Optional[list[tuple[str, str]]]:
        """The headers of a POST on the toolkit's (shared) session now (``None``: none is open)."""
        current = self.notes.current()
        if current is None:
            return None
        session_id, version = current
        headers = [(name.lower(), value) for name, value in self.toolkit._headers.items()]
        headers += [
            ("accept", "application/json, text/event-stream"),
            ("content-type", "application/json"),
            (MCP_SESSION_ID_HEADER, session_id),
            (MCP_PROTOCOL_VERSION_HEADER.lower(), version),
        ]
        return headers

    async def post(self, data: bytes, ours: str, route: Any) -> bytes:
        """The server's answer to request ``data`` (id ``ours``); raises as :meth:`UpstreamHttp.post`."""
        return await self._http.post(data, route, ours)

    def cancel(self, ours: str, route: Any) -> None:
        """Tell the server to stop request ``ours`` (its answer is no longer awaited)."""
        self._http.notify(json.dumps(_cancelled(ours)).encode(), route)

    def close(self) -> None:
        """Close the idle connections."""
        self._http.close()


class _PipeUpstream:
    """A proxied toolkit's stdio server as the fast path reaches it: its raw pipe, on the toolkit's loop.

    The pipe (:class:`~lagent_like.mcp._pipe.UpstreamPipe`) belongs to the toolkit's
    loop, the HTTP server runs on another: a call hops there to be written and its
    answer hops back.
    """

    def __init__(self, toolkit: Any) -> None:
        self.toolkit = toolkit

    def route(self, session_id: str) -> str:
        """The executor session whose pipe carries the call (whether it is open is known on its loop only)."""
        return session_id

    async def post(self, data: bytes, ours: str, route: Any) -> bytes:
        """The server's answer line to request ``data`` (id ``ours``).

        Raises:
            Refused: the pipe is not open (the call goes by the SDK session, which opens it).
            UpstreamLost: the server went away before answering.
        """
        here = asyncio.get_running_loop()
        answer: asyncio.Future[Optional[bytes]] = here.create_future()

        def settle(value: Any) -> None:
            if not answer.done():
                (answer.set_exception if isinstance(value, BaseException) else answer.set_result)(value)

        def on_line(line: Optional[bytes], message: Optional[dict[str, Any]]) -> None:
            if message is None or "method" not in message:  # not a progress notification: the answer
                here.call_soon_threadsafe(settle, line)

        def write() -> None:
            pipe = self.toolkit._upstream_pipe(route)
            if pipe is None:
                here.call_soon_threadsafe(settle, Refused(0))
                return
            pipe.expect(ours, on_line)
            if not pipe.send(data + b"\n"):
                on_line(None, None)

        self.toolkit._loop.loop.call_soon_threadsafe(write)
        line = await answer
        if line is None:
            raise UpstreamLost("the server went away")
        return line

    def cancel(self, ours: str, route: Any) -> None:
        """Tell the server to stop request ``ours``; its late answer is dropped."""

        def stop() -> None:
            pipe = self.toolkit._upstream_pipe(route)
            if pipe is not None:
                pipe.forget(ours)
                pipe.send(json.dumps(_cancelled(ours)).encode() + b"\n")

        self.toolkit._loop.loop.call_soon_threadsafe(stop)

    def close(self) -> None:
        """Nothing to close: the pipe is the toolkit's."""


_Upstream = Union[_HttpUpstream, _PipeUpstream]


def _cancelled(ours: str) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": ours}}


class _Call:
    """One ``tools/call`` the fast path takes: who sent it and where it goes."""

    def __init__(self, message: dict[str, Any], tool: str, upstream: _Upstream, route: Any) -> None:
        self.message = message
        self.client_id = message["id"]
        self.tool = tool
        self.upstream = upstream
        self.route = route
        #: ``(Mcp-Session-Id, request id)``: what a cancellation names.
        self.key: tuple[str, str] = ("", "")


class HttpPassThrough:
    """The fast path of a proxy served over streamable HTTP: which POSTs it takes, and their answers.

    Args:
        rules: what a call is checked against (shared with the stdio fast path).
    """

    def __init__(self, rules: PassRules) -> None:
        self._names, self._limits, self._refuse, self._error_result = rules
        self._bound: dict[str, tuple[str, Any]] = {}
        self._flight: dict[tuple[str, str], asyncio.Future[None]] = {}
        self._upstreams: dict[int, _Upstream] = {}
        self._app: Optional[App] = None
        self._manager: Any = None
        self._path = "/mcp"
        #: Calls passed through so far (tests check that the fast path is taken).
        self.passed = 0

    def watch_upstreams(self) -> None:
        """Make every proxied toolkit of a plain ``http://`` server reachable by the fast path.

        Each one's HTTP connections are watched from now on (its session is reopened
        through a watched one on its next call).
        """
        for toolkit in self._names.toolkits:
            url = getattr(toolkit, "_url", None)
            if id(toolkit) in self._upstreams:
                continue
            if url is None:
                self._upstreams[id(toolkit)] = _PipeUpstream(toolkit)
                continue
            if http_endpoint(url) is None or not toolkit._shares_session():
                # One session per executor session: which one a watched client serves is not known.
                continue
            upstream = _HttpUpstream(toolkit, url)
            if toolkit._watch_http(upstream.notes.watch):
                self._upstreams[id(toolkit)] = upstream

    def wrap(self, app: App, manager: Any, path: str = "/mcp") -> App:
        """The ASGI app to serve: this fast path in front of the SDK's ``app`` (and its ``manager``)."""
        self._app, self._manager, self._path = app, manager, path
        return self

    def bind(self, mcp_session_id: str, session_id: str, client: Any, connection: Any) -> None:
        """HTTP session ``mcp_session_id`` finished its handshake: its client's slot key, until it ends."""
        self._bound[mcp_session_id] = (session_id, client)
        exit_stack = getattr(connection, "exit_stack", None)
        if exit_stack is not None:
            exit_stack.callback(self._bound.pop, mcp_session_id, None)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Serve one ASGI request: a pass-through call answered here, anything else by the SDK."""
        app = self._app
        assert app is not None, "HttpPassThrough.wrap() gives the app to serve"
        try:
            taken = await self._session_of(scope)
        except Exception as exc:  # noqa: BLE001 - e.g. an SDK whose session manager changed: the SDK answers
            logger().warning(
                "MCP HTTP pass-through left a request to the SDK: %s: %s", type(exc).__name__, exc
            )
            taken = None
        if taken is None:
            await app(scope, receive, send)
            return
        transport, http_session, session_id, client = taken
        body, rest = await _read_body(receive, self._manager.max_request_body_size)
        call = None if rest is not None else self._checked_call_of(body, session_id)
        if call is None:
            if rest is None and self._flight and _CANCEL in body:
                self._note_cancel(body, http_session)  # the SDK still answers the notification
            await app(scope, _replay(body, rest, receive), send)
            return
        call.key = (http_session, _key(call.client_id))
        answer = await self._run(call, transport, client)
        if answer is None:  # the upstream refused it at the HTTP level: the slow path answers
            await app(scope, _replay(body, None, receive), send)
            return
        await _answer(send, answer, http_session)

    # -- which requests -----------------------------------------------------------

    async def _session_of(self, scope: Scope) -> Optional[tuple[Any, str, str, Any]]:
        """``(SDK transport, Mcp-Session-Id, executor session, slot key)`` when the fast path may take it.

        That is when the SDK would take it to a session's transport as it stands.
        """
        if (
            scope["type"] != "http"
            or scope["method"] != "POST"
            or scope["path"] != self._path
            or "user" in scope
        ):
            return None
        sid, version, length = _heads(scope["headers"])
        bound = self._bound.get(sid)
        manager = self._manager
        if bound is None or not length.isdigit() or int(length) > manager.max_request_body_size:
            return None
        if version and version not in HANDSHAKE_PROTOCOL_VERSIONS:
            return None  # the SDK's modern (sessionless) route
        transport = manager._server_instances.get(sid)
        if transport is None or sid in manager._session_owners or not _held_idle(transport):
            return None
        if not await _sdk_accepts(transport, Request(scope)):
            return None  # the SDK refuses it, as it always did
        return transport, sid, bound[0], bound[1]

    def _checked_call_of(self, body: bytes, session_id: str) -> Optional[_Call]:
        """:meth:`_call_of`, where a failure leaves the request to the SDK (which answers it as before)."""
        try:
            return self._call_of(body, session_id)
        except Exception as exc:  # noqa: BLE001 - the SDK answers whatever this cannot
            logger().warning(
                "MCP HTTP pass-through left a request to the SDK: %s: %s", type(exc).__name__, exc
            )
            return None

    def _call_of(self, body: bytes, session_id: str) -> Optional[_Call]:
        """The call in ``body`` when it may pass: one ``tools/call`` of a proxied tool; else ``None``."""
        if _CALL not in body:
            return None
        try:
            message = json.loads(body)
        except ValueError:
            return None
        if not _is_call(message):
            return None
        params = message["params"]
        arguments = params.get("arguments")
        arguments = {} if arguments is None else arguments
        meta = params.get("_meta")
        if not isinstance(arguments, dict) or (isinstance(meta, dict) and "progressToken" in meta):
            return None
        if self._refuse(arguments) is not None:
            return None
        target = self._target(params["name"])
        if target is None:
            return None
        upstream, tool = target
        route = upstream.route(session_id)
        return None if route is None else _Call(message, tool, upstream, route)

    def _target(self, name: str) -> Optional[tuple[_Upstream, str]]:
        """``(upstream, its tool name)`` of served name ``name``, when it is a served proxied tool."""
        found = self._names.proxied(name)
        if found is None:
            return None
        upstream = self._upstreams.get(id(found[0]))
        return None if upstream is None else (upstream, found[1])

    # -- the call -------------------------------------------------------------------

    async def _run(self, call: _Call, transport: Any, client: Any) -> Optional[bytes]:
        """The answer to ``call`` (its slot and the idle timer held); ``None``: the SDK's to answer."""
        with _InFlight(transport):
            async with self._limits.slot(client) as busy:
                if busy is not None:
                    return self._error(call, busy)
                return await self._forward(call)

    async def _forward(self, call: _Call) -> Optional[bytes]:
        ours = pass_id()
        message = call.message
        message["id"], message["params"]["name"] = ours, call.tool
        data = json.dumps(message, ensure_ascii=False, separators=_COMPACT).encode()
        toolkit = call.upstream.toolkit
        self.passed += 1
        posting = asyncio.ensure_future(call.upstream.post(data, ours, call.route))
        stop: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._flight[call.key] = stop
        try:
            await asyncio.wait((posting, stop), timeout=toolkit._request_timeout, return_when=FIRST_COMPLETED)
        finally:
            self._flight.pop(call.key, None)
            if not posting.done():
                posting.cancel()
        if not posting.done() or posting.cancelled():
            call.upstream.cancel(ours, call.route)
            if stop.done():  # the client cancelled it: answered as the SDK answers a cancelled request
                return json.dumps({"jsonrpc": "2.0", "id": call.client_id, "error": _CANCELLED}).encode()
            return self._error(call, toolkit._timeout_answer())
        try:
            text = posting.result()
        except UpstreamLost:
            return self._error(call, toolkit._lost_answer())
        except Refused as exc:
            if exc.status < 500:  # not sent, or refused before any tool ran
                self.passed -= 1
                return None
            return self._error(call, "the MCP server refused the call: Server returned an error response")
        return restored_answer(text, ours, call.client_id)

    def _note_cancel(self, body: bytes, http_session: str) -> None:
        """The client cancelled a passed call of its session (``body``): its wait ends."""
        try:
            message = json.loads(body)
        except ValueError:
            return
        if not isinstance(message, dict) or message.get("method") != "notifications/cancelled":
            return
        params = message.get("params")
        if not isinstance(params, dict):
            return
        stop = self._flight.get((http_session, _key(params.get("requestId"))))
        if stop is not None and not stop.done():
            stop.set_result(None)

    def _error(self, call: _Call, text: str) -> bytes:
        """An answer to ``call``: an error result saying ``text`` (as the slow path gives it)."""
        answer = {"jsonrpc": "2.0", "id": call.client_id, "result": self._error_result(text)}
        return json.dumps(answer, separators=_COMPACT).encode()

    def close(self) -> None:
        """Close the upstreams' idle connections."""
        for upstream in self._upstreams.values():
            upstream.close()


def _heads(headers: Any) -> tuple[str, str, bytes]:
    """The ``Mcp-Session-Id``, ``Mcp-Protocol-Version`` and ``Content-Length`` of raw ASGI ``headers``."""
    session_id = version = length = b""
    for key, value in headers:
        if key == _SESSION:
            session_id = value
        elif key == _VERSION:
            version = value
        elif key == b"content-length":
            length = value
    return session_id.decode("latin-1"), version.decode("latin-1"), length


async def _sdk_accepts(transport: Any, request: Request) -> bool:
    """Whether the SDK's transport lets ``request`` (a POST) through: its own checks, in its order."""
    if await transport._security.validate_request(request, is_post=True) is not None:
        return False
    has_json, has_sse = check_accept_headers(request)
    return has_json and has_sse and bool(transport._check_content_type(request))


def _is_call(message: Any) -> bool:
    """Whether ``message`` is a JSON-RPC ``tools/call`` request naming a tool (its id not a bool)."""
    if (
        not isinstance(message, dict)
        or message.get("jsonrpc") != "2.0"
        or message.get("method") != "tools/call"
    ):
        return False
    request_id = message.get("id")
    if not isinstance(request_id, (str, int)) or isinstance(request_id, bool):
        return False
    params = message.get("params")
    return isinstance(params, dict) and isinstance(params.get("name"), str)


def _held_idle(transport: Any) -> bool:
    """Whether the session is live and its idle timer can be held as the SDK holds it per request."""
    if transport.is_terminated:
        return False
    scope = getattr(transport, "idle_scope", None)
    if scope is None or getattr(transport, "_idle_timeout", None) is None:
        return True
    return not scope.cancel_called and hasattr(transport, "_requests_in_flight")


class _InFlight:
    """The session's idle countdown suspended while a passed call runs, as the SDK does per request."""

    def __init__(self, transport: Any) -> None:
        self._transport = transport
        scope = getattr(transport, "idle_scope", None)
        self._timed = scope is not None and getattr(transport, "_idle_timeout", None) is not None

    def __enter__(self) -> None:
        if self._timed:
            self._transport._requests_in_flight += 1
            self._transport.idle_scope.deadline = math.inf

    def __exit__(self, *exc_info: object) -> None:
        if not self._timed:
            return
        transport = self._transport
        transport._requests_in_flight -= 1
        if not transport._requests_in_flight:
            transport.idle_scope.deadline = anyio.current_time() + transport._idle_timeout


async def _read_body(receive: Receive, limit: int) -> tuple[bytes, Optional[MutableMapping[str, Any]]]:
    """The request's body, up to ``limit`` bytes, and the message read after it when it did not end there.

    That message (more of a body beyond ``limit``, or a disconnect) is ``None`` when
    the body ended within the limit.
    """
    pieces: list[bytes] = []
    size = 0
    while True:
        message = await receive()
        if message["type"] != "http.request":
            return b"".join(pieces), message
        piece = message.get("body", b"")
        size += len(piece)
        if size > limit:
            return b"".join(pieces), message
        pieces.append(piece)
        if not message.get("more_body", False):
            return b"".join(pieces), None


def _replay(body: bytes, rest: Optional[MutableMapping[str, Any]], receive: Receive) -> Receive:
    """A ``receive`` giving what was read (``body``, then ``rest``) first, then what ``receive`` still has."""
    queued: list[MutableMapping[str, Any]] = [
        {"type": "http.request", "body": body, "more_body": rest is not None}
    ]
    if rest is not None:
        queued.append(rest)

    async def replay() -> MutableMapping[str, Any]:
        if queued:
            return queued.pop(0)
        return await receive()

    return replay


async def _answer(send: Send, body: bytes, session_id: str) -> None:
    headers = [
        (b"content-type", b"application/json"),
        (b"content-length", str(len(body)).encode()),
        (_SESSION, session_id.encode("latin-1")),
    ]
    await send({"type": "http.response.start", "status": 200, "headers": headers})
    await send({"type": "http.response.body", "body": body})
