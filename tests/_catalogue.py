"""The many small tools the catalogue tests build, and what they count (not a test file).

A catalogue test makes hundreds or thousands of tools that differ only in name and
checks what grows with their number, by counters, never by time. Nothing is registered
or kept: every call makes a new class, and the counter's patch ends with its test's
``monkeypatch``.
"""

from __future__ import annotations

from typing import Any

import pytest

from lagent_like import BaseAction
from lagent_like.executors._base import ExecutorBase


def tool_class(name: str) -> type[BaseAction]:
    """A simple tool class called ``name`` taking one int."""

    class Tool(BaseAction, register=False):
        """A tool."""

        __tool_name__ = name

        def run(self, a: int) -> int:
            """Echo a number.

            Args:
                a: a number
            """
            return a

    return Tool


def simple_tool(name: str, **options: Any) -> BaseAction:
    """A simple tool called ``name`` taking one int (``options`` go to its constructor)."""
    return tool_class(name)(**options)


def count_route_builds(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The call names whose routes executors resolve from now on, in order (a fixture's body)."""
    built: list[str] = []
    resolve = ExecutorBase._route

    def counted(self: ExecutorBase, action: BaseAction, name: str, own: Any) -> Any:
        built.append(name)
        return resolve(self, action, name, own)

    monkeypatch.setattr(ExecutorBase, "_route", counted)
    return built
