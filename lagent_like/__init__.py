"""lagent_like: the tool layer for LLM agents.

Write tools by subclassing :class:`BaseAction` (or decorating functions with
:func:`tool_api`), describe them to a model with
:meth:`ActionExecutor.get_actions_info`, and run the model's calls with
``executor(name, arguments)``, which always returns an :class:`ActionReturn`.

Importing the package changes no global state. The names of ``lagent_like.actions``
are read from it on first use (PEP 562), so that the shipped tools are imported only
when asked for.
"""

import typing

from . import actions, exceptions
from .exceptions import *  # noqa: F403 - every exception, listed in exceptions.__all__
from .langchain_tools import from_langchain, to_langchain_tools
from .runtime.context import ToolContext
from .runtime.hooks import ApprovalHook, Hook, HookHandle
from .runtime.policies import CircuitBreaker, CircuitState, RetryPolicy
from .runtime.settings import ToolSettings
from .schema import ActionReturn, ActionStatusCode, ActionValidCode

if typing.TYPE_CHECKING:  # the names of lagent_like.actions, which __getattr__ reads at run time
    from .actions import *  # noqa: F403

__version__ = "0.1.0"

__all__ = [
    "ActionReturn",
    "ActionStatusCode",
    "ActionValidCode",
    "ApprovalHook",
    "CircuitBreaker",
    "CircuitState",
    "Hook",
    "HookHandle",
    "RetryPolicy",
    "ToolContext",
    "ToolSettings",
    "__version__",
    "from_langchain",
    "to_langchain_tools",
]
__all__ += actions.__all__
__all__ += exceptions.__all__
__all__.sort()  # sorted, as tests/test_exported_members.py checks


def __getattr__(name: str) -> typing.Any:
    if name in actions.__all__:
        value = getattr(actions, name)
        globals()[name] = value
        return value
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})
