"""The ``tool_api`` decorator: describe a function for a model from its own source.

The decorator reads the signature, type hints and docstring once, at definition time,
and attaches the Lagent description as ``api_description``. The function itself is
returned unchanged (no wrapper), so it stays callable exactly as before, sync or async,
and pays nothing per call.
"""

from __future__ import annotations

import dataclasses
from typing import Any, Callable, Optional, TypeVar, overload

from ..exceptions import ToolDefinitionError
from ..spec._api_spec import DEFAULT_OPTIONS, ApiSpec, DescribeOptions
from ..spec._describe import build_api_spec

__all__ = ["api_spec_of", "describe_function", "tool_api"]

F = TypeVar("F", bound=Callable[..., Any])

#: Attribute holding the :class:`ApiSpec` on a decorated function.
SPEC_ATTR = "__lagent_like_api__"
#: Attribute holding the Lagent description on a decorated function (Lagent's name).
DESCRIPTION_ATTR = "api_description"
#: The keywords ``tool_api`` takes: the fields of :class:`DescribeOptions`.
_OPTION_NAMES = frozenset(f.name for f in dataclasses.fields(DescribeOptions))


@overload
def tool_api(func: F) -> F: ...


@overload
def tool_api(func: None = None, **options: Any) -> Callable[[F], F]: ...


def tool_api(func: Optional[F] = None, **options: Any) -> Any:
    """Mark a function or method as a tool API and describe it.

    Usable bare (``@tool_api``) or with options (``@tool_api(explode_return=True)``).

    Args:
        func: the function, when used bare.
        **options: the options, by keyword (the fields of ``DescribeOptions``), each below.
        name: the API name a model uses; defaults to the function's name.
        explode_return: describe each member listed under the ``Returns:`` entry
            (``- name (type): description``) as ``return_data``.
        returns_named_value: read the ``Returns:`` entries as
            ``name (type): description`` items into ``return_data``.
        include_arguments: describe only these parameters.
        exclude_arguments: describe all parameters but these.
        validation: how this API's arguments are checked: ``"coerce"``, ``"strict"`` or
            ``"off"``; overrides the tool's and the executor's setting.
        title: a display name for MCP hosts (``title`` of the MCP tool definition).
        annotations: MCP hints, e.g. ``{"readOnlyHint": True}`` (``readOnlyHint``,
            ``destructiveHint``, ``idempotentHint``, ``openWorldHint``).

    Returns:
        The function itself with ``api_description`` attached, or a decorator.

    Raises:
        ToolDefinitionError: the function cannot be described; the message names it
            and lists every problem.
    """
    opts = _options(options) if options else DEFAULT_OPTIONS  # bare @tool_api, the common case
    if func is not None:
        describe_function(func, opts)
        return func

    def decorate(function: F) -> F:
        describe_function(function, opts)
        return function

    return decorate


def _options(given: dict[str, Any]) -> DescribeOptions:
    """The options of ``tool_api``'s keywords (the bare decorator's when all are defaults)."""
    unknown = [key for key in given if key not in _OPTION_NAMES]
    if unknown:
        raise TypeError(f"tool_api() got an unexpected keyword argument {unknown[0]!r}")
    options = DescribeOptions(**given)
    # All defaults is a bare @tool_api, whose options describing recognizes by identity.
    return DEFAULT_OPTIONS if options == DEFAULT_OPTIONS else options


def describe_function(function: Callable[..., Any], options: DescribeOptions = DEFAULT_OPTIONS) -> ApiSpec:
    """Describe ``function`` as ``tool_api`` does, attach the spec and description to it, return the spec.

    Raises:
        ToolDefinitionError: the function cannot be described.
    """
    if options.title is not None or options.annotations is not None:
        from ..spec._metadata import option_problems  # no SDK import

        problems = option_problems(options.title, options.annotations)
        if problems:
            raise ToolDefinitionError(getattr(function, "__qualname__", repr(function)), problems)
    spec = build_api_spec(function, options)
    setattr(function, DESCRIPTION_ATTR, spec.description)
    setattr(function, SPEC_ATTR, spec)
    return spec


def api_spec_of(obj: Any) -> Optional[ApiSpec]:
    """Return the :class:`ApiSpec` attached by :func:`tool_api`, or ``None``."""
    spec = getattr(obj, SPEC_ATTR, None)
    return spec if isinstance(spec, ApiSpec) else None
