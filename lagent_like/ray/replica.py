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

A tool that takes a ``ToolContext`` sees in its replica what it would see in the
caller's process: the agent's name, the run's id, the call as the model wrote it, the
run's context object (pickled by the caller: :class:`Scope`), and ``actions``. What the
call asks of the agent (``transfer_to_agent``, ``escalate``, ``skip_summarization``)
and the session-state keys a successful call set or deleted travel back with its
output (:class:`Effects`); a failed call's writes are undone, as in the caller's process.

Ray is imported only when used (:func:`import_ray`), so importing this module is cheap.
"""

from __future__ import annotations

import asyncio
import dataclasses
import os
from typing import TYPE_CHECKING, Any, NamedTuple, Optional

from .._private.install import install_hint
from ..context import AgentScope, ToolActions, ToolContext, handoff_of
from ..runtime._core import RunRequest, _roll_back, run_async
from ..schema import ActionReturn, ActionStatusCode
from ..toolkits._base_action import BaseAction, end_tool_session, routes_of, settings_of, unknown_api

if TYPE_CHECKING:
    from ..runtime._pool import DaemonThreadPool

__all__ = ["Answer", "Effects", "Job", "Outcome", "Scope", "ToolWorker", "import_ray", "reason"]


class Scope(NamedTuple):
    """What a replica's ``ToolContext`` is told about the caller's agent run.

    Attributes:
        agent_name: ``ToolContext.agent_name``.
        invocation_id: ``ToolContext.invocation_id``.
        context: the run's context object, pickled by the caller (``None``: none).
        approved: ``ToolContext.approved``.
        paused_run: ``ToolContext.paused_run``.
        call: ``(name, arguments)`` as the model wrote them, for ``function_call``.
    """

    agent_name: Optional[str]
    invocation_id: Optional[str]
    context: Optional[bytes]
    approved: bool
    paused_run: Optional[dict[str, Any]]
    call: Optional[tuple[Any, Any]]


class Effects(NamedTuple):
    """What a call in a replica changed that the caller must learn.

    Attributes:
        actions: ``(transfer_to_agent, escalate, skip_summarization)`` when the tool
            set any of them, else ``None``.
        changed: the session-state keys a successful call set, with their values.
        deleted: the session-state keys it deleted.
        kept: keys it set to values that cannot be pickled: they stay in the replica.
    """

    actions: Optional[tuple[Any, bool, bool]] = None
    changed: Optional[dict[str, Any]] = None
    deleted: tuple[str, ...] = ()
    kept: tuple[str, ...] = ()


#: ``(job id, API key, checked arguments, session id, call id, scope)``: one call sent
#: to a replica; the scope only for tools taking a ``ToolContext``.
Job = tuple[int, str, dict[str, Any], str, Optional[str], Optional[Scope]]
#: A replica's answer to one job: the tool's output, the exception it raised, and the
#: call's effects (``None`` for a tool without a ``ToolContext``).
Answer = tuple[Any, Optional[BaseException], Optional[Effects]]
#: What a replica answers for one job (``None`` for a job cancelled before or while it ran).
Outcome = Optional[Answer]

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
        self._running: dict[int, asyncio.Task[Answer]] = {}
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
        job_id, key, args, session_id, call_id, scope = job
        if self._gate is None:
            self._gate = asyncio.Semaphore(self._slots)
        async with self._gate:
            if job_id in self._cancelled:
                self._cancelled.discard(job_id)
                return None
            task = asyncio.ensure_future(self._call(key, args, session_id, call_id, scope))
            self._running[job_id] = task
            try:
                return await task
            except asyncio.CancelledError:
                return None  # a sync API's worker was given up and replaced (run_async)
            finally:
                del self._running[job_id]

    async def _call(
        self, key: str, args: dict[str, Any], session_id: str, call_id: Optional[str], scope: Optional[Scope]
    ) -> Answer:
        route = self._routes.get(key)
        if route is None:  # the caller routed by this tool's own API names
            return unknown_api(self._action, args, key), None, None
        if not route.context_params:
            # The caller measures the timeout and cancels the job when it is up.
            outputs, error = await run_async(RunRequest(route, args, None), self._threads)
            return _no_agent(route.label, outputs), _portable(error), None
        state = self._sessions.setdefault(session_id, {})
        before = state.copy()
        context = _context_of(scope, ToolContext(session_id, state, route.tool, key, call_id, None))
        outputs, error = await run_async(RunRequest(route, args, context), self._threads)
        outputs = _no_agent(route.label, outputs)
        if error is not None or (
            isinstance(outputs, ActionReturn) and outputs.state != ActionStatusCode.SUCCESS
        ):
            # As in the caller's process: a failed call's state delta is not committed.
            _roll_back((state, before))
            return outputs, _portable(error), _effects(context, None, None)
        return outputs, None, _effects(context, state, before)


def _no_agent(label: str, outputs: Any) -> Any:
    """``outputs``, or an error record when the tool returned an agent (it cannot cross back)."""
    handoff = handoff_of(outputs)
    if handoff is None:
        return outputs
    name = getattr(handoff[0], "name", None) or type(handoff[0]).__name__
    message = (
        f"{label} returned the agent {name!r} from its Ray worker, but an agent cannot cross "
        f"processes (the caller would get a copy); set tool_context.actions.transfer_to_agent "
        f"to {name!r} instead, with that agent a sub-agent of the running one"
    )
    return ActionReturn(None, None, None, None, message, ActionStatusCode.API_ERROR)


def _context_of(scope: Optional[Scope], context: ToolContext) -> ToolContext:
    """``context`` with the caller's agent scope and function call (see :class:`Scope`)."""
    if scope is None:
        return context
    run_context = None if scope.context is None else import_ray().cloudpickle.loads(scope.context)
    context._scope = AgentScope(
        scope.agent_name, scope.invocation_id, run_context, ToolActions(), scope.approved, scope.paused_run
    )
    context._call = scope.call
    return context


def _effects(
    context: ToolContext, state: Optional[dict[str, Any]], before: Optional[dict[str, Any]]
) -> Optional[Effects]:
    """What the call asked of the agent and, after a success, how it changed the state."""
    actions = context._scope.actions if context._scope is not None else ToolActions()
    asked = (
        (actions.transfer_to_agent, actions.escalate, actions.skip_summarization)
        if actions.transfer_to_agent is not None or actions.escalate or actions.skip_summarization
        else None
    )
    if state is None or before is None:
        return None if asked is None else Effects(asked)
    # Identity, as the caller's rollback compares: a key is changed when assigned anew.
    changed = {key: value for key, value in state.items() if before.get(key, _ABSENT) is not value}
    deleted = tuple(key for key in before if key not in state)
    if asked is None and not changed and not deleted:
        return None
    dumps = import_ray().cloudpickle.dumps
    kept = tuple(key for key, value in changed.items() if not _pickles(dumps, value))
    for key in kept:
        del changed[key]
    return Effects(asked, changed or None, deleted, kept)


_ABSENT = object()


def _pickles(dumps: Any, value: Any) -> bool:
    try:
        dumps(value)
    except Exception:  # noqa: BLE001 - whatever fails to pickle stays in the replica
        return False
    return True


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
    return ActionReturn(None, None, None, None, message, ActionStatusCode.API_ERROR), None, None


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
