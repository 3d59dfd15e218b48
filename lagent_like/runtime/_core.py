"""One call path for sync and async: the call core and its two drivers.

Everything an executor does around a tool call (context, hooks, circuit breaker,
retries with back-off, timeouts, error formatting, output caps) is written once, in
:func:`call_core`, a generator that *asks* for the few things that differ between
sync and async code by yielding requests: run a hook, run the tool (with a timeout),
sleep. :func:`drive_sync` answers them with plain calls and a thread pool,
:func:`drive_async` with ``await``; neither contains any policy.
"""

from __future__ import annotations

import inspect
import math
from collections.abc import Generator, Iterable
from functools import partial
from typing import TYPE_CHECKING, Any, Awaitable, Callable, NamedTuple, Optional, Union

from .._private.log import logger
from .._private.text import preview
from ..context import handoff_of
from ..exceptions import GuardrailTripwire
from ..schema import ActionReturn, ActionStatusCode
from ._invoke import Abandoned, Route, abandoned, call, read, record
from .hooks import HookCall

if TYPE_CHECKING:
    from ..context import ToolActions, ToolContext
    from ._pool import DaemonThreadPool

__all__ = [
    "NO_HOOKS",
    "HookMethods",
    "Outcome",
    "RunRequest",
    "call_core",
    "drive_async",
    "drive_sync",
    "run_async",
    "run_blocking",
]

#: What one attempt ended with: ``(output, None)`` or ``(None, the exception)``.
Outcome = tuple[Any, Optional[BaseException]]


#: Request: run one hook method, ``(method, arguments)``; answered with its result
#: (a ``HookFailed`` if it raised). Requests are plain tuples and floats: the hook path
#: is hot.
_Hook = tuple[Callable[..., Any], tuple[Any, ...]]


class RunRequest(NamedTuple):
    """Request: run the tool once within the route's timeout; answered with an :data:`Outcome`."""

    route: Route
    args: dict[str, Any]
    context: Optional[ToolContext]


#: Request: wait this many seconds before the next attempt.
_Sleep = float

if TYPE_CHECKING:  # annotations only: typing's subscripts cost import time
    Request = Union[_Hook, RunRequest, _Sleep]
    Core = Generator[Request, Any, ActionReturn]
    #: The guarded call: its record and the value the record was made from.
    Guarded = Generator[Request, Any, tuple[ActionReturn, Any]]
    #: Runs a tool somewhere else, timeout included; answers an :data:`Outcome`.
    RunElsewhere = Callable[[RunRequest], Awaitable[Outcome]]

_FAILED = (ActionStatusCode.API_ERROR, ActionStatusCode.HTTP_ERROR, ActionStatusCode.TIMEOUT)


class HookMethods(NamedTuple):
    """The hook methods to run around a call, in registration order (resolved once)."""

    before: tuple[HookCall, ...] = ()
    after: tuple[HookCall, ...] = ()

    @classmethod
    def of(cls, calls: Iterable[tuple[Optional[HookCall], Optional[HookCall]]]) -> HookMethods:
        """The ``before_action`` and ``after_action`` calls of hooks (see ``HookList.calls``)."""
        calls = tuple(calls)
        before = tuple(b for b, _ in calls if b is not None)
        return cls(before, tuple(a for _, a in calls if a is not None))


NO_HOOKS = HookMethods()


def call_core(
    route: Route, command: Any, context: Optional[ToolContext] = None, hooks: HookMethods = NO_HOOKS
) -> Core:
    """The policy logic of one call, as a generator of requests (see the module docstring).

    Args:
        route: the resolved route (its timeout, retry, breaker, formatter and cap apply).
        command: the model's raw arguments.
        context: the call's context, for APIs that take one.
        hooks: the hook methods to run.
    """
    parsed = read(route, command)
    output = None
    if isinstance(parsed, ActionReturn):
        ret = parsed
    else:
        ret, output = yield from _guarded_call(route, *parsed, context, hooks.before)
        # Only an agent run takes a returned agent.
        scope = None if context is None else context._scope
        if scope is not None and scope.invocation_id is not None and output is not None:
            ret = _handed_over(route, ret, output, scope.actions)
    for method, label, takes_output in hooks.after:
        call_it = partial(method, output=output) if takes_output else method
        answer = yield call_it, (route.label, ret, context)
        if answer is not None:
            from ._hook_records import after_answered  # a hook that answers only

            ret, output = after_answered(route, ret, answer, label)
    return ret


def _handed_over(route: Route, ret: ActionReturn, output: Any, actions: ToolActions) -> ActionReturn:
    """The record of a call whose tool returned an agent in an agent run (LiveKit's handoff).

    The agent goes to the call's ``actions`` for the agent loop; the model is told the
    message returned with it, never the agent's ``str``. Outside a run, ``ret`` (the
    record step's refusal) stands.
    """
    handoff = handoff_of(output)
    if handoff is None:
        return ret
    agent, message = handoff
    actions.handoff, actions.handoff_message = agent, message
    name = getattr(agent, "name", None) or type(agent).__name__
    text = message if message is not None else f"Transferred to {name}."
    return ActionReturn(ret.args, None, route.tool, [{"type": "text", "content": text}])


def _roll_back(saved: tuple[dict[str, Any], dict[str, Any]]) -> None:
    """Put the keys of the state a failed tool set or deleted back as the copy had them."""
    state, before = saved
    for key in [key for key in state if key not in before]:
        del state[key]
    for key, value in before.items():
        if state.get(key, _ABSENT) is not value:
            state[key] = value


_ABSENT = object()
_SUCCESS = ActionStatusCode.SUCCESS


def _guarded_call(
    route: Route,
    args: dict[str, Any],
    repairs: Optional[list[str]],
    context: Optional[ToolContext],
    befores: tuple[HookCall, ...],
) -> Guarded:
    for method, label, _ in befores:
        answer = yield method, (route.label, args, context)
        if answer is not None:
            from ._hook_records import before_answered  # a hook that answers only

            return before_answered(route, args, repairs, answer, label)
    breaker = route.breaker.get() if route.breaker is not None else None
    if breaker is not None:
        wait = _policy(breaker.before_call, None)
        if wait is not None:
            # Rounded up: "0.0 s" would read as "now" to a refused caller.
            seconds = math.ceil(wait * 10) / 10
            message = f"{route.label} is failing and paused; try again in {seconds:.1f} s (circuit open)"
            shown = args if route.json_args is None else route.json_args(args)
            return ActionReturn(
                shown, None, route.tool, None, message, ActionStatusCode.API_ERROR, repairs=repairs
            ), None
    # Only a tool taking the context can write the session's state; what a failed one
    # wrote is undone (hooks' writes stay: a hook may count failures there).
    saved = _saved_state(context) if route.context_params else None
    attempt = 0
    retry = route.retry
    while True:
        attempt += 1
        outputs, error = yield RunRequest(route, args, context)
        if retry is None:
            break
        # The retry policy decides on the state the record would have.
        state = _state_of(outputs, error)
        if not _policy(retry.should_retry, False, error, state, attempt):
            break
        yield float(_policy(retry.delay, 0.0, attempt, route.random or _random))
    ret = record(route, args, outputs, error, attempt, repairs)
    if saved is not None and ret.state != _SUCCESS:
        _roll_back(saved)
    if breaker is not None:
        _policy(breaker.record_failure if ret.state in _FAILED else breaker.record_success, None)
    return ret, outputs


def _saved_state(context: Optional[ToolContext]) -> Optional[tuple[dict[str, Any], dict[str, Any]]]:
    """The session state a tool taking ``context`` may write, and a copy of it."""
    return None if context is None else (context.state, context.state.copy())


def _state_of(outputs: Any, error: Optional[BaseException]) -> Any:
    if isinstance(error, Abandoned):
        return ActionStatusCode.TIMEOUT
    if error is not None:
        return ActionStatusCode.API_ERROR
    if isinstance(outputs, ActionReturn):
        return outputs.state
    return ActionStatusCode.SUCCESS


def _policy(step: Callable[..., Any], fallback: Any, *args: Any) -> Any:
    """Run one step of a retry policy or circuit breaker; a failing one is logged and skipped."""
    try:
        return step(*args)
    except Exception:  # noqa: BLE001 - a misbehaving policy must not take the executor down
        logger().warning("policy step %s failed", preview(step), exc_info=True)
        return fallback


def _random() -> float:
    import random

    return random.random()


def run_blocking(run: RunRequest) -> Outcome:
    """Run the tool once to completion in this thread (async APIs on a private loop).

    An async API with a timeout is cancelled on its own loop when the time is up, so
    its ``finally`` blocks run then, as under the async executor.
    """
    route = run.route
    try:
        outputs = call(route, run.args, run.context)
        if route.is_async:
            from .._private.coroutines import run_coroutine  # async APIs only (asyncio's path)

            outputs = run_coroutine(outputs if route.timeout is None else _within(outputs, route))
    except (Exception, SystemExit) as exc:  # noqa: BLE001 - a failing tool is a result
        return None, exc
    return outputs, None


async def _within(coro: Any, route: Route) -> Any:
    import asyncio

    try:
        return await asyncio.wait_for(coro, route.timeout)
    except asyncio.TimeoutError:
        raise abandoned(route) from None


def _given_up(run: RunRequest) -> Abandoned:
    """The error of a call past its timeout; its context learns that nobody waits any more.

    A sync tool's thread cannot be stopped, but a generator tool stops at its next
    chunk and a tool taking the context may check ``context.cancelled``.
    """
    if run.context is not None:
        run.context.cancelled = True
    return abandoned(run.route)


def _hook_result(request: tuple[Any, ...]) -> Any:
    method, args = request
    try:
        answer = method(*args)
        if answer is not None and inspect.isawaitable(answer):
            from .._private.coroutines import run_coroutine  # async hooks only

            answer = run_coroutine(_awaited(answer))
        return answer
    except GuardrailTripwire:
        raise  # a tripwire halts the run: it goes to the executor's caller
    except Exception as exc:  # noqa: BLE001 - a failing hook fails the call, closed
        from ._hook_records import HookFailed  # a failing hook only

        return HookFailed(exc)


async def _awaited(awaitable: Awaitable[Any]) -> Any:
    """What ``awaitable`` gives; any awaitable a hook returns is awaited, as under ``drive_async``."""
    return await awaitable


def drive_sync(
    core: Core,
    pool: Optional[Callable[[], DaemonThreadPool]] = None,
    sleep: Optional[Callable[[float], Any]] = None,
) -> ActionReturn:
    """Answer ``core``'s requests with plain calls; a timeout needs a ``pool`` (a getter).

    A sync tool that times out cannot be stopped: its thread runs on, but nobody waits
    for it any more (the pool replaces it).
    """
    answer: Any = None
    try:
        while True:
            request = core.send(answer)
            if type(request) is RunRequest:
                route = request.route
                if route.timeout is None or pool is None or route.is_async:
                    # Async APIs enforce their timeout on their own loop (and get cancelled).
                    answer = run_blocking(request)
                else:
                    import concurrent.futures

                    threads = pool()
                    future = threads.submit(run_blocking, request)
                    try:
                        answer = future.result(timeout=route.timeout)
                    except concurrent.futures.TimeoutError:
                        threads.abandon(future)
                        answer = None, _given_up(request)
            elif isinstance(request, float):
                _policy(sleep or _sleep, None, request)
                answer = None
            else:
                answer = _hook_result(request)
    except StopIteration as stop:
        result: ActionReturn = stop.value
        return result


def _sleep(seconds: float) -> None:
    import time

    time.sleep(seconds)


async def run_async(run: RunRequest, pool: DaemonThreadPool) -> Outcome:
    """Run the tool once on the running loop (a blocking sync API in ``pool``).

    Cancelled while a sync API runs in the pool, the pool gives that worker up and
    replaces it.
    """
    import asyncio

    route = run.route
    if route.is_async or not route.blocking:
        try:
            outputs = call(route, run.args, run.context)
            if route.is_async:
                outputs = await outputs
        except (Exception, SystemExit) as exc:  # noqa: BLE001 - a failing tool is a result
            return None, exc
        return outputs, None
    # Daemon threads: a sync tool that never returns must not hold up exit.
    future = pool.submit(run_blocking, run)
    try:
        outcome: Outcome = await asyncio.wrap_future(future)
    except asyncio.CancelledError:
        pool.abandon(future)
        raise
    return outcome


async def _hook_result_async(request: tuple[Any, ...]) -> Any:
    method, args = request
    try:
        answer = method(*args)
        if answer is not None and inspect.isawaitable(answer):
            answer = await answer
        return answer
    except GuardrailTripwire:
        raise  # a tripwire halts the run: it goes to the executor's caller
    except Exception as exc:  # noqa: BLE001 - a failing hook fails the call, closed
        from ._hook_records import HookFailed  # a failing hook only

        return HookFailed(exc)


async def drive_async(
    core: Core,
    pool: DaemonThreadPool,
    sleep: Optional[Callable[[float], Any]] = None,
    run: Optional[RunElsewhere] = None,
) -> ActionReturn:
    """Answer ``core``'s requests with ``await``: async tools on the loop, sync ones in ``pool``.

    On timeout an async tool is cancelled; a sync tool's thread runs on unobserved.
    ``run``, when given, runs the tool instead (elsewhere: in a Ray replica) and
    enforces the route's timeout itself; ``pool`` is then not used.
    """
    import asyncio

    answer: Any = None
    try:
        while True:
            request = core.send(answer)
            if type(request) is RunRequest:
                if run is not None:
                    answer = await run(request)
                else:
                    try:
                        answer = await asyncio.wait_for(run_async(request, pool), request.route.timeout)
                    except asyncio.TimeoutError:
                        answer = None, _given_up(request)
            elif isinstance(request, float):
                try:
                    pause = (sleep or asyncio.sleep)(request)
                    if inspect.isawaitable(pause):
                        await pause
                except Exception:  # noqa: BLE001 - a misbehaving sleep must not end the call
                    logger().warning("sleep between attempts failed", exc_info=True)
                answer = None
            else:
                answer = await _hook_result_async(request)
    except StopIteration as stop:
        result: ActionReturn = stop.value
        return result
