"""The event loop of one agent run: every async call of the run is awaited on it.

The agent loop is synchronous, but its executor may be async (``AsyncActionExecutor``,
``RayActionExecutor``). Running each call on a fresh loop (``asyncio.run``) breaks
async tools that keep loop-bound resources between calls (an ``aiohttp`` session, an
MCP client session, a lock): the second call finds them tied to a closed loop. A run
therefore owns one loop, started at its first async call and closed (its leftover
tasks cancelled, as ``asyncio.run`` does) when the run ends, so nothing outlives it.
"""

from __future__ import annotations

import threading
from collections.abc import Awaitable
from typing import TYPE_CHECKING, Any, Optional

if TYPE_CHECKING:
    import asyncio

__all__ = ["RunLoop"]


class RunLoop:
    """One run's event loop, made on first use.

    Where no loop runs in the calling thread, the calls are awaited with
    ``run_until_complete`` in that thread; inside a running loop (``run`` called from
    async code) that loop cannot be re-entered, so the run's loop runs in a thread of
    its own.
    """

    def __init__(self) -> None:
        self._loop: Optional[asyncio.AbstractEventLoop] = None
        self._thread: Optional[threading.Thread] = None

    def wait(self, awaitable: Awaitable[Any]) -> Any:
        """Await ``awaitable`` on the run's loop and return what it gives (or raise what it raises)."""
        # Imported here: asyncio costs milliseconds at import and only async executors need it.
        import asyncio

        loop = self._loop
        if loop is None:
            loop = self._loop = asyncio.new_event_loop()
            if _loop_running():
                self._thread = threading.Thread(
                    target=loop.run_forever, name="lagent-like-agent-loop", daemon=True
                )
                self._thread.start()
        if self._thread is None:
            return loop.run_until_complete(_awaited(awaitable))
        return asyncio.run_coroutine_threadsafe(_awaited(awaitable), loop).result()

    def close(self) -> None:
        """Cancel what the run's calls left on the loop, close it and stop its thread."""
        loop, self._loop = self._loop, None
        if loop is None:
            return
        import asyncio

        thread, self._thread = self._thread, None
        try:
            if thread is None:
                loop.run_until_complete(_wind_down())
            else:
                asyncio.run_coroutine_threadsafe(_wind_down(), loop).result()
        finally:
            if thread is not None:
                loop.call_soon_threadsafe(loop.stop)
                thread.join()
            loop.close()


def _loop_running() -> bool:
    """Whether an event loop runs in this thread."""
    import asyncio

    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return False
    return True


async def _awaited(awaitable: Awaitable[Any]) -> Any:
    return await awaitable


async def _wind_down() -> None:
    """Cancel the loop's other tasks and wait for them, then close async generators and the executor."""
    import asyncio

    current = asyncio.current_task()
    left = [task for task in asyncio.all_tasks() if task is not current]
    for task in left:
        task.cancel()
    await asyncio.gather(*left, return_exceptions=True)
    loop = asyncio.get_running_loop()
    await loop.shutdown_asyncgens()
    await loop.shutdown_default_executor()
