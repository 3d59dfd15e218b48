"""What MCP says about a tool beyond its name, description and input schema.

MCP tool definitions may carry a ``title`` (a display name), ``annotations`` (hints
for hosts: ``readOnlyHint``, ``destructiveHint``, ``idempotentHint``,
``openWorldHint``) and an ``outputSchema`` (the JSON Schema of the structured content
the tool returns). Tools declare the first two with ``@tool_api(title=...,
annotations={...})``; the output schema follows from the return annotation when it is
an object type (a dict, TypedDict or dataclass). An ``MCPToolkit`` passes on what the
remote server said (``mcp_extras`` in :mod:`lagent_like.executors._exports` reads both).

This module imports nothing of the MCP SDK.
"""

from __future__ import annotations

import contextlib
import weakref
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Optional

from .._private.typing_compat import get_type_hints
from ..types._json_schema import hoist_definitions, schema_of

if TYPE_CHECKING:
    from ._describe import ApiSpec

__all__ = ["ANNOTATION_HINTS", "option_problems", "output_schema"]

#: The annotation hints MCP defines (all booleans).
ANNOTATION_HINTS = ("readOnlyHint", "destructiveHint", "idempotentHint", "openWorldHint")


def option_problems(title: Any, annotations: Any) -> list[str]:
    """What is wrong with ``@tool_api``'s ``title`` and ``annotations`` options (nothing: ``[]``)."""
    problems = []
    if title is not None and (not isinstance(title, str) or not title.strip()):
        problems.append(f"title must be a non-empty string, got {title!r}")
    if annotations is None:
        return problems
    if not isinstance(annotations, Mapping):
        return [*problems, f"annotations must be a mapping of MCP hints to booleans, got {annotations!r}"]
    for key, value in annotations.items():
        if key not in ANNOTATION_HINTS:
            problems.append(f"annotations: {key!r} is not an MCP hint; use {', '.join(ANNOTATION_HINTS)}")
        elif not isinstance(value, bool):
            problems.append(f"annotations: {key!r} must be True or False, got {value!r}")
    return problems


#: Output schema of each API spec, computed once (specs are shared by every instance).
_OUTPUT_SCHEMAS: weakref.WeakKeyDictionary[Any, Optional[dict[str, Any]]] = weakref.WeakKeyDictionary()


def output_schema(spec: ApiSpec) -> Optional[dict[str, Any]]:
    """The JSON Schema of what ``spec``'s function returns, when that is a JSON object.

    MCP only takes object schemas: a function annotated ``-> dict``, a ``TypedDict``
    or a dataclass has one; ``-> str`` or an unannotated return has none.
    """
    func = spec.func
    if func is None:
        return None
    try:
        return _OUTPUT_SCHEMAS[func]
    except (KeyError, TypeError):
        pass
    try:
        annotation = get_type_hints(func).get("return")
        schema: Optional[dict[str, Any]] = (
            None if annotation is None else hoist_definitions(dict(schema_of(annotation)))
        )
    except Exception:  # noqa: BLE001 - an annotation that cannot be resolved promises nothing
        schema = None
    if schema is not None and schema.get("type") != "object":
        schema = None
    with contextlib.suppress(TypeError):
        _OUTPUT_SCHEMAS[func] = schema
    return schema
