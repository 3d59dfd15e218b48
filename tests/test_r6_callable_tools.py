"""A ``functools.partial`` or a callable object is described by the docstring that says what it does.

A partial's ``__doc__`` is the ``functools.partial`` class's ("partial(func, *args,
**keywords) - new function with partial application ..."), which became the tool's
description, with every parameter undescribed; a callable object's is its class's,
while its ``__call__`` documents the call. ``FunctionTool(partial, name=...)`` also
refused the partial although a name was given.
"""

from __future__ import annotations

import functools
import warnings
from typing import Any, Callable

import pytest

from lagent_like import ActionExecutor, FunctionTool, ToolDefinitionError, tool_api


def add(a: int, b: int, c: int = 0) -> int:
    """Add three numbers.

    Args:
        a: the first.
        b: the second.
        c: the third.
    """
    return a + b + c


class Doubler:
    """Holds no state."""

    def __call__(self, x: int) -> int:
        """Double a number.

        Args:
            x: the number.
        """
        return 2 * x


class Tripler:
    """Triple a number.

    Args:
        x: the number.
    """

    def __call__(self, x: int) -> int:
        return 3 * x


@pytest.mark.parametrize(
    ("func", "description", "parameters", "arguments", "result"),
    [
        pytest.param(
            functools.partial(add, 1),
            "Add three numbers.",
            [("b", "the second."), ("c", "the third.")],
            '{"b": 2, "c": 3}',
            "6",
            id="partial",
        ),
        pytest.param(
            functools.partial(functools.partial(add, 1), c=5),
            "Add three numbers.",
            [("b", "the second."), ("c", "the third.")],
            '{"b": 2}',
            "8",
            id="partial-of-a-partial",
        ),
        pytest.param(
            Doubler(), "Double a number.", [("x", "the number.")], '{"x": 4}', "8", id="call-docstring"
        ),
        pytest.param(
            Tripler(), "Triple a number.", [("x", "the number.")], '{"x": 4}', "12", id="class-docstring"
        ),
    ],
)
def test_a_callable_is_described_by_the_docstring_of_what_it_calls(
    func: Callable[..., Any], description: str, parameters: list[tuple[str, str]], arguments: str, result: str
) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # a bound parameter's docstring entry is not a stray
        tool = FunctionTool(func, name="tool")
    executor = ActionExecutor([tool])
    info = executor.get_actions_info()[0]
    assert info["description"] == description
    assert [(p["name"], p["description"]) for p in info["parameters"]] == parameters
    assert executor("tool", arguments).result == [{"type": "text", "content": result}]


def test_a_partial_without_a_name_is_refused_naming_both_ways_to_give_one() -> None:
    with pytest.raises(
        ToolDefinitionError,
        match=r"has no __name__ to call the API by; give one: tool_api\(name=\.\.\.\) or FunctionTool\(func, name=\.\.\.\)",
    ):
        FunctionTool(functools.partial(add, 1))


@pytest.mark.parametrize(
    "make",
    [
        pytest.param(lambda: FunctionTool(add, name=""), id="function-tool-empty"),
        pytest.param(lambda: FunctionTool(add, name=5), id="function-tool-number"),
        pytest.param(lambda: tool_api(name="")(add), id="tool-api-empty"),
    ],
)
def test_a_bad_name_given_is_refused_as_such(make: Callable[[], Any]) -> None:
    with pytest.raises(ToolDefinitionError, match=r"add: the name must be a non-empty string, got (''|5)$"):
        make()
