"""``ObjectToolkit``: an existing object's public methods as a toolkit.

Exposing a client or a service object to a model should not need a delegating class
written by hand (the OpenAI Agents SDK, LiveKit and FastMCP take methods directly).
``BaseAction.from_object(store)`` describes each public method of ``store`` from its
hints and docstring, as ``tool_api`` would, and calls it on that very instance.

The object is only read, never changed: methods are found on its class with
``inspect.getattr_static`` (so no property or ``__getattr__`` runs), nothing is set on
it and nothing is copied; its state changes only through the methods a model calls.
"""

from __future__ import annotations

import dataclasses
import inspect
import warnings
from collections.abc import Iterable
from typing import Any, Optional

from ..exceptions import DefinitionWarning, ToolDefinitionError
from ..spec.describe import ApiSpec, DescribeOptions, build_api_spec, definition_stacklevel
from ..spec.docstrings import parse_docstring
from .base_action import BaseAction
from .parser import BaseParser, JsonParser
from .tool_api import api_spec_of
from .tool_state import Enable

__all__ = ["ObjectToolkit"]


def _method_names(cls: type) -> list[str]:
    """Public methods written in Python on ``cls`` or its bases (not ``object``), in
    definition order, bases first."""
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
    """The spec of each method, calling it bound to ``obj``. Methods that cannot be
    described raise when they were named in ``include``, else are left out with a warning."""
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
