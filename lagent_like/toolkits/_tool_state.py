"""What ``BaseAction`` keeps on an instance, and the functions that read it.

A tool instance's state (its own copy of the description, the spec of each API, its
parser and the routes of direct calls) is built here from the class's specs, a
description given to the constructor, or specs given as ``apis``, and kept under one
attribute, ``__tool_state__``, so that a class mixed with ``BaseAction`` keeps its own
attribute names. Executors, parsers and the CLI read it through the functions below.
"""

from __future__ import annotations

import dataclasses
import inspect
import weakref
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any, Callable, Optional, Union

from .._private._names_index import SCANNED_WHOLE, NameIndex
from .._private._watched import watched_copy
from .._private.frozen import frozen
from .._private.log import logger
from .._private.text import MAX_LISTED, as_text, did_you_mean, listing, preview
from ..exceptions import ToolDefinitionError
from ..parsers import BaseParser
from ..parsers._base import ParserInput
from ..runtime._invoke import Route
from ..runtime._records import json_args_of
from ..runtime._streaming import STREAM_PARAM, stream_kind, streamed
from ..runtime.settings import UNSET, ToolSettings
from ..schema import ActionReturn, ActionStatusCode
from ..spec._api_spec import NO_DEFAULT, ApiSpec, Param
from ..types._families import COERCE

if TYPE_CHECKING:
    from ._base_action import BaseAction, ToolMeta

__all__ = [
    "Enable",
    "EnableCheck",
    "api_entry",
    "api_specs",
    "checked_enable",
    "class_settings_plain",
    "description_edits",
    "export_rows",
    "enabled",
    "routes_of",
    "settings_of",
    "settings_changed",
    "setup_state",
    "state_of",
    "tool_class_attribute",
    "unknown_api",
    "parser_input",
    "validation_mode",
    "watch_tools",
]

#: Where an instance keeps all of ``BaseAction``'s own state: one name no tool uses.
STATE_ATTR = "__tool_state__"


#: What a tool's ``enable`` may be given, a bool or a callable asked each time (an ``EnableCheck``).
Enable = Union[bool, Callable[..., Any]]


class EnableCheck:
    """A callable ``enable``, read when it was given; asked each time the tool is described or called.

    As ``is_enabled`` in the OpenAI Agents SDK: the tool is offered and runs only
    while it answers true. It is asked with the call's ``ToolContext`` (``None`` when
    the tools are described), or with no argument if it takes none.

    Attributes:
        func: the callable given.
        takes_context: ``func`` takes the context as its one argument.
    """

    __slots__ = ("func", "takes_context")

    def __init__(self, func: Callable[..., Any], takes_context: bool) -> None:
        self.func = func
        self.takes_context = takes_context

    def ask(self, tool: str, context: Any = None) -> bool:
        """Whether tool ``tool`` is enabled now; ``False`` (logged) if the callable fails.

        Failing closed: a check that cannot answer must not expose or run the tool.
        """
        try:
            answer = self.func(context) if self.takes_context else self.func()
            if inspect.isawaitable(answer):
                close = getattr(answer, "close", None)
                if close is not None:
                    close()  # never awaited: no "coroutine was never awaited" warning
                raise TypeError("it returned an awaitable; enable must answer at once")
            return bool(answer)
        except Exception:  # noqa: BLE001 - a failing check hides the tool, it never raises
            logger().warning("the enable check of %s failed; the tool is disabled", tool, exc_info=True)
            return False

    def __repr__(self) -> str:
        return preview(self.func)


def checked_enable(value: Any, owner: str) -> Union[bool, EnableCheck]:
    """``value`` as a tool's ``enable``: ``True``, ``False`` or an :class:`EnableCheck`.

    Raises:
        ToolDefinitionError: ``value`` is neither a bool nor a callable of the context or
            of no argument (an ``async`` function cannot answer while tools are described).
    """
    if value is True or value is False or isinstance(value, EnableCheck):
        return value
    wanted = "enable must be True, False or a callable taking the call's ToolContext (or no argument)"
    if not callable(value):
        raise ToolDefinitionError(owner, [f"{wanted}, got {type(value).__name__} {preview(value)}"])
    if inspect.iscoroutinefunction(value) or inspect.isasyncgenfunction(value):
        raise ToolDefinitionError(
            owner, [f"{wanted}; {preview(value)} is async, but tools are described synchronously"]
        )
    from .._private.signatures import refusal, signature_of  # a callable enable only

    signature = signature_of(value)
    if signature is None:  # nothing to read (some builtins): asked with no argument
        return EnableCheck(value, False)
    problem = refusal(signature, None)
    if problem is None:
        return EnableCheck(value, True)
    if refusal(signature) is None:
        return EnableCheck(value, False)
    called = f"{preview(value)} cannot be called as enable(context)"
    raise ToolDefinitionError(owner, [f"{wanted}; {called}: {problem}"])


def enabled(state: _ToolState) -> bool:
    """Whether the tool is enabled now, asked without a call's context."""
    flag = state.enable
    return flag.ask(state.name) if isinstance(flag, EnableCheck) else flag


class _ToolState:
    """Everything ``BaseAction`` keeps on an instance, under the one attribute ``__tool_state__``.

    A tool's own attributes (``self.timeout``, ``self._description``, ...) are then
    the tool's alone.
    """

    __slots__ = (
        "api_index", "apis", "class_enable", "class_json_schema", "description", "enable",
        "exported", "given", "is_toolkit", "name", "parser", "plain_at", "resolved", "routes", "shared",
        "simple", "specs", "unwatched",
    )  # fmt: skip

    def __init__(
        self,
        name: str,
        description: dict[str, Any],
        enable: Union[bool, EnableCheck],
        given: tuple[Any, ...],
        specs: dict[str, ApiSpec],
    ) -> None:
        self.name = name
        self.description = description
        self.enable = enable
        #: ``(description, parser class, apis)`` as given: how a copy is rebuilt.
        self.given = given
        self.is_toolkit = "api_list" in description
        #: API key -> spec of every API the description lists.
        self.specs = specs
        self.parser: BaseParser
        #: API key -> the route of a direct call (no executor), for APIs that can run.
        self.routes: dict[str, Route] = {}
        #: API key -> callable, for APIs that can run.
        self.apis: dict[str, Callable[..., Any]] = {}
        #: The count of class settings changes (:func:`class_settings_edits`) at which the
        #: class was last seen to set no ``__tool_settings__`` (``-1``: not seen so).
        self.plain_at = -1
        #: A simple tool's ``(profile key, profile, name, route, 'Tool.run')`` as last resolved
        #: for an executor profile, flat: what a catalogue's build reads (see ``executors._one_pass``).
        self.simple: Optional[tuple[int, Any, str, Route, str]] = None
        #: Executor profile -> ``(routes, parser, resolved routes)`` (see ``ExecutorBase._tool_routes``).
        self.resolved: dict[Any, tuple[Any, Any, Any, Any]] = {}
        #: A read-only copy of ``description``, handed out until it changes (see :func:`shared_description`).
        self.shared: Optional[dict[str, Any]] = None
        #: A plain dict or list was stored into ``description``: its changes go unreported,
        #: so ``shared`` is handed out only while equal to it.
        self.unwatched = False
        #: The class's ``enable`` when the state was made: ``BaseAction.enable`` unless the
        #: class has its own (then the executors ask the property, not ``enable`` above).
        self.class_enable: Any = None
        #: The class's ``json_schema`` then (``BaseAction.json_schema`` unless it has its own).
        self.class_json_schema: Any = None
        #: What every export reads of each API, made once (see :func:`export_rows`).
        self.exported: Optional[list[ExportRow]] = None
        #: ``(routes, index of their keys)``, made on the first unknown API of a large toolkit.
        self.api_index: Optional[tuple[dict[str, Route], NameIndex]] = None


#: Changes to every tool's description so far, for caches of exports (a cell: written often).
_EDITS = [0]


class _Edits:
    """What a tool's watched description reports its changes to: that tool's state.

    Made before the state (the description is copied first, to check it), which it
    is then given.

    Attributes:
        state: the tool's state (``None`` until it is made).
    """

    __slots__ = ("state",)

    def __init__(self) -> None:
        self.state: Optional[_ToolState] = None

    def __call__(self, unwatched: bool) -> None:
        _EDITS[0] += 1
        state = self.state
        if state is not None:
            state.shared = state.exported = None
            state.unwatched = state.unwatched or unwatched


#: ``(API key, call name, description text, shared schema)`` of one API; the schema is
#: ``None`` where the tool must be asked (its class writes its own ``json_schema``).
ExportRow = tuple[str, str, str, Optional[dict[str, Any]]]


def export_rows(state: _ToolState, own_schema: bool) -> list[ExportRow]:
    """What an export reads of each API of a tool (``state``'s) that can run, in route order.

    Made once per tool and kept until its description changes: a catalogue is
    exported by every new executor, and reading each API's text and schema anew
    touched half a dozen objects per API. ``own_schema``: the tool's class writes its
    own ``json_schema`` (asked at each export, never kept).
    """
    rows = state.exported
    if rows is not None and not state.unwatched:
        return rows
    description = state.description
    name = state.name
    if state.is_toolkit:
        texts = {api["name"]: api.get("description", "") for api in description["api_list"]}
        rows = [(key, f"{name}.{key}", texts.get(key, ""), None) for key in state.routes]
    else:
        rows = [(key, name, description.get("description", ""), None) for key in state.routes]
    if not own_schema:
        specs = state.specs
        rows = [(key, call, text, _shared_schema(specs.get(key))) for key, call, text, _ in rows]
    state.exported = rows
    return rows


def _shared_schema(spec: Optional[ApiSpec]) -> Optional[dict[str, Any]]:
    return spec.shared_schema if spec is not None else None


def description_edits() -> int:
    """How many times any tool's description was changed in place, so far (caches key on it)."""
    return _EDITS[0]


def state_of(action: BaseAction) -> _ToolState:
    """The ``BaseAction`` state of ``action``.

    Raises:
        AttributeError: ``BaseAction.__init__`` has not run on ``action`` yet.
    """
    try:
        state: _ToolState = action.__dict__[STATE_ATTR]
    except KeyError:
        raise AttributeError(
            f"{type(action).__name__} is not set up yet: call BaseAction.__init__ (super().__init__()) first"
        ) from None
    return state


def _api_entries(description: dict[str, Any]) -> list[tuple[str, dict[str, Any]]]:
    """``(API key, entry)`` of each API in a description (``'run'`` for a simple tool)."""
    if "api_list" in description:
        return [(api["name"], api) for api in description["api_list"]]
    return [("run", description)]


def _view(entry: dict[str, Any], base: Optional[ApiSpec]) -> ApiSpec:
    """The spec an API's description entry stands for.

    The class's spec when the entry describes the same parameters (the usual case);
    otherwise (a description given to the constructor) a spec read from the entry,
    keeping what the entry cannot say (annotations, defaults, the function) from the
    class's spec of that API.
    """
    params = entry.get("parameters", [])
    required = entry.get("required", [])
    if base is not None:
        described = base.description
        if params == described["parameters"] and required == described["required"]:
            return base
    known = {p.name: p for p in base.params} if base is not None else {}
    view = []
    for item in params:
        name = item["name"]
        old = known.get(name)
        enum = item.get("enum")
        view.append(
            Param(
                name,
                str(item.get("type", "STRING")),
                str(item.get("description", "")),
                name in required,
                old.default if old is not None else NO_DEFAULT,
                old.annotation if old is not None else NO_DEFAULT,
                old.declared if old is not None else NO_DEFAULT,
                tuple(enum) if isinstance(enum, list) else None,
                old.check if old is not None else None,
                old.exact if old is not None else None,
            )
        )
    if base is None:
        return ApiSpec(str(entry.get("name", "")), str(entry.get("description", "")), tuple(view))
    return dataclasses.replace(base, params=tuple(view))


def _source(
    cls: ToolMeta, description: Optional[dict[str, Any]], apis: Union[ApiSpec, Sequence[ApiSpec], None]
) -> tuple[dict[str, Any], dict[str, tuple[Optional[ApiSpec], Optional[str]]]]:
    """The description to copy, and API key -> (its spec, the attribute of its method)."""
    if apis is None:
        found = cls.__tool_apis__
        source = description if description is not None else cls.__tool_description__
        if "api_list" in source:
            return source, {spec.name: (spec, attr) for attr, spec in found.items() if attr != "run"}
        return source, ({"run": (found["run"], "run")} if "run" in found else {})
    if isinstance(apis, ApiSpec):
        return (description if description is not None else apis.description), {"run": (apis, None)}
    specs = list(apis)
    if description is None or not isinstance(description.get("name"), str):
        raise ToolDefinitionError(
            cls.__qualname__,
            ["a toolkit made from specs needs description={'name': ..., 'description': ...}"],
        )
    source = {**description, "api_list": [spec.description for spec in specs]}
    return source, {spec.name: (spec, None) for spec in specs}


def _required_problems(
    name: str, copied: dict[str, Any], entries: list[tuple[str, dict[str, Any]]]
) -> list[str]:
    """One problem per API whose ``required`` names something that is not a parameter."""
    problems = []
    for key, entry in entries:
        order = [p.get("name") for p in entry.get("parameters", [])]
        stray = [r for r in entry.get("required", []) if r not in order]
        if stray:
            label = f"{name}.{key}" if "api_list" in copied else name
            problems.append(f"API {label!r} requires {stray}, which are not among its parameters {order}")
    return problems


def _callables(
    action: BaseAction,
    found: dict[str, tuple[Optional[ApiSpec], Optional[str]]],
    specs: dict[str, ApiSpec],
) -> dict[str, Callable[..., Any]]:
    """API key -> what a call runs (the bound method, or the spec's function), for APIs that can run."""
    apis = {}
    for key, (spec, attr) in found.items():
        if key not in specs or spec is None:
            continue
        func = getattr(action, attr) if attr is not None else spec.func
        if func is not None:
            apis[key] = func
    return apis


def _add_routes(action: BaseAction, state: _ToolState) -> None:
    """The parser's reader and the route of a direct call, for each API that can run."""
    parser = state.parser
    plain = type(parser).parse_outputs is BaseParser.parse_outputs
    for key, func in state.apis.items():
        spec = state.specs[key]
        label = f"{state.name}.{key}" if state.is_toolkit else state.name
        is_async = spec.is_async if spec.func is not None else inspect.iscoroutinefunction(func)
        context_params = spec.context_params
        kind = stream_kind(func)
        if kind is not None:
            # Drained within the call (and its timeout), with the call's context.
            func = streamed(func, kind)
            is_async = kind == "async"
            context_params = (*context_params, STREAM_PARAM)
        state.routes[key] = Route(
            action,
            key,
            label,
            state.name,
            func,
            parser.reader(key),
            None if plain else parser.parse_outputs,
            is_async,
            context_params,
            json_args=json_args_of(spec),
        )


def setup_state(
    action: BaseAction,
    description: Optional[dict[str, Any]],
    parser: type[BaseParser],
    enable: Any,
    apis: Union[ApiSpec, Sequence[ApiSpec], None],
) -> None:
    """Build ``action``'s state: its description, specs, parser and direct routes."""
    cls: ToolMeta = type(action)
    source, found = _source(cls, description, apis)
    edits = _Edits()
    copied: dict[str, Any] = watched_copy(source, edits)
    name = copied.get("name") if isinstance(copied, dict) else None
    if not isinstance(name, str) or not name:
        raise ToolDefinitionError(
            cls.__qualname__,
            [f"a description needs a non-empty 'name', got {name if description is None else description!r}"],
        )
    entries = _api_entries(copied)
    problems = _required_problems(name, copied, entries)
    if problems:
        raise ToolDefinitionError(f"{cls.__qualname__} with {parser.__name__}", problems)
    specs = {key: _view(entry, found.get(key, (None, None))[0]) for key, entry in entries}
    flag = checked_enable(enable, cls.__qualname__)
    state = _ToolState(name, copied, flag, (description, parser, apis), specs)
    edits.state = state
    state.class_enable = getattr(cls, "enable", None)
    state.class_json_schema = getattr(cls, "json_schema", None)
    class_settings_plain(state, cls)
    action.__dict__[STATE_ATTR] = state
    state.apis = _callables(action, found, specs)
    state.parser = parser(action)
    language = getattr(type(state.parser), "parameter_description", None)  # BaseParser.in_language
    hint = language() if callable(language) else getattr(state.parser, "PARAMETER_DESCRIPTION", "")
    if hint:
        for _, entry in entries:
            entry["parameter_description"] = hint
    _add_routes(action, state)


def api_specs(action: BaseAction) -> Mapping[str, ApiSpec]:
    """API key (``'run'`` for a simple tool) -> the spec of each API ``action`` describes."""
    return state_of(action).specs


def routes_of(action: BaseAction) -> Mapping[str, Route]:
    """API key -> the route of a direct call, for each API of ``action`` that can run."""
    return state_of(action).routes


def api_entry(action: BaseAction, key: str) -> Optional[dict[str, Any]]:
    """The description dict of API ``key`` in ``action``'s own description."""
    for name, entry in _api_entries(state_of(action).description):
        if name == key:
            return entry
    return None


def shared_description(state: _ToolState) -> dict[str, Any]:
    """A read-only copy of a tool's description (``state``'s), equal to it as it is now.

    Made once and handed out until the description is changed (it reports its own
    changes); one holding a plain container stored into it is compared instead.
    """
    shared = state.shared
    if shared is None or (state.unwatched and shared != state.description):
        shared = state.shared = frozen(state.description)
    return shared


def _api_index(state: _ToolState) -> Union[NameIndex, tuple[str, ...]]:
    """What close API names of ``state``'s toolkit are looked up in: indexed when there are many."""
    if len(state.routes) <= SCANNED_WHOLE:
        return tuple(state.routes)
    cached = state.api_index
    if cached is None or cached[0] is not state.routes or len(cached[1]) != len(state.routes):
        cached = state.api_index = (state.routes, NameIndex(state.routes))
    return cached[1]


def unknown_api(action: BaseAction, inputs: Any, name: Any) -> ActionReturn:
    """The ``API_ERROR`` record of a call of an API ``action`` does not have."""
    state = state_of(action)
    if state.is_toolkit:
        hint = did_you_mean(as_text(name), _api_index(state))
        labels = (
            state.routes
            if len(state.routes) > MAX_LISTED
            else [f"{state.name}.{api}" for api in state.routes]
        )
        message = f"{state.name} has no API {preview(name)}.{hint} Call one of: {listing(labels)}"
    elif state.routes:
        message = f"{state.name} is a simple tool; call it as {state.name!r} (API 'run'), not {preview(name)}"
    else:
        message = f"{state.name} has no callable API"
    return ActionReturn(
        args={"inputs": inputs, "name": name},
        type=state.name,
        errmsg=message,
        state=ActionStatusCode.API_ERROR,
    )


def parser_input(action: BaseAction) -> ParserInput:
    """What ``action``'s parser reads: its specs, the name a model uses for each API, their modes."""
    state = state_of(action)
    name = state.name
    label: Callable[[str], str] = (lambda key: f"{name}.{key}") if state.is_toolkit else (lambda key: name)
    modes = {key: validation_mode(action, key) for key in state.specs}
    return ParserInput(name, dict(state.specs), label, modes)


def validation_mode(action: BaseAction, key: str, default: str = COERCE) -> str:
    """How API ``key``'s arguments are checked: the most specific explicit setting.

    ``@tool_api(validation=...)``, else the tool's (``Tool(validation=...)`` or its
    ``ToolSettings``), else ``default`` (an executor's ``validation``).
    """
    spec = state_of(action).specs.get(key)
    if spec is not None and spec.options.validation is not None:
        return spec.options.validation
    own = settings_of(action).validation
    return default if own is UNSET else str(own)


#: Live executors past which the collected ones' entries are first dropped from :data:`_EXECUTORS`.
PRUNE_EXECUTORS = 64

#: The settings of a tool that sets none (frozen, so one instance serves every tool).
NO_SETTINGS = ToolSettings()


#: Assignments and deletions of ``__tool_settings__`` on tool classes so far (a cell).
_CLASS_SETTINGS_EDITS = [0]


def tool_class_attribute(cls: type, name: str, *value: Any) -> None:
    """Set (given ``value``) or delete attribute ``name`` of tool class ``cls`` (``ToolMeta``'s).

    A change of ``__tool_settings__`` is counted: a catalogue's build then knows
    whether a class it saw set no settings may set some now, without looking each
    class up (with thousands of tool classes, each lookup misses Python's type cache).
    """
    if name == "__tool_settings__":
        _CLASS_SETTINGS_EDITS[0] += 1
    if value:
        type.__setattr__(cls, name, *value)
    else:
        type.__delattr__(cls, name)


def class_settings_edits() -> int:
    """How many times a tool class's ``__tool_settings__`` was set or deleted, so far."""
    return _CLASS_SETTINGS_EDITS[0]


def class_settings_plain(state: _ToolState, cls: type) -> bool:
    """Whether tool class ``cls`` (of ``state``'s tool) sets no ``__tool_settings__``; noted on ``state``."""
    edits = _CLASS_SETTINGS_EDITS[0]
    if state.plain_at == edits:
        return True
    plain = getattr(cls, "__tool_settings__", NO_SETTINGS) is NO_SETTINGS
    state.plain_at = edits if plain else -1
    return plain


def settings_of(action: BaseAction) -> ToolSettings:
    """The runtime settings of ``action`` (``ToolSettings()`` when it sets none)."""
    settings = getattr(action, "__tool_settings__", None)
    return settings if isinstance(settings, ToolSettings) else NO_SETTINGS


#: ``id(executor) -> weak reference`` of every executor made (its own reference, made
#: once): a setting changed through a tool refreshes those holding the tool. One entry
#: per executor, not one per tool in each: a catalogue of thousands of tools is held
#: by each new executor, and a setting changes rarely.
_EXECUTORS: dict[int, weakref.ReferenceType[Any]] = {}
#: Entries at which the collected executors' are dropped (doubles past the live ones).
_PRUNE_AT = [PRUNE_EXECUTORS]


def watch_tools(executor: Any, ref: weakref.ReferenceType[Any]) -> None:
    """Note that ``executor`` resolves its tools' settings into its routes.

    So that a setting changed through a tool (``function_tool.timeout = 5``) reaches
    every executor holding it (:func:`settings_changed`); held weakly, through ``ref``
    (``weakref.ref(executor)``).
    """
    if len(_EXECUTORS) >= _PRUNE_AT[0]:
        for key, held in list(_EXECUTORS.items()):
            if held() is None:
                _EXECUTORS.pop(key, None)  # executors gone: only the live ones are kept
        _PRUNE_AT[0] = max(PRUNE_EXECUTORS, 2 * len(_EXECUTORS))  # amortized: rare scans
    _EXECUTORS[id(executor)] = ref


def settings_changed(action: BaseAction) -> None:
    """Have every executor holding ``action`` re-read its settings (its ``refresh()``)."""
    state = action.__dict__.get(STATE_ATTR)
    if state is None:
        return
    for ref in list(_EXECUTORS.values()):  # a C copy: executors made meanwhile are not scanned
        executor = ref()
        # An executor holds a tool under its name (an id of a collected executor: stale).
        if executor is not None and executor.actions.get(state.name) is action:
            executor.refresh()
