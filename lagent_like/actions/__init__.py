"""Tools for LLM agents: define them (``BaseAction``, ``tool_api``), parse their
arguments (``JsonParser``, ``TupleParser``) and run them (``ActionExecutor``)."""

from .._private.describe import ApiSpec, Param
from .action_executor import ActionExecutor

# The shipped tools, registered in this order after the built-ins.
from .arxiv_search import ArxivSearch
from .async_executor import AsyncActionExecutor, AsyncActionMixin
from .base_action import BaseAction, ToolMeta, tool_api
from .builtin_actions import FinishAction, InvalidAction, NoAction
from .function_tool import FunctionTool
from .google_search import GoogleSearch
from .ipython_interpreter import IPythonInterpreter
from .parser import BaseParser, JsonParser, TupleParser
from .python_interpreter import PythonInterpreter
from .schema_tool import SchemaTool, tool_from_schema

__all__ = [
    "ActionExecutor",
    "ApiSpec",
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
    "Param",
    "PythonInterpreter",
    "SchemaTool",
    "ToolMeta",
    "TupleParser",
    "tool_api",
    "tool_from_schema",
]
