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
from collections.abc import Generator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Awaitable, Callable, Optional, Union

from .._private.log import logger
from .._private.text import preview
from ..schema import ActionReturn, ActionStatusCode, ActionValidCode
from .base_action import Stages, _run_coroutine

if TYPE_CHECKING:
    from .._private.daemon_pool import DaemonThreadPool
    from ..context import ToolContext
    from ..policies import CircuitBreaker, RetryPolicy

__all__ = ["CallPlan", "call_core", "drive_async", "drive_sync"]


@dataclass
class _Hook:
    """Request: run one hook method; answered with its result (``None`` if it failed)."""

    method: Callable[..., Any]
    args: tuple[Any, ...]


@dataclass
class _Run:
    """Request: run the tool; answered with ``(record, exception or None)``."""

    stages: Stages
    args: dict[str, Any]
    context: Optional[ToolContext]
    timeout: Optional[float]
    label: str
    blocking: bool
    tool: str


@dataclass
class _Sleep:
    """Request: wait before the next attempt."""

    seconds: float


Request = Union[_Hook, _Run, _Sleep]
Core = Generator[Request, Any, ActionReturn]
#: Runs a tool somewhere else, timeout included; answers ``(record, exception or None)``.
RunElsewhere = Callable[[_Run], Awaitable[tuple[ActionReturn, Optional[BaseException]]]]


@dataclass
class CallPlan:
    """Everything ``call_core`` needs for one call, resolved by the executor.

    Attributes:
        label: the canonical name (``'Tool.api'`` or ``'Tool'``) used in messages.
        tool: the tool's name (the ``type`` of records).
        stages: the API's phases.
        context: the call's context, or ``None`` when the API does not take one.
        hooks: the hooks to run, in order (a snapshot).
        timeout: seconds before the call is abandoned, or ``None``.
        retry: the retry policy, or ``None``.
        breaker: the API's circuit breaker, or ``None``.
        error_formatter: rewrites the errmsg of a call that raised, or ``None``.
        max_output_chars: cap on each text result, or ``None``.
        blocking: run a sync tool in a worker thread (async executor).
        random: source of jitter for back-off.
    """

    label: str
    tool: str
    stages: Stages
    context: Optional[ToolContext] = None
    hooks: tuple[Any, ...] = ()
    timeout: Optional[float] = None
    retry: Optional[RetryPolicy] = None
    breaker: Optional[CircuitBreaker] = None
    error_formatter: Optional[Callable[[BaseException, ActionReturn], Optional[str]]] = None
    max_output_chars: Optional[int] = None
    blocking: bool = True
    random: Optional[Callable[[], float]] = None


_FAILED = (ActionStatusCode.API_ERROR, ActionStatusCode.HTTP_ERROR, ActionStatusCode.TIMEOUT)


def call_core(plan: CallPlan, command: Any) -> Core:
    """The policy logic of one call, as a generator of requests (see the module docstring)."""
    parsed = plan.stages.read(command)
    if isinstance(parsed, ActionReturn):
        ret = parsed
    else:
        ret = yield from _guarded_call(plan, parsed)
    for hook in plan.hooks:
        after = getattr(hook, "after_action", None)
        if after is not None:
            replacement = yield _Hook(after, (plan.label, ret, plan.context))
            if isinstance(replacement, ActionReturn):
                ret = replacement
    if plan.max_output_chars is not None:
        _cap(ret, plan.max_output_chars)
    return ret


def _guarded_call(plan: CallPlan, args: dict[str, Any]) -> Core:
    for hook in plan.hooks:
        before = getattr(hook, "before_action", None)
        if before is not None:
            answer = yield _Hook(before, (plan.label, args, plan.context))
            if isinstance(answer, ActionReturn):
                return answer
    if plan.breaker is not None:
        wait = _policy(plan.breaker.before_call, None)
        if wait is not None:
            # Rounded up: "0.0 s" would read as "now" to a refused caller.
            seconds = math.ceil(wait * 10) / 10
            message = f"{plan.label} is failing and paused; try again in {seconds:.1f} s (circuit open)"
            return ActionReturn(args, None, plan.tool, None, message, ActionStatusCode.API_ERROR)
    attempt = 0
    ret: ActionReturn
    error: Optional[BaseException]
    while True:
        attempt += 1
        ret, error = yield _Run(
            plan.stages, args, plan.context, plan.timeout, plan.label, plan.blocking, plan.tool
        )
        retry = plan.retry
        if retry is None or not _policy(retry.should_retry, False, error, ret.state, attempt):
            break
        yield _Sleep(_policy(retry.delay, 0.0, attempt, plan.random or _random))
    ret.attempts = attempt
    if plan.breaker is not None:
        _policy(plan.breaker.record_failure if ret.state in _FAILED else plan.breaker.record_success, None)
    if error is not None and plan.error_formatter is not None:
        ret.errmsg = _formatted(plan.error_formatter, error, ret)
    return ret


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


def _formatted(
    formatter: Callable[[BaseException, ActionReturn], Optional[str]], error: BaseException, ret: ActionReturn
) -> Optional[str]:
    try:
        text = formatter(error, ret)
    except Exception:  # noqa: BLE001 - a faulty formatter keeps the original message
        logger().warning("error_formatter failed on %s", preview(error), exc_info=True)
        return ret.errmsg
    return ret.errmsg if text is None else str(text)


def _cap(ret: ActionReturn, limit: int) -> None:
    """Keep the head and tail of long text results; the full result stays on the record."""
    if not ret.result:
        return
    capped = []
    changed = False
    for item in ret.result:
        content = item.get("content")
        if item.get("type") == "text" and isinstance(content, str) and len(content) > limit:
            head = limit // 2
            tail = limit - head
            cut = len(content) - limit
            notice = f"\n... [{cut} characters cut; the full output is kept] ...\n"
            text = content[:head] + notice + content[len(content) - tail :]
            capped.append({**item, "content": text})
            changed = True
        else:
            capped.append(item)
    if changed:
        ret.full_result = ret.result
        ret.result = capped


def _timed_out(run: _Run) -> tuple[ActionReturn, BaseException]:
    message = f"{run.label!r} timed out after {run.timeout} s"
    record = ActionReturn(run.args, None, run.tool, None, message, ActionStatusCode.TIMEOUT)
    return record, TimeoutError(message)


def _run_blocking(run: _Run) -> tuple[ActionReturn, Optional[BaseException]]:
    """Run the tool to completion in this thread (async APIs on a private loop).

    An async API with a timeout is cancelled on its own loop when the time is up, so
    its ``finally`` blocks run then, as under the async executor.
    """
    try:
        outputs = run.stages.call(run.args, run.context)
        if run.stages.is_async:
            if run.timeout is not None:
                outputs = _run_coroutine(_within(outputs, run.timeout))
            else:
                outputs = _run_coroutine(outputs)
    except _TimedOut:
        return _timed_out(run)
    except (Exception, SystemExit) as exc:  # noqa: BLE001 - a failing tool is a result
        return run.stages.fail(run.args, exc), exc
    return run.stages.wrap(run.args, outputs), None


class _TimedOut(Exception):
    """An async API ran past its timeout (distinct from a TimeoutError the tool raises)."""


async def _within(coro: Any, timeout: float) -> Any:
    import asyncio

    try:
        return await asyncio.wait_for(coro, timeout)
    except asyncio.TimeoutError:
        raise _TimedOut from None


def _hook_result(request: _Hook) -> Any:
    try:
        answer = request.method(*request.args)
        if inspect.isawaitable(answer):
            answer = _run_coroutine(answer)  # type: ignore[arg-type]
        return answer
    except Exception:  # noqa: BLE001 - a faulty hook is reported, never propagated
        logger().warning("hook %s failed", preview(request.method), exc_info=True)
        return None


def drive_sync(
    core: Core,
    pool: Optional[DaemonThreadPool] = None,
    sleep: Optional[Callable[[float], Any]] = None,
) -> ActionReturn:
    """Answer ``core``'s requests with plain calls; a timeout needs ``pool``.

    A sync tool that times out cannot be stopped: its thread runs on, but nobody waits
    for it any more.
    """
    answer: Any = None
    try:
        while True:
            request = core.send(answer)
            if isinstance(request, _Hook):
                answer = _hook_result(request)
            elif isinstance(request, _Run):
                if request.timeout is None or pool is None or request.stages.is_async:
                    # Async APIs enforce their timeout on their own loop (and get cancelled).
                    answer = _run_blocking(request)
                else:
                    import concurrent.futures

                    future = pool.submit(_run_blocking, request)
                    try:
                        answer = future.result(timeout=request.timeout)
                    except concurrent.futures.TimeoutError:
                        # Still queued: it never runs. Running: its thread cannot be
                        # stopped, so the pool may replace it.
                        if not future.cancel():
                            pool.forget_one()
                        answer = _timed_out(request)
            else:
                _policy(sleep or _sleep, None, request.seconds)
                answer = None
    except StopIteration as stop:
        result: ActionReturn = stop.value
        return result


def _sleep(seconds: float) -> None:
    import time

    time.sleep(seconds)


async def _run_async(run: _Run, pool: DaemonThreadPool) -> tuple[ActionReturn, Optional[BaseException]]:
    import asyncio

    try:
        if run.stages.is_async:
            outputs = await run.stages.call(run.args, run.context)
        elif not run.blocking:
            outputs = run.stages.call(run.args, run.context)
        else:
            # Daemon threads: a sync tool that never returns must not hold up exit.
            result: tuple[ActionReturn, Optional[BaseException]] = await asyncio.wrap_future(
                pool.submit(_run_blocking, run)
            )
            return result
    except (Exception, SystemExit) as exc:  # noqa: BLE001 - a failing tool is a result
        return run.stages.fail(run.args, exc), exc
    return run.stages.wrap(run.args, outputs), None


async def _hook_result_async(request: _Hook) -> Any:
    try:
        answer = request.method(*request.args)
        if inspect.isawaitable(answer):
            answer = await answer
        return answer
    except Exception:  # noqa: BLE001 - a faulty hook is reported, never propagated
        logger().warning("hook %s failed", preview(request.method), exc_info=True)
        return None


async def drive_async(
    core: Core,
    pool: DaemonThreadPool,
    sleep: Optional[Callable[[float], Any]] = None,
    run: Optional[RunElsewhere] = None,
) -> ActionReturn:
    """Answer ``core``'s requests with ``await``: async tools on the loop, sync ones in ``pool``.

    On timeout an async tool is cancelled; a sync tool's thread runs on unobserved.
    ``run``, when given, runs the tool instead (elsewhere: in a Ray replica) and
    enforces the request's timeout itself; ``pool`` is then not used.
    """
    import asyncio

    answer: Any = None
    try:
        while True:
            request = core.send(answer)
            if isinstance(request, _Hook):
                answer = await _hook_result_async(request)
            elif run is not None and isinstance(request, _Run):
                answer = await run(request)
            elif isinstance(request, _Run):
                work = _run_async(request, pool)
                if request.timeout is None:
                    answer = await work
                else:
                    try:
                        answer = await asyncio.wait_for(work, request.timeout)
                    except asyncio.TimeoutError:
                        if not request.stages.is_async and request.blocking:
                            pool.forget_one()  # a sync tool's thread runs on
                        answer = _timed_out(request)
            else:
                try:
                    pause = (sleep or asyncio.sleep)(request.seconds)
                    if inspect.isawaitable(pause):
                        await pause
                except Exception:  # noqa: BLE001 - a misbehaving sleep must not end the call
                    logger().warning("sleep between attempts failed", exc_info=True)
                answer = None
    except StopIteration as stop:
        result: ActionReturn = stop.value
        return result


def mark_open(ret: ActionReturn, finish: bool) -> ActionReturn:
    """A known tool's record is ``OPEN`` (the finish action keeps ``FINISH``)."""
    if ret.valid and not finish:
        ret.valid = ActionValidCode.OPEN
    return ret
