"""The stdio transport's two streams without a thread per line: asyncio pipes.

The SDK's ``stdio_server()`` reads each line of stdin and writes (and flushes) each
message to stdout in a worker thread: three thread hand-offs per call, a large part
of what a call costs when the tool itself takes no time (and twice over for a proxy,
which is a server and a client). It takes the two streams as arguments, so this
module hands it stdin and stdout as asyncio pipe streams instead, read and written
on the server's loop.

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
from collections.abc import AsyncIterator
from typing import Any, Callable, Optional

__all__ = ["pipe_streams"]

#: The longest line (one JSON-RPC message) read from stdin, in bytes.
MAX_LINE = 1 << 30


def _is_pipe(fd: int) -> bool:
    try:
        mode = os.fstat(fd).st_mode
    except OSError:
        return False
    return stat.S_ISFIFO(mode) or stat.S_ISSOCK(mode)


class _Lines:
    """Stdin as the SDK's transport reads it: ``async for line in stdin`` (text lines).

    A proxy sets ``divert``: each line it takes (passes through to an upstream server,
    see :mod:`._passthrough`) never reaches the SDK. Its answers are written without
    waiting (from callbacks), so after each diverted line the reader waits until stdout
    has room: a client that stops reading its answers stops the proxy reading its
    requests, instead of the proxy buffering answers without bound.
    """

    def __init__(self, reader: asyncio.StreamReader, out: _Out) -> None:
        self._reader = reader
        self._out = out
        self.divert: Optional[Callable[[bytes], bool]] = None

    def __aiter__(self) -> _Lines:
        return self

    async def __anext__(self) -> str:
        while True:
            line = await self._reader.readline()
            if not line:
                raise StopAsyncIteration
            if self.divert is None or not self.divert(line):
                return line.decode("utf-8", "replace")
            await self._out.flush()


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
        reader = asyncio.StreamReader(limit=MAX_LINE)
        read_transport, _ = await loop.connect_read_pipe(
            lambda: asyncio.StreamReaderProtocol(reader), os.fdopen(wire_in, "rb", buffering=0)
        )
        transports.append(read_transport)
        write_transport, protocol = await loop.connect_write_pipe(
            asyncio.streams.FlowControlMixin, os.fdopen(wire_out, "wb", buffering=0)
        )
        transports.append(write_transport)
        writer = asyncio.StreamWriter(write_transport, protocol, None, loop)
        out = _Out(writer)
        yield _Lines(reader, out), out
    finally:
        # The wire goes back where it was, blocking again, before the transports close
        # their own copies of it.
        for fd, wire in ((0, wire_in), (1, wire_out)):
            with contextlib.suppress(OSError):
                os.dup2(wire, fd)
                os.set_blocking(fd, True)
        for transport in transports:
            transport.close()
        for wire in (wire_in, wire_out)[len(transports) :]:
            with contextlib.suppress(OSError):
                os.close(wire)
