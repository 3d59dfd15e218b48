"""The caller's side of one tool's Ray replicas: starting, routing, batching, recovering.

Why apart from the executor: the executor decides *whether* a call goes to Ray and
applies every policy around it; this module only gets a checked call to a replica and
its outcome back, which is where Ray's costs and failures live:

* **routing**: a call with a session id always goes to the same replica (consistent
  hashing, stable across processes), so a tool's own state follows the session; a
  call without one goes to the least busy replica;
* **batching**: calls submitted to the same replica in one event-loop step travel in
  one Ray message, which keeps Ray's per-message cost from dominating large batches;
* **recovery**: a replica that dies mid-call answers that call with an ``API_ERROR``
  record, once Ray has restarted it (or it has been replaced by a new actor).

The code that runs inside the replicas is in :mod:`.ray_replica`.
"""

from __future__ import annotations

import asyncio
import bisect
import hashlib
import itertools
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any, Callable, Optional

from .._private.log import logger
from ..context import DEFAULT_SESSION
from ..runtime._invoke import abandoned
from ..schema import ActionReturn, ActionStatusCode
from .replica import Effects, Job, Scope, ToolWorker, import_ray, reason

if TYPE_CHECKING:
    from ..context import ToolContext
    from ..runtime._core import Outcome, RunRequest
    from ..toolkits._base_action import BaseAction

__all__ = ["ReplicaPool", "replica_starter"]

#: Ray's limit on a replica's concurrent method calls. A replica's own gate limits the
#: tool calls it runs; this only has to be large enough that pings and cancellations
#: never queue behind messages of calls waiting at that gate.
_ACTOR_METHODS = 1000
#: Points per replica on the hash ring; enough for an even split of sessions.
_RING_POINTS = 64
#: How long a failed call waits for its replica to come back before replacing it.
_RESTART_WAIT = 60.0

#: One queued call: the job and the future its outcome (or the error that ended it) goes to.
_Queued = tuple[Job, asyncio.Future[Any]]


def replica_starter(action: BaseAction, slots: int, actor_options: Mapping[str, Any]) -> Callable[[], Any]:
    """A function that starts one replica of ``action`` and returns its actor handle.

    Args:
        action: the tool; each replica gets a copy of it as it is when the replica starts.
        slots: calls one replica runs at once.
        actor_options: ``ray.remote`` options (restarts, resources), over the defaults.
    """
    options = {"max_concurrency": max(_ACTOR_METHODS, slots + 1), **actor_options}
    worker = import_ray().remote(ToolWorker).options(**options)

    def spawn() -> Any:
        return worker.remote(action, slots)  # pickled by Ray: the replica's own copy

    return spawn


def _point(text: str) -> int:
    # A stable hash: Python's hash() of a str changes from process to process.
    return int.from_bytes(hashlib.blake2b(text.encode("utf-8"), digest_size=8).digest(), "big")


class _HashRing:
    """Consistent hashing of session ids onto ``replicas`` replicas."""

    def __init__(self, replicas: int) -> None:
        ring = sorted((_point(f"replica-{r}-{p}"), r) for r in range(replicas) for p in range(_RING_POINTS))
        self._points = [point for point, _ in ring]
        self._owners = [owner for _, owner in ring]

    def owner(self, key: str) -> int:
        """The replica that serves ``key``."""
        index = bisect.bisect(self._points, _point(key)) % len(self._points)
        return self._owners[index]


class _Pending:
    """Calls submitted in one event-loop step, per replica, waiting to be sent."""

    def __init__(self, loop: asyncio.AbstractEventLoop, replicas: int) -> None:
        self.loop = loop
        self.queues: list[list[_Queued]] = [[] for _ in range(replicas)]


def _scope_of(context: ToolContext) -> tuple[Optional[Scope], Optional[str]]:
    """The caller's agent scope for a replica, or why its context object cannot go there."""
    scope, call = context._scope, context._call
    if scope is None:
        return Scope(None, None, None, False, None, call), None
    pickled = None
    if scope.context is not None:
        try:
            pickled = import_ray().cloudpickle.dumps(scope.context)
        except Exception as exc:  # noqa: BLE001 - whatever fails to pickle is reported
            kind = type(scope.context).__name__
            return None, f"the run's context object ({kind}) cannot be pickled ({reason(exc)})"
    return Scope(scope.agent_name, scope.invocation_id, pickled, scope.approved, scope.paused_run, call), None


def _take_effects(context: ToolContext, effects: Effects, label: str) -> None:
    """Apply what a call did in its replica to the caller's context: actions and state delta."""
    if effects.actions is not None:
        actions = context.actions
        actions.transfer_to_agent, actions.escalate, actions.skip_summarization = effects.actions
    state = context.state
    state.update(effects.changed or {})
    for key in effects.deleted:
        state.pop(key, None)
    if effects.kept:
        logger().warning(
            "%s set session-state keys %s to values that cannot be pickled; they stay in its Ray worker",
            label,
            list(effects.kept),
        )


def _worker_error(request: RunRequest, message: str) -> Outcome:
    """The outcome of a call its replica could not answer: an ``API_ERROR`` record."""
    return ActionReturn(
        request.args, None, request.route.tool, None, message, ActionStatusCode.API_ERROR
    ), None


class ReplicaPool:
    """The replicas of one tool, as the caller sees them.

    Args:
        action: the caller's instance (replicas hold copies made when they start).
        spawn: starts one replica and returns its actor handle.
        replicas: how many replicas.
        slots: calls each replica runs at once.
    """

    def __init__(self, action: BaseAction, spawn: Callable[[], Any], replicas: int, slots: int) -> None:
        self.action = action
        self.slots = slots
        self._spawn = spawn
        self.handles = [spawn() for _ in range(replicas)]
        self._ring = _HashRing(replicas)
        self._load = [0] * replicas
        self._turn = itertools.count()
        self._ids = itertools.count()
        self._pending: Optional[_Pending] = None
        self._sending: set[asyncio.Future[None]] = set()
        self._recovering: dict[int, asyncio.Future[str]] = {}
        self.closed = False

    def replica_for(self, session_id: Optional[str]) -> int:
        """The replica for a call: the session's own, or the least busy one without a session."""
        if session_id is not None:
            return self._ring.owner(session_id)
        count = len(self.handles)
        start = next(self._turn) % count  # ties rotate, so single calls spread too
        return min(((start + i) % count for i in range(count)), key=lambda r: self._load[r])

    async def run(
        self, request: RunRequest, key: str, session_id: Optional[str], call_id: Optional[str]
    ) -> Outcome:
        """Run one call on a replica; ``(output, exception)`` as ``call_core`` expects."""
        ray = import_ray()
        scope: Optional[Scope] = None
        if request.route.context_params and request.context is not None:
            scope, problem = _scope_of(request.context)
            if problem is not None:
                return _worker_error(
                    request,
                    f"{problem}, so it cannot be sent to the Ray worker running {request.route.label}: "
                    f"pass a context object that pickles (plain data, dataclasses), or run this tool "
                    f"in a local executor",
                )
        replica = self.replica_for(session_id)
        session = session_id if session_id is not None else DEFAULT_SESSION
        job: Job = (next(self._ids), key, request.args, session, call_id, scope)
        future = self._submit(replica, job)
        try:
            if request.route.timeout is None:
                outcome = await future
            else:
                outcome = await asyncio.wait_for(future, request.route.timeout)
        except asyncio.TimeoutError:
            self.handles[replica].cancel.remote([job[0]])
            return None, abandoned(request.route)
        if isinstance(outcome, ray.exceptions.RayActorError):
            logger().warning("replica %d of %s failed: %s", replica, self.action.name, reason(outcome))
            how = await self._recover(replica)
            message = (
                f"The Ray worker running {request.route.label} died during this call "
                f"({type(outcome).__name__}); "
                f"{how}. The call may or may not have taken effect; its result is lost."
            )
            return _worker_error(request, message)
        if outcome is None:  # cancelled in the replica by someone else
            return _worker_error(request, f"The Ray worker running {request.route.label} cancelled this call")
        if isinstance(outcome, BaseException):
            message = f"The Ray worker running {request.route.label} could not answer: {reason(outcome)}"
            return _worker_error(request, message)
        outputs, error, effects = outcome
        if effects is not None and request.context is not None:
            _take_effects(request.context, effects, request.route.label)
        return outputs, error

    def _submit(self, replica: int, job: Job) -> asyncio.Future[Any]:
        """Queue a call for the replica; it is sent at the end of this loop step."""
        loop = asyncio.get_running_loop()
        pending = self._pending
        if pending is None or pending.loop is not loop:
            pending = self._pending = _Pending(loop, len(self.handles))
            loop.call_soon(self._flush, pending)
        future: asyncio.Future[Any] = loop.create_future()
        pending.queues[replica].append((job, future))
        self._load[replica] += 1
        return future

    def _flush(self, pending: _Pending) -> None:
        """Send what this loop step submitted: one Ray message per replica and ``slots`` calls."""
        if self._pending is pending:
            self._pending = None
        for replica, queue in enumerate(pending.queues):
            for start in range(0, len(queue), self.slots):
                self._send(replica, queue[start : start + self.slots])

    def _send(self, replica: int, chunk: list[_Queued]) -> None:
        """Send one message of calls; calls that cannot be sent get the error as their outcome."""
        try:
            ref = self.handles[replica].run_many.remote([job for job, _ in chunk])
        except Exception as exc:  # noqa: BLE001 - e.g. arguments Ray cannot pickle
            if len(chunk) > 1:
                # Find the call at fault: the others must still run.
                for one in chunk:
                    self._send(replica, [one])
                return
            self._load[replica] -= 1
            future = chunk[0][1]
            if not future.done():  # a call that timed out before it was sent has gone
                future.set_result(exc)
            return
        sending = asyncio.ensure_future(self._deliver(replica, ref, chunk))
        # Held until done: the loop keeps only weak references to tasks.
        self._sending.add(sending)
        sending.add_done_callback(self._sending.discard)

    async def _deliver(self, replica: int, ref: Any, chunk: list[_Queued]) -> None:
        """Hand each call of a sent message its outcome: a record, or the error that ended it."""
        ray = import_ray()
        outcomes: Sequence[Any]
        try:
            outcomes = await ref
        except ray.exceptions.RayError as exc:
            outcomes = [exc] * len(chunk)
        except Exception as exc:  # noqa: BLE001 - whatever failed, every waiting call gets a record
            logger().warning("a Ray call of %s failed", self.action.name, exc_info=True)
            outcomes = [exc] * len(chunk)
        finally:
            self._load[replica] -= len(chunk)
        for (_, future), outcome in zip(chunk, outcomes):
            if not future.done():  # a timed-out call has stopped waiting
                future.set_result(outcome)

    async def _recover(self, replica: int) -> str:
        """Wait until a replica that failed a call is back; how it came back, for the record.

        Every call that failed with the same replica shares one recovery.
        """
        recovery = self._recovering.get(replica)
        if recovery is None or recovery.get_loop() is not asyncio.get_running_loop():
            recovery = self._recovering[replica] = asyncio.ensure_future(self._ping_or_replace(replica))
            recovery.add_done_callback(lambda _: self._recovering.pop(replica, None))
        return await asyncio.shield(recovery)

    async def _ping_or_replace(self, replica: int) -> str:
        """Wait for the replica to answer again, or replace it; how it came back."""
        ray = import_ray()
        handle = self.handles[replica]
        try:
            # Retried while Ray restarts the actor; fails for good once it cannot.
            await asyncio.wait_for(handle.ping.options(max_task_retries=-1).remote(), _RESTART_WAIT)
            return "Ray restarted the worker, and the next call runs on it"
        except (ray.exceptions.RayError, asyncio.TimeoutError):
            if self.closed:  # killed on purpose: nothing to bring back
                return "the executor was closed"
            logger().warning("replica %d of %s is gone; starting a new one", replica, self.action.name)
        _kill(handle)
        self.handles[replica] = self._spawn()
        return "the worker could not be restarted and was replaced by a new one; the next call runs on it"

    def end_session(self, session_id: str) -> None:
        """Tell the session's replica to forget its context state (no answer awaited)."""
        self.handles[self._ring.owner(session_id)].end_session.remote(session_id)

    def kill(self) -> None:
        """Kill every replica for good (calls running there fail)."""
        self.closed = True
        for handle in self.handles:
            _kill(handle)


def _kill(handle: Any) -> None:
    """Kill an actor without restart; one already gone is fine."""
    ray = import_ray()
    try:
        ray.kill(handle, no_restart=True)
    except Exception:  # noqa: BLE001 - an actor that is already gone needs no killing
        logger().debug("ray.kill failed", exc_info=True)
