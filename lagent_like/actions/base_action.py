"""``BaseAction`` and its metaclass: a class is a tool, its methods are its APIs.

``ToolMeta`` reads a class once, when it is defined: it collects the ``@tool_api``
methods (inherited ones too), checks the class is either a simple tool (``run``) or a
toolkit (named APIs), builds ``__tool_description__`` and registers the class. An
instance works on its own deep copy of that description and calls its APIs through
its parser; ``__call__`` never raises, every outcome is an ``ActionReturn``.
"""

from __future__ import annotations

import dataclasses
import inspect
import itertools
import types
from abc import ABCMeta
from collections.abc import Iterable, Mapping, Sequence
from typing import Any, Callable, Optional, Union

from .._private.text import as_text, did_you_mean, preview
from ..exceptions import ToolDefinitionError
from ..registry import TOOL_REGISTRY
from ..runtime.invoke import Route, invoke
from ..runtime.settings import UNSET, ToolSettings
from ..schema import ActionReturn, ActionStatusCode
from ..spec.describe import NO_DEFAULT, ApiSpec, Param, copy_description
from ..spec.docstrings import DocstringSyntaxError, parse_docstring
from ..types.families import COERCE, check_mode
from ..types.validation import Validator
from .parser import BaseParser, JsonParser
from .tool_api import SPEC_ATTR, api_spec_of, tool_api

__all__ = ["TOOL_REGISTRY", "BaseAction", "ToolMeta", "tool_api"]  # TOOL_REGISTRY: Lagent 0.2's path

#: Where an instance keeps all of ``BaseAction``'s own state: one name no tool uses.
_STATE = "__tool_state__"


def _collect_specs(cls: type) -> dict[str, ApiSpec]:
    """Attribute name -> spec of every API, parents first, overrides replacing them.

    An override of an API method without ``@tool_api`` stays an API and is described
    from its own signature with the parent's options.
    """
    specs: dict[str, ApiSpec] = {}
    for klass in reversed(cls.__mro__[:-1]):
        namespace = vars(klass)
        # Most bases (BaseAction itself first) hold no API and shadow none: that is
        # settled in C, and only the other namespaces are walked.
        marked = any(map(getattr, namespace.values(), itertools.repeat(SPEC_ATTR), itertools.repeat(None)))
        if not marked and not (specs and specs.keys() & namespace.keys()):
            continue
        for attr, value in namespace.items():
            spec = getattr(value, SPEC_ATTR, None)  # api_spec_of, inlined
            if isinstance(spec, ApiSpec):
                specs[attr] = spec
            elif attr in specs:
                if inspect.isfunction(value):
                    options = specs[attr].options
                    specs[attr] = api_spec_of(tool_api(**vars(options))(value))  # type: ignore[assignment]
                else:
                    del specs[attr]
    return specs


def _class_doc(cls: type, problems: list[str]) -> str:
    # The framework's own docstrings describe the framework, not the tool.
    for klass in cls.__mro__:
        if isinstance(klass, ToolMeta) and klass.__module__ != __name__ and vars(klass).get("__doc__"):
            try:
                return parse_docstring(vars(klass)["__doc__"]).description
            except DocstringSyntaxError as exc:
                problems.append(f"class docstring: {exc}")
    return ""


def _tool_description(cls: type, specs: dict[str, ApiSpec], run_attr: Any) -> dict[str, Any]:
    tool_name = vars(cls).get("__tool_name__") or cls.__name__
    run = specs.get("run")
    apis = [spec for attr, spec in specs.items() if attr != "run"]
    problems = []
    if apis and (run is not None or isinstance(run_attr, types.FunctionType)):
        problems.append(
            f"defines run and the tool APIs {[s.name for s in apis]}; a class is either a simple "
            "tool (one run method) or a toolkit (@tool_api methods), not both"
        )
    names = [s.name for s in apis]
    if len(set(names)) != len(names):
        clashes = sorted({n for n in names if names.count(n) > 1})
        problems.append(f"several methods use the API names {clashes}")
    if not isinstance(tool_name, str) or not tool_name:
        problems.append(f"__tool_name__ must be a non-empty string, got {tool_name!r}")
    class_doc = _class_doc(cls, problems)
    if problems:
        raise ToolDefinitionError(cls.__qualname__, problems)
    if apis:
        return {
            "name": tool_name,
            "description": class_doc,
            # Shared with the functions' api_description; nothing mutates either, and
            # every instance works on its own copy.
            "api_list": [s.description for s in apis],
        }
    description: dict[str, Any] = {
        "name": tool_name,
        "description": class_doc,
        "parameters": [],
        "required": [],
    }
    if run is not None:
        api = run.description
        description["description"] = api["description"] or class_doc
        description["parameters"] = api["parameters"]
        description["required"] = api["required"]
        if "return_data" in api:
            description["return_data"] = api["return_data"]
    return description


class ToolMeta(ABCMeta):
    """Metaclass that turns a ``BaseAction`` subclass into a described, registered tool.

    Class keyword ``register=False`` keeps a class (an abstract base) out of the registry.
    """

    __tool_apis__: dict[str, ApiSpec]
    __tool_description__: dict[str, Any]

    def __new__(
        mcs,
        name: str,
        bases: tuple[type, ...],
        namespace: dict[str, Any],
        register: bool = True,
        **kwargs: Any,
    ) -> ToolMeta:
        cls = super().__new__(mcs, name, bases, namespace, **kwargs)
        specs = _collect_specs(cls)
        run = getattr(cls, "run", None)
        if len(specs) == 0 and inspect.isfunction(run):
            specs["run"] = api_spec_of(tool_api(run))  # type: ignore[assignment]
        cls.__tool_apis__ = specs
        cls.__tool_description__ = _tool_description(cls, specs, run)
        if register:
            TOOL_REGISTRY.register(cls, cls.__tool_description__["name"])
        return cls


class _ToolState:
    """Everything ``BaseAction`` keeps on an instance, under the one attribute ``__tool_state__``.

    A tool's own attributes (``self.timeout``, ``self._description``, ...) are then
    the tool's alone.
    """

    __slots__ = (
        "apis", "description", "enable", "given", "is_toolkit", "name", "parser", "routes", "specs",
        "validation",
    )  # fmt: skip

    def __init__(
        self,
        name: str,
        description: dict[str, Any],
        enable: bool,
        given: tuple[Any, ...],
        specs: dict[str, ApiSpec],
        validation: str = COERCE,
    ) -> None:
        self.name = name
        #: The validation mode of the APIs and tool that set none (an executor's).
        self.validation = validation
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


def state_of(action: BaseAction) -> _ToolState:
    """The ``BaseAction`` state of ``action``.

    Raises:
        AttributeError: ``BaseAction.__init__`` has not run on ``action`` yet.
    """
    try:
        state: _ToolState = action.__dict__[_STATE]
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


def _setup(
    action: BaseAction,
    description: Optional[dict[str, Any]],
    parser: type[BaseParser],
    enable: bool,
    apis: Union[ApiSpec, Sequence[ApiSpec], None],
    validation: str = COERCE,
) -> None:
    """Build ``action``'s state: its description, specs, parser and direct routes."""
    cls: ToolMeta = type(action)
    source, found = _source(cls, description, apis)
    copied: dict[str, Any] = copy_description(source)
    name = copied.get("name") if isinstance(copied, dict) else None
    if not isinstance(name, str) or not name:
        raise ToolDefinitionError(
            cls.__qualname__, [f"a description needs a non-empty 'name', got {description!r}"]
        )
    entries = _api_entries(copied)
    problems = []
    for key, entry in entries:
        order = [p.get("name") for p in entry.get("parameters", [])]
        stray = [r for r in entry.get("required", []) if r not in order]
        if stray:
            label = f"{name}.{key}" if "api_list" in copied else name
            problems.append(f"API {label!r} requires {stray}, which are not among its parameters {order}")
    if problems:
        raise ToolDefinitionError(f"{cls.__qualname__} with {parser.__name__}", problems)
    specs = {key: _view(entry, found.get(key, (None, None))[0]) for key, entry in entries}
    state = _ToolState(name, copied, bool(enable), (description, parser, apis), specs, validation)
    action.__dict__[_STATE] = state
    for key, (spec, attr) in found.items():
        if key in specs and spec is not None:
            func = getattr(action, attr) if attr is not None else spec.func
            if func is not None:
                state.apis[key] = func
    state.parser = parser(action)
    language = getattr(type(state.parser), "parameter_description", None)  # BaseParser.in_language
    hint = language() if callable(language) else getattr(state.parser, "PARAMETER_DESCRIPTION", "")
    if hint:
        for _, entry in entries:
            entry["parameter_description"] = hint
    plain = type(state.parser).parse_outputs is BaseParser.parse_outputs
    for key, func in state.apis.items():
        spec = specs[key]
        label = f"{name}.{key}" if state.is_toolkit else name
        state.routes[key] = Route(
            action,
            key,
            label,
            name,
            func,
            state.parser.reader(key),
            None if plain else state.parser.parse_outputs,
            spec.is_async if spec.func is not None else inspect.iscoroutinefunction(func),
            spec.context_params,
        )


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


def unknown_api(action: BaseAction, inputs: Any, name: Any) -> ActionReturn:
    """The ``API_ERROR`` record of a call of an API ``action`` does not have."""
    state = state_of(action)
    if state.is_toolkit:
        labels = [f"{state.name}.{api}" for api in state.routes]
        hint = did_you_mean(as_text(name), state.routes)
        message = f"{state.name} has no API {preview(name)}.{hint} Call one of: {', '.join(labels) or 'none'}"
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


def validation_mode(action: BaseAction, key: str, default: Optional[str] = None) -> str:
    """How API ``key``'s arguments are checked: the most specific explicit setting.

    ``@tool_api(validation=...)``, else the tool's (``Tool(validation=...)`` or its
    ``ToolSettings``), else ``default`` (an executor's) if given, else the one of
    :meth:`BaseAction.use_validation`, else ``"coerce"``.
    """
    state = state_of(action)
    spec = state.specs.get(key)
    if spec is not None and spec.options.validation is not None:
        return spec.options.validation
    own = settings_of(action).validation
    if own is not UNSET:
        return str(own)
    return state.validation if default is None else default


def settings_of(action: BaseAction) -> ToolSettings:
    """The runtime settings of ``action`` (``ToolSettings()`` when it sets none)."""
    settings = getattr(action, "__tool_settings__", None)
    return settings if isinstance(settings, ToolSettings) else ToolSettings()


class BaseAction(metaclass=ToolMeta):
    """Base class of every tool.

    Subclass it with a ``run`` method (a simple tool) or with ``@tool_api`` methods (a
    toolkit). The class docstring describes a toolkit; a simple tool is described by
    its ``run`` docstring.

    Runtime settings override the executor's for this tool: give them to the
    constructor (``Tool(timeout=5)``) or set ``__tool_settings__ =
    ToolSettings(...)`` on the class (see :class:`~lagent_like.ToolSettings`). They live
    in that one namespace: the tool's own attributes (``self.timeout``, ``self.retry``)
    are never read as settings, and all of ``BaseAction``'s own state is kept under
    ``__tool_state__``, so a class mixed with ``BaseAction`` keeps its attribute names.

    Args:
        description: a Lagent description dict to use instead of the class's
            ``__tool_description__``; it is deep-copied either way.
        parser: the :class:`BaseParser` subclass that reads a model's arguments.
        enable: whether the executor offers and runs this tool.
        apis: the tool's APIs as specs instead of methods: one :class:`ApiSpec` makes a
            simple tool, a list of them a toolkit (then ``description`` gives its
            ``name`` and ``description``). Each spec's ``func`` runs its calls.
        timeout: this tool's timeout (seconds, ``None`` for no limit).
        retry: this tool's :class:`~lagent_like.runtime.policies.RetryPolicy` (``None``: none).
        circuit_breaker: this tool's breaker factory (``None``: none).
        blocking: whether this tool's sync APIs need a worker thread (async executor).
        validation: how arguments are checked: ``"coerce"``, ``"strict"`` or ``"off"``
            (``None``: the executor's, by default ``"coerce"``; an API's
            ``@tool_api(validation=...)`` wins).
    """

    __tool_settings__: ToolSettings = ToolSettings()

    def __init__(
        self,
        description: Optional[dict[str, Any]] = None,
        parser: type[BaseParser] = JsonParser,
        enable: bool = True,
        *,
        apis: Union[ApiSpec, Sequence[ApiSpec], None] = None,
        timeout: Any = UNSET,
        retry: Any = UNSET,
        circuit_breaker: Any = UNSET,
        blocking: Optional[bool] = None,
        validation: Optional[str] = None,
    ) -> None:
        given = {
            key: value
            for key, value in (("timeout", timeout), ("retry", retry), ("circuit_breaker", circuit_breaker))
            if value is not UNSET
        }
        if blocking is not None:
            given["blocking"] = bool(blocking)
        if validation is not None:
            given["validation"] = check_mode(validation, type(self).__qualname__)
        if given:
            self.__tool_settings__ = dataclasses.replace(settings_of(self), **given)
        _setup(self, description, parser, enable, apis)

    @classmethod
    def from_object(
        cls,
        obj: Any,
        include: Optional[Iterable[str]] = None,
        exclude: Optional[Iterable[str]] = None,
        name: Optional[str] = None,
        **options: Any,
    ) -> BaseAction:
        """A toolkit whose APIs are the public methods of ``obj``, called on ``obj`` itself.

        Each method is described from its hints and docstring as ``tool_api`` would;
        ``obj`` is only read (no property runs, nothing is set on it). Methods that
        cannot be described are left out with a ``DefinitionWarning``, unless named in
        ``include``. ``options`` go to :class:`~lagent_like.actions.object_toolkit.ObjectToolkit`
        (``description``, ``parser``, ``enable``).

        Args:
            obj: any object, e.g. a client or a service instance.
            include: expose only these methods.
            exclude: leave these methods out.
            name: the tool name; defaults to ``type(obj).__name__``.

        Raises:
            ToolDefinitionError: a name in ``include``/``exclude`` is not a method, a
                method in ``include`` cannot be described, or no method is left.
        """
        from .object_toolkit import ObjectToolkit  # the module imports this one

        return ObjectToolkit(obj, include, exclude, name, **options)

    def __getstate__(self) -> dict[str, Any]:
        # The state holds a parser and compiled readers: rebuilt from what was given.
        values = dict(self.__dict__)
        values[_STATE] = (*values[_STATE].given, values[_STATE].enable, values[_STATE].validation)
        return values

    def __setstate__(self, values: dict[str, Any]) -> None:
        values = dict(values)
        description, parser, apis, enable, validation = values.pop(_STATE)
        self.__dict__.update(values)
        _setup(self, description, parser, enable, apis, validation)

    def use_validation(self, mode: str) -> None:
        """Take ``mode`` for the APIs whose tool and API set none (an executor's ``validation``).

        The parser and routes are rebuilt; an executor calls this before building its own.
        """
        check_mode(mode, type(self).__qualname__)
        state = state_of(self)
        if mode != state.validation:
            description, parser, apis = state.given
            _setup(self, description, parser, state.enable, apis, mode)

    def json_schema(self, name: str = "run") -> dict[str, Any]:
        """The JSON Schema of API ``name``'s arguments, for function calling.

        ``{"type": "object", "properties": ..., "required": ..., "additionalProperties":
        false}`` with types, descriptions, enums, defaults, items and nested objects,
        built from the annotations (or the Lagent types where there are none); for an
        API described by a JSON Schema, that schema. The result is a fresh copy.

        Raises:
            KeyError: the action has no API ``name``.
        """
        state = state_of(self)
        spec = state.specs.get(name) if isinstance(name, str) else None
        if spec is None:
            raise KeyError(f"{state.name} has no API {name!r}")
        return spec.json_schema()

    @property
    def name(self) -> str:
        """The tool name a model uses."""
        return state_of(self).name

    @property
    def enable(self) -> bool:
        """Whether the executor offers and runs this tool."""
        return state_of(self).enable

    @enable.setter
    def enable(self, value: bool) -> None:
        state_of(self).enable = bool(value)

    @property
    def is_toolkit(self) -> bool:
        """True for a toolkit (``api_list``), False for a simple tool (``run``)."""
        return state_of(self).is_toolkit

    @property
    def description(self) -> dict[str, Any]:
        """This instance's own description dict, with the parser's ``parameter_description``."""
        return state_of(self).description

    def __repr__(self) -> str:
        state = state_of(self)
        return f"<{type(self).__name__} name={state.name!r} enable={state.enable}>"

    def __call__(self, inputs: Any, name: str = "run") -> ActionReturn:
        """Parse ``inputs`` for the API ``name``, call it and wrap the outcome.

        Never raises for bad input or a failing tool: an unknown API or an exception in
        the tool gives ``API_ERROR``, unparsable or invalid arguments ``ARGS_ERROR``.
        """
        try:
            route = self.__dict__[_STATE].routes[name]
        except (KeyError, TypeError):
            return unknown_api(self, inputs, name)
        return invoke(route, inputs)

    def argument_checks(self, name: str = "run") -> tuple[dict[str, Validator], dict[str, Any]]:
        """How the parser checks the arguments of API ``name`` (a view of its spec).

        Returns ``(validators, exact)``: per parameter, a function that returns the
        value (converted as the validation mode allows) or raises
        :class:`~lagent_like.ArgumentError`; and, for parameters whose check passes
        exactly the values of one class, that class, so a call whose values already
        have it skips the check. Parameters absent from ``validators`` are not checked.
        """
        spec = state_of(self).specs.get(name) if isinstance(name, str) else None
        if spec is None:
            return {}, {}
        validators, exact, _ = spec.checks_in(validation_mode(self, name))
        return validators, exact


def __getattr__(name: str) -> Any:
    # Lagent 0.5 defines AsyncActionMixin in this module; it lives in async_executor,
    # which imports this one, so it is looked up on first access.
    if name == "AsyncActionMixin":
        from .async_executor import AsyncActionMixin

        return AsyncActionMixin
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
