"""A proxy's stdin reader waits for stdout after each passed-through line (no unbounded answer buffer)."""

from __future__ import annotations

import asyncio
from typing import Any, cast

import pytest

pytest.importorskip("mcp", reason="needs the 'mcp' extra: pip install '.[mcp]' (or 'lagent-like[mcp]')")

from lagent_like.mcp._stdio import _Lines


class HeldOut:
    """Stdout whose flush waits until ``room`` is set, as a full pipe would."""

    def __init__(self) -> None:
        self.room = asyncio.Event()
        self.flushes = 0

    async def flush(self) -> None:
        self.flushes += 1
        await self.room.wait()


def test_the_next_request_is_not_read_while_stdout_has_no_room() -> None:
    async def scenario() -> tuple[list[bytes], list[bytes], str]:
        reader = asyncio.StreamReader()
        reader.feed_data(b'{"passed": 1}\n{"passed": 2}\n{"sdk": 3}\n')
        reader.feed_eof()
        out = HeldOut()
        lines = _Lines(reader, cast(Any, out))
        taken: list[bytes] = []
        lines.divert = lambda line: (taken.append(line) or True) if b"passed" in line else False
        reading = asyncio.ensure_future(lines.__anext__())
        for _ in range(5):
            await asyncio.sleep(0)
        before = list(taken)
        out.room.set()
        text = await reading
        return before, taken, text

    before, taken, text = asyncio.run(scenario())
    assert before == [b'{"passed": 1}\n']
    assert taken == [b'{"passed": 1}\n', b'{"passed": 2}\n']
    assert text == '{"sdk": 3}\n'
