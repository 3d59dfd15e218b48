"""``ActionExecutor``: one place that describes tools to a model and runs its calls.

It flattens toolkits into ``Tool.api`` entries for the system prompt, exports the same
tools for native function calling (OpenAI, Anthropic, MCP shapes, under legal alias
names), routes a call by name or alias to the right action and API, and sends names it
does not know to the built-in invalid/no/finish actions. Routing is a single dict
lookup, rebuilt whenever the set of actions changes, so the per-call path stays short.
"""

from __future__ import annotations

import inspect
import os
import threading
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Any, Callable, Optional, TypedDict, Union

from .._private.aliases import assign_aliases
from .._private.describe import copy_description
from .._private.log import logger
from .._private.text import as_text, close_matches, did_you_mean, preview
from ..context import DEFAULT_SESSION, ToolContext
from ..exceptions import ToolDefinitionError, ToolNotFoundError
from ..hooks import HookHandle, HookList
from ..schema import ActionReturn, ActionValidCode
from .base_action import UNSET, BaseAction, Invoker, Stages
from .builtin_actions import FinishAction, InvalidAction, NoAction
from .function_calling import FunctionCallingMixin, _read_tool_call
from .function_tool import FunctionTool
from .runtime import CallPlan, call_core, drive_sync

if TYPE_CHECKING:
    from .._private.daemon_pool import DaemonThreadPool
    from ..policies import CircuitBreaker, RetryPolicy

__all__ = ["ActionExecutor"]

_Route = tuple[BaseAction, Invoker, bool, str, Stages]

#: What an executor accepts as a tool: an action, or a function that becomes a ``FunctionTool``.
ToolLike = Union[BaseAction, Callable[..., Any]]


class ExecutorOptions(TypedDict, total=False):
    """The keyword-only settings of :class:`ActionExecutor`, for subclasses that pass them on."""

    timeout: Optional[float]
    retry: Optional[RetryPolicy]
    circuit_breaker: Optional[Callable[[], CircuitBreaker]]
    error_formatter: Optional[Callable[[BaseException, ActionReturn], Optional[str]]]
    max_output_chars: Optional[int]
    max_workers: Optional[int]
    sleep: Optional[Callable[[float], Any]]
    random: Optional[Callable[[], float]]


def _run_builtin(action: BaseAction, command: Any) -> ActionReturn:
    invoke = action.invoker("run")
    return invoke(command) if invoke is not None else action._unknown_api(command, "run")


def _batch_job(call: Any) -> tuple[Any, Any, Optional[str]]:
    """``(name, command, call_id)`` of a ``(name, command)`` pair or an OpenAI tool call."""
    if isinstance(call, (tuple, list)) and len(call) == 2:
        return call[0], call[1], None
    call_id, name, arguments = _read_tool_call(call)
    return name, arguments, call_id if isinstance(call_id, str) else None


def _as_action(item: Any, where: str, problems: list[str]) -> Optional[BaseAction]:
    """``item`` as an action: actions as they are, functions wrapped; else a problem."""
    if isinstance(item, BaseAction):
        return item
    if isinstance(item, type) and issubclass(item, BaseAction):
        problems.append(f"{where} is the class {item.__name__}; pass an instance, e.g. {item.__name__}()")
        return None
    if callable(item) and not isinstance(item, type):
        try:
            return FunctionTool(item)
        except ToolDefinitionError as exc:
            problems.append(f"{where}: {exc}")
            return None
    problems.append(
        f"{where} is {type(item).__name__} {preview(item)}, expected a BaseAction instance or a function"
    )
    return None


def _routes_of(action: BaseAction, plain_executor: bool) -> dict[str, _Route]:
    """Callable name -> route for each API the action can run.

    A route is ``(action, invoker, plain, api key, stages)``; ``plain`` calls skip the
    call core because no policy, hook-free executor assumed, could change them.
    """
    keys = [api["name"] for api in action.description["api_list"]] if action.is_toolkit else ["run"]
    plain_tool = all(_unset_or_none(getattr(action, a, UNSET)) for a in _TOOL_POLICIES)
    routes = {}
    for key in keys:
        invoke, stages = action.invoker(key), action.stages(key)
        if invoke is None or stages is None:
            continue
        name = f"{action.name}.{key}" if action.is_toolkit else action.name
        plain = plain_executor and plain_tool and not stages.wants_context
        routes[name] = (action, invoke, plain, key, stages)
    return routes


#: Tool attributes that, when set, send calls through the call core.
_TOOL_POLICIES = ("timeout", "retry", "circuit_breaker")


def _setting_property(name: str) -> Any:
    """A read/write executor setting; writing it rebuilds the routes.

    Whether a call may take the direct path depends on these settings.
    """

    def get(self: ActionExecutor) -> Any:
        return self._settings[name]

    def put(self: ActionExecutor, value: Any) -> None:
        with self._lock:
            self._settings[name] = value
            self._rebuild_routes()

    return property(get, put, doc=f"The executor's ``{name}`` (see the class docstring).")


def _class_setting(action: BaseAction, name: str) -> Any:
    """A tool setting as stored, so that a function on the class is not bound as a method."""
    value = inspect.getattr_static(action, name, UNSET)
    return value.__func__ if isinstance(value, (staticmethod, classmethod)) else value


def _unset_or_none(value: Any) -> bool:
    return value is UNSET or value is None


class ActionExecutor(FunctionCallingMixin):
    """Holds a set of actions, describes them, and runs a model's calls.

    Args:
        actions: the tools with distinct names: ``BaseAction`` instances, or functions
            (``@tool_api`` or just type-hinted), each made a simple tool of its own;
            or a single action, as in Lagent.
        invalid_action: answers unknown or disabled tool names (default ``InvalidAction()``).
        no_action: answers turns without a tool (default ``NoAction()``).
        finish_action: answers the final answer (default ``FinishAction()``).
        finish_in_action: also list the finish action among the tools offered to the model.
        timeout: default seconds before a call is abandoned (``TIMEOUT``); ``None`` for no
            limit. A tool's own ``timeout`` wins. A sync tool's thread cannot be killed:
            the executor stops waiting and the thread runs on.
        retry: default :class:`~lagent_like.policies.RetryPolicy` for transient failures.
        circuit_breaker: a factory of :class:`~lagent_like.policies.CircuitBreaker`, one
            per API, for tools that set none.
        error_formatter: ``(exception, record) -> errmsg`` rewrites the message of any
            call that raised (``ToolError`` included); ``None`` keeps it.
        max_output_chars: longer text results keep their head and tail with a notice;
            the full result stays in ``ActionReturn.full_result``.
        max_workers: threads for sync tools with timeouts and for batches.
        sleep: how to wait between retries (injectable for tests).
        random: jitter source in [0, 1) for retries (injectable for tests).

    Policies cost nothing when none is set: calls then take a direct path. Hooks,
    sessions and tools taking a ``ToolContext`` use the full call core.

    Raises:
        ToolDefinitionError: an entry is not an action, or two actions share a name.
    """

    def __init__(
        self,
        actions: Union[BaseAction, Iterable[ToolLike]],
        invalid_action: Optional[BaseAction] = None,
        no_action: Optional[BaseAction] = None,
        finish_action: Optional[BaseAction] = None,
        finish_in_action: bool = False,
        *,
        timeout: Optional[float] = None,
        retry: Optional[RetryPolicy] = None,
        circuit_breaker: Optional[Callable[[], CircuitBreaker]] = None,
        error_formatter: Optional[Callable[[BaseException, ActionReturn], Optional[str]]] = None,
        max_output_chars: Optional[int] = None,
        max_workers: Optional[int] = None,
        sleep: Optional[Callable[[float], Any]] = None,
        random: Optional[Callable[[], float]] = None,
    ) -> None:
        self._settings = {
            "timeout": timeout,
            "retry": retry,
            "circuit_breaker": circuit_breaker,
            "error_formatter": error_formatter,
            "max_output_chars": max_output_chars,
        }
        self._sleep = sleep
        self._random = random
        self._max_workers = max_workers or min(32, (os.cpu_count() or 1) + 4)
        self._pool: Optional[DaemonThreadPool] = None
        self._hooks = HookList(on_change=self._refresh_fast)
        self._plain: dict[str, tuple[BaseAction, Invoker]] = {}
        self._fast: dict[str, tuple[BaseAction, Invoker]] = {}
        self._sessions: dict[str, dict[str, Any]] = {}
        self._breakers: dict[str, CircuitBreaker] = {}
        self._lock = threading.RLock()
        self.invalid_action = invalid_action if invalid_action is not None else InvalidAction()
        self.no_action = no_action if no_action is not None else NoAction()
        self.finish_action = finish_action if finish_action is not None else FinishAction()
        problems: list[str] = []
        if isinstance(actions, BaseAction):
            actions = [actions]  # Lagent takes one action as well as a list
        given = [_as_action(item, f"actions[{i}]", problems) for i, item in enumerate(actions)]
        if finish_in_action:
            given.append(self.finish_action)
        names = [a.name for a in given if a is not None]
        duplicates = sorted({n for n in names if names.count(n) > 1})
        if duplicates:
            problems.append(f"several actions are named {duplicates}; tool names must be unique")
        if problems:
            raise ToolDefinitionError("ActionExecutor", problems)
        self.actions: dict[str, BaseAction] = {a.name: a for a in given if a is not None}
        self._routes: dict[str, _Route] = {}
        self._names: dict[str, _Route] = {}
        self._aliases: dict[str, str] = {}
        self._canonical: dict[str, str] = {}
        self._exports: dict[str, tuple[tuple[Any, ...], list[dict[str, Any]]]] = {}
        self._version = 0
        self._rebuild_routes()

    def _rebuild_routes(self) -> None:
        names: dict[str, _Route] = {}
        clashes = []
        plain = all(
            setting is None
            for setting in (
                self.timeout,
                self.retry,
                self.circuit_breaker,
                self.error_formatter,
                self.max_output_chars,
            )
        )
        for action in self.actions.values():
            for name, route in _routes_of(action, plain).items():
                if name in names:
                    clashes.append(f"{name!r} is both {names[name][0].name}'s and {action.name}'s")
                names[name] = route
        if clashes:
            raise ToolDefinitionError("ActionExecutor", [f"call name {c}" for c in clashes])
        aliases = assign_aliases(names)
        routes = dict(names)
        canonical = {alias: name for name, alias in aliases.items()}
        for name, alias in aliases.items():
            routes.setdefault(alias, names[name])
        for action in self.actions.values():
            # Lagent also spells a simple tool's call 'Tool.run'.
            if not action.is_toolkit and action.name in names:
                long_name = f"{action.name}.run"
                if long_name not in routes:
                    routes[long_name] = names[action.name]
                    canonical[long_name] = action.name
        # Built aside and swapped in whole, so a call never sees a half-built table.
        self._plain = {n: (route[0], route[1]) for n, route in routes.items() if route[2]}
        self._refresh_fast()
        self._names = names
        self._aliases = aliases
        self._canonical = canonical
        self._routes = routes
        self._version += 1

    def __call__(
        self, name: str, command: Any, session_id: Optional[str] = None, call_id: Optional[str] = None
    ) -> ActionReturn:
        """Run the call a model asked for and return its record.

        Args:
            name: ``'Tool'`` for a simple tool, ``'Tool.api'`` for a toolkit API, or an alias.
            command: the model's argument string (or a dict / tuple for the parser).
            session_id: the session whose ``ToolContext.state`` the call sees.
            call_id: the model's id for this call, passed on in the ``ToolContext``.
        """
        try:
            action, invoke = self._fast[name]
        except (KeyError, TypeError):
            return self._call_planned(name, command, session_id, call_id)
        if not action._enable:
            return self._call_unrouted(name, command)
        ret = invoke(command)
        # Records built by the action are OPEN already; a tool's own record may not be.
        if ret.valid and action is not self.finish_action:
            ret.valid = ActionValidCode.OPEN
        return ret

    def refresh(self) -> None:
        """Re-read the tools' runtime settings (``timeout``, ``retry``, ...) after changing them."""
        with self._lock:
            self._rebuild_routes()

    timeout = _setting_property("timeout")
    retry = _setting_property("retry")
    circuit_breaker = _setting_property("circuit_breaker")
    error_formatter = _setting_property("error_formatter")
    max_output_chars = _setting_property("max_output_chars")

    def _refresh_fast(self) -> None:
        # Plain routes take the direct path only while no hook is registered.
        self._fast = {} if self._hooks.hooks else self._plain

    def _call_planned(
        self, name: Any, command: Any, session_id: Optional[str], call_id: Optional[str]
    ) -> ActionReturn:
        """Calls that are not on the direct path: policies, hooks, context, or unknown names."""
        try:
            action = self._routes[name][0]
        except (KeyError, TypeError):
            return self._call_unrouted(name, command)
        if not action._enable:
            return self._call_unrouted(name, command)
        plan = self._plan(name, session_id, call_id)
        ret = drive_sync(call_core(plan, command), self._thread_pool(), self._sleep)
        if ret.valid and action is not self.finish_action:
            ret.valid = ActionValidCode.OPEN
        return ret

    def _plan(self, name: str, session_id: Optional[str], call_id: Optional[str]) -> CallPlan:
        """Resolve the policies and context of one call of ``name`` (a routed name)."""
        action, _, _, key, stages = self._routes[name]
        label = self._canonical.get(name, name)
        session = session_id if session_id is not None else DEFAULT_SESSION
        context = ToolContext(session, self.session_state(session), action.name, key, call_id, self)
        return CallPlan(
            label=label,
            tool=action.name,
            stages=stages,
            context=context,
            hooks=self._hooks.snapshot(),
            timeout=self.timeout if action.timeout is UNSET else action.timeout,
            retry=self.retry if action.retry is UNSET else action.retry,
            breaker=self._breaker(label, action),
            error_formatter=self.error_formatter,
            max_output_chars=self.max_output_chars,
            blocking=action.blocking,
            random=self._random,
        )

    def _breaker(self, label: str, action: BaseAction) -> Optional[CircuitBreaker]:
        own = _class_setting(action, "circuit_breaker")
        factory = self.circuit_breaker if own is UNSET else own
        if factory is None:
            return None
        with self._lock:
            breaker = self._breakers.get(label)
            if breaker is None:
                try:
                    breaker = self._breakers[label] = factory()
                except Exception:  # noqa: BLE001 - a broken factory must not break calls
                    logger().warning("circuit_breaker factory of %s failed", label, exc_info=True)
                    return None
            return breaker

    def breaker_state(self, name: str) -> Optional[dict[str, Any]]:
        """The circuit breaker of API ``name`` as a dict for monitoring, or ``None`` if it has none yet."""
        breaker = self._breakers.get(self._canonical.get(name, name))
        return breaker.snapshot() if breaker is not None else None

    def _thread_pool(self) -> DaemonThreadPool:
        # Imported here: concurrent.futures (and logging with it) costs milliseconds at
        # import, and only timeouts and batches need threads.
        from .._private.daemon_pool import DaemonThreadPool

        if self._pool is None:
            with self._lock:
                if self._pool is None:
                    self._pool = DaemonThreadPool(self._max_workers)
        return self._pool

    def register_hook(self, hook: Any) -> HookHandle:
        """Run ``hook`` around every call from now on; ``handle.remove()`` stops it.

        A hook has ``before_action(name, args, context)`` (return an ``ActionReturn`` to
        answer without calling the tool) and/or ``after_action(name, record, context)``
        (return a replacement record). Hooks run in registration order; one that raises
        is logged and skipped.
        """
        return self._hooks.add(hook)

    def session_state(self, session_id: str = DEFAULT_SESSION) -> dict[str, Any]:
        """The state dict that calls of ``session_id`` see as ``ToolContext.state``."""
        with self._lock:
            return self._sessions.setdefault(session_id, {})

    def end_session(self, session_id: str) -> None:
        """Forget a session's state."""
        with self._lock:
            self._sessions.pop(session_id, None)

    def batch(
        self, calls: Sequence[Any], session_id: Optional[str] = None, max_concurrency: Optional[int] = None
    ) -> list[ActionReturn]:
        """Run several calls concurrently; the records come back in input order.

        Args:
            calls: ``(name, command)`` pairs or OpenAI-style tool calls.
            session_id: the session every call belongs to.
            max_concurrency: how many run at once (default: the executor's ``max_workers``).

        A failing or slow call delays no other call beyond its own timeout.
        """
        from .._private.daemon_pool import DaemonThreadPool

        jobs = [_batch_job(call) for call in calls]
        if not jobs:
            return []
        pool = DaemonThreadPool(min(len(jobs), max_concurrency or self._max_workers), "lagent-like-batch")
        try:
            futures = [
                pool.submit(self, name, command, session_id, call_id) for name, command, call_id in jobs
            ]
            return [future.result() for future in futures]
        finally:
            pool.shutdown()

    def enable(self, name: str) -> None:
        """Offer and run tool ``name`` again."""
        self._action_named(name).enable = True

    def disable(self, name: str) -> None:
        """Stop offering and running tool ``name``; calls already running finish."""
        self._action_named(name).enable = False

    def _action_named(self, name: str) -> BaseAction:
        action = self.actions.get(name)
        if action is None:
            raise ToolNotFoundError(name, close_matches(name, self.actions), where="in this executor")
        return action

    def _call_unrouted(self, name: Any, command: Any) -> ActionReturn:
        # Never through ``action(...)``: an AsyncActionMixin action would return a coroutine.
        if isinstance(name, str):
            tool, _, api = name.partition(".")
            action = self.actions.get(tool)
            if action is not None and action.enable:
                # A known tool without that API (a routed API would not be here).
                ret = action._unknown_api(command, api or "run")
                ret.valid = ActionValidCode.OPEN
                return ret
            if name == self.no_action.name:
                return _run_builtin(self.no_action, command)
            if name == self.finish_action.name:
                return _run_builtin(self.finish_action, command)
        ret = _run_builtin(self.invalid_action, self._unknown_message(name))
        ret.args = {"inputs": command, "name": name}
        return ret

    def _unknown_message(self, name: Any) -> str:
        available = self.api_names()
        canonical = self._canonical.get(name, name) if isinstance(name, str) else None
        tool = canonical.partition(".")[0] if canonical is not None else None
        known = canonical in self.actions or tool in self.actions
        head = f"Tool {preview(name)} is disabled." if known else f"Unknown tool {preview(name)}."
        hint = did_you_mean(as_text(name), available)
        return f"{head}{hint} Available tools: {', '.join(available) or 'none'}."

    def get_actions_info(self) -> list[dict[str, Any]]:
        """Descriptions of the enabled tools for a system prompt.

        A toolkit contributes one entry per API, named ``'Tool.api'``. The entries are
        copies; changing them changes nothing in the executor.
        """
        info = []
        for action in self.actions.values():
            if not action.enable:
                continue
            if action.is_toolkit:
                for api in action.description["api_list"]:
                    entry = copy_description(api)
                    entry["name"] = f"{action.name}.{api['name']}"
                    info.append(entry)
            else:
                info.append(copy_description(action.description))
        return info

    def api_names(self, only_enable: bool = True) -> list[str]:
        """Callable names (``'Tool'`` and ``'Tool.api'``), as a model sees them."""
        return [n for n, route in self._names.items() if route[0].enable or not only_enable]

    def action_names(self, only_enable: bool = True) -> list[str]:
        """Names of the actions held (only the enabled ones by default)."""
        return [n for n, a in self.actions.items() if a.enable or not only_enable]

    def is_valid(self, name: str) -> bool:
        """Whether ``name`` (``'Tool'`` or ``'Tool.api'``) is held and enabled."""
        action = self.actions.get(name)
        if action is None:
            route = self._routes.get(name)
            action = route[0] if route else None
        return action is not None and action.enable

    def add_action(self, action: ToolLike) -> None:
        """Add ``action`` (an action or a function), replacing any action of the same name.

        Raises:
            ToolDefinitionError: ``action`` is neither an action nor a function, or one of
                its call names is another tool's (the executor is then left unchanged).
        """
        problems: list[str] = []
        tool = _as_action(action, "add_action", problems)
        if tool is None:
            raise ToolDefinitionError("ActionExecutor", problems)
        with self._lock:
            previous = self.actions
            self.actions = {**previous, tool.name: tool}
            try:
                self._rebuild_routes()
            except ToolDefinitionError:
                self.actions = previous
                raise

    def del_action(self, name: str) -> None:
        """Remove the action called ``name``.

        Raises:
            ToolNotFoundError: no action has that name (a ``KeyError``).
        """
        with self._lock:
            self._action_named(name)
            self.actions = {n: a for n, a in self.actions.items() if n != name}
            self._rebuild_routes()

    def __contains__(self, name: object) -> bool:
        return name in self.actions or name in self._routes


def __getattr__(name: str) -> Any:
    # Lagent 0.5 defines AsyncActionExecutor in this module; it lives in async_executor,
    # which imports this one, so it is looked up on first access.
    if name == "AsyncActionExecutor":
        from .async_executor import AsyncActionExecutor

        return AsyncActionExecutor
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
