"""Native function calling for executors: schemas, exports, aliases, tool calls.

Function-calling APIs (OpenAI, Anthropic, MCP) want each tool as a name, a
description and a JSON Schema, and send back calls by name with JSON arguments. This
mixin gives an executor those views of its tools, under names legal for those APIs,
and runs a model's ``tool_calls`` through the executor's ordinary call path.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, Callable, Optional

from .._private.describe import copy_description
from .._private.text import close_matches
from ..exceptions import ToolNotFoundError
from ..schema import ActionStatusCode
from .base_action import BaseAction, api_entry

if TYPE_CHECKING:
    from ..schema import ActionReturn

__all__ = ["FunctionCallingMixin"]


def _api_named(action: BaseAction, name: str) -> dict[str, Any]:
    api = api_entry(action, name[len(action.name) + 1 :])
    return api if api is not None else {}


def _read_tool_call(call: Any) -> tuple[Any, Optional[str], Any]:
    """``(id, name, arguments)`` of an OpenAI tool call given as a dict or an object."""

    def field(obj: Any, key: str) -> Any:
        return obj.get(key) if isinstance(obj, dict) else getattr(obj, key, None)

    function = field(call, "function")
    name = field(function, "name") if function is not None else None
    arguments = field(function, "arguments") if function is not None else None
    if isinstance(arguments, str) and not arguments.strip():
        arguments = "{}"
    return field(call, "id"), name if isinstance(name, str) else None, arguments


def _id_text(call_id: Any) -> Optional[str]:
    return call_id if isinstance(call_id, str) else None


def tool_messages(
    tool_calls: Sequence[Any], records: Sequence[Optional[ActionReturn]]
) -> list[dict[str, Any]]:
    """One ``{"role": "tool", "tool_call_id", "content"}`` message per call and its record.

    A ``None`` record stands for a call without a function name.
    """
    messages = []
    for index, (call, ret) in enumerate(zip(tool_calls, records)):
        if ret is None:
            content = (
                f"tool call {index} has no function name; "
                "send {'function': {'name': ..., 'arguments': ...}}"
            )
        else:
            content = ret.format_result() if ret.state == ActionStatusCode.SUCCESS else (ret.errmsg or "")
        messages.append({"role": "tool", "tool_call_id": _read_tool_call(call)[0], "content": content})
    return messages


class FunctionCallingMixin:
    """Function-calling views of an executor's tools (mixed into both executors)."""

    actions: dict[str, BaseAction]
    _names: dict[str, Any]
    _aliases: dict[str, str]
    _canonical: dict[str, str]
    _exports: dict[str, tuple[tuple[Any, ...], list[dict[str, Any]]]]
    _version: int

    def alias_of(self, name: str) -> str:
        """The function-calling name of ``name`` (itself when it is already legal).

        Raises:
            ToolNotFoundError: no API is called ``name``.
        """
        try:
            return self._aliases[name]
        except KeyError:
            raise ToolNotFoundError(
                name, close_matches(name, self._names), where="in this executor"
            ) from None

    def canonical_name(self, name: str) -> str:
        """The ``Tool.api`` name behind an alias (a canonical name maps to itself).

        Raises:
            ToolNotFoundError: no API has that name or alias.
        """
        if name in self._names:
            return name
        try:
            return self._canonical[name]
        except KeyError:
            raise ToolNotFoundError(
                name, close_matches(name, self._canonical), where="in this executor"
            ) from None

    def json_schema(self, name: str) -> dict[str, Any]:
        """The JSON Schema of the arguments of ``name`` (``'Tool'``, ``'Tool.api'`` or an alias).

        Raises:
            ToolNotFoundError: no API has that name or alias.
        """
        canonical = self.canonical_name(name)
        action: BaseAction = self._names[canonical].action
        return action.json_schema(canonical[len(action.name) + 1 :] if action.is_toolkit else "run")

    def _exported(
        self, shape: str, build: Callable[[str, str, dict[str, Any]], dict[str, Any]]
    ) -> list[dict[str, Any]]:
        # Cached until the set of actions or their enabled flags change.
        key = (self._version, tuple(a.enable for a in self.actions.values()))
        cached = self._exports.get(shape)
        if cached is None or cached[0] != key:
            entries = []
            for name, route in self._names.items():
                action = route.action
                if not action.enable:
                    continue
                api = action.description if not action.is_toolkit else _api_named(action, name)
                entries.append(build(self._aliases[name], api.get("description", ""), self.json_schema(name)))
            cached = (key, entries)
            self._exports[shape] = cached
        return copy_description(cached[1])  # type: ignore[no-any-return]

    def to_openai_tools(self) -> list[dict[str, Any]]:
        """The enabled tools as OpenAI ``tools``: ``{"type": "function", "function": {...}}``."""
        return self._exported(
            "openai",
            lambda name, text, schema: {
                "type": "function",
                "function": {"name": name, "description": text, "parameters": schema},
            },
        )

    def to_anthropic_tools(self) -> list[dict[str, Any]]:
        """The enabled tools as Anthropic ``tools``: ``{"name", "description", "input_schema"}``."""
        return self._exported(
            "anthropic",
            lambda name, text, schema: {"name": name, "description": text, "input_schema": schema},
        )

    def to_mcp_tools(self) -> list[dict[str, Any]]:
        """The enabled tools as MCP tool definitions: ``{"name", "description", "inputSchema"}``.

        Plus, where a tool has them, ``title``, ``annotations`` and ``outputSchema``
        (see :mod:`lagent_like.mcp`).
        """
        from ..mcp._metadata import mcp_extras  # imports no SDK

        def build(alias: str, text: str, schema: dict[str, Any]) -> dict[str, Any]:
            route = self._names[self._canonical.get(alias, alias)]
            extras = mcp_extras(route.action, route.key)
            return {"name": alias, "description": text, "inputSchema": schema, **extras}

        return self._exported("mcp", build)
