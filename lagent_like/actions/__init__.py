"""Tools for LLM agents: define them (``BaseAction``, ``tool_api``), parse their
arguments (``JsonParser``, ``TupleParser``) and run them (``ActionExecutor``)."""

from .action_executor import ActionExecutor
from .async_executor import AsyncActionExecutor, AsyncActionMixin
from .base_action import BaseAction, ToolMeta, tool_api
from .builtin_actions import FinishAction, InvalidAction, NoAction
from .function_tool import FunctionTool
from .parser import BaseParser, JsonParser, TupleParser
from .schema_tool import SchemaTool, tool_from_schema

__all__ = [
    "ActionExecutor",
    "AsyncActionExecutor",
    "AsyncActionMixin",
    "BaseAction",
    "BaseParser",
    "FinishAction",
    "FunctionTool",
    "InvalidAction",
    "JsonParser",
    "NoAction",
    "SchemaTool",
    "ToolMeta",
    "TupleParser",
    "tool_api",
    "tool_from_schema",
]
