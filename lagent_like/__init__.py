"""lagent_like: the tool layer for LLM agents.

Write tools by subclassing :class:`BaseAction` (or decorating functions with
:func:`tool_api`), describe them to a model with
:meth:`ActionExecutor.get_actions_info`, and run the model's calls with
``executor(name, arguments)``, which always returns an :class:`ActionReturn`.

Importing the package changes no global state, and costs only what a program uses:
every name but the exceptions is read from its module on first use (PEP 562), so that
``import lagent_like.exceptions`` or a program that never runs a tool does not import
the executor, and ``from lagent_like import BaseAction`` imports what defining a tool
needs.
"""

import typing

from . import actions, exceptions
from ._private import lazy as _lazy
from ._private.version import __version__
from .exceptions import *  # noqa: F403 - every exception, listed in exceptions.__all__

if typing.TYPE_CHECKING:  # what __getattr__ imports on first use
    from .actions import *  # noqa: F403
    from .context import ToolContext
    from .executors._find import EmbeddingRanker, HybridRanker, LexicalRanker, ToolMatch
    from .langchain._convert import from_langchain, to_langchain_tools
    from .runtime.hooks import ApprovalHook, Hook, HookHandle
    from .runtime.policies import CircuitBreaker, CircuitState, RetryPolicy
    from .runtime.settings import ToolSettings
    from .schema import ActionReturn, ActionStatusCode, ActionValidCode


__all__ = [
    "ActionReturn",
    "ActionStatusCode",
    "ActionValidCode",
    "ApprovalHook",
    "CircuitBreaker",
    "CircuitState",
    "EmbeddingRanker",
    "Hook",
    "HookHandle",
    "HybridRanker",
    "LexicalRanker",
    "RetryPolicy",
    "ToolContext",
    "ToolMatch",
    "ToolSettings",
    "__version__",
    "from_langchain",
    "to_langchain_tools",
]
__all__ += actions.__all__
__all__ += exceptions.__all__
__all__.sort()  # sorted, as tests/test_exported_members.py checks


#: Names read on first use, with their modules: lagent_like.actions's (it imports the
#: shipped tools lazily too) and the rest of the public API.
_LAZY = {
    **dict.fromkeys(actions.__all__, "lagent_like.actions"),
    **dict.fromkeys(("ActionReturn", "ActionStatusCode", "ActionValidCode"), "lagent_like.schema"),
    **dict.fromkeys(("ApprovalHook", "Hook", "HookHandle"), "lagent_like.runtime.hooks"),
    **dict.fromkeys(("CircuitBreaker", "CircuitState", "RetryPolicy"), "lagent_like.runtime.policies"),
    **dict.fromkeys(
        ("EmbeddingRanker", "HybridRanker", "LexicalRanker", "ToolMatch"), "lagent_like.executors._find"
    ),
    **dict.fromkeys(("from_langchain", "to_langchain_tools"), "lagent_like.langchain._convert"),
    "ToolContext": "lagent_like.context",
    "ToolSettings": "lagent_like.runtime.settings",
}
#: Public submodules that importing the package imported before its names were read
#: on first use, with what they held then: ``lagent_like.schema`` and
#: ``lagent_like.runtime.hooks`` still work after a bare ``import lagent_like``.
_SUBMODULES = {
    "context": (),
    "langchain": (),
    "runtime": ("runtime.hooks", "runtime.policies", "runtime.settings"),
    "schema": (),
}
__getattr__ = _lazy.lazy_getattr(globals(), _LAZY, _SUBMODULES)


def __dir__() -> list[str]:
    return _lazy.public_dir(globals())
