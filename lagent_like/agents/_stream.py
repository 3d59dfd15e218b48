"""Streaming a run: the loop plays in a worker thread, its events come out as they happen.

The loop is synchronous (model and tools are plain calls) and a tool's chunks come
while the executor call is still running, so a generator in the caller's thread
cannot yield them itself; the run plays in a thread and hands every event over
through a queue.
"""

from __future__ import annotations

import queue
import threading
from collections.abc import Iterator
from typing import Any, Callable

__all__ = ["stream_run"]


class _Failed:
    """The exception the run raised, passed to the consumer to raise."""

    def __init__(self, error: BaseException) -> None:
        self.error = error


_DONE = object()


def stream_run(play: Callable[[Callable[[Any], None]], Any]) -> Iterator[Any]:
    """Yield the events ``play(emit)`` emits, as it emits them, ``play`` running in a thread.

    Args:
        play: runs the whole run, calling ``emit(event)`` for each event.

    Returns:
        An iterator of the events; an exception ``play`` raised is raised by it
        after the events emitted before.
    """
    events: queue.Queue[Any] = queue.Queue()

    def work() -> None:
        try:
            play(events.put)
        except BaseException as exc:  # noqa: BLE001 - handed to the consumer, who raises it
            events.put(_Failed(exc))
        else:
            events.put(_DONE)

    worker = threading.Thread(target=work, name="lagent-like-agent-stream", daemon=True)
    worker.start()
    return _drain(events, worker)


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
