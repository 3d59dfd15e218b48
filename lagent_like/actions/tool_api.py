"""The ``tool_api`` decorator: describe a function for a model from its own source.

The decorator reads the signature, type hints and docstring once, at definition time,
and attaches the Lagent description as ``api_description``. The function itself is
returned unchanged (no wrapper), so it stays callable exactly as before, sync or async,
and pays nothing per call.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Callable, Optional, TypeVar, overload

from ..exceptions import ToolDefinitionError
from ..spec.describe import DEFAULT_OPTIONS, ApiSpec, DescribeOptions, build_api_spec
from ..types.families import check_mode

__all__ = ["api_spec_of", "tool_api"]

F = TypeVar("F", bound=Callable[..., Any])

#: Attribute holding the :class:`ApiSpec` on a decorated function.
SPEC_ATTR = "__lagent_like_api__"


@overload
def tool_api(func: F) -> F: ...


@overload
def tool_api(
    func: None = None,
    *,
    name: Optional[str] = None,
    explode_return: bool = False,
    returns_named_value: bool = False,
    include_arguments: Optional[list[str]] = None,
    exclude_arguments: Optional[list[str]] = None,
    validation: Optional[str] = None,
    title: Optional[str] = None,
    annotations: Optional[Mapping[str, bool]] = None,
) -> Callable[[F], F]: ...


def tool_api(
    func: Optional[F] = None,
    *,
    name: Optional[str] = None,
    explode_return: bool = False,
    returns_named_value: bool = False,
    include_arguments: Optional[list[str]] = None,
    exclude_arguments: Optional[list[str]] = None,
    validation: Optional[str] = None,
    title: Optional[str] = None,
    annotations: Optional[Mapping[str, bool]] = None,
) -> Any:
    """Mark a function or method as a tool API and describe it.

    Usable bare (``@tool_api``) or with options (``@tool_api(explode_return=True)``).

    Args:
        func: the function, when used bare.
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
    named = name is not None or explode_return or returns_named_value or validation is not None
    mcp = title is not None or annotations is not None
    if validation is not None:
        check_mode(validation, "tool_api")
    if not named and not mcp and include_arguments is None and exclude_arguments is None:
        options = DEFAULT_OPTIONS  # bare @tool_api, the common case
    else:
        options = DescribeOptions(
            name=name,
            explode_return=explode_return,
            returns_named_value=returns_named_value,
            include_arguments=_names(include_arguments),
            exclude_arguments=_names(exclude_arguments),
            validation=validation,
            title=title,
            annotations=dict(annotations) if isinstance(annotations, Mapping) else annotations,
        )

    if func is not None:
        return _decorate(func, options)
    return lambda function: _decorate(function, options)


def _decorate(function: F, options: DescribeOptions) -> F:
    if options.title is not None or options.annotations is not None:
        from ..mcp._metadata import option_problems  # no SDK import

        problems = option_problems(options.title, options.annotations)
        if problems:
            raise ToolDefinitionError(getattr(function, "__qualname__", repr(function)), problems)
    spec = build_api_spec(function, options)
    function.api_description = spec.description  # type: ignore[attr-defined]
    setattr(function, SPEC_ATTR, spec)
    return function


def _names(value: Optional[list[str]]) -> Optional[list[str]]:
    # A single name given as a string means that name, not its characters.
    if value is None:
        return None
    return [value] if isinstance(value, str) else list(value)


def api_spec_of(obj: Any) -> Optional[ApiSpec]:
    """Return the :class:`ApiSpec` attached by :func:`tool_api`, or ``None``."""
    spec = getattr(obj, SPEC_ATTR, None)
    return spec if isinstance(spec, ApiSpec) else None
