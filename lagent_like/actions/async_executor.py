"""``AsyncActionExecutor`` and ``AsyncActionMixin`` under their first import path."""

from ..executors._async_executor import AsyncActionExecutor
from ..toolkits._async_mixin import AsyncActionMixin

__all__ = ["AsyncActionExecutor", "AsyncActionMixin"]
