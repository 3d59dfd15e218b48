"""Ray-backed execution: ``RayActionExecutor`` runs every tool in a pool of Ray actors.

One process cannot run thousands of slow or CPU-hungry tool calls at once, and a tool
that crashes its interpreter takes the agent with it. Here each tool lives in one or
more Ray actors (its *replicas*), each running up to ``max_concurrency`` calls at a
time, on this machine or on a cluster. Everything else is the async executor's:
descriptions, exports, routing, argument checks, hooks, retries, timeouts and circuit
breakers run in the caller's process, and only a validated call crosses to an actor.

Calls that reach the same replica in the same event-loop step travel in one Ray
message, which keeps Ray's per-message cost from dominating large batches. Calls with
a session id always go to the same replica (consistent hashing), so a tool's own state
and its ``ToolContext.state`` follow the session. A replica that dies mid-call answers
that call with an ``API_ERROR`` record and is restarted (by Ray, or replaced) before the
record comes back.

Ray is an optional extra (``pip install lagent-like[ray]``), imported only when an
executor is built.
"""

from __future__ import annotations

import asyncio
import bisect
import hashlib
import inspect
import itertools
import os
import pickle
from collections.abc import Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, Awaitable, Callable, Optional, Union

from ._private.log import logger
from ._private.text import close_matches
from .actions.async_executor import AsyncActionExecutor
from .actions.base_action import BaseAction
from .actions.runtime import (
    _Hook,
    _hook_result_async,
    _Run,
    _run_async,
    _timed_out,
    call_core,
    mark_open,
)
from .context import DEFAULT_SESSION, ToolContext
from .schema import ActionReturn, ActionStatusCode

if TYPE_CHECKING:
    from ._private.daemon_pool import DaemonThreadPool
    from .actions.action_executor import ToolLike
    from .actions.runtime import Core
    from .policies import CircuitBreaker, RetryPolicy

__all__ = ["RayActionExecutor"]

#: ``(job id, API key, checked arguments, session id, call id)``: one call sent to a replica.
_Job = tuple[int, str, dict[str, Any], str, Optional[str]]
#: What a replica answers for one job: the record and the exception the tool raised.
_Outcome = Optional[tuple[ActionReturn, Optional[BaseException]]]

#: Ray's limit on a replica's concurrent method calls. A replica's own gate limits the
#: tool calls it runs; this only has to be large enough that pings and cancellations
#: never queue behind messages of calls waiting at that gate.
_ACTOR_METHODS = 1000
#: Points per replica on the hash ring; enough for an even split of sessions.
_RING_POINTS = 64
#: How long a failed call waits for its replica to come back before replacing it.
_RESTART_WAIT = 60.0
#: Longest Ray error text quoted in a record (Ray's messages carry whole tracebacks).
_MAX_REASON = 200


def _import_ray() -> Any:
    """The ``ray`` module, or an ``ImportError`` that names the extra to install."""
    try:
        import ray
    except ImportError as exc:
        raise ImportError(
            "RayActionExecutor needs Ray: install lagent-like[ray] (pip install 'lagent-like[ray]')"
        ) from exc
    return ray


#: Attributes ``BaseAction.__init__`` derives from the others: compiled call paths and
#: a parser that hold unpicklable objects. A replica rebuilds them.
_DERIVED = frozenset({"_api_specs", "_schemas", "_parser", "_invokers", "_stages"})


class _ActionRecipe:
    """What a replica needs to rebuild an action: its class, parser class and own state.

    An action holds compiled closures and a parser that cannot be pickled; everything
    else (the description, runtime settings, the tool's own attributes) travels as is.

    Args:
        action: the action to copy.
    """

    def __init__(self, action: BaseAction) -> None:
        self.cls = type(action)
        self.parser = type(action._parser)
        self.state = {key: value for key, value in vars(action).items() if key not in _DERIVED}

    def build(self) -> BaseAction:
        """A new action with the copied state and freshly compiled call paths."""
        action = self.cls.__new__(self.cls)
        action.__dict__.update(self.state)
        BaseAction.__init__(action, self.state["_description"], self.parser, self.state["_enable"])
        return action


class _ToolWorker:
    """The body of one replica: a copy of the action and the calls it is running.

    Made a Ray actor with ``ray.remote``; its async methods run on the actor's event
    loop, so one replica serves many calls at once. Sync APIs run in daemon threads.

    Args:
        recipe: how to build the replica's own copy of the tool (state is per replica).
        slots: how many calls run at once; more wait their turn.
    """

    def __init__(self, recipe: _ActionRecipe, slots: int) -> None:
        from ._private.daemon_pool import DaemonThreadPool

        action = recipe.build()
        self._action = action
        self._slots = slots
        self._threads: DaemonThreadPool = DaemonThreadPool(slots, f"lagent-like-ray-{action.name}")
        # Created on the actor's loop at first use (Python 3.9 binds a semaphore to a loop).
        self._gate: Optional[asyncio.Semaphore] = None
        self._sessions: dict[str, dict[str, Any]] = {}
        self._running: dict[int, asyncio.Task[tuple[ActionReturn, Optional[BaseException]]]] = {}
        self._cancelled: set[int] = set()

    # The control methods are async too: they then run on the loop that runs the calls.

    async def ping(self) -> int:
        """The replica's process id (the caller learns that the replica is alive)."""
        return os.getpid()

    async def run_many(self, jobs: list[_Job]) -> list[_Outcome]:
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
                if len(self._cancelled) > 4096:
                    # Ids of jobs that had already finished pile up here; forget them.
                    self._cancelled.clear()
                self._cancelled.add(job_id)

    async def end_session(self, session_id: str) -> None:
        """Forget the ``ToolContext.state`` of a session."""
        self._sessions.pop(session_id, None)

    async def _run_one(self, job: _Job) -> _Outcome:
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
                if task.cancelled() and self._blocking(key):
                    self._threads.forget_one()  # its thread runs on; let the pool replace it
                return None
            finally:
                del self._running[job_id]

    def _blocking(self, key: str) -> bool:
        stages = self._action.stages(key)
        return stages is not None and not stages.is_async and self._action.blocking

    async def _call(
        self, key: str, args: dict[str, Any], session_id: str, call_id: Optional[str]
    ) -> tuple[ActionReturn, Optional[BaseException]]:
        action = self._action
        stages = action.stages(key)
        if stages is None:  # the caller routed by this tool's own API names
            return action._unknown_api(args, key), None
        context = None
        if stages.wants_context:
            state = self._sessions.setdefault(session_id, {})
            context = ToolContext(session_id, state, action.name, key, call_id, None)
        label = f"{action.name}.{key}" if action.is_toolkit else action.name
        run = _Run(stages, args, context, None, label, action.blocking, action.name)
        record, error = await _run_async(run, self._threads)
        return record, _portable(error)


def _sendable(outcomes: list[_Outcome]) -> list[_Outcome]:
    """``outcomes``, with any record Ray could not send back replaced by an error record.

    A tool may return its own ``ActionReturn`` holding anything; one such record must
    not fail the whole message and with it every other call in it.
    """
    dumps = _import_ray().cloudpickle.dumps  # what Ray itself pickles with
    try:
        dumps(outcomes)
        return outcomes
    except Exception:  # noqa: BLE001 - find the culprits below
        pass
    checked: list[_Outcome] = []
    for outcome in outcomes:
        try:
            dumps(outcome)
        except Exception as exc:  # noqa: BLE001 - whatever fails to pickle is reported
            record = outcome[0] if outcome is not None else ActionReturn()
            message = f"the tool's result cannot be sent back from its Ray worker: {_reason(exc)}"
            failed = ActionReturn(None, None, record.type, None, message, ActionStatusCode.API_ERROR)
            try:
                dumps(record.args)
                failed.args = record.args
            except Exception:  # noqa: BLE001 - the arguments themselves are the culprit
                failed.args = None
            outcome = (failed, None)
        checked.append(outcome)
    return checked


def _portable(error: Optional[BaseException]) -> Optional[BaseException]:
    """``error`` if it survives pickling, else a ``RuntimeError`` carrying its summary.

    The caller's retry policy and error formatter want the exception; one that cannot
    be rebuilt on the other side (a custom ``__init__``) must not lose the record.
    """
    if error is None:
        return None
    try:
        pickle.loads(pickle.dumps(error))
    except Exception:  # noqa: BLE001 - any pickling failure means "send a summary"
        return RuntimeError(f"{type(error).__name__}: {error}")
    return error


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


def _reason(error: BaseException) -> str:
    """A one-line summary of a Ray error for a record."""
    first = str(error).strip().splitlines()[0] if str(error).strip() else ""
    text = f"{type(error).__name__}: {first}" if first else type(error).__name__
    return text if len(text) <= _MAX_REASON else text[: _MAX_REASON - 3] + "..."


class _Pending:
    """Calls submitted in one event-loop step, per replica, waiting to be sent."""

    def __init__(self, loop: asyncio.AbstractEventLoop, replicas: int) -> None:
        self.loop = loop
        self.queues: list[list[tuple[_Job, asyncio.Future[Any]]]] = [[] for _ in range(replicas)]


class _ReplicaPool:
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

    async def run(self, request: _Run, key: str, session_id: Optional[str], call_id: Optional[str]) -> Any:
        """Run one call on a replica; ``(record, exception)`` as ``call_core`` expects."""
        ray = _import_ray()
        replica = self.replica_for(session_id)
        session = session_id if session_id is not None else DEFAULT_SESSION
        job: _Job = (next(self._ids), key, request.args, session, call_id)
        future = self._submit(replica, job)
        try:
            if request.timeout is None:
                outcome = await future
            else:
                outcome = await asyncio.wait_for(future, request.timeout)
        except asyncio.TimeoutError:
            self.handles[replica].cancel.remote([job[0]])
            return _timed_out(request)
        if isinstance(outcome, ray.exceptions.RayActorError):
            logger().warning("replica %d of %s failed: %s", replica, self.action.name, _reason(outcome))
            how = await self._recover(replica)
            message = (
                f"The Ray worker running {request.label} died during this call "
                f"({type(outcome).__name__}); "
                f"{how}. The call may or may not have taken effect; its result is lost."
            )
            record = ActionReturn(request.args, None, request.tool, None, message, ActionStatusCode.API_ERROR)
            return record, outcome
        if outcome is None:  # cancelled in the replica by someone else
            message = f"The Ray worker running {request.label} cancelled this call"
            record = ActionReturn(request.args, None, request.tool, None, message, ActionStatusCode.API_ERROR)
            return record, None
        if isinstance(outcome, BaseException):
            message = f"The Ray worker running {request.label} could not answer: {_reason(outcome)}"
            record = ActionReturn(request.args, None, request.tool, None, message, ActionStatusCode.API_ERROR)
            return record, outcome
        return outcome

    def _submit(self, replica: int, job: _Job) -> asyncio.Future[Any]:
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

    def _send(self, replica: int, chunk: list[tuple[_Job, asyncio.Future[Any]]]) -> None:
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

    async def _deliver(self, replica: int, ref: Any, chunk: list[tuple[_Job, asyncio.Future[Any]]]) -> None:
        """Hand each call of a sent message its outcome: a record, or the error that ended it."""
        ray = _import_ray()
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
        ray = _import_ray()
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
    ray = _import_ray()
    try:
        ray.kill(handle, no_restart=True)
    except Exception:  # noqa: BLE001 - an actor that is already gone needs no killing
        logger().debug("ray.kill failed", exc_info=True)


def _per_tool(value: Union[int, Mapping[str, int]], what: str) -> Optional[dict[str, int]]:
    """A per-tool setting as ``{tool: count}``, or ``None`` for one int applying to every tool.

    Raises:
        ValueError: a count is not a positive int.
    """
    items = list(value.items()) if isinstance(value, Mapping) else [("every tool", value)]
    bad = [f"{name}: {count!r}" for name, count in items if type(count) is not int or count < 1]
    if bad:
        raise ValueError(f"{what} must be positive ints, got {', '.join(bad)}")
    return dict(value) if isinstance(value, Mapping) else None


def _pick(setting: Union[int, Mapping[str, int]], tool: str, default: int) -> int:
    """A tool's count from an int or ``{tool: count}`` setting (``default`` for tools not named)."""
    return setting.get(tool, default) if isinstance(setting, Mapping) else setting


class RayActionExecutor(AsyncActionExecutor):
    """An :class:`AsyncActionExecutor` whose tools run in Ray actors.

    ``await executor(name, command, session_id=...)``, ``await executor.batch(calls)``
    and ``await executor.run_tool_calls(tool_calls)`` behave as on the async executor,
    and the descriptions and exports are the same; only where a tool runs differs.
    Arguments are read and checked here, so bad calls never reach Ray and come back
    exactly as the async executor answers them.

    Each tool gets ``replicas`` actors holding a copy of it (made when they start), each
    running up to ``max_concurrency`` calls at once. A call with a ``session_id`` always
    goes to the same replica, so per-replica tool state and ``ToolContext.state`` follow
    the session (in a replica, ``ToolContext.executor`` is ``None``); a call without one
    goes to the least busy replica. The built-in invalid/no/finish actions run here.

    A replica that dies during a call (a crash, ``os._exit``, the OOM killer) is
    restarted by Ray (up to ``max_restarts`` times, then replaced by a new actor) and
    the call comes back as an ``API_ERROR`` record saying so; calls are never run twice
    by Ray (at-most-once), since a tool call may have side effects.

    Use it as a context manager (``async with`` or ``with``) or call :meth:`close`.

    Args:
        actions: the tools, as for :class:`ActionExecutor`.
        invalid_action: see :class:`ActionExecutor`.
        no_action: see :class:`ActionExecutor`.
        finish_action: see :class:`ActionExecutor`.
        finish_in_action: see :class:`ActionExecutor`.
        replicas: actors per tool: one int for every tool, or ``{tool name: count}``
            (tools not named get 1).
        max_concurrency: calls one replica runs at once: an int, or ``{tool name: count}``
            (tools not named get 16).
        max_restarts: how often Ray restarts a dead replica before it is replaced.
        actor_options: more ``ray.remote`` options for every replica, e.g.
            ``{'num_cpus': 1}`` or ``{'num_gpus': 1}``.
        address: the Ray cluster to join when Ray is not initialised yet (``'auto'``,
            ``'ray://host:10001'``); ``None`` starts a small local Ray (2 CPUs, no
            dashboard). An initialised Ray is used as it is.
        ray_init_kwargs: more arguments for ``ray.init`` when this executor starts Ray.
        timeout: see :class:`ActionExecutor`; measured here, from the moment the call
            is sent, and a timed-out call is cancelled in its replica.
        retry: see :class:`ActionExecutor`; applied here, each attempt a new Ray call.
        circuit_breaker: see :class:`ActionExecutor`.
        error_formatter: see :class:`ActionExecutor`.
        max_output_chars: see :class:`ActionExecutor`.
        max_workers: see :class:`ActionExecutor`.
        sleep: see :class:`ActionExecutor`.
        random: see :class:`ActionExecutor`.

    Raises:
        ImportError: Ray is not installed.
        ValueError: ``replicas`` or ``max_concurrency`` is not positive, or names a
            tool the executor does not hold.
        ToolDefinitionError: as for :class:`ActionExecutor`, or a tool cannot be sent to
            a Ray worker (it cannot be pickled).
    """

    #: Calls one replica runs at once when ``max_concurrency`` does not say.
    DEFAULT_MAX_CONCURRENCY = 16

    def __init__(
        self,
        actions: Iterable[ToolLike],
        invalid_action: Optional[BaseAction] = None,
        no_action: Optional[BaseAction] = None,
        finish_action: Optional[BaseAction] = None,
        finish_in_action: bool = False,
        *,
        replicas: Union[int, Mapping[str, int]] = 1,
        max_concurrency: Union[int, Mapping[str, int]] = DEFAULT_MAX_CONCURRENCY,
        max_restarts: int = 3,
        actor_options: Optional[Mapping[str, Any]] = None,
        address: Optional[str] = None,
        ray_init_kwargs: Optional[Mapping[str, Any]] = None,
        timeout: Optional[float] = None,
        retry: Optional[RetryPolicy] = None,
        circuit_breaker: Optional[Callable[[], CircuitBreaker]] = None,
        error_formatter: Optional[Callable[[BaseException, ActionReturn], Optional[str]]] = None,
        max_output_chars: Optional[int] = None,
        max_workers: Optional[int] = None,
        sleep: Optional[Callable[[float], Any]] = None,
        random: Optional[Callable[[], float]] = None,
    ) -> None:
        ray = _import_ray()
        self._pools: dict[str, _ReplicaPool] = {}
        self._closed = False
        self._started_ray = False
        super().__init__(
            actions,
            invalid_action,
            no_action,
            finish_action,
            finish_in_action,
            timeout=timeout,
            retry=retry,
            circuit_breaker=circuit_breaker,
            error_formatter=error_formatter,
            max_output_chars=max_output_chars,
            max_workers=max_workers,
            sleep=sleep,
            random=random,
        )
        for setting, what in ((replicas, "replicas"), (max_concurrency, "max_concurrency")):
            named = _per_tool(setting, what)
            if named is not None:
                self._check_names(named, what)
        self._replicas = dict(replicas) if isinstance(replicas, Mapping) else replicas
        self._slots = dict(max_concurrency) if isinstance(max_concurrency, Mapping) else max_concurrency
        if type(max_restarts) is not int or max_restarts < -1:
            raise ValueError(f"max_restarts must be an int >= -1 (-1: no limit), got {max_restarts!r}")
        self._max_restarts = max_restarts
        self._actor_options = dict(actor_options or {})
        if not ray.is_initialized():
            self._started_ray = _start_ray(ray, address, ray_init_kwargs)
        try:
            for action in self.actions.values():
                if self._remote(action):
                    self._pools[action.name] = self._new_pool(action)
        except BaseException:
            self.close()
            raise

    def _check_names(self, setting: Mapping[str, int], what: str) -> None:
        unknown = [name for name in setting if name not in self.actions]
        if unknown:
            hints = {name: close_matches(name, self.actions) for name in unknown}
            shown = ", ".join(f"{n!r} (did you mean {h}?)" if h else repr(n) for n, h in hints.items())
            raise ValueError(f"{what} names tools this executor does not hold: {shown}")

    def _remote(self, action: BaseAction) -> bool:
        """Whether ``action`` runs in actors (the built-in answers run here)."""
        return (
            action is not self.finish_action
            and action is not self.no_action
            and action is not self.invalid_action
        )

    def _new_pool(self, action: BaseAction) -> _ReplicaPool:
        ray = _import_ray()
        from .exceptions import ToolDefinitionError

        slots = _pick(self._slots, action.name, self.DEFAULT_MAX_CONCURRENCY)
        options = {
            "max_concurrency": max(_ACTOR_METHODS, slots + 1),
            "max_restarts": self._max_restarts,
            "max_task_retries": 0,
            **self._actor_options,
        }
        worker = ray.remote(_ToolWorker).options(**options)

        recipe = _ActionRecipe(action)

        def spawn() -> Any:
            return worker.remote(recipe, slots)

        try:
            return _ReplicaPool(action, spawn, _pick(self._replicas, action.name, 1), slots)
        except Exception as exc:  # Ray reports unpicklable tools in many ways
            raise ToolDefinitionError(
                "RayActionExecutor", [f"{action.name} cannot be sent to a Ray worker: {_reason(exc)}"]
            ) from exc

    async def __call__(  # type: ignore[override]
        self, name: str, command: Any, session_id: Optional[str] = None, call_id: Optional[str] = None
    ) -> ActionReturn:
        """Run the call a model asked for in the tool's replica; see :meth:`ActionExecutor.__call__`.

        Raises:
            RuntimeError: the executor is closed.
        """
        if self._closed:
            raise RuntimeError("this RayActionExecutor is closed")
        try:
            action, _, _, key, _ = self._routes[name]
        except (KeyError, TypeError):
            return self._call_unrouted(name, command)
        pool = self._pools.get(action.name)
        if pool is None or pool.action is not action:
            return await super().__call__(name, command, session_id, call_id)
        if not action._enable:
            return self._call_unrouted(name, command)
        plan = self._plan(name, session_id, call_id)
        ret = await self._drive(call_core(plan, command), pool, key, session_id, call_id)
        return mark_open(ret, action is self.finish_action)

    async def _drive(
        self, core: Core, pool: _ReplicaPool, key: str, session_id: Optional[str], call_id: Optional[str]
    ) -> ActionReturn:
        """``drive_async`` with the tool run sent to a replica."""
        answer: Any = None
        try:
            while True:
                request = core.send(answer)
                if isinstance(request, _Hook):
                    answer = await _hook_result_async(request)
                elif isinstance(request, _Run):
                    answer = await pool.run(request, key, session_id, call_id)
                else:
                    answer = None
                    try:
                        pause = (self._sleep or asyncio.sleep)(request.seconds)
                        if inspect.isawaitable(pause):
                            await pause
                    except Exception:  # noqa: BLE001 - a misbehaving sleep must not end the call
                        logger().warning("sleep between attempts failed", exc_info=True)
        except StopIteration as stop:
            result: ActionReturn = stop.value
            return result

    def _direct_or_call(
        self, name: Any, command: Any, session_id: Optional[str], call_id: Optional[str]
    ) -> tuple[Awaitable[ActionReturn], bool]:
        # The async executor's direct path would run the tool here, not in its replica.
        return self(name, command, session_id, call_id), False

    def add_action(self, action: ToolLike) -> None:
        """Add ``action`` with its own replicas, replacing any action of the same name.

        Calls already running on a replaced tool's replicas finish there.

        Raises:
            ToolDefinitionError: as for :meth:`ActionExecutor.add_action`, or the tool
                cannot be pickled for a Ray worker.
        """
        from .actions.action_executor import _as_action
        from .exceptions import ToolDefinitionError

        problems: list[str] = []
        added = _as_action(action, "add_action", problems)
        if added is None:
            raise ToolDefinitionError("RayActionExecutor", problems)
        before = dict(self.actions)
        super().add_action(added)
        try:
            if self._remote(added):
                self._pools[added.name] = self._new_pool(added)
            else:
                self._pools.pop(added.name, None)
        except BaseException:
            self.actions = before
            self.refresh()
            raise

    def del_action(self, name: str) -> None:
        """Remove the action called ``name``; calls already running on its replicas finish.

        Raises:
            ToolNotFoundError: no action has that name (a ``KeyError``).
        """
        super().del_action(name)
        # Ray ends the actors once the last call holding their handles is done.
        self._pools.pop(name, None)

    def end_session(self, session_id: str) -> None:
        """Forget a session's state here and in the replicas that serve it."""
        super().end_session(session_id)
        for pool in self._pools.values():
            pool.end_session(session_id)

    def actor_handles(self, name: str) -> list[Any]:
        """The Ray actor handles of tool ``name``'s replicas, in replica order.

        Raises:
            ToolNotFoundError: no action has that name, or it runs here (a built-in).
        """
        from .exceptions import ToolNotFoundError

        pool = self._pools.get(name)
        if pool is None:
            raise ToolNotFoundError(name, close_matches(name, self._pools), where="among the Ray-run tools")
        return list(pool.handles)

    def replica_for(self, name: str, session_id: str) -> int:
        """The index of the replica of tool ``name`` that serves ``session_id``.

        Raises:
            ToolNotFoundError: as for :meth:`actor_handles`.
        """
        self.actor_handles(name)
        return self._pools[name].replica_for(session_id)

    def close(self) -> None:
        """Kill every replica, and shut Ray down if this executor started it. Idempotent."""
        self._closed = True
        pools, self._pools = self._pools, {}
        for pool in pools.values():
            pool.kill()
        if self._started_ray:
            self._started_ray = False
            _import_ray().shutdown()

    async def aclose(self) -> None:
        """:meth:`close`, for ``async`` code."""
        self.close()

    def __enter__(self) -> RayActionExecutor:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    async def __aenter__(self) -> RayActionExecutor:
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        self.close()


def _start_ray(ray: Any, address: Optional[str], ray_init_kwargs: Optional[Mapping[str, Any]]) -> bool:
    """Initialise Ray: join ``address``, or start a small local Ray; whether it was started here."""
    options: dict[str, Any] = {}
    if address is None:
        options = {"num_cpus": min(2, os.cpu_count() or 1), "include_dashboard": False}
    else:
        options["address"] = address
    options.update(ray_init_kwargs or {})
    ray.init(**options)
    return True
