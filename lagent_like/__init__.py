"""lagent_like: the tool layer for LLM agents.

Write tools by subclassing :class:`BaseAction` (or decorating functions with
:func:`tool_api`), describe them to a model with
:meth:`ActionExecutor.get_actions_info`, and run the model's calls with
``executor(name, arguments)``, which always returns an :class:`ActionReturn`.

Importing the package changes no global state.
"""

from .actions import (
    ActionExecutor,
    ArxivSearch,
    AsyncActionExecutor,
    AsyncActionMixin,
    BaseAction,
    BaseParser,
    FinishAction,
    FunctionTool,
    GoogleSearch,
    InvalidAction,
    IPythonInterpreter,
    JsonParser,
    NoAction,
    ObjectToolkit,
    PythonInterpreter,
    SchemaTool,
    ToolMeta,
    TupleParser,
    tool_api,
    tool_from_schema,
)
from .context import ToolContext
from .exceptions import (
    DefinitionError,
    DefinitionWarning,
    LagentLikeError,
    ModelClientError,
    ModelConnectionError,
    ModelHTTPError,
    ModelInputError,
    ModelResponseError,
    ModelTimeoutError,
    ParseError,
    RegistryError,
    ToolDefinitionError,
    ToolError,
    ToolNotFoundError,
    TransientToolError,
)
from .hooks import ApprovalHook, Hook, HookHandle
from .policies import CircuitBreaker, CircuitState, RetryPolicy
from .registry import get_tool, get_tool_cls, list_tools
from .schema import ActionReturn, ActionStatusCode, ActionValidCode

__version__ = "0.1.0"

__all__ = [
    "ActionExecutor",
    "ActionReturn",
    "ActionStatusCode",
    "ActionValidCode",
    "ApprovalHook",
    "ArxivSearch",
    "AsyncActionExecutor",
    "AsyncActionMixin",
    "BaseAction",
    "BaseParser",
    "CircuitBreaker",
    "CircuitState",
    "DefinitionError",
    "DefinitionWarning",
    "FinishAction",
    "FunctionTool",
    "GoogleSearch",
    "Hook",
    "HookHandle",
    "IPythonInterpreter",
    "InvalidAction",
    "JsonParser",
    "LagentLikeError",
    "ModelClientError",
    "ModelConnectionError",
    "ModelHTTPError",
    "ModelInputError",
    "ModelResponseError",
    "ModelTimeoutError",
    "NoAction",
    "ObjectToolkit",
    "ParseError",
    "PythonInterpreter",
    "RegistryError",
    "RetryPolicy",
    "SchemaTool",
    "ToolContext",
    "ToolDefinitionError",
    "ToolError",
    "ToolMeta",
    "ToolNotFoundError",
    "TransientToolError",
    "TupleParser",
    "__version__",
    "get_tool",
    "get_tool_cls",
    "list_tools",
    "tool_api",
    "tool_from_schema",
]
