"""Raw JSON-RPC POSTs to a streamable-HTTP MCP server, on kept-alive connections.

A proxy served over HTTP passes a proxied tool's ``tools/call`` to its upstream as the
client wrote it (:mod:`._http_passthrough`). Measured on the proxy benchmark
(``benchmarks/bench_mcp_proxy.py``), one such POST costs 1.6 to 1.9 ms of CPU through
``httpx`` or ``httpx2`` (request and response objects, header models, the SSE
decoder), about as much as the upstream's whole server spends on the call, and 0.2
to 0.4 ms written directly on an asyncio stream. So this module speaks just the HTTP/1.1
that such a POST needs: one request with a ``Content-Length``, a response framed by
``Content-Length``, chunks or the connection's end, and a JSON or an event-stream body.

The answer is handed back as soon as the event carrying it is read; the rest of the
body (an SSE stream's end, which a server without ``TCP_NODELAY`` may hold back for
a delayed ACK) is read in the background before the connection is used again. A
request the server sends the client on the answer's stream (a ping, a sampling or
elicitation request) is answered as the proxy's own SDK client session answers it
(see :func:`client_reply`): unanswered, it would hold the call until its timeout.

Only ``http://`` endpoints: an ``https://`` server's TLS settings (certificates, a
custom client) are the SDK client's, so its calls keep going through the SDK.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import socket
from collections.abc import AsyncIterator, Sequence
from typing import Any, Callable, Optional
from urllib.parse import urlsplit

from ..exceptions import LagentLikeError

__all__ = ["Refused", "UpstreamHttp", "UpstreamLost", "client_reply", "http_endpoint"]

#: Idle connections kept per server; more are closed once their answers are read.
_MAX_IDLE = 8

#: The longest header line and SSE event read, in bytes (the SDK client's event limit).
_MAX_EVENT = 1024 * 1024

#: Linux's option to acknowledge at once (elsewhere ``None``).
_QUICKACK: Optional[int] = getattr(socket, "TCP_QUICKACK", None)

_EVENT_STREAM = "text/event-stream"
_JSON = "application/json"

#: What the proxy's client refuses, as the SDK's ``ClientSession`` without callbacks does
#: (``MCPToolkit`` gives it none, so it declares no sampling, elicitation or roots).
_REFUSED = {
    "sampling/createMessage": "Sampling not supported",
    "elicitation/create": "Elicitation not supported",
    "roots/list": "List roots not supported",
}
_INVALID_REQUEST = -32600
_METHOD_NOT_FOUND = -32601


class UpstreamLost(LagentLikeError):
    """The server's answer to a POST never came: the connection failed or ended first."""


class Refused(LagentLikeError):
    """The server refused the POST at the HTTP level (a status other than 200), before any tool ran.

    Status 0: the POST was not sent at all (no connection could be made).

    Args:
        status: the HTTP status code.
    """

    def __init__(self, status: int) -> None:
        super().__init__(f"HTTP {status}")
        self.status = status


def client_reply(request: dict[str, Any]) -> dict[str, Any]:
    """The response the proxy's SDK client session gives the server's ``request``.

    A ping is answered with an empty result; sampling, elicitation and roots, which
    the session does not offer, are refused (-32600, the SDK's messages); any other
    method is not found (-32601, the method as its data).
    """
    method = request.get("method")
    reply: dict[str, Any] = {"jsonrpc": "2.0", "id": request.get("id")}
    if method == "ping":
        reply["result"] = {}
    elif method in _REFUSED:
        reply["error"] = {"code": _INVALID_REQUEST, "message": _REFUSED[str(method)]}
    else:
        reply["error"] = {"code": _METHOD_NOT_FOUND, "message": "Method not found", "data": method}
    return reply


def http_endpoint(url: str) -> Optional[tuple[str, int, str]]:
    """``(host, port, path)`` of a plain ``http://`` URL, else ``None``."""
    parts = urlsplit(url)
    if parts.scheme != "http" or not parts.hostname:
        return None
    try:
        port = parts.port or 80
    except ValueError:
        return None
    path = parts.path or "/"
    return parts.hostname, port, path + (f"?{parts.query}" if parts.query else "")


class _Connection:
    """One kept-alive connection; ``reused`` once it has carried an answer."""

    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.reader = reader
        self.writer = writer
        self.reused = False
        self._socket = writer.get_extra_info("socket")

    def acknowledge(self) -> None:
        """Acknowledge what was received at once (Linux), not after the delayed-ACK timer.

        A server without ``TCP_NODELAY`` (uvicorn on a socket it is given) writes an
        SSE answer's headers, then holds its first event until they are acknowledged:
        on a kept-alive connection, where Linux delays ACKs, 40 ms per call. The
        option lasts until the next read, so it is set again after each one.
        """
        if _QUICKACK is not None and self._socket is not None:
            with contextlib.suppress(OSError):
                self._socket.setsockopt(socket.IPPROTO_TCP, _QUICKACK, 1)

    @property
    def usable(self) -> bool:
        """Whether the server has not closed it meanwhile."""
        return not self.reader.at_eof() and not self.writer.is_closing()

    def close(self) -> None:
        """Close it now (its pending data is dropped)."""
        with contextlib.suppress(Exception):
            self.writer.close()


class _Unanswered(LagentLikeError):
    """The connection ended before a single byte of the answer (a kept-alive one the server closed)."""


class UpstreamHttp:
    """POSTs to one ``http://`` MCP endpoint, answered as bytes; runs on one event loop.

    Args:
        url: the endpoint (``http://host:port/mcp``).

    Raises:
        ValueError: ``url`` is not a plain ``http://`` URL.
    """

    def __init__(self, url: str) -> None:
        endpoint = http_endpoint(url)
        if endpoint is None:
            raise ValueError(f"not a plain http:// URL: {url!r}")
        self._host, self._port, self._path = endpoint
        port = "" if self._port == 80 else f":{self._port}"
        shown = f"[{self._host}]" if ":" in self._host else self._host
        self._authority = f"{shown}{port}"
        self._idle: list[_Connection] = []
        self._tasks: set[asyncio.Task[None]] = set()

    def _request(self, body: bytes, headers: Sequence[tuple[str, str]]) -> bytes:
        lines = [f"POST {self._path} HTTP/1.1", f"host: {self._authority}"]
        lines += [f"{name}: {value}" for name, value in headers]
        lines.append(f"content-length: {len(body)}")
        return ("\r\n".join(lines) + "\r\n\r\n").encode("latin-1") + body

    async def _take(self) -> _Connection:
        while self._idle:
            conn = self._idle.pop()
            if conn.usable:
                return conn
            conn.close()
        reader, writer = await asyncio.open_connection(self._host, self._port, limit=_MAX_EVENT)
        sock = writer.get_extra_info("socket")
        if sock is not None:
            # A request is one small write: Nagle's algorithm would hold it for an ACK.
            sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        return _Connection(reader, writer)

    async def _send(self, request: bytes) -> tuple[_Connection, int, dict[str, str]]:
        """Write ``request``; the connection and the answer's status and headers.

        A kept-alive connection the server closed while idle ends before any byte of
        the answer: the request is sent once more, on a new connection.
        """
        for _ in range(2):
            try:
                conn = await self._take()
            except OSError as exc:  # nothing was sent: the SDK's path may answer it
                raise Refused(0) from exc
            try:
                conn.writer.write(request)
                conn.acknowledge()
                status, headers = await _read_head(conn.reader)
                conn.acknowledge()
            except _Unanswered as exc:
                conn.close()
                if conn.reused:
                    continue
                raise UpstreamLost("the connection closed before the answer") from exc
            except (OSError, ValueError, asyncio.IncompleteReadError) as exc:
                conn.close()
                raise UpstreamLost(f"{type(exc).__name__}: {exc}") from exc
            except BaseException:
                conn.close()  # cancelled (a timeout): the connection is in an unknown state
                raise
            return conn, status, headers
        raise UpstreamLost("the connection closed before the answer")

    async def post(self, body: bytes, headers: Sequence[tuple[str, str]], answer_id: str) -> bytes:
        """POST ``body``; the JSON text of the server's JSON-RPC response whose id is ``answer_id``.

        Events of an SSE answer before it (progress, log messages) are skipped; a
        request among them is answered as :func:`client_reply` says.

        Args:
            body: the JSON-RPC request.
            headers: headers besides ``Host`` and ``Content-Length`` (lower-case names).
            answer_id: the request's id, which the response carries.

        Returns:
            The response's JSON text, as the server wrote it.

        Raises:
            Refused: the server answered with a status other than 200.
            UpstreamLost: the answer did not come (the connection failed or ended).
        """
        conn, status, head = await self._send(self._request(body, headers))
        frame = _Body(conn.reader, head, conn.acknowledge)
        try:
            if status != 200:
                raise Refused(status)
            kind = head.get("content-type", "").split(";")[0].strip().lower()
            if kind == _JSON:
                text = await frame.read_all()
                if not _answers(text, answer_id):
                    raise UpstreamLost("the JSON answer is not the response to the request")
            elif kind == _EVENT_STREAM:
                text = await _answer_event(frame, answer_id, lambda asked: self._reply(asked, headers))
            else:
                raise UpstreamLost(f"the answer's content type is {kind!r}")
        except (OSError, ValueError, asyncio.IncompleteReadError) as exc:
            conn.close()
            raise UpstreamLost(f"{type(exc).__name__}: {exc}") from exc
        except BaseException:
            conn.close()
            raise
        self._finish(conn, frame, head)
        return text

    def _reply(self, request: dict[str, Any], headers: Sequence[tuple[str, str]]) -> None:
        """Answer the server's ``request`` (sent on a POST's stream) on another connection."""
        self.notify(json.dumps(client_reply(request)).encode(), headers)

    def _finish(self, conn: _Connection, frame: _Body, head: dict[str, str]) -> None:
        """Read the rest of the body in the background, then keep the connection if it may be."""
        keep = head.get("connection", "").lower() != "close" and frame.framed
        task = asyncio.get_running_loop().create_task(self._drain(conn, frame, keep))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _drain(self, conn: _Connection, frame: _Body, keep: bool) -> None:
        try:
            while await frame.chunk():
                pass
        except Exception:  # noqa: BLE001 - a connection that cannot be read to its end is closed
            keep = False
        if keep and conn.usable and len(self._idle) < _MAX_IDLE:
            conn.reused = True
            self._idle.append(conn)
        else:
            conn.close()

    def notify(self, body: bytes, headers: Sequence[tuple[str, str]]) -> None:
        """POST a notification in the background (its answer, 202, is not waited for by the caller)."""
        task = asyncio.get_running_loop().create_task(self._notify(body, headers))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _notify(self, body: bytes, headers: Sequence[tuple[str, str]]) -> None:
        with contextlib.suppress(Exception):
            conn, _, head = await self._send(self._request(body, headers))
            frame = _Body(conn.reader, head, conn.acknowledge)
            await self._drain(conn, frame, head.get("connection", "").lower() != "close")

    def close(self) -> None:
        """Close every idle connection and stop the background reads."""
        for conn in self._idle:
            conn.close()
        self._idle.clear()
        for task in list(self._tasks):
            task.cancel()


async def _read_head(reader: asyncio.StreamReader) -> tuple[int, dict[str, str]]:
    """The status and headers (lower-case names) of an answer; 1xx answers are skipped."""
    while True:
        line = await reader.readline()
        if not line:
            raise _Unanswered
        parts = line.split(None, 2)
        if len(parts) < 2 or not parts[0].startswith(b"HTTP/1."):
            raise ValueError(f"not an HTTP/1.1 status line: {line[:80]!r}")
        status = int(parts[1])
        headers: dict[str, str] = {}
        while True:
            line = await reader.readline()
            if not line.endswith(b"\n"):
                raise asyncio.IncompleteReadError(line, None)
            if line in (b"\r\n", b"\n"):
                break
            name, _, value = line.decode("latin-1").partition(":")
            headers[name.strip().lower()] = value.strip()
        if status >= 200:
            return status, headers


class _Body:
    """An answer's body, chunk by chunk, framed by ``Content-Length``, chunks or the connection's end."""

    def __init__(self, reader: asyncio.StreamReader, head: dict[str, str], read: Callable[[], None]) -> None:
        self._reader = reader
        self._read = read
        self._chunked = "chunked" in head.get("transfer-encoding", "").lower()
        length = head.get("content-length")
        self._left: Optional[int] = int(length) if length is not None and not self._chunked else None
        #: Whether the body's end is known without the connection closing (it may be kept).
        self.framed = self._chunked or self._left is not None
        self._done = False

    async def chunk(self) -> bytes:
        """The next piece of the body; ``b""`` at its end."""
        data = await self._piece()
        self._read()
        return data

    async def _piece(self) -> bytes:
        if self._done:
            return b""
        if self._chunked:
            return await self._next_chunk()
        if self._left is not None:
            if self._left == 0:
                self._done = True
                return b""
            data = await self._reader.read(min(self._left, 1 << 16))
            if not data:
                raise asyncio.IncompleteReadError(b"", self._left)
            self._left -= len(data)
            return data
        data = await self._reader.read(1 << 16)
        self._done = not data
        return data

    async def _next_chunk(self) -> bytes:
        size_line = await self._reader.readline()
        size = int(size_line.split(b";")[0].strip() or b"x", 16)
        if size == 0:
            while (await self._reader.readline()) not in (b"\r\n", b"\n", b""):
                pass  # trailers
            self._done = True
            return b""
        data = await self._reader.readexactly(size + 2)
        return data[:-2]

    async def read_all(self) -> bytes:
        """The whole (rest of the) body."""
        pieces: list[bytes] = []
        while True:
            data = await self.chunk()
            if not data:
                return b"".join(pieces)
            pieces.append(data)
            if sum(map(len, pieces)) > _MAX_EVENT * 64:
                raise ValueError("the answer is too long")


async def _events(frame: _Body) -> AsyncIterator[bytes]:
    """The ``data`` of each event of an event stream (``text/event-stream``), as the SSE rules read it.

    Lines end in CRLF, LF or CR; an empty line ends an event; ``data:`` lines are joined
    with LF, one space after the colon dropped; comments and other fields are skipped.
    """
    buffer = b""
    data: list[bytes] = []
    while True:
        piece = await frame.chunk()
        buffer += piece
        # A CR at the end may be the first half of a CRLF, unless nothing follows.
        cr = buffer.rfind(b"\r") if piece == b"" or not buffer.endswith(b"\r") else buffer.rfind(b"\r", 0, -1)
        end = max(buffer.rfind(b"\n"), cr)
        if end < 0 and len(buffer) > _MAX_EVENT:
            raise ValueError("an event of the answer is too long")
        text, buffer = buffer[: end + 1], buffer[end + 1 :]
        for line in text.replace(b"\r\n", b"\n").replace(b"\r", b"\n").split(b"\n")[:-1]:
            if not line:
                if data:
                    yield b"\n".join(data)
                data = []
            elif line.startswith(b"data:"):
                value = line[5:]
                data.append(value[1:] if value.startswith(b" ") else value)
        if not piece:
            return


async def _answer_event(frame: _Body, answer_id: str, asked: Callable[[dict[str, Any]], None]) -> bytes:
    """The data of the event that answers request ``answer_id``; each request before it goes to ``asked``.

    Other events before it (notifications, responses to other ids) are skipped.
    """
    async for data in _events(frame):
        message = _message(data)
        if message is None:
            continue
        if "method" not in message:
            if message.get("id") == answer_id:
                return data
        elif "id" in message:
            asked(message)
    raise UpstreamLost("the event stream ended without the answer")


def _answers(text: bytes, answer_id: str) -> bool:
    """Whether ``text`` is a JSON-RPC response (or error) to request ``answer_id``."""
    message = _message(text)
    return message is not None and "method" not in message and message.get("id") == answer_id


def _message(text: bytes) -> Optional[dict[str, Any]]:
    """``text`` read as a JSON-RPC message (a JSON object), else ``None``."""
    try:
        message: Any = json.loads(text)
    except ValueError:
        return None
    return message if isinstance(message, dict) else None
