"""Lagent's import paths: ``lagent.actions`` names, re-exported from their homes.

Tools for LLM agents: define them (``BaseAction``, ``tool_api``), parse their
arguments (``JsonParser``, ``TupleParser``) and run them (``ActionExecutor``).

Every name but the registry's is imported on first use (PEP 562 ``__getattr__``), the
shipped tools (``ArxivSearch``, ``PythonInterpreter``, ...) and the built-in actions
too: importing the package costs only what a program uses, and the registry lists the
tools in Lagent's order anyway (``lagent_like.registry.BUILTIN_TOOLS``).
"""

from typing import TYPE_CHECKING, Any

from .._private import lazy as _lazy

# Lagent 0.2 exports the registry functions from this package too.
from ..registry import BUILTIN_TOOLS, get_tool, get_tool_cls, list_tools
from ..registry import TOOL_REGISTRY as TOOL_REGISTRY  # importable from here, as before

if TYPE_CHECKING:  # what __getattr__ imports on first use (_LAZY)
    from ..executors._action_executor import ActionExecutor
    from ..executors._async_executor import AsyncActionExecutor
    from ..spec._api_spec import ApiSpec, Param
    from ..toolkits._async_mixin import AsyncActionMixin
    from ..toolkits._base_action import BaseAction, ObjectToolkit, ToolMeta, tool_api
    from ..toolkits._builtin_actions import FinishAction, InvalidAction, NoAction
    from ..toolkits._function_tool import FunctionTool
    from ..toolkits._schema_tool import SchemaTool, tool_from_schema
    from ..tools.interpreters.ipython_interpreter import AsyncIPythonInterpreter, IPythonInterpreter
    from ..tools.interpreters.python_interpreter import AsyncPythonInterpreter, PythonInterpreter
    from ..tools.ppt import PPT, AsyncPPT
    from ..tools.web.arxiv_search import ArxivSearch, AsyncArxivSearch
    from ..tools.web.bing_map import AsyncBINGMap, BINGMap
    from ..tools.web.google_scholar_search import AsyncGoogleScholar, GoogleScholar
    from ..tools.web.google_search import AsyncGoogleSearch, GoogleSearch
    from ..tools.web.web_browser import AsyncWebBrowser, WebBrowser
    from .parser import BaseParser, JsonParser, TupleParser

#: Names imported on first use, with their modules: the core (so that importing the
#: package, or any module of it, costs only what is used), the registered built-ins,
#: what only some programs use, and Lagent 0.5's IPython shell tool and batch manager,
#: which are not exported from ``lagent_like`` (they need IPython's extra) and register
#: when first used (after the tutorial's tools).
_LAZY: dict[str, str] = {
    "ActionExecutor": "lagent_like.executors._action_executor",
    **dict.fromkeys(("ApiSpec", "Param"), "lagent_like.spec._api_spec"),
    **dict.fromkeys(("ToolMeta", "tool_api"), "lagent_like.toolkits._base_action"),
    **dict.fromkeys(("BaseParser", "JsonParser", "TupleParser"), "lagent_like.actions.parser"),
    **BUILTIN_TOOLS,
    "AsyncActionExecutor": "lagent_like.executors._async_executor",
    "AsyncActionMixin": "lagent_like.toolkits._async_mixin",
    "FunctionTool": "lagent_like.toolkits._function_tool",
    "ObjectToolkit": "lagent_like.toolkits._base_action",
    **dict.fromkeys(("SchemaTool", "tool_from_schema"), "lagent_like.toolkits._schema_tool"),
    "IPythonInteractive": "lagent_like.tools.interpreters.ipython_interactive",
    "AsyncIPythonInteractive": "lagent_like.tools.interpreters.ipython_interactive",
    "IPythonInteractiveManager": "lagent_like.tools.interpreters.ipython_manager",
}

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


_getattr = _lazy.lazy_getattr(globals(), _LAZY)


def __getattr__(name: str) -> Any:
    if name == "ASYNC_TWINS":
        # Lagent 0.5's ``Async*`` twins of the shipped tools (the CLI leaves them out).
        twins = tuple(_getattr(twin) for twin in BUILTIN_TOOLS if twin.startswith("Async"))
        globals()["ASYNC_TWINS"] = twins
        return twins
    return _getattr(name)


def __dir__() -> list[str]:
    return _lazy.public_dir(globals())
