"""``ActionExecutor``: one place that describes tools to a model and runs its calls.

It flattens toolkits into ``Tool.api`` entries for the system prompt, exports the same
tools for native function calling (OpenAI, Anthropic, MCP shapes, under legal alias
names), routes a call by name or alias to the right action and API, and sends names it
does not know to the built-in invalid/no/finish actions. Routing is a single dict
lookup, rebuilt whenever the set of actions changes, so the per-call path stays short.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any, Callable, Optional, Union

from .._private.aliases import assign_aliases
from .._private.describe import copy_description
from .._private.text import close_matches, did_you_mean, preview
from ..exceptions import ToolDefinitionError, ToolNotFoundError
from ..schema import ActionReturn, ActionStatusCode, ActionValidCode
from .base_action import BaseAction, Invoker
from .builtin_actions import FinishAction, InvalidAction, NoAction
from .function_tool import FunctionTool

__all__ = ["ActionExecutor"]

_Route = tuple[BaseAction, Invoker]

#: What an executor accepts as a tool: an action, or a function that becomes a ``FunctionTool``.
ToolLike = Union[BaseAction, Callable[..., Any]]


def _as_action(item: Any, where: str, problems: list[str]) -> Optional[BaseAction]:
    """``item`` as an action: actions as they are, functions wrapped; else a problem."""
    if isinstance(item, BaseAction):
        return item
    if isinstance(item, type) and issubclass(item, BaseAction):
        problems.append(f"{where} is the class {item.__name__}; pass an instance, e.g. {item.__name__}()")
        return None
    if callable(item) and not isinstance(item, type):
        try:
            return FunctionTool(item)
        except ToolDefinitionError as exc:
            problems.append(f"{where}: {exc}")
            return None
    problems.append(
        f"{where} is {type(item).__name__} {preview(item)}, expected a BaseAction instance or a function"
    )
    return None


def _api_named(action: BaseAction, name: str) -> dict[str, Any]:
    api = action._api_description(name[len(action.name) + 1 :])
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


def _routes_of(action: BaseAction) -> dict[str, _Route]:
    """Callable name -> (action, compiled call) for each API the action can run."""
    if action.is_toolkit:
        pairs = [
            (f"{action.name}.{api['name']}", action.invoker(api["name"]))
            for api in action.description["api_list"]
        ]
    else:
        pairs = [(action.name, action.invoker("run"))]
    return {name: (action, invoke) for name, invoke in pairs if invoke is not None}


class ActionExecutor:
    """Holds a set of actions, describes them, and runs a model's calls.

    Args:
        actions: the tools with distinct names: ``BaseAction`` instances, or functions
            (``@tool_api`` or just type-hinted), each made a simple tool of its own.
        invalid_action: answers unknown or disabled tool names (default ``InvalidAction()``).
        no_action: answers turns without a tool (default ``NoAction()``).
        finish_action: answers the final answer (default ``FinishAction()``).
        finish_in_action: also list the finish action among the tools offered to the model.

    Raises:
        ToolDefinitionError: an entry is not an action, or two actions share a name.
    """

    def __init__(
        self,
        actions: Iterable[ToolLike],
        invalid_action: Optional[BaseAction] = None,
        no_action: Optional[BaseAction] = None,
        finish_action: Optional[BaseAction] = None,
        finish_in_action: bool = False,
    ) -> None:
        self.invalid_action = invalid_action if invalid_action is not None else InvalidAction()
        self.no_action = no_action if no_action is not None else NoAction()
        self.finish_action = finish_action if finish_action is not None else FinishAction()
        problems: list[str] = []
        given = [_as_action(item, f"actions[{i}]", problems) for i, item in enumerate(actions)]
        if finish_in_action:
            given.append(self.finish_action)
        names = [a.name for a in given if a is not None]
        duplicates = sorted({n for n in names if names.count(n) > 1})
        if duplicates:
            problems.append(f"several actions are named {duplicates}; tool names must be unique")
        if problems:
            raise ToolDefinitionError("ActionExecutor", problems)
        self.actions: dict[str, BaseAction] = {a.name: a for a in given if a is not None}
        self._routes: dict[str, _Route] = {}
        self._names: dict[str, _Route] = {}
        self._aliases: dict[str, str] = {}
        self._canonical: dict[str, str] = {}
        self._exports: dict[str, tuple[tuple[Any, ...], list[dict[str, Any]]]] = {}
        self._version = 0
        self._rebuild_routes()

    def _rebuild_routes(self) -> None:
        names: dict[str, _Route] = {}
        clashes = []
        for action in self.actions.values():
            for name, route in _routes_of(action).items():
                if name in names:
                    clashes.append(f"{name!r} is both {names[name][0].name}'s and {action.name}'s")
                names[name] = route
        if clashes:
            raise ToolDefinitionError("ActionExecutor", [f"call name {c}" for c in clashes])
        aliases = assign_aliases(names)
        routes = dict(names)
        for name, alias in aliases.items():
            routes.setdefault(alias, names[name])
        # Built aside and swapped in whole, so a call never sees a half-built table.
        self._names = names
        self._aliases = aliases
        self._canonical = {alias: name for name, alias in aliases.items()}
        self._routes = routes
        self._version += 1

    def __call__(self, name: str, command: Any) -> ActionReturn:
        """Run the call a model asked for and return its record.

        Args:
            name: ``'Tool'`` for a simple tool, ``'Tool.api'`` for a toolkit API.
            command: the model's argument string (or a dict / tuple for the parser).
        """
        try:
            action, invoke = self._routes[name]
        except (KeyError, TypeError):
            return self._call_unrouted(name, command)
        if not action._enable:
            return self._call_unrouted(name, command)
        ret = invoke(command)
        # Records built by the action are OPEN already; a tool's own record may not be.
        if ret.valid and action is not self.finish_action:
            ret.valid = ActionValidCode.OPEN
        return ret

    def _call_unrouted(self, name: Any, command: Any) -> ActionReturn:
        if isinstance(name, str):
            tool, _, api = name.partition(".")
            action = self.actions.get(tool)
            if action is not None and action.enable:
                ret = action(command, api or "run")
                ret.valid = ActionValidCode.OPEN
                return ret
            if name == self.no_action.name:
                return self.no_action(command)
            if name == self.finish_action.name:
                return self.finish_action(command)
        ret = self.invalid_action(self._unknown_message(name))
        ret.args = {"inputs": command, "name": name}
        return ret

    def _unknown_message(self, name: Any) -> str:
        available = self.api_names()
        canonical = self._canonical.get(name, name) if isinstance(name, str) else None
        tool = canonical.partition(".")[0] if canonical is not None else None
        known = canonical in self.actions or tool in self.actions
        head = f"Tool {name!r} is disabled." if known else f"Unknown tool {preview(name)}."
        return (
            f"{head}{did_you_mean(str(name), available)} Available tools: {', '.join(available) or 'none'}."
        )

    def get_actions_info(self) -> list[dict[str, Any]]:
        """Descriptions of the enabled tools for a system prompt.

        A toolkit contributes one entry per API, named ``'Tool.api'``. The entries are
        copies; changing them changes nothing in the executor.
        """
        info = []
        for action in self.actions.values():
            if not action.enable:
                continue
            if action.is_toolkit:
                for api in action.description["api_list"]:
                    entry = copy_description(api)
                    entry["name"] = f"{action.name}.{api['name']}"
                    info.append(entry)
            else:
                info.append(copy_description(action.description))
        return info

    def api_names(self, only_enable: bool = True) -> list[str]:
        """Callable names (``'Tool'`` and ``'Tool.api'``), as a model sees them."""
        return [n for n, (a, _) in self._names.items() if a.enable or not only_enable]

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
        action = self._names[canonical][0]
        return action.json_schema(canonical[len(action.name) + 1 :] if action.is_toolkit else "run")

    def _exported(
        self, shape: str, build: Callable[[str, str, dict[str, Any]], dict[str, Any]]
    ) -> list[dict[str, Any]]:
        # Cached until the set of actions or their enabled flags change.
        key = (self._version, tuple(a.enable for a in self.actions.values()))
        cached = self._exports.get(shape)
        if cached is None or cached[0] != key:
            entries = []
            for name, (action, _) in self._names.items():
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
        """The enabled tools as MCP tool definitions: ``{"name", "description", "inputSchema"}``."""
        return self._exported(
            "mcp", lambda name, text, schema: {"name": name, "description": text, "inputSchema": schema}
        )

    def run_tool_calls(self, tool_calls: Sequence[Any]) -> list[dict[str, Any]]:
        """Run OpenAI-style ``tool_calls`` and return one tool message per call, in order.

        Each call is ``{"id", "type": "function", "function": {"name", "arguments"}}``
        (a dict, or an object with those attributes as client libraries return), where
        ``arguments`` is a JSON string or a dict. Each message is ``{"role": "tool",
        "tool_call_id", "content"}``; the content is the result, or the error text for
        the model when the call failed. A malformed call gets an error message too.
        """
        messages = []
        for index, call in enumerate(tool_calls):
            call_id, name, arguments = _read_tool_call(call)
            if name is None:
                content = (
                    f"tool call {index} has no function name; "
                    "send {'function': {'name': ..., 'arguments': ...}}"
                )
            else:
                ret = self(name, arguments)
                content = ret.format_result() if ret.state == ActionStatusCode.SUCCESS else (ret.errmsg or "")
            messages.append({"role": "tool", "tool_call_id": call_id, "content": content})
        return messages

    def action_names(self, only_enable: bool = True) -> list[str]:
        """Names of the actions held (only the enabled ones by default)."""
        return [n for n, a in self.actions.items() if a.enable or not only_enable]

    def is_valid(self, name: str) -> bool:
        """Whether ``name`` (``'Tool'`` or ``'Tool.api'``) is held and enabled."""
        action = self.actions.get(name)
        if action is None:
            route = self._routes.get(name)
            action = route[0] if route else None
        return action is not None and action.enable

    def add_action(self, action: ToolLike) -> None:
        """Add ``action`` (an action or a function), replacing any action of the same name.

        Raises:
            ToolDefinitionError: ``action`` is neither an action nor a function, or one of
                its call names is another tool's (the executor is then left unchanged).
        """
        problems: list[str] = []
        tool = _as_action(action, "add_action", problems)
        if tool is None:
            raise ToolDefinitionError("ActionExecutor", problems)
        previous = self.actions
        self.actions = {**previous, tool.name: tool}
        try:
            self._rebuild_routes()
        except ToolDefinitionError:
            self.actions = previous
            raise

    def del_action(self, name: str) -> None:
        """Remove the action called ``name``.

        Raises:
            ToolNotFoundError: no action has that name (a ``KeyError``).
        """
        if name not in self.actions:
            raise ToolNotFoundError(name, close_matches(name, self.actions), where="in this executor")
        actions = dict(self.actions)
        del actions[name]
        self.actions = actions
        self._rebuild_routes()

    def __contains__(self, name: object) -> bool:
        return name in self.actions or name in self._routes
