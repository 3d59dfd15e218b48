"""Running a coroutine from synchronous code, inside or outside an event loop."""

from __future__ import annotations

from collections.abc import Coroutine
from typing import Any

__all__ = ["run_coroutine"]


def run_coroutine(coro: Coroutine[Any, Any, Any]) -> Any:
    """Run an async API to completion from synchronous code.

    Inside a running event loop the coroutine runs on a fresh loop in a worker thread,
    because the caller's loop cannot be re-entered.
    """
    # Imported here: asyncio costs milliseconds at import and only async APIs need it.
    import asyncio
    import concurrent.futures

    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return asyncio.run(coro)
    with concurrent.futures.ThreadPoolExecutor(max_workers=1) as pool:
        return pool.submit(asyncio.run, coro).result()
