"""Streaming a run: the loop plays in a worker thread, its events come out as they happen.

The loop is synchronous (model and tools are plain calls) and a tool's chunks come
while the executor call is still running, so a generator in the caller's thread
cannot yield them itself; the run plays in a thread and hands every event over
through a queue (an ``asyncio`` queue for :func:`astream_run`, so that an event loop
awaits events and is never blocked by the run).
"""

from __future__ import annotations

import queue
import threading
from collections.abc import AsyncIterator, Iterator
from typing import Any, Callable

__all__ = ["astream_run", "stream_run"]


class _Failed:
    """The exception the run raised, passed to the consumer to raise."""

    def __init__(self, error: BaseException) -> None:
        self.error = error


_DONE = object()


def _start(play: Callable[[Callable[[Any], None]], Any], put: Callable[[Any], None]) -> threading.Thread:
    """Run ``play(put)`` in a daemon thread, then ``put`` the end marker (or the exception)."""

    def work() -> None:
        try:
            play(put)
        except BaseException as exc:  # noqa: BLE001 - handed to the consumer, who raises it
            put(_Failed(exc))
        else:
            put(_DONE)

    worker = threading.Thread(target=work, name="lagent-like-agent-stream", daemon=True)
    worker.start()
    return worker


def stream_run(play: Callable[[Callable[[Any], None]], Any]) -> Iterator[Any]:
    """Yield the events ``play(emit)`` emits, as it emits them, ``play`` running in a thread.

    Args:
        play: runs the whole run, calling ``emit(event)`` for each event.

    Returns:
        An iterator of the events; an exception ``play`` raised is raised by it
        after the events emitted before.
    """
    events: queue.Queue[Any] = queue.Queue()
    return _drain(events, _start(play, events.put))


def _drain(events: queue.Queue[Any], worker: threading.Thread) -> Iterator[Any]:
    while True:
        event = events.get()
        if event is _DONE:
            worker.join()
            return
        if isinstance(event, _Failed):
            worker.join()
            raise event.error
        yield event


async def astream_run(play: Callable[[Callable[[Any], None]], Any]) -> AsyncIterator[Any]:
    """As :func:`stream_run`, for an event loop: the events are awaited, the loop never blocks.

    Args:
        play: runs the whole run, calling ``emit(event)`` for each event.

    Yields:
        The events, as they are emitted; then raises what ``play`` raised, if anything.
    """
    import asyncio

    loop = asyncio.get_running_loop()
    events: asyncio.Queue[Any] = asyncio.Queue()

    def put(event: Any) -> None:
        loop.call_soon_threadsafe(events.put_nowait, event)

    _start(play, put)
    while True:
        event = await events.get()
        if event is _DONE:
            return
        if isinstance(event, _Failed):
            raise event.error
        yield event
