"""Tools for LLM agents: define them (``BaseAction``, ``tool_api``), parse their
arguments (``JsonParser``, ``TupleParser``) and run them (``ActionExecutor``)."""

from typing import Any

# Lagent 0.2 exports the registry functions from this package too.
from ..registry import TOOL_REGISTRY, get_tool, get_tool_cls, list_tools
from ..spec.describe import ApiSpec, Param
from .action_executor import ActionExecutor
from .async_executor import AsyncActionExecutor, AsyncActionMixin
from .base_action import BaseAction, ToolMeta, tool_api
from .builtin_actions import FinishAction, InvalidAction, NoAction
from .function_tool import FunctionTool
from .object_toolkit import ObjectToolkit
from .parser import BaseParser, JsonParser, TupleParser
from .schema_tool import SchemaTool, tool_from_schema

# isort: split
# The shipped tools, registered in this order after the built-ins (the order of
# Lagent's tutorial: ArxivSearch, BINGMap, GoogleScholar, GoogleSearch, ...).
from ..tools.arxiv_search import ArxivSearch, AsyncArxivSearch
from ..tools.bing_map import AsyncBINGMap, BINGMap
from ..tools.google_scholar_search import AsyncGoogleScholar, GoogleScholar
from ..tools.google_search import AsyncGoogleSearch, GoogleSearch
from ..tools.ipython_interpreter import AsyncIPythonInterpreter, IPythonInterpreter
from ..tools.ppt import PPT, AsyncPPT
from ..tools.python_interpreter import AsyncPythonInterpreter, PythonInterpreter
from ..tools.web_browser import AsyncWebBrowser, WebBrowser

#: Lagent 0.5's ``Async*`` twins, registered after every sync tool so that
#: ``list_tools()`` starts as the tutorial's list does.
ASYNC_TWINS = (
    AsyncArxivSearch,
    AsyncBINGMap,
    AsyncGoogleScholar,
    AsyncGoogleSearch,
    AsyncIPythonInterpreter,
    AsyncPPT,
    AsyncPythonInterpreter,
    AsyncWebBrowser,
)
for _twin in ASYNC_TWINS:
    TOOL_REGISTRY.register(_twin, _twin.__tool_description__["name"])

__all__ = [
    "ActionExecutor",
    "ApiSpec",
    "ArxivSearch",
    "AsyncActionExecutor",
    "AsyncActionMixin",
    "AsyncArxivSearch",
    "AsyncBINGMap",
    "AsyncGoogleScholar",
    "AsyncGoogleSearch",
    "AsyncIPythonInterpreter",
    "AsyncPPT",
    "AsyncPythonInterpreter",
    "AsyncWebBrowser",
    "BINGMap",
    "BaseAction",
    "BaseParser",
    "FinishAction",
    "FunctionTool",
    "GoogleScholar",
    "GoogleSearch",
    "IPythonInterpreter",
    "InvalidAction",
    "JsonParser",
    "NoAction",
    "ObjectToolkit",
    "PPT",
    "Param",
    "PythonInterpreter",
    "SchemaTool",
    "ToolMeta",
    "TupleParser",
    "WebBrowser",
    "get_tool",
    "get_tool_cls",
    "list_tools",
    "tool_api",
    "tool_from_schema",
]


def __getattr__(name: str) -> Any:
    # Lagent 0.5 exports its IPython shell tool and its batch manager here. They are
    # imported on first use, so that importing the package neither needs IPython's extra
    # nor registers them before the tutorial's tools (``list_tools()`` order).
    if name in ("IPythonInteractive", "AsyncIPythonInteractive"):
        from ..tools import ipython_interactive

        return getattr(ipython_interactive, name)
    if name == "IPythonInteractiveManager":
        from ..tools.ipython_manager import IPythonInteractiveManager

        return IPythonInteractiveManager
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
