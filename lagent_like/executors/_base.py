"""What ``ActionExecutor`` and ``AsyncActionExecutor`` share: tools, routes, settings.

An executor flattens toolkits into ``Tool.api`` entries for the system prompt, exports
the same tools for native function calling (OpenAI, Anthropic, MCP shapes, under legal
alias names), routes a call by name or alias to the right action and API, and sends
names it does not know to the built-in invalid/no/finish actions. All of that is
written once here; the two executors add only how a call runs (plainly or awaited).

Routing is a single dict lookup (:mod:`.routes`). Every route is resolved when the
routes are built (whenever the tools, the settings or the hooks change): its
validation mode, timeout, retry, breaker, formatter and cap, and whether a call may
skip the call core. Nothing is resolved per call, and nothing is written onto the
tools: a tool shared by several executors runs under each one's settings. A tool
keeps the routes resolved for each executor profile (the settings and hooks its
routes depend on), so a new executor over known tools, or one tool added, resolves
only what is new: catalogues hold thousands of tools.
"""

from __future__ import annotations

import dataclasses
import os
import sys
import threading
import weakref
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Any, Callable, Optional, TypedDict, Union

from .._private._names_index import NameIndex
from .._private.text import MAX_LISTED, as_text, close_matches, did_you_mean, listing, preview, suggestion
from ..context import DEFAULT_SESSION, AgentScope, ToolContext
from ..exceptions import ToolDefinitionError, ToolNotFoundError
from ..runtime._core import NO_HOOKS, HookMethods
from ..runtime._invoke import BreakerSlot, Route, invoke
from ..runtime._messages import is_native, names_the_model_saw, too_long_record
from ..runtime.hooks import HookHandle, HookList
from ..runtime.settings import UNSET, ToolSettings
from ..schema import ActionReturn
from ..toolkits._base_action import (
    BaseAction,
    end_tool_session,
    routes_of,
    settings_of,
    state_of,
    unknown_api,
    validation_mode,
)
from ..toolkits._tool_state import (
    NO_SETTINGS,
    STATE_ATTR,
    EnableCheck,
    enabled,
    shared_description,
    watch_tools,
)
from ..types._families import COERCE, check_mode
from ._exports import FunctionCallingMixin
from ._intake import ToolLike, as_action, named_actions
from ._one_pass import one_pass
from ._routes import (
    KeptRoutes,
    RouteTable,
    ToolRoutes,
    add_tool,
    call_names,
    remove_tool,
    route_table,
    tool_routes,
)

if TYPE_CHECKING:
    from ..runtime._pool import DaemonThreadPool
    from ..runtime.policies import CircuitBreaker, RetryPolicy

__all__ = ["ExecutorBase", "ExecutorOptions", "ToolLike"]


class ExecutorOptions(TypedDict, total=False):
    """The keyword-only settings of the executors, for subclasses that pass them on."""

    timeout: Optional[float]
    retry: Optional[RetryPolicy]
    circuit_breaker: Optional[Callable[[], CircuitBreaker]]
    error_formatter: Optional[Callable[[BaseException, ActionReturn], Optional[str]]]
    max_output_chars: Optional[int]
    max_argument_chars: Optional[int]
    max_workers: Optional[int]
    sleep: Optional[Callable[[float], Any]]
    random: Optional[Callable[[], float]]
    validation: Optional[str]


def _run_builtin(action: BaseAction, command: Any) -> ActionReturn:
    route = routes_of(action).get("run")
    return invoke(route, command) if route is not None else unknown_api(action, command, "run")


#: The fields of a route, in order.
_ROUTE_FIELDS = tuple(field.name for field in dataclasses.fields(Route))
#: Profiles whose routes a tool keeps (see ``ExecutorBase._tool_routes``); more are rare.
_KEPT_PROFILES = 4


#: Profiles seen (see ``ExecutorBase._profile``), each its own key; a few, and forgotten past
#: :data:`_KEPT_PROFILES` times as many.
_PROFILES: dict[tuple[Any, ...], tuple[Any, ...]] = {}


def _interned(profile: tuple[Any, ...]) -> tuple[Any, ...]:
    """The one tuple kept for profiles equal to ``profile``."""
    if len(_PROFILES) >= 16 * _KEPT_PROFILES:
        _PROFILES.clear()
    return _PROFILES.setdefault(profile, profile)


def _resolved(own: Route, **changes: Any) -> Route:
    """``dataclasses.replace(own, **changes)`` at a fraction of its cost.

    One ``__init__`` call with every field, so that the route keeps its attributes
    where ``__init__`` puts them (read on every call); ``replace`` also checks each
    field in Python, and a catalogue resolves one route per API.
    """
    values = {name: getattr(own, name) for name in _ROUTE_FIELDS}
    values.update(changes)
    return Route(**values)


def _setting_property(name: str) -> Any:
    """A read/write executor setting; writing it rebuilds the routes.

    Whether a call may take the direct path depends on these settings.
    """

    def get(self: ExecutorBase) -> Any:
        return self._settings[name]

    def put(self: ExecutorBase, value: Any) -> None:
        with self._lock:
            self._settings[name] = value
            self._rebuild_routes()

    return property(get, put, doc=f"The executor's ``{name}`` (see the class docstring).")


class ExecutorBase(FunctionCallingMixin):
    """The tools, routes, settings, hooks and sessions of an executor (see the subclasses).

    Args: as :class:`~lagent_like.ActionExecutor`.
    """

    def __init__(
        self,
        actions: Union[ToolLike, Iterable[ToolLike]],
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
        max_argument_chars: Optional[int] = 1_000_000,
        max_workers: Optional[int] = None,
        sleep: Optional[Callable[[float], Any]] = None,
        random: Optional[Callable[[], float]] = None,
        validation: Optional[str] = None,
    ) -> None:
        self._validation = COERCE if validation is None else check_mode(validation, type(self).__name__)
        self._settings = {
            "timeout": timeout,
            "retry": retry,
            "circuit_breaker": circuit_breaker,
            "error_formatter": error_formatter,
            "max_output_chars": max_output_chars,
        }
        self._sleep = sleep
        self.max_argument_chars = max_argument_chars
        self._random = random
        self._max_workers = max_workers or min(32, (os.cpu_count() or 1) + 4)
        self._pool: Optional[DaemonThreadPool] = None
        self._sessions: dict[str, dict[str, Any]] = {}
        self._breakers: dict[str, BreakerSlot] = {}
        self._lock = threading.RLock()
        self._weakref = weakref.ref(self)
        self._routes: dict[str, Route] = {}
        self._hook_methods = NO_HOOKS
        self._current_profile: Optional[tuple[Any, ...]] = None
        self._profile_hash: Optional[int] = None
        self._built = False
        self._hooks = HookList(on_change=self.refresh)
        # Imported here, not with the package: describing them imports docstring-parser.
        from ..toolkits._builtin_actions import FinishAction, InvalidAction, NoAction

        self.invalid_action = invalid_action if invalid_action is not None else InvalidAction()
        self.no_action = no_action if no_action is not None else NoAction()
        self.finish_action = finish_action if finish_action is not None else FinishAction()
        #: Name -> ``(action, its state)``, beside ``actions``: describing and exporting a
        #: catalogue then looks nothing up on thousands of tool classes.
        self._tools: dict[str, tuple[BaseAction, Any]] = {}
        self._names: dict[str, Route] = {}
        self._aliases: dict[str, str] = {}
        self._canonical: dict[str, str] = {}
        self._exports: dict[str, tuple[tuple[Any, ...], list[Any]]] = {}
        self._version = 0
        #: Native or not -> the index of the call names as the model saw them (see
        #: :meth:`_close_enabled`); dropped on a rebuild, kept up to date by one tool's change.
        self._name_indexes: dict[bool, NameIndex] = {}
        self._built = True
        self._build(actions, self.finish_action if finish_in_action else None)
        watch_tools(self, self._weakref)  # a setting changed through a tool refreshes this executor

    def _build(self, actions: Any, finish: Optional[BaseAction]) -> None:
        """Take ``actions`` (and ``finish``, offered too when given) and build their routes.

        Raises:
            ToolDefinitionError: an entry is not an action, two actions share a name, or
                two tools would answer the same call name.
        """
        self._set_profile()
        kept = self._kept_routes(True)
        if finish is None and kept is not None and isinstance(actions, (list, tuple)):
            # The usual catalogue: one pass over it.
            built = one_pass(actions, kept)
            if built is not None:
                self.actions, self._tools, table = built
                self._hook_methods = HookMethods.of(self._hooks.calls)
                self._use(table)
                return
        if isinstance(actions, (list, tuple)):
            actions = [self._from_config(a) if isinstance(a, dict) else a for a in actions]
        self.actions, given, plain = named_actions(actions, finish)
        self._rebuild_routes(given, plain)

    def _may_skip_core(self, route: Route, settings: ToolSettings) -> bool:
        """Whether a call without hooks, policies or context may skip the call core.

        The sync executor always may; the async one only where no thread is needed.
        """
        return True

    def _profile(self) -> Optional[tuple[Any, ...]]:
        """What this executor's routes depend on, as a key; ``None`` when they are its own.

        Two executors of one profile resolve a tool's routes alike, so the routes are
        kept on the tool (:meth:`_tool_routes`); circuit breakers are each executor's.
        """
        if self.circuit_breaker is not None:
            return None
        profile = (
            type(self)._may_skip_core,
            self._validation,
            self.timeout,
            self.retry,
            self.error_formatter,
            self.max_output_chars,
            self._random,
            bool(self._hooks.hooks),
        )
        try:
            hash(profile)
        except TypeError:  # an unhashable setting: resolved each time
            return None
        return profile

    def _tool_routes(self, action: BaseAction, state: Any = None) -> ToolRoutes:
        """``action``'s part of the route table, kept on the tool per profile; the tool watches this executor.

        A catalogue of thousands of tools is rebuilt into each new executor; resolving
        each route again would cost microseconds per API. Everything is read from the
        tool in this one visit (``state``: its state, when the caller has read it):
        with thousands of classes, each attribute looked up on a tool's class misses
        Python's type cache.
        """
        if state is None:
            state = action.__dict__.get(STATE_ATTR) or state_of(action)
        settings = getattr(action, "__tool_settings__", NO_SETTINGS)
        if settings is not NO_SETTINGS and not isinstance(settings, ToolSettings):
            settings = NO_SETTINGS  # as settings_of()
        if settings is NO_SETTINGS and action is not self.finish_action:
            key = self._profile_hash  # the usual tool (see _kept_key), without a call
        else:
            key = self._kept_key(action, settings)
        if key is not None:
            kept = state.resolved.get(key)
            if (
                kept is not None
                and kept[0] is state.routes
                and kept[1] is state.parser
                and (kept[2] is self._current_profile or kept[2] == self._current_profile)
            ):
                return self._reused(kept[3])
        resolved = tool_routes(
            action, [(name, self._route(action, name, own)) for name, own in call_names(action)]
        )
        if key is not None:
            if len(state.resolved) >= _KEPT_PROFILES:
                state.resolved.clear()
            state.resolved[key] = (state.routes, state.parser, self._current_profile, resolved)
            if key is self._profile_hash and resolved.legal and resolved.long_name is not None:
                # A plain simple tool: what a one-pass build reads of it, in one tuple (see one_pass).
                name, route = resolved.rows[0]
                state.simple = (key, self._current_profile, name, route, resolved.long_name)
        return resolved

    def _kept_routes(self, plain: bool) -> Optional[KeptRoutes]:
        """What a build needs to take a tool's kept routes as they are, or ``None`` when it cannot.

        Read once per build: with thousands of tool classes, reading each setting as
        ``self.x`` per tool would miss Python's type cache each time. ``plain``: no
        tool sets runtime settings of its own (none is asked then).
        """
        if self._profile_hash is None or self._breakers:
            return None  # routes of this executor's own, or breakers to drop (see _reused)
        return KeptRoutes(self._profile_hash, self._current_profile, self.finish_action, plain)

    def _reused(self, kept: ToolRoutes) -> ToolRoutes:
        """``kept``, routes resolved before for this profile, taken again (no breaker applies)."""
        if self._breakers:
            for name, _ in kept.rows:
                self._breakers.pop(name, None)  # as resolving would
        return kept

    def _kept_key(self, action: BaseAction, settings: ToolSettings) -> Any:
        """What ``action``'s routes are kept under for this executor; ``None``: resolved each time."""
        if self._profile_hash is None or not (
            settings is NO_SETTINGS or settings.circuit_breaker in (UNSET, None)
        ):
            return None
        # Most tools share the one default settings instance and are not the finish
        # action: the profile's hash alone is the key then (an int hashes at once).
        if settings is NO_SETTINGS and action is not self.finish_action:
            return self._profile_hash
        key = (
            self._profile_hash,
            None if settings is NO_SETTINGS else settings,
            action is self.finish_action,
        )
        try:
            hash(key)
        except TypeError:  # a tool setting that cannot be hashed
            return None
        return key

    def _route(self, action: BaseAction, name: str, own: Route) -> Route:
        """The route of callable name ``name``: ``own`` with this executor's settings resolved."""
        settings = settings_of(action)
        timeout = self.timeout if settings.timeout is UNSET else settings.timeout
        retry = self.retry if settings.retry is UNSET else settings.retry
        factory = self.circuit_breaker if settings.circuit_breaker is UNSET else settings.circuit_breaker
        breaker = None
        if factory is not None:
            breaker = self._breakers.get(name)
            if breaker is None or breaker.factory is not factory:
                breaker = self._breakers[name] = BreakerSlot(factory, name)
        else:
            self._breakers.pop(name, None)
        # The mode is the route's: a tool shared by executors reads in each one's own.
        mode = validation_mode(action, own.key, self._validation)
        calm = timeout is None and retry is None and breaker is None and not own.context_params
        state = state_of(action)
        return _resolved(
            own,
            read=state.parser.reader(own.key, mode),
            label=name,
            keep_valid=action is self.finish_action,
            direct=calm and not self._hooks.hooks and self._may_skip_core(own, settings),
            timeout=timeout,
            retry=retry,
            breaker=breaker,
            formatter=self.error_formatter,
            max_output_chars=self.max_output_chars,
            blocking=settings.blocking,
            random=self._random,
            live=state if type(action).enable is BaseAction.enable else action,
        )

    def _rebuild_routes(
        self, given: Optional[list[tuple[BaseAction, Any]]] = None, plain: bool = False
    ) -> None:
        """Build the route table of the actions held and swap it in.

        Args:
            given: ``(action, its state)`` of each action held, in order, when just read.
            plain: no tool in ``given`` sets runtime settings of its own.
        """
        # Built aside and swapped in whole, so a call never sees a half-built table.
        # A setting changed through a tool refreshes this executor (see watch_tools).
        self._set_profile()
        if given is None:
            given = [(action, state_of(action)) for action in self.actions.values()]
            plain = False
        table = route_table(given, self._tool_routes, self._kept_routes(plain))
        self._tools = dict(zip(self.actions, given))  # the states read with the names, in the same order
        self._hook_methods = HookMethods.of(self._hooks.calls)
        self._use(table)

    def _from_config(self, item: dict[str, Any]) -> Any:
        """A tool given as a dict, as this executor reads it (the dict itself: refused)."""
        return item

    def _set_profile(self) -> None:
        """Note what this executor's routes depend on now (see :meth:`_profile`)."""
        profile = self._profile()
        # One tuple for equal profiles: the tools' kept routes then match by identity.
        self._current_profile = profile if profile is None else _interned(profile)
        self._profile_hash = None if self._current_profile is None else hash(self._current_profile)

    def _use(self, table: RouteTable) -> None:
        """Swap ``table`` in: calls from now on take its routes."""
        self._names, self._aliases, self._canonical, self._routes = table
        self._name_indexes = {}
        self._version += 1

    def _table(self) -> RouteTable:
        return RouteTable(self._names, self._aliases, self._canonical, self._routes)

    def refresh(self) -> None:
        """Re-read the tools' runtime settings (``__tool_settings__``) after changing them."""
        if not self._built:
            return
        with self._lock:
            self._rebuild_routes()

    timeout = _setting_property("timeout")
    retry = _setting_property("retry")
    circuit_breaker = _setting_property("circuit_breaker")
    error_formatter = _setting_property("error_formatter")
    max_output_chars = _setting_property("max_output_chars")

    def _context(
        self,
        route: Route,
        session_id: Optional[str],
        call_id: Optional[str],
        on_progress: Optional[Callable[[Any], Any]] = None,
        context: Any = None,
        call: Optional[tuple[Any, Any]] = None,
    ) -> ToolContext:
        """The context of one call of ``route``.

        Args:
            route: the call's route.
            session_id: the call's session (``None``: the default one).
            call_id: the model's id for the call.
            on_progress: where the tool's chunks go.
            context: an :class:`~lagent_like.context.AgentScope` from an agent run, or
                the caller's own context object.
            call: ``(name, command)`` as the caller gave them, for ``function_call``.
        """
        session = session_id if session_id is not None else DEFAULT_SESSION
        state = self._sessions.get(session)
        if state is None:
            state = self.session_state(session)
        if context is not None and not isinstance(context, AgentScope):
            context = AgentScope(context=context)
        return ToolContext(
            session, state, route.tool, route.key, call_id, self, on_progress, False, context, call
        )

    def breaker_state(self, name: str) -> Optional[dict[str, Any]]:
        """The circuit breaker of API ``name`` as a dict for monitoring, or ``None`` if it has none yet."""
        slot = self._breakers.get(self._canonical.get(name, name))
        breaker = slot.breaker if slot is not None else None
        return breaker.snapshot() if breaker is not None else None

    def _thread_pool(self) -> DaemonThreadPool:
        # Imported here: concurrent.futures (and logging with it) costs milliseconds at
        # import, and only timeouts and batches need threads.
        from ..runtime._pool import DaemonThreadPool

        if self._pool is None:
            with self._lock:
                if self._pool is None:
                    self._pool = DaemonThreadPool(self._max_workers)
        return self._pool

    def register_hook(self, hook: Any) -> HookHandle:
        """Run ``hook`` around every call from now on; ``handle.remove()`` stops it.

        A hook has ``before_action(name, args, context)`` (return anything but ``None``
        to answer without calling the tool) and/or ``after_action(name, record,
        context)`` (return a replacement record or result; a parameter named ``output``
        receives what the tool returned). Hooks run in registration order; one that
        raises fails the call closed (see :mod:`lagent_like.runtime.hooks`).

        Raises:
            TypeError: ``hook`` has neither method.
            ToolDefinitionError: a method cannot take the arguments it is called with.
        """
        return self._hooks.add(hook)

    def session_state(self, session_id: str = DEFAULT_SESSION) -> dict[str, Any]:
        """The state dict that calls of ``session_id`` see as ``ToolContext.state``."""
        with self._lock:
            return self._sessions.setdefault(session_id, {})

    def end_session(self, session_id: str) -> None:
        """End session ``session_id`` everywhere: forget its state, release every tool's share.

        Each tool's :meth:`~lagent_like.BaseAction.end_session` runs (an
        ``IPythonInterpreter`` kills the session's sandbox); a tool that fails there is
        logged and the others still end theirs. A later call with the same id starts
        afresh. Ending a session that never ran, or twice, is harmless.
        """
        with self._lock:
            self._sessions.pop(session_id, None)
            actions = list(self.actions.values())
        # Outside the lock: a tool may wait for a process to die, and calls go on meanwhile.
        for action in actions:
            end_tool_session(action, session_id)

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

    def _route_of_call(
        self, name: Any, command: Any, session_id: Optional[str] = None, call_id: Optional[str] = None
    ) -> Union[Route, ActionReturn]:
        """The route a call runs on, or the record of a call that runs on none.

        No route: the argument string is too long, or the name is unknown or disabled.
        """
        if command.__class__ is str and len(command) > self._argument_limit:
            return self._too_long(name, command)
        try:
            route = self._routes[name]
        except (KeyError, TypeError):
            return self._call_unrouted(name, command)
        flag = route.live.enable
        # One identity test on the common path; a callable ``enable`` is asked here.
        if flag is not True and not self._enabled_for(route, flag, session_id, call_id):
            return self._call_unrouted(name, command, route.action.name)
        return route

    def _enabled_for(
        self, route: Route, flag: Any, session_id: Optional[str], call_id: Optional[str]
    ) -> bool:
        """Whether ``route``'s tool, whose ``enable`` reads ``flag``, takes this call."""
        if isinstance(flag, EnableCheck):
            return flag.ask(route.tool, self._context(route, session_id, call_id))
        return bool(flag)

    def _call_unrouted(self, name: Any, command: Any, disabled: Optional[str] = None) -> ActionReturn:
        """The record of a call of no enabled route; ``disabled``: the tool that refused it."""
        # Never through ``action(...)``: an AsyncActionMixin action would return a coroutine.
        if isinstance(name, str):
            tool, _, api = name.partition(".")
            action = self.actions.get(tool)
            if action is not None and disabled is None and action.enable:
                # A known tool without that API (a routed API would not be here); valid OPEN.
                return unknown_api(action, command, api or "run")
            if name == self.no_action.name:
                return _run_builtin(self.no_action, command)
            if name == self.finish_action.name:
                return _run_builtin(self.finish_action, command)
        ret = _run_builtin(self.invalid_action, self._unknown_message(name, disabled))
        ret.args = {"inputs": command, "name": name}
        return ret

    @property
    def max_argument_chars(self) -> Optional[int]:
        """Argument strings longer than this are refused before parsing (``None``: no limit)."""
        return self._max_argument_chars

    @max_argument_chars.setter
    def max_argument_chars(self, value: Optional[int]) -> None:
        self._max_argument_chars = value
        # An int on the per-call path: one comparison, no None check.
        self._argument_limit = sys.maxsize if value is None else value

    def _too_long(self, name: Any, command: str) -> ActionReturn:
        route = self._routes.get(name) if isinstance(name, str) else None
        label = self._canonical.get(name, name) if route is not None else as_text(name)
        tool = route.action.name if route is not None else None
        return too_long_record(name, label, tool, command, self._argument_limit)

    def _unknown_message(self, name: Any, disabled: Optional[str] = None) -> str:
        canonical = self._canonical.get(name, name) if isinstance(name, str) else None
        tool = canonical.partition(".")[0] if canonical is not None else None
        known = canonical in self.actions or tool in self.actions
        head = f"Tool {preview(name)} is disabled." if known else f"Unknown tool {preview(name)}."
        if len(self._names) > MAX_LISTED:
            # A catalogue: a few close names from the index, the rest by their count.
            hint = suggestion(self._close_enabled(as_text(name), disabled))
            return f"{head}{hint} Available tools: {listing(self._names)}."
        shown = self.api_names()
        if disabled is not None:
            # Its enable check, asked with this call's context, said no: not available here.
            shown = [n for n in shown if self._names[n].action.name != disabled]
        available = names_the_model_saw(shown, self._aliases)
        hint = did_you_mean(as_text(name), available)
        return f"{head}{hint} Available tools: {listing(available)}."

    def _close_enabled(self, word: str, disabled: Optional[str], limit: int = 3) -> list[str]:
        """Up to ``limit`` enabled call names like ``word``, spelled as the model saw them."""
        native = is_native()
        with self._lock:  # one tool added or removed meanwhile would change the index under it
            index = self._name_indexes.get(native)
            if index is None:
                index = NameIndex(names_the_model_saw(list(self._names), self._aliases))
                self._name_indexes[native] = index
            return self._close_in(index, word, disabled, limit)

    def _close_in(self, index: NameIndex, word: str, disabled: Optional[str], limit: int) -> list[str]:
        """Up to ``limit`` enabled names of ``index`` like ``word``, ``disabled``'s left out."""
        found: list[str] = []
        for wanted in (limit, limit * 3):  # more only when some close ones are disabled
            found = []
            for match in index.close(word, wanted):
                action = self._names[self._canonical.get(match, match)].action
                if action.name != disabled and action.enable:  # asked of the few close ones only
                    found.append(match)
            if len(found) >= limit or len(found) == len(index.close(word, wanted)):
                break
        return found[:limit]

    def get_actions_info(self) -> list[dict[str, Any]]:
        """Descriptions of the enabled tools for a system prompt.

        A toolkit contributes one entry per API, named ``'Tool.api'``. Each entry is a
        new dict, as in Lagent; the parameters and other values inside it are shared
        and read-only (changing them raises ``TypeError``; edit a ``copy.deepcopy``),
        so changing an entry changes nothing in the executor.
        """
        info: list[dict[str, Any]] = []
        add = info.append
        own_enable = BaseAction.enable
        # A snapshot: a tool added or removed meanwhile changes the dict in place.
        for action, state in self._tool_pairs():
            if state.class_enable is own_enable:  # read without the property's calls
                if state.enable is not True and not enabled(state):
                    continue
            elif not action.enable:
                continue
            shared = state.shared
            if shared is None or state.unwatched:  # made once, remade when the description changed
                shared = shared_description(state)
            if "api_list" in shared:
                tool = action.name
                for api in shared["api_list"]:
                    entry = dict(api)
                    entry["name"] = f"{tool}.{api['name']}"
                    add(entry)
            else:
                add(dict(shared))
        return info

    def _tool_pairs(self) -> list[tuple[BaseAction, Any]]:
        """``(action, its state)`` of each action held, in order: a snapshot.

        One tool's change is made in place, under the lock; a snapshot in C is whole.
        """
        tools = self._tools
        if len(tools) != len(self.actions):  # ``actions`` changed directly: read it again
            with self._lock:
                tools = self._tools = {n: (a, state_of(a)) for n, a in self.actions.items()}
        return list(tools.values())

    def api_names(self, only_enable: bool = True) -> list[str]:
        """Callable names (``'Tool'`` and ``'Tool.api'``), as a model sees them."""
        if not only_enable:
            return list(self._names)
        shown = set(self.action_names())  # a callable ``enable`` is asked once per tool
        # Snapshots (C copies): one tool's change is made in place, maybe meanwhile.
        return [n for n, route in list(self._names.items()) if route.action.name in shown]

    def action_names(self, only_enable: bool = True) -> list[str]:
        """Names of the actions held (only the enabled ones by default)."""
        return [n for n, a in list(self.actions.items()) if a.enable or not only_enable]

    def api_of(self, name: str) -> Optional[tuple[BaseAction, str]]:
        """``(action, API key)`` of an enabled API called ``name`` (a ``Tool.api`` name or an alias).

        The one lookup of a callable name, as calls make it (a toolkit's own name is not
        an API); ``None`` when no enabled API has that name. A callable ``enable`` is
        asked as for a call outside any session.
        """
        route = self._routes.get(name)
        if route is None:
            return None
        flag = route.live.enable
        if flag is not True and not self._enabled_for(route, flag, None, None):
            return None
        return route.action, route.key

    def is_valid(self, name: str) -> bool:
        """Whether ``name`` (``'Tool'`` or ``'Tool.api'``) is held and enabled."""
        action = self.actions.get(name)
        if action is None:
            route = self._routes.get(name)
            action = route.action if route else None
        return action is not None and action.enable

    def add_action(self, action: ToolLike) -> None:
        """Add ``action`` (an action or a function), replacing any action of the same name.

        Raises:
            ToolDefinitionError: ``action`` is neither an action nor a function, or one of
                its call names is another tool's (the executor is then left unchanged).
        """
        problems: list[str] = []
        tool = as_action(action, "add_action", problems)
        if tool is None:
            raise ToolDefinitionError("ActionExecutor", problems)
        with self._lock:
            # A new name resolves only its own routes, in place; a replaced tool rebuilds all.
            if tool.name not in self.actions and add_tool(self._table(), tool, self._tool_routes):
                self.actions[tool.name] = tool
                self._tools[tool.name] = (tool, state_of(tool))
                self._changed([(n, self._aliases[n]) for n, _ in call_names(tool)], ())
                return
            previous = self.actions.get(tool.name)
            self.actions[tool.name] = tool
            try:
                self._rebuild_routes()
            except ToolDefinitionError:
                if previous is None:
                    del self.actions[tool.name]
                else:
                    self.actions[tool.name] = previous
                raise

    def del_action(self, name: str) -> None:
        """Remove the action called ``name``.

        Raises:
            ToolNotFoundError: no action has that name (a ``KeyError``).
        """
        with self._lock:
            action = self._action_named(name)
            removed = remove_tool(self._table(), action)
            del self.actions[name]
            self._tools.pop(name, None)
            self._changed((), removed)

    def _changed(self, added: Sequence[tuple[str, str]], removed: Sequence[tuple[str, str]]) -> None:
        """Note one tool's call names ``(name, alias)`` added or removed in place: indexes follow."""
        for native, index in self._name_indexes.items():
            for name, alias in removed:
                index.discard(alias if native else name)
            for name, alias in added:
                index.add(alias if native else name)
        version, rename = self._renamer
        self._version += 1
        if version == self._version - 1 and all(name == alias for name, alias in (*added, *removed)):
            self._renamer = (self._version, rename)  # only names that are their own aliases: the same renames

    def __contains__(self, name: object) -> bool:
        return name in self.actions or name in self._routes
