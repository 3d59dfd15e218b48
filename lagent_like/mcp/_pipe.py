"""A stdio MCP server's pipes, for the SDK's client session and for lines passed through raw.

A proxy (``serve-mcp --mcp``) that serves a stdio server's tools over stdio passes a
client's ``tools/call`` line to the server, and the server's answer back, without
building a message object on either side (:mod:`._passthrough`). The SDK's
``stdio_client`` keeps the pipes to itself (behind its own tasks and streams), so
this transport starts the server on plain asyncio pipes, on POSIX: the session
still gets what ``stdio_client`` gives it (a stream of parsed messages, a stream it
writes messages to), and beside them :class:`UpstreamPipe` writes raw lines to the
server and hands each line of the server that answers one of them (its JSON-RPC
``id``, or a progress notification's ``progressToken``, is a string made by
:func:`pass_id`, which the SDK's own integer ids can never equal) to its sender
instead of the session. The rest goes to the session as before.

The server's life is the SDK's: started in a process group of its own with the SDK's
safe environment, and ended as the specification says (stdin closed, a grace period,
then the group terminated and, if need be, killed).
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import json
import os
import signal
import sys
from collections.abc import AsyncIterator
from typing import Any, Callable, Optional, TextIO

import anyio
import mcp_types as types
from mcp.client.stdio import StdioServerParameters, get_default_environment
from mcp.shared.message import SessionMessage

from .._private.log import logger
from ._stdio import LineSplitter, asyncio_marked

__all__ = ["PASS_PREFIX", "RemotePipe", "UpstreamPipe", "pass_id", "piped_stdio_client"]

#: The start of every id (and progress token) a proxy gives the lines it passes through.
PASS_PREFIX = "lagent-like-pass-"

_MARK = b'"' + PASS_PREFIX.encode()
_NUMBERS = itertools.count(1)

#: The longest line (one JSON-RPC message) read from the server, in bytes.
MAX_LINE = 1 << 30

#: Messages parsed for the session that it has not read yet: a slow session must not
#: hold up the raw lines behind it at once.
_SESSION_BUFFER = 64

#: Seconds the session's writer has to flush its last messages before stdin closes.
_FLUSH_GRACE = 0.5

#: Seconds the server has to exit once its stdin is closed, and again after SIGTERM
#: and after SIGKILL (the SDK's figures).
_EXIT_GRACE = 2.0

_POLL = 0.01

#: Handed each line of the server that answers a raw line (``None, None`` when the
#: server went away), with the message read from it.
LineHandler = Callable[[Optional[bytes], Optional[dict[str, Any]]], None]


def pass_id() -> str:
    """A fresh id for a passed-through request, unlike any the SDK's session uses (integers)."""
    return f"{PASS_PREFIX}{next(_NUMBERS)}"


class UpstreamPipe:
    """Raw lines to a stdio server, and its lines that answer them back to their senders.

    Runs on the loop that started the server; every method is called there.
    """

    def __init__(self, process: asyncio.subprocess.Process, stdout: asyncio.StreamReader) -> None:
        self._process = process
        self._stdout = stdout
        self._waiting: dict[str, LineHandler] = {}
        self.closed = asyncio.Event()

    def send(self, data: bytes) -> bool:
        """Write ``data`` (whole lines) to the server's stdin now; ``False`` once it is closed."""
        stdin = self._process.stdin
        if stdin is None or stdin.is_closing() or self.closed.is_set():
            return False
        stdin.write(data)
        return True

    def expect(self, key: str, handler: LineHandler) -> None:
        """Hand the server's lines whose ``id`` or ``progressToken`` is ``key`` to ``handler``."""
        self._waiting[key] = handler

    def forget(self, key: str) -> None:
        """Drop ``key``'s later lines (a cancelled call's): the session must not see them either."""
        if key in self._waiting:
            self._waiting[key] = _drop

    def _claim(self, line: bytes) -> bool:
        """Hand ``line`` to its waiting sender; ``False`` when it is the session's."""
        try:
            message = json.loads(line)
        except ValueError:
            try:  # not UTF-8: still read, and passed on as the server wrote it
                message = json.loads(line.decode("utf-8", "surrogateescape"))
            except ValueError:
                return False
        if not isinstance(message, dict):
            return False
        key = message.get("id")
        if "method" in message:
            params = message.get("params")
            if message["method"] != "notifications/progress" or not isinstance(params, dict):
                return False
            key = params.get("progressToken")
        if not isinstance(key, str) or key not in self._waiting:
            return False
        handler = self._waiting[key]
        if "method" not in message:
            del self._waiting[key]  # a response ends its request
        handler(line, message)
        return True

    def _lost(self) -> None:
        """The server went away: every waiting sender is told, once."""
        waiting, self._waiting = self._waiting, {}
        self.closed.set()
        for handler in waiting.values():
            handler(None, None)

    def take(self, line: bytes) -> bool:
        """Hand ``line`` (one line of the server) to the sender waiting for it; ``False``: the session's."""
        if not self._waiting:
            return False
        line = line[:-1] if line.endswith(b"\n") else line
        return _MARK in line and self._claim(line)

    async def pump_out(self, session_in: Any) -> None:
        """Read the server's lines that :meth:`take` left: parsed for the session."""
        stdout = self._stdout
        try:
            async with session_in:
                while True:
                    line = await stdout.readline()
                    if not line:
                        break
                    await session_in.send(_parsed(line[:-1] if line.endswith(b"\n") else line))
        except (anyio.ClosedResourceError, anyio.BrokenResourceError):
            pass  # the session is gone; the output is still read to its end, below
        except (ValueError, OSError) as exc:  # a line beyond MAX_LINE, a broken pipe
            logger().warning("reading the MCP server's output failed: %s: %s", type(exc).__name__, exc)
        finally:
            self._lost()
            # As the SDK does: a server still flushing must not block on a full pipe.
            with contextlib.suppress(Exception):
                while await stdout.read(1 << 16):
                    pass

    async def pump_in(self, session_out: Any, session_in: Any, done: asyncio.Event) -> None:
        """Write the session's messages to the server's stdin, one line each."""
        stdin = self._process.stdin
        assert stdin is not None  # started with pipes
        try:
            async with session_out:
                async for session_message in session_out:
                    text = session_message.message.model_dump_json(by_alias=True, exclude_unset=True)
                    if not self.send((text + "\n").encode("utf-8")):
                        raise BrokenPipeError("the server's stdin is closed")
                    await stdin.drain()
        except (anyio.ClosedResourceError, anyio.BrokenResourceError, OSError):
            # The server may live on: the session must see the connection end.
            await session_in.aclose()
        finally:
            done.set()

    async def stop(self) -> None:
        """End the server as the SDK does: close stdin, wait, terminate the group, kill it."""
        process = self._process
        if process.stdin is not None:
            process.stdin.close()
        if await _exited(process, _EXIT_GRACE):
            return
        for sig in (signal.SIGTERM, signal.SIGKILL):
            try:
                os.killpg(process.pid, sig)
            except ProcessLookupError:
                return
            except PermissionError:
                pass  # some members cannot be signalled: wait for the rest anyway
            if await _exited(process, _EXIT_GRACE, group=True):
                return
        logger().warning("MCP server process %d is still alive after being killed; left behind", process.pid)


class _ServerLines(asyncio.Protocol):
    """The server's stdout, read in lines as each chunk comes.

    A line that answers a raw line goes to its sender in the callback that read it
    (``take``, :meth:`UpstreamPipe.take`): one turn of the event loop from the
    server's write to the client's answer. The rest goes on to ``reader``, from which
    the session's lines are read.

    Args:
        reader: where the lines not taken go.
        take: takes a line for its sender (``True``) or leaves it (``False``).
    """

    def __init__(self, reader: asyncio.StreamReader, take: Callable[[bytes], bool]) -> None:
        self._reader = reader
        self._take = take
        self._splitter = LineSplitter(self._line, reader.feed_data, MAX_LINE)

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        assert isinstance(transport, asyncio.ReadTransport)  # a pipe's read end
        self._reader.set_transport(transport)

    def data_received(self, data: bytes) -> None:
        self._splitter.feed(data)

    def eof_received(self) -> Optional[bool]:
        self._splitter.end()  # a last line without a newline counts too
        self._reader.feed_eof()
        return None

    def connection_lost(self, exc: Optional[Exception]) -> None:
        if exc is None:
            self._reader.feed_eof()
        else:
            self._reader.set_exception(exc)

    def _line(self, line: bytes) -> None:
        if not self._take(line):
            self._reader.feed_data(line)


class RemotePipe:
    """An :class:`UpstreamPipe` of another loop (another toolkit's), used from this one.

    A proxy served over stdio runs on its first proxied server's loop; each other
    server's pipe lives on its own toolkit's loop. Every method hops there (in order:
    a request's ``expect`` is registered before it is sent), and every line of the
    server for a sender hops back to the loop that made this object.

    Args:
        pipe: the pipe, of loop ``there``.
        there: the loop that owns ``pipe``.
    """

    def __init__(self, pipe: UpstreamPipe, there: asyncio.AbstractEventLoop) -> None:
        self._pipe = pipe
        self._there = there
        self._here = asyncio.get_running_loop()

    def send(self, data: bytes) -> bool:
        """Write ``data`` (whole lines) on the pipe's loop; ``False`` when it is closed already."""
        if self._pipe.closed.is_set():
            return False
        self._there.call_soon_threadsafe(self._pipe.send, data)
        return True

    def expect(self, key: str, handler: LineHandler) -> None:
        """As :meth:`UpstreamPipe.expect`; ``handler`` runs on this loop (``None, None``: pipe closed)."""

        def back(line: Optional[bytes], message: Optional[dict[str, Any]]) -> None:
            self._here.call_soon_threadsafe(handler, line, message)

        def register() -> None:
            if self._pipe.closed.is_set():
                back(None, None)  # closed before the request could be sent: no answer will come
            else:
                self._pipe.expect(key, back)

        self._there.call_soon_threadsafe(register)

    def forget(self, key: str) -> None:
        """As :meth:`UpstreamPipe.forget`."""
        self._there.call_soon_threadsafe(self._pipe.forget, key)


def _drop(line: Optional[bytes], message: Optional[dict[str, Any]]) -> None:
    """A cancelled call's late lines: nobody waits for them."""


def _group_alive(pgid: int) -> bool:
    try:
        os.killpg(pgid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        pass  # unsignalable members or zombies: not proof that it is gone
    return True


async def _exited(process: asyncio.subprocess.Process, timeout: float, group: bool = False) -> bool:
    """Whether the process (with ``group``: its whole group) is gone within ``timeout`` seconds.

    Polled, not ``process.wait()``: that also waits for the pipes to close, which a
    child holding them open would delay.
    """
    deadline = asyncio.get_running_loop().time() + timeout
    while process.returncode is None or (group and _group_alive(process.pid)):
        if asyncio.get_running_loop().time() >= deadline:
            return False
        await asyncio.sleep(_POLL)
    return True


def _parsed(line: bytes) -> Any:
    r"""One line of the server for the session: the message, or the error reading it.

    Bytes that are not UTF-8 are read as U+FFFD (as the SDK's server reads its stdin),
    and a ``\ud800`` escape (valid JSON, which the SDK's parser refuses) as the lone
    surrogate it stands for: one odd character costs that character (the proxy makes
    it valid text), not the whole answer.
    """
    adapter = types.jsonrpc_message_adapter
    try:
        try:
            return SessionMessage(adapter.validate_json(line, by_name=False))
        except ValueError:
            data = json.loads(line.decode("utf-8", "replace"))
            return SessionMessage(adapter.validate_python(data, by_name=False))
    except ValueError as exc:
        logger().warning("MCP server wrote a line that is not a JSON-RPC message: %s", exc)
        return exc


@contextlib.asynccontextmanager
async def piped_stdio_client(
    server: StdioServerParameters, errlog: TextIO = sys.stderr
) -> AsyncIterator[tuple[Any, Any, UpstreamPipe]]:
    """Start a stdio MCP server: ``(read stream, write stream, pipe)``, as ``stdio_client`` plus the pipe.

    Args:
        server: the command, arguments and environment (on top of the SDK's safe set).
        errlog: where the server's stderr goes.

    Yields:
        The session's two streams and the :class:`UpstreamPipe` for raw lines.
    """
    loop = asyncio.get_running_loop()
    # The server's stdout is a pipe of our own, read by our protocol: the subprocess
    # transport's own would hand each chunk on through one more turn of the loop.
    stdout_fd, child_stdout = os.pipe()
    try:
        process = await asyncio.create_subprocess_exec(
            server.command,
            *server.args,
            stdin=asyncio.subprocess.PIPE,
            stdout=child_stdout,
            stderr=errlog,
            env={**get_default_environment(), **(server.env or {})},
            cwd=server.cwd,
            start_new_session=True,
        )
    except BaseException:
        os.close(stdout_fd)
        raise
    finally:
        os.close(child_stdout)
    reader = asyncio.StreamReader(limit=MAX_LINE)
    pipe = UpstreamPipe(process, reader)
    try:
        with asyncio_marked():
            stdout_transport, _ = await loop.connect_read_pipe(
                lambda: _ServerLines(reader, pipe.take), os.fdopen(stdout_fd, "rb", buffering=0)
            )
    except BaseException:
        await pipe.stop()
        raise
    session_in, read_stream = anyio.create_memory_object_stream[Any](_SESSION_BUFFER)
    write_stream, session_out = anyio.create_memory_object_stream[SessionMessage](0)
    writer_done = asyncio.Event()
    async with anyio.create_task_group() as group:
        group.start_soon(pipe.pump_out, session_in)
        group.start_soon(pipe.pump_in, session_out, session_in, writer_done)
        try:
            yield read_stream, write_stream, pipe
        finally:
            with anyio.CancelScope(shield=True):
                read_stream.close()
                write_stream.close()
                with anyio.move_on_after(_FLUSH_GRACE):
                    await writer_done.wait()
                await pipe.stop()
                for stream in (read_stream, write_stream, session_in, session_out):
                    await stream.aclose()
                stdout_transport.close()
            group.cancel_scope.cancel()
