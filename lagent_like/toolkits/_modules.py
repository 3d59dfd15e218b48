"""The tools a module defines: what ``-m MODULE`` and ``lint MODULE`` take from it."""

from __future__ import annotations

import inspect
from typing import Any, Callable

from ._base_action import BaseAction
from ._tool_api import api_spec_of

__all__ = ["module_functions"]


def module_functions(module: Any) -> list[Callable[..., Any]]:
    """The function tools ``module`` defines, for ``-m`` and ``lint``.

    The ``@tool_api`` functions it defines; if it defines none and no ``BaseAction``
    subclass either (a module of plain function tools), its public functions.
    """
    own = [
        (key, value)
        for key, value in vars(module).items()
        if getattr(value, "__module__", None) == module.__name__
        and (inspect.isfunction(value) or isinstance(value, type))
    ]
    marked: list[Callable[..., Any]] = [
        value for _, value in own if inspect.isfunction(value) and api_spec_of(value) is not None
    ]
    if marked or any(isinstance(value, type) and issubclass(value, BaseAction) for _, value in own):
        return marked
    return [value for key, value in own if inspect.isfunction(value) and not key.startswith("_")]
