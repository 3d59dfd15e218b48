"""Awaitable tool calls: ``AsyncActionExecutor``.

Agents built on asyncio call tools concurrently. The async executor runs the same call
core as ``ActionExecutor`` (hooks, retries, timeouts, breakers, context) through the
async driver: async APIs run on the event loop and are cancelled on timeout; sync APIs
run in worker threads (or inline for tools with ``blocking = False``).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, Awaitable, Callable, Optional, overload

from ..runtime._core import call_core, drive_async
from ..runtime._invoke import Route, ainvoke
from ..runtime._messages import native_calls
from ..runtime._streaming import on_loop
from ..runtime.settings import ToolSettings
from ..schema import ActionReturn
from ._exports import call_results, read_calls
from ._intake import batch_job
from ._lagent05 import (
    NO_COMMAND,
    MessageApi,
    call_id_of,
    call_of,
    is_message,
    message_session,
    not_a_call,
    replaced,
    session_of,
)

if TYPE_CHECKING:
    from ..schema import AgentMessage

__all__ = ["AsyncActionExecutor"]


class AsyncActionExecutor(MessageApi):
    """An executor whose calls are awaited; otherwise as :class:`ActionExecutor`.

    ``await executor(name, command)`` runs async APIs on the loop and sync APIs in a
    thread pool; ``await executor.batch(calls)`` runs many calls concurrently. Takes the
    same arguments as ``ActionExecutor``; ``sleep`` may be a coroutine function.
    Lagent 0.5's API is awaited too: ``await executor(AgentMessage(...))``,
    ``await executor.forward(name, parameters)``; its hooks may be ``async def``.
    """

    def _may_skip_core(self, route: Route, settings: ToolSettings) -> bool:
        # The direct path runs on the loop: async APIs, and sync ones marked non-blocking.
        return route.is_async or not settings.blocking

    @overload
    async def __call__(
        self,
        name: str,
        command: Any,
        session_id: Optional[str] = ...,
        call_id: Optional[str] = ...,
        *,
        on_progress: Optional[Callable[[Any], Any]] = ...,
        context: Any = ...,
    ) -> ActionReturn: ...

    @overload
    async def __call__(
        self,
        name: AgentMessage,
        command: Any = ...,
        session_id: Any = ...,
        call_id: Optional[str] = ...,
        *,
        on_progress: Optional[Callable[[Any], Any]] = ...,
    ) -> AgentMessage: ...

    async def __call__(
        self,
        name: Any,
        command: Any = NO_COMMAND,
        session_id: Any = None,
        call_id: Optional[str] = None,
        *,
        on_progress: Optional[Callable[[Any], Any]] = None,
        context: Any = None,
    ) -> Any:
        """Run the call a model asked for; see :meth:`ActionExecutor.__call__`.

        ``on_progress`` is called on the event loop, also for sync generator tools
        running in a worker thread; an awaitable it returns is awaited.

        Raises:
            TypeError: ``command`` is missing and ``name`` is not an ``AgentMessage``.
        """
        # One test on the common path: a str name with its command.
        if name.__class__ is not str or command is NO_COMMAND:
            if is_message(name):  # Lagent 0.5: await executor(message, session_id=0)
                if context is not None:
                    raise TypeError(
                        "a Lagent 0.5 message call takes no context=; call with a name and arguments"
                    )
                return await self.call_message(name, message_session(command, session_id))
            if command is NO_COMMAND:
                raise TypeError(f"{type(self).__name__}() missing the command (the arguments) of {name!r}")
        route = self._route_of_call(name, command, session_id, call_id)
        if isinstance(route, ActionReturn):
            return route
        return await self._run_route(route, name, command, session_id, call_id, on_progress, context)

    def _run_route(
        self,
        route: Route,
        name: Any,
        command: Any,
        session_id: Optional[str],
        call_id: Optional[str],
        on_progress: Optional[Callable[[Any], Any]],
        context: Any,
    ) -> Awaitable[ActionReturn]:
        """The awaitable of a routed call run in this process: the direct path or the call core.

        Not a coroutine, so the direct path awaits ``ainvoke``'s coroutine alone; the
        Ray executor overrides it to send its tools' calls to their replicas.
        """
        if route.direct and context is None:
            return ainvoke(route, command)
        if on_progress is not None:
            import asyncio

            on_progress = on_loop(on_progress, asyncio.get_running_loop())
        filled = self._context(route, session_id, call_id, on_progress, context, (name, command))
        core = call_core(route, command, filled, self._hook_methods)
        return drive_async(core, self._thread_pool(), self._sleep)

    async def forward(self, name: str, parameters: Any, **kwargs: Any) -> ActionReturn:
        """Run one call and return its record, without message hooks; see :meth:`ActionExecutor.forward`.

        Args:
            name: ``'Tool'`` or ``'Tool.api'``.
            parameters: the arguments, a dict or an argument string.
            **kwargs: ``session_id`` and ``call_id`` are used; others are ignored.
        """
        record: ActionReturn = await self(
            name, parameters, session_of(kwargs.get("session_id")), call_id_of(kwargs)
        )
        return record

    async def _hooked(self, method_name: str, message: Any, session_id: Any) -> Any:
        """``message`` after the Lagent 0.5 hooks' ``method_name`` methods (awaited when async)."""
        import inspect

        for method in self._message_hook_methods(method_name):
            result = method(self, message, session_id)
            if inspect.isawaitable(result):
                result = await result
            message = replaced(result, message)
        return message

    async def call_message(self, message: Any, session_id: Any = 0, **kwargs: Any) -> Any:
        """Run the call in a Lagent 0.5 message; see :meth:`ActionExecutor.call_message`.

        Args:
            message: an ``AgentMessage`` whose content is a ``FunctionCall`` or a dict with
                ``'name'`` and ``'parameters'``.
            session_id: Lagent's session id; ``0`` is the executor's default session.
            **kwargs: passed on to :meth:`forward`.
        """
        message = await self._hooked("before_action", message, session_id)
        call = call_of(message.content)
        if call is None:
            record = not_a_call(message.content)
        else:
            record = await self.forward(call[0], call[1], session_id=session_id, **kwargs)
        return await self._hooked("after_action", self._reply(record), session_id)

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
                record: ActionReturn = await self(name, command, session_id, call_id)
            return record

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
