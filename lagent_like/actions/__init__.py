"""Tools for LLM agents: define them (``BaseAction``, ``tool_api``), parse their
arguments (``JsonParser``, ``TupleParser``) and run them (``ActionExecutor``)."""

from .action_executor import ActionExecutor
from .base_action import BaseAction, ToolMeta, tool_api
from .builtin_actions import FinishAction, InvalidAction, NoAction
from .parser import BaseParser, JsonParser, TupleParser

__all__ = [
    "ActionExecutor",
    "BaseAction",
    "BaseParser",
    "FinishAction",
    "InvalidAction",
    "JsonParser",
    "NoAction",
    "ToolMeta",
    "TupleParser",
    "tool_api",
]
