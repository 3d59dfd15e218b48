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

This module holds the executor: its settings and which calls go to Ray. Getting a
call to a replica and back (routing, batching, recovery) is in
:mod:`lagent_like.ray.pool`; the code that runs inside a replica is in
:mod:`lagent_like.ray.replica`. Ray is an optional extra
(``pip install 'lagent-like[ray]'``, from a clone ``pip install '.[ray]'``), imported only
when an executor is built.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, Any, Awaitable, Callable, Optional, Union

from .._private.text import close_matches
from ..executors._async_executor import AsyncActionExecutor
from ..runtime._core import call_core, drive_async
from ..runtime._invoke import Route
from ..schema import ActionReturn
from ..toolkits._base_action import BaseAction
from .pool import ReplicaPool, replica_starter
from .replica import import_ray, reason

if TYPE_CHECKING:
    from typing_extensions import Unpack

    from ..executors._action_executor import ExecutorOptions, ToolLike
    from ..runtime._core import Outcome, RunRequest

__all__ = ["RayActionExecutor"]


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
    the session (in a replica, ``ToolContext.executor`` is ``None``; an agent's scope
    and the state a call writes cross over, see below); a call without one goes to the
    least busy replica. The built-in invalid/no/finish actions run here.

    A generator tool is drained in its replica: the record holds its whole output,
    but its chunks do not travel back one by one, so ``on_progress`` is called only
    for tools that run here (those without replicas).

    A call's ``context`` (an agent's scope, or the run's own context object) reaches the
    tool in its replica as it reaches the hooks here: ``ToolContext.agent_name``,
    ``invocation_id``, ``function_call``, ``approved`` and ``context`` (pickled: a
    context object that cannot be pickled makes the call an ``API_ERROR`` record
    naming it, the tool not run). What the tool sets on ``ToolContext.actions``
    comes back to the caller's scope, and so do the session-state keys a
    successful call set or deleted (a key is changed when assigned anew; a value
    changed in place, or one that cannot be pickled, stays in the replica). A
    failed call's state writes are undone in the replica too. In the replica,
    ``ToolContext.state`` is the replica's own session state (hooks' writes here
    do not reach it), and ``executor`` and ``on_progress`` are ``None``. A closed
    executor's calls raise ``RuntimeError``.

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
        **options: Unpack[ExecutorOptions],
    ) -> None:
        ray = import_ray()
        self._pools: dict[str, ReplicaPool] = {}
        self._closed = False
        self._started_ray = False
        super().__init__(actions, invalid_action, no_action, finish_action, finish_in_action, **options)
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

    def _new_pool(self, action: BaseAction) -> ReplicaPool:
        from ..exceptions import ToolDefinitionError

        slots = _pick(self._slots, action.name, self.DEFAULT_MAX_CONCURRENCY)
        # At most once: a tool call may have side effects, so Ray never runs one again.
        options = {"max_restarts": self._max_restarts, "max_task_retries": 0, **self._actor_options}
        spawn = replica_starter(action, slots, options)
        try:
            return ReplicaPool(action, spawn, _pick(self._replicas, action.name, 1), slots)
        except Exception as exc:  # Ray reports unpicklable tools in many ways
            raise ToolDefinitionError(
                "RayActionExecutor", [f"{action.name} cannot be sent to a Ray worker: {reason(exc)}"]
            ) from exc

    def _route_of_call(
        self, name: Any, command: Any, session_id: Optional[str] = None, call_id: Optional[str] = None
    ) -> Union[Route, ActionReturn]:
        """The route of a call, as in the async executor; a closed executor takes no call.

        Raises:
            RuntimeError: the executor is closed.
        """
        self._refuse_when_closed()
        return super()._route_of_call(name, command, session_id, call_id)

    async def call_message(self, message: Any, session_id: Any = 0, **kwargs: Any) -> Any:
        """Run the call in a Lagent 0.5 message, as the async executor does; a closed executor takes none.

        Refused before the hooks' ``before_action`` runs: no hook sees a call that cannot run.

        Raises:
            RuntimeError: the executor is closed.
        """
        self._refuse_when_closed()
        return await super().call_message(message, session_id, **kwargs)

    def _refuse_when_closed(self) -> None:
        if self._closed:
            raise RuntimeError("this RayActionExecutor is closed")

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
        """The awaitable of a routed call: through the call core here, the tool run in its replica.

        Tools without replicas (the built-in answers) run here as in the async executor.
        """
        pool = self._pools.get(route.tool)
        if pool is None or pool.action is not route.action:
            return super()._run_route(route, name, command, session_id, call_id, on_progress, context)

        def run(request: RunRequest) -> Awaitable[Outcome]:
            return pool.run(request, route.key, session_id, call_id)

        filled = self._context(route, session_id, call_id, None, context, (name, command))
        core = call_core(route, command, filled, self._hook_methods)
        return drive_async(core, self._thread_pool(), self._sleep, run)

    def _direct_or_call(
        self, name: Any, command: Any, session_id: Optional[str], call_id: Optional[str]
    ) -> Awaitable[ActionReturn]:
        # The async executor's direct path would run the tool here, not in its replica.
        return self(name, command, session_id, call_id)

    def add_action(self, action: ToolLike) -> None:
        """Add ``action`` with its own replicas, replacing any action of the same name.

        Calls already running on a replaced tool's replicas finish there.

        Raises:
            ToolDefinitionError: as for :meth:`ActionExecutor.add_action`, or the tool
                cannot be pickled for a Ray worker.
        """
        from ..exceptions import ToolDefinitionError
        from ..executors._intake import as_action

        problems: list[str] = []
        added = as_action(action, "add_action", problems)
        if added is None:
            raise ToolDefinitionError("RayActionExecutor", problems)
        previous = self.actions.get(added.name)
        super().add_action(added)
        try:
            if self._remote(added):
                self._pools[added.name] = self._new_pool(added)
            else:
                self._pools.pop(added.name, None)
        except BaseException:
            # Undo only this tool (O(that tool)); its replaced predecessor's pool was kept.
            if previous is None:
                super().del_action(added.name)
            else:
                super().add_action(previous)
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
        from ..exceptions import ToolNotFoundError

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
            import_ray().shutdown()

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
