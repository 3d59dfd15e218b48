"""Tools for LLM agents: define them (``BaseAction``, ``tool_api``), parse their
arguments (``JsonParser``, ``TupleParser``) and run them (``ActionExecutor``)."""

# Lagent 0.2 exports the registry functions from this package too.
from ..registry import get_tool, get_tool_cls, list_tools
from .action_executor import ActionExecutor

# The shipped tools, registered in this order after the built-ins.
from .arxiv_search import ArxivSearch
from .async_executor import AsyncActionExecutor, AsyncActionMixin
from .base_action import BaseAction, ToolMeta, tool_api
from .builtin_actions import FinishAction, InvalidAction, NoAction
from .function_tool import FunctionTool
from .google_search import GoogleSearch
from .ipython_interpreter import IPythonInterpreter
from .object_toolkit import ObjectToolkit
from .parser import BaseParser, JsonParser, TupleParser
from .python_interpreter import PythonInterpreter
from .schema_tool import SchemaTool, tool_from_schema

__all__ = [
    "ActionExecutor",
    "ArxivSearch",
    "AsyncActionExecutor",
    "AsyncActionMixin",
    "BaseAction",
    "BaseParser",
    "FinishAction",
    "FunctionTool",
    "GoogleSearch",
    "IPythonInterpreter",
    "InvalidAction",
    "JsonParser",
    "NoAction",
    "ObjectToolkit",
    "PythonInterpreter",
    "SchemaTool",
    "ToolMeta",
    "TupleParser",
    "get_tool",
    "get_tool_cls",
    "list_tools",
    "tool_api",
    "tool_from_schema",
]
