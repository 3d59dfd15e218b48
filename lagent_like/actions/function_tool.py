"""``FunctionTool`` under its first import path (it lives in :mod:`lagent_like.toolkits`)."""

from ..toolkits._function_tool import FunctionTool

__all__ = ["FunctionTool"]
