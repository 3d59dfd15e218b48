"""A proxied tool's call passed through as JSON-RPC lines: stdio client to stdio server and back.

A proxy served over stdio whose upstream is a stdio server spends most of a call in
two SDK sessions: its server session reads the client's request into objects and
writes the result back out, its client session does the same towards the upstream.
For a proxied tool neither adds anything: the upstream checks the arguments and
writes the result a direct client would get. So a ``tools/call`` line for one goes
from the proxy's stdin to the upstream's stdin with only the tool name mapped (see
:class:`~lagent_like.mcp._proxy.ProxyNames`), the JSON-RPC id (and a
``progressToken``) replaced by one of the proxy's own (:func:`~lagent_like.mcp._pipe.pass_id`),
and the upstream's answer (and its progress notifications for the call) come back
with the client's id restored, the rest of the line as the upstream wrote it.

Only when every rule the slow path applies is sure to pass does a line take this
path: the client finished the handshake (its executor session is known), the name
is a served proxied tool of an upstream whose pipe is open on this loop, the
arguments are an object within the size limit, and the id is not one already in
flight. Anything else (unknown or withheld names, oversized arguments, other
methods) goes to the SDK as before, which answers it as it always did. The
per-client slot is held from the line's arrival to its answer;
``notifications/cancelled`` for a passed call is passed on with the id mapped.
"""

from __future__ import annotations

import asyncio
import functools
import json
from typing import Any, Callable, NamedTuple, Optional, Union

from mcp.shared.dispatcher import coerce_request_id

from .._private.log import logger
from ._pipe import RemotePipe, UpstreamPipe, pass_id
from ._proxy import ProxyNames
from ._sessions import ClientLimits

__all__ = ["PassThrough", "restored_answer"]

_CALL = b'"tools/call"'
_CANCEL = b'"notifications/cancelled"'
_COMPACT = (",", ":")


class _Call:
    """One passed call: the client's id and token, the proxy's id, and what ends it."""

    def __init__(
        self, client_id: Any, key: str, token: Any, toolkit: Any, pipe: Union[UpstreamPipe, RemotePipe]
    ) -> None:
        self.client_id = client_id
        self.key = key
        self.token = token
        self.toolkit = toolkit
        self.pipe = pipe
        self.ours = pass_id()
        self.sent = False
        self.ended = False
        self.release: Optional[Callable[[], None]] = None
        self.timer: Optional[asyncio.TimerHandle] = None
        self.queued: Optional[asyncio.Future[None]] = None


class PassRules(NamedTuple):
    """What both transports' fast paths check a call against, built once by the server.

    Attributes:
        names: the proxy's names (served name to upstream toolkit and tool).
        limits: the per-client slots the slow path uses too.
        refuse: why arguments are refused for their size (``None``: they fit).
        error_result: the JSON (a ``CallToolResult`` dumped) of an error result saying ``text``.
    """

    names: ProxyNames
    limits: ClientLimits
    refuse: Callable[[dict[str, Any]], Optional[str]]
    error_result: Callable[[str], dict[str, Any]]


class PassThrough:
    """The fast path of a proxy served over stdio: which lines it takes, and their answers.

    Everything runs on the serving loop, in the reading of a line: a call whose client
    has a free slot is written to its upstream at once, and its answer to the client
    as the upstream's line is read; only a call that must queue for a slot waits in a
    task.

    Args:
        rules: what a call is checked against (shared with the HTTP fast path).
    """

    def __init__(self, rules: PassRules) -> None:
        self._names, self._limits, self._refuse, self._error_result = rules
        self._session: Optional[str] = None
        self._client: Any = None
        self._flight: dict[str, _Call] = {}
        self._tasks: set[asyncio.Task[None]] = set()
        self._out: Callable[[bytes], None] = _nowhere
        #: Calls passed through so far (tests check that the fast path is taken).
        self.passed = 0

    @property
    def attached(self) -> bool:
        """Whether a stdio client's lines come through :meth:`divert` (see :meth:`attach`)."""
        return self._out is not _nowhere

    def attach(self, out: Callable[[bytes], None]) -> Callable[[bytes], bool]:
        """Serve a stdio client: ``out`` writes whole lines to it; returns what reads its lines."""
        self._out = out
        return self.divert

    def bind(self, session_id: str, client: Any) -> None:
        """The stdio client finished its handshake: its executor session and slot key."""
        self._session, self._client = session_id, client

    def divert(self, line: bytes) -> bool:
        """Take ``line`` (a line of the client) when it can be passed through; ``False``: the SDK's.

        Args:
            line: one line the client wrote.

        Returns:
            Whether the line was taken (the SDK must not see it).
        """
        if self._session is None:
            return False
        try:
            if _CALL in line:
                return self._call(line)
            if self._flight and _CANCEL in line:
                return self._cancel(line)
        except Exception as exc:  # noqa: BLE001 - the SDK answers whatever this cannot
            logger().warning("MCP pass-through left a line to the SDK: %s: %s", type(exc).__name__, exc)
        return False

    def _call(self, line: bytes) -> bool:
        message = _request(line, "tools/call")
        if message is None:
            return False
        params = message.get("params")
        if not isinstance(params, dict) or not isinstance(params.get("name"), str):
            return False
        arguments = params.get("arguments")
        arguments = {} if arguments is None else arguments
        if not isinstance(arguments, dict) or self._refuse(arguments) is not None:
            return False
        target = self._target(params["name"])
        key = _key(message["id"])
        if target is None or key in self._flight:
            return False
        toolkit, tool, pipe = target
        meta = params.get("_meta")
        token = meta.get("progressToken") if isinstance(meta, dict) else None
        call = _Call(message["id"], key, token, toolkit, pipe)
        message["id"], params["name"] = call.ours, tool
        if isinstance(meta, dict) and token is not None:
            meta["progressToken"] = call.ours
        data = json.dumps(message, ensure_ascii=False, separators=_COMPACT).encode() + b"\n"
        self._flight[key] = call
        call.release = self._limits.take(self._client)
        if call.release is not None:
            self._send(call, data)
        else:
            self._start(self._queue(call, data))
        return True

    def _target(self, name: str) -> Optional[tuple[Any, str, Union[UpstreamPipe, RemotePipe]]]:
        """``(toolkit, upstream tool, open pipe)`` of served name ``name``, when it can pass."""
        upstream = self._names.proxied(name)
        if upstream is None:
            return None
        toolkit, tool = upstream
        if not hasattr(toolkit, "_upstream_pipe"):
            return None
        pipe: Union[UpstreamPipe, RemotePipe, None] = toolkit._upstream_pipe(self._session)
        if pipe is None:
            # Another server's pipe, on its own toolkit's loop: reached by hops.
            elsewhere = toolkit._upstream_pipe(self._session, any_loop=True)
            pipe = None if elsewhere is None else RemotePipe(elsewhere, toolkit._loop.loop)
        return None if pipe is None else (toolkit, tool, pipe)

    def _send(self, call: _Call, data: bytes) -> None:
        """Write ``call`` to its upstream (its slot held); its answer comes through :meth:`_answer`."""
        self.passed += 1
        call.sent = True
        call.pipe.expect(call.ours, functools.partial(self._answer, call))
        if not call.pipe.send(data):
            self._answer(call, None, None)
            return
        timeout = call.toolkit._request_timeout
        if timeout is not None:
            call.timer = asyncio.get_running_loop().call_later(timeout, self._expire, call)

    async def _queue(self, call: _Call, data: bytes) -> None:
        """Wait for a slot of the client's (as the slow path waits), then send; hold it to the end."""
        async with self._limits.slot(self._client) as busy:
            if call.ended:
                return  # cancelled while it waited
            if busy is not None:
                self._error(call, busy)
                return
            call.queued = asyncio.get_running_loop().create_future()
            self._send(call, data)
            if not call.ended:
                await call.queued

    def _end(self, call: _Call) -> None:
        """``call`` is over: its slot, timer and place in flight are given back."""
        if call.ended:
            return
        call.ended = True
        self._flight.pop(call.key, None)
        if call.timer is not None:
            call.timer.cancel()
        if call.release is not None:
            call.release()
        if call.queued is not None and not call.queued.done():
            call.queued.set_result(None)

    def _cancel(self, line: bytes) -> bool:
        message = _notification(line, "notifications/cancelled")
        params = None if message is None else message.get("params")
        if message is None or not isinstance(params, dict) or "requestId" not in params:
            return False
        call = self._flight.get(_key(params["requestId"]))
        if call is None:
            return False
        if call.sent:
            call.pipe.forget(call.ours)  # a late answer is dropped, as the SDK drops it
            params["requestId"] = call.ours
            call.pipe.send(json.dumps(message, ensure_ascii=False, separators=_COMPACT).encode() + b"\n")
        self._end(call)  # a call still queued for its slot is never sent
        return True

    def _start(self, work: Any) -> None:
        task = asyncio.get_running_loop().create_task(work)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    def _expire(self, call: _Call) -> None:
        """The upstream did not answer in time: the client is told, the upstream told to stop."""
        call.pipe.forget(call.ours)
        self._error(call, call.toolkit._timeout_answer())
        notice = {"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": call.ours}}
        call.pipe.send(json.dumps(notice).encode() + b"\n")

    def _answer(self, call: _Call, line: Optional[bytes], message: Optional[dict[str, Any]]) -> None:
        """One line of the upstream for ``call`` (``None``: the upstream went away)."""
        if call.ended:
            return
        if line is None or message is None:
            self._error(call, call.toolkit._lost_answer())
            return
        if "method" in message:  # its progress notification
            self._out(_restored(line, call.ours, call.token, message, "params", "progressToken"))
            return
        self._out(_restored(line, call.ours, call.client_id, message, "id"))
        self._end(call)

    def _error(self, call: _Call, text: str) -> None:
        """Answer ``call`` with an error result saying ``text`` (as the slow path would)."""
        if call.ended:
            return
        answer = {"jsonrpc": "2.0", "id": call.client_id, "result": self._error_result(text)}
        self._out(json.dumps(answer, separators=_COMPACT).encode() + b"\n")
        self._end(call)


def _key(request_id: Any) -> str:
    """The id a call is known by in flight: ``"7"`` and ``7`` are one id, as for the SDK."""
    return json.dumps(coerce_request_id(request_id) if isinstance(request_id, (str, int)) else request_id)


def _nowhere(data: bytes) -> None:
    """Where answers go before a client is served: nowhere (never called in practice)."""


def _request(line: bytes, method: str) -> Optional[dict[str, Any]]:
    """``line`` read as a request for ``method`` (an ``id`` present), else ``None``."""
    message = _notification(line, method)
    if message is None or not isinstance(message.get("id"), (str, int)) or isinstance(message["id"], bool):
        return None
    return message


def _notification(line: bytes, method: str) -> Optional[dict[str, Any]]:
    """``line`` read as a JSON-RPC message of ``method``, else ``None``."""
    try:
        message = json.loads(line)
    except ValueError:
        return None
    if not isinstance(message, dict) or message.get("method") != method or message.get("jsonrpc") != "2.0":
        return None
    return message


def restored_answer(text: bytes, ours: str, client_id: Any) -> bytes:
    """The upstream's response ``text`` to request ``ours``, the client's id ``client_id`` in its place."""
    literal = json.dumps(ours).encode()
    if text.count(literal) == 1:  # the common case: no need to read the answer
        return text.replace(literal, json.dumps(client_id).encode())
    return _restored(text, ours, client_id, json.loads(text), "id")[:-1]


def _restored(line: bytes, ours: str, value: Any, message: dict[str, Any], *path: str) -> bytes:
    """``line`` with the proxy's id ``ours`` (at ``path`` in ``message``) replaced by the client's ``value``.

    The upstream's bytes are kept: only the id's text is swapped, when it occurs once.
    Otherwise (the result quotes the id too) the message, parsed from this line, is
    written again with the client's value: it says the same.
    """
    literal = json.dumps(ours).encode()
    if line.count(literal) == 1:
        return line.replace(literal, json.dumps(value).encode()) + b"\n"
    holder = message
    for step in path[:-1]:
        holder = holder[step]
    holder[path[-1]] = value
    return json.dumps(message).encode() + b"\n"
