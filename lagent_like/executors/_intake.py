"""What an executor accepts: tools in the shapes users give them, and calls in a batch.

Lagent takes one action or a list of actions; this package also takes plain functions
and LangChain tools, and tells a user who passed a class instead of an instance how to
fix it. Every problem with the given tools is collected and reported at once. A batch
takes ``(name, command)`` pairs or OpenAI-style tool calls.
"""

from __future__ import annotations

from typing import Any, Callable, Optional, Union

from .._private.text import preview
from ..exceptions import DefinitionWarning, ToolDefinitionError
from ..toolkits._base_action import BaseAction
from ..toolkits._tool_state import (
    STATE_ATTR,
    _ToolState,
    class_settings_edits,
    class_settings_plain,
    state_of,
)
from ..toolkits._unread_settings import SETTING_NAMES, instance_notes
from ._exports import _read_tool_call

__all__ = ["ToolLike", "as_action", "batch_job", "named_actions"]

#: What an executor accepts as a tool, an action or a function that becomes a ``FunctionTool``.
ToolLike = Union[BaseAction, Callable[..., Any]]
_SETTING_NAMES = frozenset(SETTING_NAMES)


def as_action(item: Any, where: str, problems: list[str]) -> Optional[BaseAction]:
    """``item`` as an action: actions as they are, functions wrapped; else a problem."""
    # ``BaseAction`` in the MRO first: ``isinstance`` of an ABC runs Python code, once per tool.
    if BaseAction in type(item).__mro__ or isinstance(item, BaseAction):
        action: BaseAction = item
        if not _SETTING_NAMES.isdisjoint(action.__dict__):  # rare: tool.timeout = 5.0 on a BaseAction
            _warn_unread(action)
        return action
    # Imported on first use: a catalogue of plain actions never needs the LangChain bridge.
    from ..langchain._convert import from_langchain, is_langchain_tool

    if is_langchain_tool(item):  # a LangChain BaseTool is callable too: before functions
        try:
            return from_langchain(item)
        except (ToolDefinitionError, ImportError) as exc:
            problems.append(f"{where}: {exc}")
            return None
    if isinstance(item, type) and issubclass(item, BaseAction):
        problems.append(f"{where} is the class {item.__name__}; pass an instance, e.g. {item.__name__}()")
        return None
    if callable(item) and not isinstance(item, type):
        from ..toolkits._function_tool import FunctionTool  # import time: see ExecutorBase.__init__

        try:
            return FunctionTool(item)
        except ToolDefinitionError as exc:
            problems.append(f"{where}: {exc}")
            return None
    problems.append(
        f"{where} is {type(item).__name__} {preview(item)}, expected a BaseAction instance or a function"
    )
    return None


def _warn_unread(action: BaseAction) -> None:
    """Warn of ``action``'s attributes named like runtime settings that nothing reads."""
    import warnings

    from ..spec._describe import definition_stacklevel

    for note in instance_notes(action):
        warnings.warn(
            f"{type(action).__qualname__}: {note}", DefinitionWarning, stacklevel=definition_stacklevel()
        )


def _tool_list(actions: Any) -> list[Any]:
    """The tools given to an executor: one tool, or an iterable of them (Lagent takes both)."""
    if isinstance(actions, BaseAction) or (callable(actions) and not isinstance(actions, type)):
        return [actions]
    return list(actions)


def named_actions(
    actions: Any, finish: Optional[BaseAction]
) -> tuple[dict[str, BaseAction], list[tuple[BaseAction, _ToolState]], bool]:
    """Name -> action of the tools given to an executor, and ``finish`` when it is offered too.

    Also ``(action, its state)`` of each, in order: read here once, so that building
    the routes looks nothing up on the tools again (with thousands of tool classes,
    each attribute read on a tool's class misses Python's type cache); and whether
    no tool sets runtime settings of its own (``__tool_settings__``).

    Raises:
        ToolDefinitionError: an entry is not an action, or two actions share a name.
    """
    problems: list[str] = []
    given: list[tuple[BaseAction, _ToolState]] = []
    named: dict[str, BaseAction] = {}
    duplicates: set[str] = set()
    plain = True
    edits = class_settings_edits()
    # One pass, each tool's attributes read once: a catalogue may hold thousands of tools.
    for i, item in enumerate(_tool_list(actions)):
        if BaseAction in type(item).__mro__:  # as as_action(), with the state read from the same dict
            values = item.__dict__
            if len(values) > 1:  # most hold only their state
                plain = plain and "__tool_settings__" not in values
                if not _SETTING_NAMES.isdisjoint(values):
                    _warn_unread(item)
            pair = (item, values.get(STATE_ATTR) or state_of(item))
        else:
            action = as_action(item, f"actions[{i}]", problems)
            if action is None:
                continue
            pair = (action, state_of(action))
            plain = False  # a function or a LangChain tool: asked as before
        if pair[1].plain_at != edits:
            plain = plain and class_settings_plain(pair[1], type(pair[0]))
        given.append(pair)
        _name(pair, named, duplicates)
    if finish is not None:
        given.append((finish, state_of(finish)))
        _name(given[-1], named, duplicates)
    if duplicates:
        problems.append(f"several actions are named {sorted(duplicates)}; tool names must be unique")
    if problems:
        raise ToolDefinitionError("ActionExecutor", problems)
    return named, given, plain


def _name(pair: tuple[BaseAction, _ToolState], named: dict[str, BaseAction], duplicates: set[str]) -> None:
    """Put ``pair``'s action in ``named`` under its name, noting a name given twice."""
    name = pair[1].name
    if name in named:
        duplicates.add(name)
    named[name] = pair[0]


def batch_job(call: Any) -> tuple[Any, Any, Optional[str]]:
    """``(name, command, call_id)`` of a ``(name, command)`` pair or an OpenAI tool call."""
    if isinstance(call, (tuple, list)) and len(call) == 2:
        return call[0], call[1], None
    call_id, name, arguments = _read_tool_call(call)
    return name, arguments, call_id if isinstance(call_id, str) else None
