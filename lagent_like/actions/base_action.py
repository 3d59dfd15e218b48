"""Lagent's import path ``lagent.actions.base_action``.

``BaseAction`` and ``tool_api`` live in :mod:`lagent_like.toolkits`; ``AsyncActionMixin``
is here too, as in Lagent 0.5.
"""

from ..registry import TOOL_REGISTRY
from ..toolkits._async_mixin import AsyncActionMixin
from ..toolkits._base_action import BaseAction, ToolMeta, tool_api

__all__ = ["TOOL_REGISTRY", "AsyncActionMixin", "BaseAction", "ToolMeta", "tool_api"]
