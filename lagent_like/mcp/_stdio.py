"""The stdio transport's two streams without a thread per line: asyncio pipes.

The SDK's ``stdio_server()`` reads each line of stdin and writes (and flushes) each
message to stdout in a worker thread: three thread hand-offs per call, a large part
of what a call costs when the tool itself takes no time (and twice over for a proxy,
which is a server and a client). It takes the two streams as arguments, so this
module hands it stdin and stdout as asyncio pipe streams instead, read and written
on the server's loop. A proxy's lines are taken as each chunk is read, in the read
callback (:class:`LineSplitter`): a passed-through call costs two turns of the
loop, one per direction, and one ``read`` and one ``write`` each.

Only when both are pipes or sockets (as an MCP host starts a server); a terminal or
a file keeps the SDK's own streams. As the SDK does, file descriptors 0 and 1 are
pointed elsewhere while serving (0 at the null device, 1 at stderr), so that a tool
that prints or reads cannot corrupt the protocol; both are restored at the end.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import stat
from collections.abc import AsyncIterator, Iterator
from typing import Any, Callable, Optional

__all__ = ["LineSplitter", "asyncio_marked", "pipe_streams"]

#: The longest line (one JSON-RPC message) read from stdin, in bytes.
MAX_LINE = 1 << 30


def _is_pipe(fd: int) -> bool:
    try:
        mode = os.fstat(fd).st_mode
    except OSError:
        return False
    return stat.S_ISFIFO(mode) or stat.S_ISSOCK(mode)


class LineSplitter:
    """Whole lines out of a pipe's chunks, each handed on as soon as its newline is read.

    Why not ``StreamReader.readline()``: the reader wakes a task, one more turn of the
    event loop per line; a proxy passing a line through (:mod:`._passthrough`) does it
    here, in the callback that read the chunk, and only the lines it does not take go
    on to a reader. Many lines in one chunk are handed on one by one; a line split
    across chunks waits for its end; a line longer than ``limit`` is handed to ``raw``
    in pieces as it comes (the reader behind it refuses it, as it always did).

    Args:
        on_line: takes one whole line (its newline included; none for a last line
            cut off by the end of the stream).
        raw: takes bytes of an overlong line, as they are read.
        limit: the longest line collected, in bytes.
    """

    def __init__(self, on_line: Callable[[bytes], None], raw: Callable[[bytes], None], limit: int) -> None:
        self._on_line = on_line
        self._raw = raw
        self._limit = limit
        self._pieces: list[bytes] = []
        self._size = 0
        self._overlong = False

    def feed(self, data: bytes) -> None:
        """Hand on every line ``data`` ends; keep its unfinished last line for the next chunk."""
        start = 0
        end = data.find(b"\n")
        while end >= 0:
            if self._overlong:
                self._overlong = False
                self._raw(data[start : end + 1])
            elif self._pieces:
                self._pieces.append(data[start : end + 1])
                line = b"".join(self._pieces)
                self._pieces.clear()
                self._size = 0
                self._on_line(line)
            else:
                self._on_line(data[start : end + 1])
            start = end + 1
            end = data.find(b"\n", start)
        if start < len(data):
            self._keep(data[start:] if start else data)

    def _keep(self, rest: bytes) -> None:
        """Keep the start of an unfinished line, or pass it on once it is too long to keep."""
        if self._overlong:
            self._raw(rest)
            return
        self._pieces.append(rest)
        self._size += len(rest)
        if self._size > self._limit:
            self._overlong = True
            self._raw(b"".join(self._pieces))
            self._pieces.clear()
            self._size = 0

    def end(self) -> None:
        """The stream ended: an unfinished last line is handed on as it is."""
        if self._pieces:
            line = b"".join(self._pieces)
            self._pieces.clear()
            self._size = 0
            self._on_line(line)


class _Lines:
    """Stdin as the SDK's transport reads it: ``async for line in stdin`` (text lines).

    A proxy sets ``divert``: each line it takes (passes through to an upstream server,
    see :mod:`._passthrough`) is taken in :class:`_StdinProtocol`, as the chunk holding
    it is read, and never reaches the reader behind this.
    """

    def __init__(self, reader: asyncio.StreamReader) -> None:
        self._reader = reader
        self.divert: Optional[Callable[[bytes], bool]] = None

    def __aiter__(self) -> _Lines:
        return self

    async def __anext__(self) -> str:
        line = await self._reader.readline()
        if not line:
            raise StopAsyncIteration
        return line.decode("utf-8", "replace")


class _StdoutProtocol(asyncio.streams.FlowControlMixin):
    """Stdout's flow control, telling ``on_room`` when a full pipe has room again (or is gone)."""

    def __init__(self) -> None:
        super().__init__()
        self.full = False
        self.on_room: Callable[[], None] = _nothing

    def pause_writing(self) -> None:
        super().pause_writing()
        self.full = True

    def resume_writing(self) -> None:
        super().resume_writing()
        self.full = False
        self.on_room()

    def connection_lost(self, exc: Optional[Exception]) -> None:
        super().connection_lost(exc)
        self.full = False
        self.on_room()


class _StdinProtocol(asyncio.StreamReaderProtocol):
    """Stdin's lines: those ``lines.divert`` takes end here, the rest go to the SDK's reader.

    A diverted line's answer is written without waiting (from a callback), so once a
    chunk held a diverted line and stdout is full, stdin is not read until stdout has
    room: a client that stops reading its answers stops the proxy reading its
    requests, instead of the proxy buffering answers without bound.
    """

    def __init__(self, reader: asyncio.StreamReader, lines: _Lines, out: _StdoutProtocol) -> None:
        super().__init__(reader)
        self._reader = reader
        self._lines = lines
        self._out = out
        self._splitter = LineSplitter(self._line, reader.feed_data, MAX_LINE)
        self._diverted = False
        self._held = False
        self._transport: Optional[asyncio.ReadTransport] = None
        out.on_room = self._room

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        super().connection_made(transport)
        assert isinstance(transport, asyncio.ReadTransport)  # a pipe's read end
        self._transport = transport

    def data_received(self, data: bytes) -> None:
        self._diverted = False
        self._splitter.feed(data)
        if self._diverted and self._out.full and self._transport is not None:
            self._held = True
            self._transport.pause_reading()

    def eof_received(self) -> Optional[bool]:
        self._splitter.end()
        return super().eof_received()

    def _line(self, line: bytes) -> None:
        divert = self._lines.divert
        if divert is not None and divert(line):
            self._diverted = True
        else:
            self._reader.feed_data(line)

    def _room(self) -> None:
        if self._held and self._transport is not None:
            self._held = False
            self._transport.resume_reading()


class _Out:
    """Stdout as the SDK's transport writes it: ``await write(text)``, ``await flush()``."""

    def __init__(self, writer: asyncio.StreamWriter) -> None:
        self._writer = writer

    async def write(self, text: str) -> None:
        self._writer.write(text.encode("utf-8"))

    def send_line(self, data: bytes) -> None:
        """Write ``data`` (whole lines, already encoded) now, between the SDK's messages."""
        self._writer.write(data)

    async def flush(self) -> None:
        await self._writer.drain()


@contextlib.contextmanager
def asyncio_marked() -> Iterator[None]:
    """Pipes made inside this have callbacks in which anyio knows it runs on asyncio.

    A transport's callbacks run in a copy of the context current when it was made,
    with no task: anyio finds its backend through ``sniffio``, which looks at the
    current task, so an anyio primitive used in a line's callback (a client's slot,
    see :mod:`._passthrough`) would find none. ``sniffio``'s own variable says it
    instead; anyio without ``sniffio`` asks the running loop, and needs nothing.
    """
    try:
        import sniffio
    except ImportError:  # pragma: no cover - anyio then asks the running loop
        yield
        return
    token = sniffio.current_async_library_cvar.set("asyncio")
    try:
        yield
    finally:
        sniffio.current_async_library_cvar.reset(token)


def _nothing() -> None:
    """What to tell when stdout has room before stdin is read: nobody."""


@contextlib.asynccontextmanager
async def pipe_streams() -> AsyncIterator[Optional[tuple[Any, Any]]]:
    """``(stdin, stdout)`` for ``stdio_server(stdin, stdout)``; ``None`` when they are not pipes.

    Yields:
        The two streams, or ``None`` (use the SDK's own).
    """
    if not (_is_pipe(0) and _is_pipe(1)):
        yield None
        return
    loop = asyncio.get_running_loop()
    wire_in, wire_out = os.dup(0), os.dup(1)
    null = os.open(os.devnull, os.O_RDONLY)
    os.dup2(null, 0)
    os.close(null)
    os.dup2(2, 1)
    transports: list[asyncio.BaseTransport] = []
    try:
        # Stdout first: stdin's reader stops reading while stdout is full.
        write_transport, protocol = await loop.connect_write_pipe(
            _StdoutProtocol, os.fdopen(wire_out, "wb", buffering=0)
        )
        transports.append(write_transport)
        writer = asyncio.StreamWriter(write_transport, protocol, None, loop)
        out = _Out(writer)
        reader = asyncio.StreamReader(limit=MAX_LINE)
        lines = _Lines(reader)
        with asyncio_marked():
            read_transport, _ = await loop.connect_read_pipe(
                lambda: _StdinProtocol(reader, lines, protocol), os.fdopen(wire_in, "rb", buffering=0)
            )
        transports.append(read_transport)
        yield lines, out
    finally:
        # The wire goes back where it was, blocking again, before the transports close
        # their own copies of it.
        for fd, wire in ((0, wire_in), (1, wire_out)):
            with contextlib.suppress(OSError):
                os.dup2(wire, fd)
                os.set_blocking(fd, True)
        for transport in transports:
            transport.close()
        for wire in (wire_out, wire_in)[len(transports) :]:
            with contextlib.suppress(OSError):
                os.close(wire)
