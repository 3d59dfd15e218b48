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


def _chosen(obj: Any, include: Optional[Iterable[str]], exclude: Optional[Iterable[str]]) -> list[str]:
    cls = type(obj)
    available = _method_names(cls)
    problems = []
    if include is not None:
        chosen = [include] if isinstance(include, str) else list(include)
        missing = [n for n in chosen if not callable(inspect.getattr_static(obj, n, None))]
        if missing:
            problems.append(f"include names {missing}, which are not methods; public methods are {available}")
    else:
        chosen = available
    dropped = [] if exclude is None else ([exclude] if isinstance(exclude, str) else list(exclude))
    unknown = [n for n in dropped if n not in chosen]
    if unknown:
        problems.append(f"exclude names {unknown}, which are not among the methods {chosen}")
    if problems:
        raise ToolDefinitionError(f"from_object({cls.__qualname__})", problems)
    return [n for n in chosen if n not in dropped]


def _describe(obj: Any, names: list[str], explicit: bool) -> list[ApiSpec]:
    """The spec of each method, calling it bound to ``obj``. Methods that cannot be
    described raise when they were named in ``include``, else are left out with a warning."""
    cls = type(obj)
    specs: dict[str, ApiSpec] = {}
    problems: list[str] = []
    for attr in names:
        method = getattr(obj, attr)  # binds a function; runs no property
        raw = inspect.getattr_static(obj, attr)
        function = raw.__func__ if isinstance(raw, (staticmethod, classmethod)) else raw
        try:
            spec = api_spec_of(function) or build_api_spec(method, DescribeOptions())
        except ToolDefinitionError as exc:
            if explicit:
                problems.extend(exc.problems)
            else:
                reason = "; ".join(exc.problems)
                warnings.warn(
                    f"from_object({cls.__qualname__}) leaves out {attr}: {reason}",
                    DefinitionWarning,
                    stacklevel=definition_stacklevel(),
                )
            continue
        if spec.name in specs:
            problems.append(f"several methods use the API name {spec.name!r}")
        specs[spec.name] = dataclasses.replace(spec, func=method)
    if problems:
        raise ToolDefinitionError(f"from_object({cls.__qualname__})", problems)
    return list(specs.values())


class ObjectToolkit(BaseAction, register=False):
    """A toolkit whose APIs are the public methods of an existing object.

    Made by :meth:`BaseAction.from_object`; see there.

    Args:
        obj: the object whose methods the model calls.
        include: expose only these methods (names); by default every public method
            written in Python (not starting with ``_``, not a property).
        exclude: leave these methods out.
        name: the tool name; defaults to the object's class name.
        description: the toolkit description; defaults to the class docstring's.
        parser: the parser that reads a model's arguments.
        enable: whether the executor offers and runs this tool.

    Raises:
        ToolDefinitionError: ``include`` or ``exclude`` names a method the object lacks,
            a method named in ``include`` cannot be described, or no method is left.
    """

    def __init__(
        self,
        obj: Any,
        include: Optional[Iterable[str]] = None,
        exclude: Optional[Iterable[str]] = None,
        name: Optional[str] = None,
        description: Optional[str] = None,
        parser: type[BaseParser] = JsonParser,
        enable: bool = True,
    ) -> None:
        cls = type(obj)
        specs = _describe(obj, _chosen(obj, include, exclude), include is not None)
        if not specs:
            raise ToolDefinitionError(
                f"from_object({cls.__qualname__})", ["has no public method to expose as an API"]
            )
        self.__wrapped_object = obj
        if description is None:
            description = parse_docstring(vars(cls).get("__doc__")).description
        toolkit = {"name": name or cls.__name__, "description": description}
        super().__init__(toolkit, parser, enable, apis=specs)

    @property
    def wrapped(self) -> Any:
        """The object whose methods this toolkit calls."""
        return self.__wrapped_object
