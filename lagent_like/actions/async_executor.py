"""Awaitable tool calls: ``AsyncActionExecutor`` and ``AsyncActionMixin``.

Agents built on asyncio call tools concurrently. The async executor runs the same call
core as ``ActionExecutor`` (hooks, retries, timeouts, breakers, context) through the
async driver: async APIs run on the event loop and are cancelled on timeout; sync APIs
run in worker threads (or inline for tools with ``blocking = False``).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, Awaitable, Optional

from .._private.executor_messages import native_calls
from ..schema import ActionReturn, ActionValidCode
from .action_executor import ActionExecutor, _batch_job
from .base_action import BaseAction
from .function_calling import call_results, read_calls
from .runtime import CallPlan, call_core, drive_async

if TYPE_CHECKING:
    from .._private.daemon_pool import DaemonThreadPool

__all__ = ["AsyncActionExecutor", "AsyncActionMixin"]

_MIXIN_POOL: Optional[DaemonThreadPool] = None


def _mixin_pool() -> DaemonThreadPool:
    from .._private.daemon_pool import DaemonThreadPool

    global _MIXIN_POOL
    if _MIXIN_POOL is None:
        _MIXIN_POOL = DaemonThreadPool(8, "lagent-like-async")
    return _MIXIN_POOL


class AsyncActionMixin:
    """Makes an action's ``__call__`` awaitable: ``ret = await action(inputs, name)``.

    Put it before ``BaseAction``: ``class Search(AsyncActionMixin, BaseAction)``. Async
    APIs are awaited on the caller's loop, sync ones run in a worker thread. Executors
    do not go through ``__call__``, so such actions work in sync executors too.
    """

    async def __call__(self, inputs: Any, name: str = "run") -> ActionReturn:
        action: BaseAction = self  # type: ignore[assignment]
        stages = action.stages(name) if isinstance(name, str) else None
        if stages is None:
            return action._unknown_api(inputs, name)
        label = f"{action.name}.{name}" if action.is_toolkit else action.name
        plan = CallPlan(label=label, tool=action.name, stages=stages, blocking=action.blocking)
        return await drive_async(call_core(plan, inputs), _mixin_pool())


class AsyncActionExecutor(ActionExecutor):
    """An :class:`ActionExecutor` whose calls are awaited.

    ``await executor(name, command)`` runs async APIs on the loop and sync APIs in a
    thread pool; ``await executor.batch(calls)`` runs many calls concurrently. Takes the
    same arguments as ``ActionExecutor``; ``sleep`` may be a coroutine function.
    """

    async def __call__(  # type: ignore[override]
        self, name: str, command: Any, session_id: Optional[str] = None, call_id: Optional[str] = None
    ) -> ActionReturn:
        """Run the call a model asked for; see :meth:`ActionExecutor.__call__`."""
        if command.__class__ is str and len(command) > self._argument_limit:
            return self._too_long(name, command)
        try:
            action, _, plain, _, stages = self._routes[name]
        except (KeyError, TypeError):
            return self._call_unrouted(name, command)
        if not action._enable:
            return self._call_unrouted(name, command)
        if plain and name in self._fast and stages.ainvoke is not None:
            # The direct path: an async API with nothing to apply around it.
            ret = await stages.ainvoke(command)
        elif plain and name in self._fast and not action.blocking:
            # A cheap sync API, run inline on the loop.
            parsed = stages.read(command)
            if isinstance(parsed, ActionReturn):
                ret = parsed
            else:
                try:
                    outputs = stages.call(parsed, None)
                    if stages.is_async:
                        outputs = await outputs
                    ret = stages.wrap(parsed, outputs)
                except (Exception, SystemExit) as exc:  # noqa: BLE001 - a failing tool is a result
                    ret = stages.fail(parsed, exc)
        else:
            plan = self._plan(name, session_id, call_id)
            ret = await drive_async(call_core(plan, command), self._thread_pool(), self._sleep)
        if ret.valid and action is not self.finish_action:
            ret.valid = ActionValidCode.OPEN
        return ret

    def _direct_or_call(
        self, name: Any, command: Any, session_id: Optional[str], call_id: Optional[str]
    ) -> tuple[Awaitable[ActionReturn], bool]:
        """The awaitable of one call, and whether it is the direct path's compiled coroutine.

        Awaiting the compiled coroutine itself saves a coroutine per call in large
        batches; its records then need ``__call__``'s last step (see ``batch``).
        """
        try:
            action, _, plain, _, stages = self._routes[name]
        except (KeyError, TypeError):
            return self(name, command, session_id, call_id), False
        direct = plain and action._enable and name in self._fast and stages.ainvoke is not None
        direct = direct and not (command.__class__ is str and len(command) > self._argument_limit)
        if direct and action is not self.finish_action:
            return stages.ainvoke(command), True  # type: ignore[misc]
        return self(name, command, session_id, call_id), False

    async def batch(  # type: ignore[override]
        self, calls: Sequence[Any], session_id: Optional[str] = None, max_concurrency: Optional[int] = None
    ) -> list[ActionReturn]:
        """Run several calls concurrently on the loop; the records come back in input order.

        Args:
            calls: ``(name, command)`` pairs or OpenAI-style tool calls.
            session_id: the session every call belongs to.
            max_concurrency: how many run at once (``None``: all).
        """
        import asyncio

        jobs = [_batch_job(call) for call in calls]
        if not max_concurrency:
            pending = [self._direct_or_call(n, c, session_id, i) for n, c, i in jobs]
            results = await asyncio.gather(*(awaitable for awaitable, _ in pending))
            for ret, (_, direct) in zip(results, pending):
                if direct and ret.valid:  # a tool's own record: known tools are OPEN
                    ret.valid = ActionValidCode.OPEN
            return list(results)
        gate = asyncio.Semaphore(max_concurrency)

        async def gated(name: Any, command: Any, call_id: Optional[str]) -> ActionReturn:
            async with gate:
                return await self(name, command, session_id, call_id)

        return list(await asyncio.gather(*(gated(*job) for job in jobs)))

    async def run_tool_calls(self, tool_calls: Sequence[Any]) -> list[dict[str, Any]]:  # type: ignore[override]
        """Run OpenAI-style ``tool_calls`` concurrently; one tool message per call, in order.

        See :meth:`ActionExecutor.run_tool_calls`.
        """
        calls = read_calls(tool_calls)
        with native_calls():  # messages name the tools as the model was given them
            done = iter(await self.batch([c.raw for c in calls if c.name is not None]))
        return call_results(calls, [next(done) if c.name is not None else None for c in calls])
