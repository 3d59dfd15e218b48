"""Awaitable tool calls: ``AsyncActionExecutor``.

Agents built on asyncio call tools concurrently. The async executor runs the same call
core as ``ActionExecutor`` (hooks, retries, timeouts, breakers, context) through the
async driver: async APIs run on the event loop and are cancelled on timeout; sync APIs
run in worker threads (or inline for tools with ``blocking = False``).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, Awaitable, Callable, Optional

from ..runtime._core import call_core, drive_async
from ..runtime._invoke import Route, ainvoke
from ..runtime._messages import native_calls
from ..runtime._streaming import on_loop
from ..runtime.settings import ToolSettings
from ..schema import ActionReturn
from ._base import ExecutorBase
from ._exports import call_results, read_calls
from ._intake import batch_job

if TYPE_CHECKING:
    pass

__all__ = ["AsyncActionExecutor"]


class AsyncActionExecutor(ExecutorBase):
    """An executor whose calls are awaited; otherwise as :class:`ActionExecutor`.

    ``await executor(name, command)`` runs async APIs on the loop and sync APIs in a
    thread pool; ``await executor.batch(calls)`` runs many calls concurrently. Takes the
    same arguments as ``ActionExecutor``; ``sleep`` may be a coroutine function.
    """

    def _may_skip_core(self, route: Route, settings: ToolSettings) -> bool:
        # The direct path runs on the loop: async APIs, and sync ones marked non-blocking.
        return route.is_async or not settings.blocking

    async def __call__(
        self,
        name: str,
        command: Any,
        session_id: Optional[str] = None,
        call_id: Optional[str] = None,
        *,
        on_progress: Optional[Callable[[Any], Any]] = None,
        context: Any = None,
    ) -> ActionReturn:
        """Run the call a model asked for; see :meth:`ActionExecutor.__call__`.

        ``on_progress`` is called on the event loop, also for sync generator tools
        running in a worker thread; an awaitable it returns is awaited.
        """
        route = self._route_of_call(name, command, session_id, call_id)
        if isinstance(route, ActionReturn):
            return route
        if route.direct and context is None:
            return await ainvoke(route, command)
        if on_progress is not None:
            import asyncio

            on_progress = on_loop(on_progress, asyncio.get_running_loop())
        filled = self._context(route, session_id, call_id, on_progress, context, (name, command))
        core = call_core(route, command, filled, self._hook_methods)
        return await drive_async(core, self._thread_pool(), self._sleep)

    def _direct_or_call(
        self, name: Any, command: Any, session_id: Optional[str], call_id: Optional[str]
    ) -> Awaitable[ActionReturn]:
        """The awaitable of one call: on the direct path, ``ainvoke``'s coroutine itself.

        Awaiting it directly saves a coroutine per call in large batches.
        """
        route = self._routes.get(name) if isinstance(name, str) else None
        too_long = command.__class__ is str and len(command) > self._argument_limit
        if route is not None and route.direct and route.live.enable is True and not too_long:
            return ainvoke(route, command)
        return self(name, command, session_id, call_id)

    async def batch(
        self, calls: Sequence[Any], session_id: Optional[str] = None, max_concurrency: Optional[int] = None
    ) -> list[ActionReturn]:
        """Run several calls concurrently on the loop; the records come back in input order.

        Args:
            calls: ``(name, command)`` pairs or OpenAI-style tool calls.
            session_id: the session every call belongs to.
            max_concurrency: how many run at once (``None``: all).
        """
        import asyncio

        jobs = [batch_job(call) for call in calls]
        if not max_concurrency:
            return list(
                await asyncio.gather(*(self._direct_or_call(n, c, session_id, i) for n, c, i in jobs))
            )
        gate = asyncio.Semaphore(max_concurrency)

        async def gated(name: Any, command: Any, call_id: Optional[str]) -> ActionReturn:
            async with gate:
                return await self(name, command, session_id, call_id)

        return list(await asyncio.gather(*(gated(*job) for job in jobs)))

    async def run_tool_calls(self, tool_calls: Any) -> list[dict[str, Any]]:
        """Run a model's tool calls concurrently; one result per call, in order.

        See :meth:`ActionExecutor.run_tool_calls` (a whole message is read the same way).

        Raises:
            TypeError: ``tool_calls`` is neither a message nor tool calls.
        """
        calls = read_calls(tool_calls)
        with native_calls():  # messages name the tools as the model was given them
            done = iter(await self.batch([c.raw for c in calls if c.name is not None]))
        records = [next(done) if c.name is not None else None for c in calls]
        self._named_as_given(records)
        return call_results(calls, records)
