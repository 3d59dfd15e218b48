"""A stdio proxy reads its pipes in lines inside the read callbacks: splitting, diverting, holding back."""

from __future__ import annotations

import asyncio
import contextlib
import os
from typing import Optional

import pytest

pytest.importorskip("mcp", reason="needs the 'mcp' extra: pip install '.[mcp]' (or 'lagent-like[mcp]')")

import anyio

from lagent_like.mcp._pipe import _ServerLines
from lagent_like.mcp._stdio import LineSplitter, _Lines, _StdinProtocol, _StdoutProtocol, asyncio_marked

SPLITS = [
    pytest.param(
        [b'{"a":1}\n{"b":2}\n{"c":3}\n'],
        [b'{"a":1}\n', b'{"b":2}\n', b'{"c":3}\n'],
        [],
        id="many-lines-in-one-read",
    ),
    pytest.param([b'{"a":', b"1}", b"\n"], [b'{"a":1}\n'], [], id="one-line-split-across-reads"),
    pytest.param(
        [b'{"a":1}\n{"b"', b":2}\n"], [b'{"a":1}\n', b'{"b":2}\n'], [], id="a-line-ends-in-the-next-read"
    ),
    pytest.param([b'{"a":1}\n{"b":2}'], [b'{"a":1}\n', b'{"b":2}'], [], id="a-partial-last-line-at-eof"),
    pytest.param([b"\n\n"], [b"\n", b"\n"], [], id="empty-lines"),
    pytest.param(
        [b"0123456789", b"abc\n", b"ok\n"],
        [b"ok\n"],
        [b"0123456789", b"abc\n"],
        id="an-overlong-line-goes-raw",
    ),
    pytest.param(
        [b"012", b"3456789", b"xyz", b"\nok\n"],
        [b"ok\n"],
        [b"0123456789", b"xyz", b"\n"],
        id="overlong-over-several-reads",
    ),
]


@pytest.mark.parametrize(("chunks", "lines", "raw"), SPLITS)
def test_the_splitter_hands_on_whole_lines(chunks: list[bytes], lines: list[bytes], raw: list[bytes]) -> None:
    got: list[bytes] = []
    passed: list[bytes] = []
    splitter = LineSplitter(got.append, passed.append, limit=8)
    for chunk in chunks:
        splitter.feed(chunk)
    splitter.end()
    assert got == lines
    assert passed == raw


class FakeReadTransport(asyncio.ReadTransport):
    """A read transport that records whether reading is paused."""

    def __init__(self) -> None:
        super().__init__()
        self.paused = False
        self.pauses = 0

    def pause_reading(self) -> None:
        self.paused = True
        self.pauses += 1

    def resume_reading(self) -> None:
        self.paused = False


def _stdin(divert_word: bytes) -> tuple[_StdinProtocol, _StdoutProtocol, asyncio.StreamReader, list[bytes]]:
    reader = asyncio.StreamReader()
    lines = _Lines(reader)
    taken: list[bytes] = []
    lines.divert = lambda line: (taken.append(line) or True) if divert_word in line else False
    out = _StdoutProtocol()
    protocol = _StdinProtocol(reader, lines, out)
    protocol.connection_made(FakeReadTransport())
    return protocol, out, reader, taken


def test_diverted_lines_never_reach_the_sdk_and_the_rest_keep_their_order() -> None:
    async def scenario() -> tuple[list[bytes], list[str]]:
        protocol, _, reader, taken = _stdin(b"passed")
        protocol.data_received(b'{"sdk":1}\n{"passed":2}\n{"sd')
        protocol.data_received(b'k":3}\n{"passed":4}')
        protocol.eof_received()
        return taken, [line async for line in _Lines(reader)]

    taken, sdk = asyncio.run(scenario())
    assert taken == [b'{"passed":2}\n', b'{"passed":4}']
    assert sdk == ['{"sdk":1}\n', '{"sdk":3}\n']


def test_stdin_is_not_read_while_stdout_is_full_after_a_diverted_line() -> None:
    async def scenario() -> list[tuple[str, bool]]:
        protocol, out, _, _ = _stdin(b"passed")
        transport = protocol._transport
        assert isinstance(transport, FakeReadTransport)
        seen = []
        out.pause_writing()
        protocol.data_received(b'{"sdk":1}\n')
        seen.append(("sdk line, stdout full", transport.paused))
        protocol.data_received(b'{"passed":2}\n')
        seen.append(("passed line, stdout full", transport.paused))
        out.resume_writing()
        seen.append(("stdout has room", transport.paused))
        protocol.data_received(b'{"passed":3}\n')
        seen.append(("passed line, stdout has room", transport.paused))
        return seen

    assert asyncio.run(scenario()) == [
        ("sdk line, stdout full", False),
        ("passed line, stdout full", True),
        ("stdout has room", False),
        ("passed line, stdout has room", False),
    ]


def test_stdin_is_read_again_when_stdout_is_gone() -> None:
    async def scenario() -> tuple[bool, bool]:
        protocol, out, _, _ = _stdin(b"passed")
        transport = protocol._transport
        assert isinstance(transport, FakeReadTransport)
        out.pause_writing()
        protocol.data_received(b'{"passed":1}\n')
        held = transport.paused
        out.connection_lost(None)
        return held, transport.paused

    assert asyncio.run(scenario()) == (True, False)


def test_the_servers_lines_for_a_sender_are_taken_and_the_rest_read_in_order() -> None:
    async def scenario() -> tuple[list[bytes], list[bytes]]:
        reader = asyncio.StreamReader()
        taken: list[bytes] = []

        def take(line: bytes) -> bool:
            if b"mine" in line:
                taken.append(line)
                return True
            return False

        protocol = _ServerLines(reader, take)
        protocol.connection_made(FakeReadTransport())
        protocol.data_received(b'{"mine":1}\n{"session":2}\n{"mi')
        protocol.data_received(b'ne":3}\n{"session":4}\n{"mine":5}')
        protocol.eof_received()
        rest = []
        while line := await reader.readline():
            rest.append(line)
        return taken, rest

    taken, rest = asyncio.run(scenario())
    assert taken == [b'{"mine":1}\n', b'{"mine":3}\n', b'{"mine":5}']
    assert rest == [b'{"session":2}\n', b'{"session":4}\n']


class SlotTaker(asyncio.Protocol):
    """Takes an anyio semaphore's slot in its read callback, as the pass-through takes a client's slot."""

    def __init__(self) -> None:
        self.done: asyncio.Future[Optional[str]] = asyncio.get_running_loop().create_future()

    def data_received(self, data: bytes) -> None:
        try:
            anyio.Semaphore(1).acquire_nowait()
        except Exception as exc:  # noqa: BLE001 - the test reports what went wrong
            self.done.set_result(f"{type(exc).__name__}: {exc}")
        else:
            self.done.set_result(None)


def test_anyio_works_in_the_read_callbacks_of_a_marked_pipe() -> None:
    assert asyncio.run(_slot_in_callback(marked=True)) is None


def test_anyio_needs_the_mark_in_read_callbacks_when_sniffio_is_there() -> None:
    pytest.importorskip("sniffio", reason="anyio without sniffio asks the running loop: no mark needed")
    assert str(asyncio.run(_slot_in_callback(marked=False))).startswith("NoEventLoopError")


async def _slot_in_callback(marked: bool) -> Optional[str]:
    """What taking a slot in a pipe's read callback raised (``None``: nothing)."""
    read_fd, write_fd = os.pipe()
    protocol = SlotTaker()
    loop = asyncio.get_running_loop()
    with asyncio_marked() if marked else contextlib.nullcontext():
        transport, _ = await loop.connect_read_pipe(lambda: protocol, os.fdopen(read_fd, "rb", buffering=0))
    try:
        os.write(write_fd, b"line\n")
        return await protocol.done
    finally:
        os.close(write_fd)
        transport.close()
