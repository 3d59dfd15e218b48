"""The ``tool_api`` decorator: describe a function for a model from its own source.

The decorator reads the signature, type hints and docstring once, at definition time,
and attaches the Lagent description as ``api_description``. The function itself is
returned unchanged (no wrapper), so it stays callable exactly as before, sync or async,
and pays nothing per call.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Callable, Optional, TypeVar, overload

from typing_extensions import TypedDict, Unpack

from ..exceptions import ToolDefinitionError
from ..spec._api_spec import DEFAULT_OPTIONS, ApiSpec, DescribeOptions
from ..spec._describe import build_api_spec
from ..types._families import check_mode

__all__ = ["ToolApiOptions", "api_spec_of", "describe_function", "tool_api"]

F = TypeVar("F", bound=Callable[..., Any])

#: Attribute holding the :class:`ApiSpec` on a decorated function.
SPEC_ATTR = "__lagent_like_api__"
#: Attribute holding the Lagent description on a decorated function (Lagent's name).
DESCRIPTION_ATTR = "api_description"


class ToolApiOptions(TypedDict, total=False):
    """The keyword options of :func:`tool_api`; see there."""

    name: Optional[str]
    explode_return: bool
    returns_named_value: bool
    include_arguments: Optional[list[str]]
    exclude_arguments: Optional[list[str]]
    validation: Optional[str]
    title: Optional[str]
    annotations: Optional[Mapping[str, bool]]


@overload
def tool_api(func: F) -> F: ...


@overload
def tool_api(func: None = None, **options: Unpack[ToolApiOptions]) -> Callable[[F], F]: ...


def tool_api(func: Optional[F] = None, **options: Unpack[ToolApiOptions]) -> Any:
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
    opts = _options(options) if options else DEFAULT_OPTIONS  # bare @tool_api, the common case
    if func is not None:
        describe_function(func, opts)
        return func

    def decorate(function: F) -> F:
        describe_function(function, opts)
        return function

    return decorate


def _options(given: ToolApiOptions) -> DescribeOptions:
    unknown = [key for key in given if key not in ToolApiOptions.__annotations__]
    if unknown:
        raise TypeError(f"tool_api() got an unexpected keyword argument {unknown[0]!r}")
    validation = given.get("validation")
    if validation is not None:
        check_mode(validation, "tool_api")
    annotations = given.get("annotations")
    options = DescribeOptions(
        name=given.get("name"),
        explode_return=given.get("explode_return", False),
        returns_named_value=given.get("returns_named_value", False),
        include_arguments=_names(given.get("include_arguments")),
        exclude_arguments=_names(given.get("exclude_arguments")),
        validation=validation,
        title=given.get("title"),
        annotations=dict(annotations) if isinstance(annotations, Mapping) else annotations,
    )
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


def _names(value: Optional[list[str]]) -> Optional[list[str]]:
    # A single name given as a string means that name, not its characters.
    if value is None:
        return None
    return [value] if isinstance(value, str) else list(value)


def api_spec_of(obj: Any) -> Optional[ApiSpec]:
    """Return the :class:`ApiSpec` attached by :func:`tool_api`, or ``None``."""
    spec = getattr(obj, SPEC_ATTR, None)
    return spec if isinstance(spec, ApiSpec) else None
