"""A proxy stops reading stdin while stdout is full after a passed-through line (no unbounded answer buffer)."""

from __future__ import annotations

import asyncio

import pytest

pytest.importorskip("mcp", reason="needs the 'mcp' extra: pip install '.[mcp]' (or 'lagent-like[mcp]')")

from lagent_like.mcp._stdio import _Lines, _StdinProtocol, _StdoutProtocol


class HeldTransport(asyncio.ReadTransport):
    """Stdin's transport: records whether reading is paused."""

    def __init__(self) -> None:
        super().__init__()
        self.paused = False

    def pause_reading(self) -> None:
        self.paused = True

    def resume_reading(self) -> None:
        self.paused = False


def test_the_next_request_is_not_read_while_stdout_has_no_room() -> None:
    async def scenario() -> tuple[list[bytes], bool, bool, str]:
        reader = asyncio.StreamReader()
        lines = _Lines(reader)
        taken: list[bytes] = []
        lines.divert = lambda line: (taken.append(line) or True) if b"passed" in line else False
        out = _StdoutProtocol()
        protocol = _StdinProtocol(reader, lines, out)
        transport = HeldTransport()
        protocol.connection_made(transport)
        out.pause_writing()  # stdout is full
        # What one read brings is handed on; the next read waits for stdout.
        protocol.data_received(b'{"passed": 1}\n{"passed": 2}\n{"sdk": 3}\n')
        held = transport.paused
        out.resume_writing()
        return taken, held, transport.paused, await lines.__anext__()

    taken, held, still_held, text = asyncio.run(scenario())
    assert taken == [b'{"passed": 1}\n', b'{"passed": 2}\n']
    assert (held, still_held) == (True, False)
    assert text == '{"sdk": 3}\n'
