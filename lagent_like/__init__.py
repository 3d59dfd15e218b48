"""lagent_like: the tool layer for LLM agents.

Write tools by subclassing :class:`BaseAction` (or decorating functions with
:func:`tool_api`), describe them to a model with
:meth:`ActionExecutor.get_actions_info`, and run the model's calls with
``executor(name, arguments)``, which always returns an :class:`ActionReturn`.

Importing the package changes no global state.
"""

from .actions import (
    ActionExecutor,
    BaseAction,
    BaseParser,
    FinishAction,
    InvalidAction,
    JsonParser,
    NoAction,
    ToolMeta,
    TupleParser,
    tool_api,
)
from .exceptions import (
    DefinitionError,
    LagentLikeError,
    ModelInputError,
    ParseError,
    RegistryError,
    ToolDefinitionError,
    ToolNotFoundError,
)
from .registry import get_tool, get_tool_cls, list_tools
from .schema import ActionReturn, ActionStatusCode, ActionValidCode

__version__ = "0.1.0"

__all__ = [
    "ActionExecutor",
    "ActionReturn",
    "ActionStatusCode",
    "ActionValidCode",
    "BaseAction",
    "BaseParser",
    "DefinitionError",
    "FinishAction",
    "InvalidAction",
    "JsonParser",
    "LagentLikeError",
    "ModelInputError",
    "NoAction",
    "ParseError",
    "RegistryError",
    "ToolDefinitionError",
    "ToolMeta",
    "ToolNotFoundError",
    "TupleParser",
    "__version__",
    "get_tool",
    "get_tool_cls",
    "list_tools",
    "tool_api",
]
