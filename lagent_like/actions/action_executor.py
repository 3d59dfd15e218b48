"""Lagent's import path ``lagent.actions.action_executor``.

The executors live in :mod:`lagent_like.executors`; ``AsyncActionExecutor`` is here
too, as in Lagent 0.5.
"""

from ..executors._action_executor import ActionExecutor, ExecutorOptions, ToolLike
from ..executors._async_executor import AsyncActionExecutor

__all__ = ["ActionExecutor", "AsyncActionExecutor", "ExecutorOptions", "ToolLike"]
