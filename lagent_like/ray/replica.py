"""The replica side of ``RayActionExecutor``: the code that runs inside each Ray actor.

Why apart: this code runs in another process, on its own event loop, and sees only
what crossed the wire; the caller's side (routing, batching, recovery) never runs
here. A replica holds its own copy of one tool and runs the calls it is sent,
``max_concurrency`` at a time, each through the executor's run step (policies,
hooks and argument checks stay with the caller).

A replica receives the action itself, pickled by Ray (an action pickles what it was
given and rebuilds its parser and routes when unpickled, ``BaseAction.__getstate__``),
and runs each call through the same route and call step as the local executor. What a
replica answers is the tool's raw output (the caller records it); it must cross back
too, so outputs and exceptions Ray cannot send are replaced by ones it can, rather
than failing every call of the message.

Ray is imported only when used (:func:`import_ray`), so importing this module is cheap.
"""

from __future__ import annotations

import asyncio
import dataclasses
import os
from typing import TYPE_CHECKING, Any, Optional

from .._private.install import install_hint
from ..context import ToolContext
from ..runtime._core import Outcome as CallOutcome
from ..runtime._core import RunRequest, run_async
from ..schema import ActionReturn, ActionStatusCode
from ..toolkits._base_action import BaseAction, end_tool_session, routes_of, settings_of, unknown_api

if TYPE_CHECKING:
    from ..runtime._pool import DaemonThreadPool

__all__ = ["Job", "Outcome", "ToolWorker", "import_ray", "reason"]

#: ``(job id, API key, checked arguments, session id, call id)``: one call sent to a replica.
Job = tuple[int, str, dict[str, Any], str, Optional[str]]
#: What a replica answers for one job: the tool's output and the exception it raised
#: (``None`` for a job cancelled before or while it ran).
Outcome = Optional[CallOutcome]

#: Longest Ray error text quoted in a record (Ray's messages carry whole tracebacks).
_MAX_REASON = 200

#: Ids of cancelled jobs kept before the list is cleared: ids of jobs that had already
#: finished when their cancellation came would otherwise pile up.
_MAX_CANCELLED = 4096


def import_ray() -> Any:
    """The ``ray`` module, or an ``ImportError`` that names the extra to install."""
    try:
        import ray
    except ImportError as exc:
        raise ImportError(
            f"RayActionExecutor needs Ray: install lagent-like[ray] ({install_hint('ray')})"
        ) from exc
    return ray


def reason(error: BaseException) -> str:
    """A one-line summary of a Ray error for a record."""
    first = str(error).strip().splitlines()[0] if str(error).strip() else ""
    text = f"{type(error).__name__}: {first}" if first else type(error).__name__
    return text if len(text) <= _MAX_REASON else text[: _MAX_REASON - 3] + "..."


class ToolWorker:
    """The body of one replica: a copy of the action and the calls it is running.

    Made a Ray actor with ``ray.remote``; its async methods run on the actor's event
    loop, so one replica serves many calls at once. Sync APIs run in daemon threads.

    Args:
        action: the replica's own copy of the tool (its state is per replica).
        slots: how many calls run at once; more wait their turn.
    """

    def __init__(self, action: BaseAction, slots: int) -> None:
        from ..runtime._pool import DaemonThreadPool

        self._action = action
        # The tool's direct routes, with its own ``blocking`` setting (the executor's
        # routes resolve it the same way); no timeout: the caller measures it.
        blocking = settings_of(action).blocking
        self._routes = {
            key: dataclasses.replace(route, blocking=blocking) for key, route in routes_of(action).items()
        }
        self._slots = slots
        self._threads: DaemonThreadPool = DaemonThreadPool(slots, f"lagent-like-ray-{action.name}")
        # Created on the actor's loop at first use (Python 3.9 binds a semaphore to a loop).
        self._gate: Optional[asyncio.Semaphore] = None
        self._sessions: dict[str, dict[str, Any]] = {}
        self._running: dict[int, asyncio.Task[CallOutcome]] = {}
        self._cancelled: set[int] = set()

    # The control methods are async too: they then run on the loop that runs the calls.

    async def ping(self) -> int:
        """The replica's process id (the caller learns that the replica is alive)."""
        return os.getpid()

    async def run_many(self, jobs: list[Job]) -> list[Outcome]:
        """Run ``jobs`` concurrently (at most ``slots`` at a time); outcomes in job order."""
        outcomes = list(await asyncio.gather(*(self._run_one(job) for job in jobs)))
        return _sendable(outcomes)

    async def cancel(self, job_ids: list[int]) -> None:
        """Stop the given jobs: the caller stopped waiting for them (a timeout)."""
        for job_id in job_ids:
            task = self._running.get(job_id)
            if task is not None:
                task.cancel()
            else:
                if len(self._cancelled) > _MAX_CANCELLED:
                    self._cancelled.clear()
                self._cancelled.add(job_id)

    async def end_session(self, session_id: str) -> None:
        """Forget the ``ToolContext.state`` of a session; the tool releases its share of it."""
        self._sessions.pop(session_id, None)
        # In a thread: the tool may wait for a process to die, and calls go on meanwhile.
        await asyncio.to_thread(end_tool_session, self._action, session_id)

    async def _run_one(self, job: Job) -> Outcome:
        job_id, key, args, session_id, call_id = job
        if self._gate is None:
            self._gate = asyncio.Semaphore(self._slots)
        async with self._gate:
            if job_id in self._cancelled:
                self._cancelled.discard(job_id)
                return None
            task = asyncio.ensure_future(self._call(key, args, session_id, call_id))
            self._running[job_id] = task
            try:
                return await task
            except asyncio.CancelledError:
                return None  # a sync API's worker was given up and replaced (run_async)
            finally:
                del self._running[job_id]

    async def _call(
        self, key: str, args: dict[str, Any], session_id: str, call_id: Optional[str]
    ) -> CallOutcome:
        route = self._routes.get(key)
        if route is None:  # the caller routed by this tool's own API names
            return unknown_api(self._action, args, key), None
        context = None
        if route.context_params:
            state = self._sessions.setdefault(session_id, {})
            context = ToolContext(session_id, state, route.tool, key, call_id, None)
        # The caller measures the timeout and cancels the job when it is up.
        outputs, error = await run_async(RunRequest(route, args, context), self._threads)
        return outputs, _portable(error)


def _sendable(outcomes: list[Outcome]) -> list[Outcome]:
    """``outcomes``, with any record Ray could not send back replaced by an error record.

    A tool may return its own ``ActionReturn`` holding anything; one such record must
    not fail the whole message and with it every other call in it.
    """
    dumps = import_ray().cloudpickle.dumps  # what Ray itself pickles with
    try:
        dumps(outcomes)
        return outcomes
    except Exception:  # noqa: BLE001 - find the culprits below
        pass
    return [_sendable_one(outcome, dumps) for outcome in outcomes]


def _sendable_one(outcome: Outcome, dumps: Any) -> Outcome:
    """``outcome`` if it pickles, else an ``API_ERROR`` record saying why (the caller fills its args)."""
    try:
        dumps(outcome)
    except Exception as exc:  # noqa: BLE001 - whatever fails to pickle is reported
        problem = reason(exc)
    else:
        return outcome
    message = f"the tool's result cannot be sent back from its Ray worker: {problem}"
    return ActionReturn(None, None, None, None, message, ActionStatusCode.API_ERROR), None


def _portable(error: Optional[BaseException]) -> Optional[BaseException]:
    """``error`` if it survives pickling, else a ``RuntimeError`` carrying its summary.

    The caller's retry policy and error formatter want the exception; one that cannot
    be rebuilt on the other side (a custom ``__init__``) must not lose the record.
    """
    if error is None:
        return None
    cloudpickle = import_ray().cloudpickle  # what Ray sends it back with
    try:
        cloudpickle.loads(cloudpickle.dumps(error))
    except Exception:  # noqa: BLE001 - any pickling failure means "send a summary"
        return RuntimeError(f"{type(error).__name__}: {error}")
    return error
