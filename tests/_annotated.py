"""A one-parameter tool for an annotation under test (not a test file).

The type tests define the same tool again and again: one parameter ``v`` of the
annotation under test, answering with what it received. It lives here once.
"""

from __future__ import annotations

import warnings
from typing import Any, Callable

from lagent_like import ActionExecutor, FunctionTool


def tool_of(annotation: Any, show: Callable[[Any], str] = repr, name: str = "f") -> FunctionTool:
    """A tool ``name`` whose one parameter ``v`` has ``annotation``; it returns ``show(v)``."""

    def f(v: Any) -> str:
        """Show the value.

        Args:
            v: the value.
        """
        return show(v)

    f.__annotations__["v"] = annotation
    return FunctionTool(f, name=name)


def quiet_executor(annotation: Any, show: Callable[[Any], str] = repr, name: str = "take") -> ActionExecutor:
    """An executor of :func:`tool_of`, whose definition must not warn (a JSON value fits the annotation)."""
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        return ActionExecutor([tool_of(annotation, show, name)])
