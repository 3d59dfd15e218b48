"""``BaseAction`` and its metaclass: a class is a tool, its methods are its APIs.

``ToolMeta`` reads a class once, when it is defined: it collects the ``@tool_api``
methods (inherited ones too), checks the class is either a simple tool (``run``) or a
toolkit (named APIs), builds ``__tool_description__`` and registers the class. An
instance works on its own deep copy of that description and calls its APIs through
its parser; ``__call__`` never raises, every outcome is an ``ActionReturn``.

``ObjectToolkit``, the class ``BaseAction.from_object`` makes, is defined here too.
"""

from __future__ import annotations

import dataclasses
import inspect
import threading
import types
import warnings
from abc import ABCMeta
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Any, Optional, Union, cast

from .._private.log import logger
from ..exceptions import DefinitionWarning, ToolDefinitionError
from ..parsers import BaseParser, JsonParser
from ..registry import TOOL_REGISTRY
from ..runtime._invoke import invoke
from ..runtime.settings import UNSET, ToolSettings
from ..schema import ActionReturn
from ..spec._api_spec import ApiSpec
from ..spec._describe import DescribeOptions, build_api_spec, definition_stacklevel
from ..spec._docstrings import parse_docstring
from ..types._families import check_mode
from ..types._validation import Validator
from ._tool_api import SPEC_ATTR, api_spec_of, describe_function, tool_api

# An instance's state lives in tool_state; these readers keep their import path here.
from ._tool_state import NO_SETTINGS, STATE_ATTR, Enable, checked_enable, enabled, parser_input, setup_state
from ._tool_state import api_entry as api_entry
from ._tool_state import api_specs as api_specs
from ._tool_state import routes_of as routes_of
from ._tool_state import settings_of as settings_of
from ._tool_state import state_of as state_of
from ._tool_state import tool_class_attribute as tool_class_attribute
from ._tool_state import unknown_api as unknown_api
from ._tool_state import validation_mode as validation_mode
from ._unread_settings import PLAIN_VALUES, class_notes

if TYPE_CHECKING:
    from ..parsers._base import ParserInput

__all__ = [
    "TOOL_REGISTRY",
    "BaseAction",
    "ObjectToolkit",
    "ToolMeta",
    "end_tool_session",
    "tool_api",
]  # TOOL_REGISTRY: Lagent 0.2's path


def _collect_specs(cls: type) -> dict[str, ApiSpec]:
    """Attribute name -> spec of every API, parents first, overrides replacing them.

    An override of an API method without ``@tool_api`` stays an API and is described
    from its own signature with the parent's options.
    """
    specs: dict[str, ApiSpec] = {}
    for klass in reversed(cls.__mro__[:-1]):
        if klass.__module__ == __name__:  # BaseAction's own methods: never an API
            continue
        for attr, value in vars(klass).items():
            # Speed (bench_scale's define row): the names, texts and data of a class body
            # hold no spec; only an override can make them matter.
            if type(value) in PLAIN_VALUES:  # no attributes, so no spec
                specs.pop(attr, None)
                continue
            spec = getattr(value, SPEC_ATTR, None)  # api_spec_of, inlined
            if isinstance(spec, ApiSpec):
                specs[attr] = spec
            elif attr in specs:
                if inspect.isfunction(value):
                    specs[attr] = describe_function(value, specs[attr].options)
                else:
                    del specs[attr]
    return specs


def _class_doc(cls: type) -> str:
    """The description a class docstring gives (``parse_docstring`` never raises)."""
    # The framework's own docstrings describe the framework, not the tool.
    for klass in cls.__mro__:
        if isinstance(klass, ToolMeta) and klass.__module__ != __name__ and vars(klass).get("__doc__"):
            return parse_docstring(vars(klass)["__doc__"]).description
    return ""


def _tool_name(cls: type) -> Any:
    """The name a class's tool is called by: its own ``__tool_name__``, else its class name."""
    return vars(cls).get("__tool_name__") or cls.__name__


def _check_tool(cls: type, specs: dict[str, ApiSpec], run_attr: Any) -> None:
    """Refuse a class that is not plainly one tool: both kinds, one API name twice, a bad name.

    Raises:
        ToolDefinitionError: naming the class and listing every problem.
    """
    tool_name = _tool_name(cls)
    if len(specs) == 1 and "run" in specs and isinstance(tool_name, str) and tool_name:
        return  # a simple tool, the common case: nothing below can be wrong
    apis = [spec for attr, spec in specs.items() if attr != "run"]
    problems = []
    if apis and ("run" in specs or isinstance(run_attr, types.FunctionType)):
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
    if problems:
        raise ToolDefinitionError(cls.__qualname__, problems)


def _tool_description(cls: type, specs: dict[str, ApiSpec]) -> dict[str, Any]:
    """The class-level Lagent description of a class :func:`_check_tool` accepted."""
    tool_name = _tool_name(cls)
    class_doc = _class_doc(cls)
    run = specs.get("run")
    apis = [spec for attr, spec in specs.items() if attr != "run"]
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


#: Held while a class's description is built on first read (:class:`_DescriptionOnFirstRead`).
_DESCRIBING = threading.Lock()


class _DescriptionOnFirstRead:
    """Every class's ``__tool_description__`` until it is first read, then the dict itself.

    Speed (bench_scale's define row): a catalogue's classes are described through
    their instances, and building the class-level dict when the class is defined cost
    a tenth of defining a simple tool. Whatever can be wrong with the class is refused
    when it is defined (:func:`_check_tool`); the first read builds the dict once,
    under a lock, and puts it on the class in place of this object, so that later
    reads are plain class attribute reads. One object serves every class: ``ToolMeta``
    puts it in each class's namespace, and the class that holds it is the one described.
    """

    __slots__ = ()

    def __get__(self, instance: Any, owner: Optional[type] = None) -> dict[str, Any]:
        cls = owner if owner is not None else type(instance)
        # The class that holds this object: the one read, unless it was made without ToolMeta.
        holder = next(k for k in cls.__mro__ if "__tool_description__" in vars(k))
        with _DESCRIBING:
            held = vars(holder)["__tool_description__"]
            if held is not self:  # built by another thread meanwhile
                return cast("dict[str, Any]", held)
            built = _tool_description(holder, vars(holder)["__tool_apis__"])
            type.__setattr__(holder, "__tool_description__", built)
        return built


#: The one :class:`_DescriptionOnFirstRead`.
_DESCRIPTION_ON_FIRST_READ = _DescriptionOnFirstRead()


#: ``BaseAction.end_session``, a plain method (set once ``BaseAction`` is defined).
_BASE_END_SESSION: Any = None


def _check_session_hook(cls: type, specs: dict[str, ApiSpec]) -> None:
    """Refuse an ``end_session`` hook the executor could not run: it calls it without awaiting."""
    hook = getattr(cls, "end_session", None)
    if hook is _BASE_END_SESSION or "end_session" in specs:
        return  # BaseAction's own (a plain method), or an API the model calls
    if inspect.iscoroutinefunction(hook):
        raise ToolDefinitionError(
            f"{cls.__qualname__}.end_session",
            [
                "end_session must be a plain method: executor.end_session(id) calls it "
                "without awaiting (start asynchronous cleanup from it if needed)"
            ],
        )


class ToolMeta(ABCMeta):
    """Metaclass that turns a ``BaseAction`` subclass into a described, registered tool.

    Class keyword ``register=False`` keeps a class (an abstract base) out of the registry.
    """

    __tool_apis__: dict[str, ApiSpec]
    __tool_description__: dict[str, Any]
    __setattr__ = __delattr__ = tool_class_attribute  # counts changes of __tool_settings__

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
        if not specs and isinstance(run, types.FunctionType):
            specs["run"] = describe_function(run)
        cls.__tool_apis__ = specs
        _check_session_hook(cls, specs)
        _check_tool(cls, specs, run)
        type.__setattr__(cls, "__tool_description__", _DESCRIPTION_ON_FIRST_READ)
        for note in class_notes(cls):
            warnings.warn(
                f"{cls.__qualname__}: {note}", DefinitionWarning, stacklevel=definition_stacklevel()
            )
        if register:
            TOOL_REGISTRY.register(cls, _tool_name(cls))
        return cls


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
        enable: whether the executor offers and runs this tool: ``True``, ``False``, or
            a callable asked each time the tools are described, exported or called
            (as ``is_enabled`` in the OpenAI Agents SDK), with the call's
            :class:`~lagent_like.ToolContext` (``None`` when describing) or with no
            argument if it takes none. A callable that raises disables the tool (logged).
        apis: the tool's APIs as specs instead of methods: one :class:`ApiSpec` makes a
            simple tool, a list of them a toolkit (then ``description`` gives its
            ``name`` and ``description``). Each spec's ``func`` runs its calls.
        timeout: this tool's timeout (seconds, ``None`` for no limit).
        retry: this tool's :class:`~lagent_like.RetryPolicy` (``None``: none).
        circuit_breaker: this tool's breaker factory (``None``: none).
        blocking: whether this tool's sync APIs need a worker thread (async executor).
        validation: how arguments are checked: ``"coerce"``, ``"strict"`` or ``"off"``
            (``None``: the executor's, by default ``"coerce"``; an API's
            ``@tool_api(validation=...)`` wins).
    """

    __tool_settings__: ToolSettings = NO_SETTINGS  # the shared default: executors key it by identity

    def __init__(
        self,
        description: Optional[dict[str, Any]] = None,
        parser: type[BaseParser] = JsonParser,
        enable: Enable = True,
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
        setup_state(self, description, parser, enable, apis)

    @classmethod
    def from_object(cls, obj: Any, *args: Any, **options: Any) -> BaseAction:
        """A toolkit whose APIs are the public methods of ``obj``, called on ``obj`` itself.

        Each method is described from its hints and docstring as ``tool_api`` would;
        ``obj`` is only read (no property runs, nothing is set on it). Methods that
        cannot be described are left out with a ``DefinitionWarning``, unless named in
        ``include``. The arguments are those of
        :class:`ObjectToolkit`, which this makes:
        ``include``, ``exclude``, ``name``, ``description``, ``parser``, ``enable``.

        Given a class, its public static and class methods are the APIs, never its
        metaclass's methods; a class without them is refused (pass an instance).

        Args:
            obj: any object, e.g. a client or a service instance, or a class.
            *args: ``include`` (expose only these methods), ``exclude`` (leave these
                methods out), ``name`` (the tool name; defaults to ``type(obj).__name__``).
            **options: the same by name, and ``description``, ``parser``, ``enable``.

        Raises:
            ToolDefinitionError: a name in ``include``/``exclude`` is not a method, a
                method in ``include`` cannot be described, or no method is left.
        """
        return ObjectToolkit(obj, *args, **options)

    def __getstate__(self) -> dict[str, Any]:
        # The state holds a parser and compiled readers: rebuilt from what was given.
        values = dict(self.__dict__)
        values[STATE_ATTR] = (*values[STATE_ATTR].given, values[STATE_ATTR].enable)
        return values

    def __setstate__(self, values: dict[str, Any]) -> None:
        values = dict(values)
        description, parser, apis, enable = values.pop(STATE_ATTR)
        self.__dict__.update(values)
        setup_state(self, description, parser, enable, apis)

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
        """Whether the executor offers and runs this tool now.

        Set it to ``True``, ``False`` or a callable (see the class docstring); reading
        it asks a callable, without a call's context.

        Raises:
            ToolDefinitionError: (when set) neither a bool nor a callable of the
                context or of no argument.
        """
        return enabled(state_of(self))

    @enable.setter
    def enable(self, value: Enable) -> None:
        state_of(self).enable = checked_enable(value, type(self).__qualname__)

    @property
    def is_toolkit(self) -> bool:
        """True for a toolkit (``api_list``), False for a simple tool (``run``)."""
        return state_of(self).is_toolkit

    @property
    def description(self) -> dict[str, Any]:
        """This instance's own description dict, with the parser's ``parameter_description``."""
        return state_of(self).description

    def __parser_input__(self) -> ParserInput:
        """What this action's parser reads (:class:`~lagent_like.parsers._base.ParserInput`)."""
        return parser_input(self)

    def __repr__(self) -> str:
        state = state_of(self)
        return f"<{type(self).__name__} name={state.name!r} enable={state.enable}>"

    def __call__(self, inputs: Any, name: str = "run") -> ActionReturn:
        """Parse ``inputs`` for the API ``name``, call it and wrap the outcome.

        Never raises for bad input or a failing tool: an unknown API or an exception in
        the tool gives ``API_ERROR``, unparsable or invalid arguments ``ARGS_ERROR``.
        """
        try:
            route = self.__dict__[STATE_ATTR].routes[name]
        except (KeyError, TypeError):
            return unknown_api(self, inputs, name)
        return invoke(route, inputs)

    def end_session(self, session_id: str) -> None:
        """Release what this tool keeps for session ``session_id``; a hook, nothing by default.

        ``executor.end_session(id)`` calls it on every tool the executor holds (the MCP
        server does so when a connection ends). A tool that keeps a process, a
        connection or files per session overrides it; ending a session that never ran,
        or ending one twice, must be harmless.

        Args:
            session_id: the ``ToolContext.session_id`` of the session that ended.
        """

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


_BASE_END_SESSION = BaseAction.end_session


def end_tool_session(action: BaseAction, session_id: str) -> None:
    """Tell ``action`` that session ``session_id`` ended (:meth:`BaseAction.end_session`).

    Never raises: one tool's failure must not keep the others from releasing theirs,
    so it is logged. An ``end_session`` that is one of the tool's APIs (a
    ``@tool_api`` the model calls) is not the hook and is not called.
    """
    cls = type(action)
    if getattr(cls, "end_session", None) is BaseAction.end_session or "end_session" in cls.__tool_apis__:
        return
    try:
        action.end_session(session_id)
    except Exception as exc:  # noqa: BLE001 - reported, and the other tools still end theirs
        logger().warning("ending session %r of tool %s failed: %s", session_id, action.name, exc)


# ``ObjectToolkit``: an existing object's public methods as a toolkit, made by
# ``BaseAction.from_object`` (so it lives beside it). Exposing a client or a service
# object to a model should not need a delegating class written by hand (the OpenAI
# Agents SDK, LiveKit and FastMCP take methods directly). The object is only read, never
# changed: methods are found on its class with ``inspect.getattr_static`` (so no property
# or ``__getattr__`` runs), nothing is set on it and nothing is copied.


def _method_names(cls: type) -> list[str]:
    """Public methods written in Python on ``cls`` or its bases (not ``object``).

    They come in definition order, bases first.
    """
    names: dict[str, None] = {}
    for klass in reversed(cls.__mro__[:-1]):
        for attr, value in vars(klass).items():
            if attr.startswith("_"):
                continue
            if inspect.isfunction(value) or isinstance(value, (staticmethod, classmethod)):
                names[attr] = None
            else:
                names.pop(attr, None)  # shadowed by something that is not a method
    return list(names)


def _class_method_names(cls: type) -> list[str]:
    """Public static and class methods of the class ``cls`` (not its metaclass's), bases first."""
    names: dict[str, None] = {}
    for klass in reversed(cls.__mro__[:-1]):
        for attr, value in vars(klass).items():
            if attr.startswith("_"):
                continue
            if isinstance(value, (staticmethod, classmethod)):
                names[attr] = None
            else:
                names.pop(attr, None)  # an instance method or a value: needs an instance
    return list(names)


def _is_method(raw: Any) -> bool:
    # A classmethod object is not callable itself (Python 3.10+), yet binds to one.
    return callable(raw) or isinstance(raw, (staticmethod, classmethod))


def _owner(obj: Any) -> str:
    """How messages name the object: ``'from_object(Store)'``."""
    cls = obj if isinstance(obj, type) else type(obj)
    return f"from_object({cls.__qualname__})"


def _chosen(obj: Any, include: Optional[Iterable[str]], exclude: Optional[Iterable[str]]) -> list[str]:
    given_class = isinstance(obj, type)
    available = _class_method_names(obj) if given_class else _method_names(type(obj))
    problems = []
    if include is not None:
        chosen = [include] if isinstance(include, str) else list(include)
        if given_class:
            missing = [n for n in chosen if n not in available]
        else:
            missing = [n for n in chosen if not _is_method(inspect.getattr_static(obj, n, None))]
        if missing:
            kind = "static or class methods" if given_class else "methods"
            problems.append(f"include names {missing}, which are not {kind}; public {kind} are {available}")
    else:
        chosen = available
    dropped = [] if exclude is None else ([exclude] if isinstance(exclude, str) else list(exclude))
    unknown = [n for n in dropped if n not in chosen]
    if unknown:
        problems.append(f"exclude names {unknown}, which are not among the methods {chosen}")
    if problems:
        raise ToolDefinitionError(_owner(obj), problems)
    return [n for n in chosen if n not in dropped]


def _describe(obj: Any, names: list[str], explicit: bool) -> list[ApiSpec]:
    """The spec of each method, calling it bound to ``obj``.

    Methods that cannot be described raise when they were named in ``include``, else are
    left out with a warning.
    """
    specs: dict[str, ApiSpec] = {}
    problems: list[str] = []
    for attr in names:
        method = getattr(obj, attr)  # binds a function (a class method to its class); runs no property
        raw = inspect.getattr_static(obj, attr)
        function = raw.__func__ if isinstance(raw, (staticmethod, classmethod)) else raw
        try:
            spec = api_spec_of(function)
            if spec is None or isinstance(raw, classmethod):  # described without its cls
                spec = build_api_spec(method, DescribeOptions() if spec is None else spec.options)
        except ToolDefinitionError as exc:
            if explicit:
                problems.extend(exc.problems)
            else:
                reason = "; ".join(exc.problems)
                warnings.warn(
                    f"{_owner(obj)} leaves out {attr}: {reason}",
                    DefinitionWarning,
                    stacklevel=definition_stacklevel(),
                )
            continue
        if spec.name in specs:
            problems.append(f"several methods use the API name {spec.name!r}")
        specs[spec.name] = dataclasses.replace(spec, func=method)
    if problems:
        raise ToolDefinitionError(_owner(obj), problems)
    return list(specs.values())


def _nothing_to_expose(obj: Any) -> str:
    if isinstance(obj, type):
        return (
            f"was given the class {obj.__name__}, which has no public static or class method; "
            f"to expose its methods, pass an instance: from_object({obj.__name__}(...))"
        )
    return "has no public method to expose as an API"


class ObjectToolkit(BaseAction, register=False):
    """A toolkit whose APIs are the public methods of an existing object.

    Made by :meth:`BaseAction.from_object`; see there.

    Given a class rather than an instance, its public static and class methods are the
    APIs (class methods bound to the class); never its metaclass's methods (``mro``,
    ``register``), nor its instance methods, which need an instance.

    Args:
        obj: the object whose methods the model calls, or a class.
        include: expose only these methods (names); by default every public method
            written in Python (not starting with ``_``, not a property).
        exclude: leave these methods out.
        name: the tool name; defaults to the object's class name (a class's own name).
        description: the toolkit description; defaults to the class docstring's.
        parser: the parser that reads a model's arguments.
        enable: whether the executor offers and runs this tool.

    Raises:
        ToolDefinitionError: ``include`` or ``exclude`` names a method the object lacks,
            a method named in ``include`` cannot be described, or no method is left (a
            class without static or class methods: pass an instance).
    """

    def __init__(
        self,
        obj: Any,
        include: Optional[Iterable[str]] = None,
        exclude: Optional[Iterable[str]] = None,
        name: Optional[str] = None,
        description: Optional[str] = None,
        parser: type[BaseParser] = JsonParser,
        enable: Enable = True,
    ) -> None:
        cls = obj if isinstance(obj, type) else type(obj)
        specs = _describe(obj, _chosen(obj, include, exclude), include is not None)
        if not specs:
            raise ToolDefinitionError(_owner(obj), [_nothing_to_expose(obj)])
        self.__wrapped_object = obj
        if description is None:
            description = parse_docstring(vars(cls).get("__doc__")).description
        toolkit = {"name": name or cls.__name__, "description": description}
        super().__init__(toolkit, parser, enable, apis=specs)

    @property
    def wrapped(self) -> Any:
        """The object whose methods this toolkit calls."""
        return self.__wrapped_object
