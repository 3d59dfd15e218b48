"""Callables that are not functions (a ``functools.partial``, an object with ``__call__``)
are described from their signature, annotations included.

This module does not use ``from __future__ import annotations``: its annotations are
objects, as ``inspect.signature`` reports them for such callables.
"""

import functools
from typing import Any

import pytest

from lagent_like import ToolDefinitionError
from lagent_like.spec._api_spec import DescribeOptions
from lagent_like.toolkits._tool_api import describe_function


def repeat(text: str, times: int, sep: str = " ") -> str:
    """Repeat a text.

    Args:
        text: the text to repeat
        times: how many copies
        sep: what goes between the copies
    """
    return sep.join([text] * times)


class Scale:
    """An object whose ``__call__`` is the API."""

    __name__ = "scale"

    def __call__(self, value: float, factor: float = 2.0) -> float:
        """Multiply a number.

        Args:
            value: the number
            factor: the multiplier
        """
        return value * factor


def _partial() -> Any:
    bound = functools.partial(repeat, sep="-")
    bound.__doc__ = repeat.__doc__
    return bound


def _scale() -> Any:
    scale = Scale()
    scale.__doc__ = Scale.__call__.__doc__
    return scale


@pytest.mark.parametrize(
    ("make", "name", "expected"),
    [
        pytest.param(
            _partial,
            "repeat_dashed",
            [("text", "STRING", str, True), ("times", "NUMBER", int, True), ("sep", "STRING", str, False)],
            id="partial",
        ),
        pytest.param(
            _scale,
            None,
            [("value", "FLOAT", float, True), ("factor", "FLOAT", float, False)],
            id="callable-object",
        ),
    ],
)
def test_callables_are_described_with_their_annotations(
    make: Any, name: Any, expected: list[tuple[str, str, type, bool]]
) -> None:
    spec = describe_function(make(), DescribeOptions(name=name))
    assert [(p.name, p.type, p.annotation, p.required) for p in spec.params] == expected
    validators, _ = spec.checks
    assert sorted(validators) == sorted(p[0] for p in expected)


def test_a_callable_without_a_name_needs_one_given() -> None:
    bound = functools.partial(repeat, sep="-")
    with pytest.raises(
        ToolDefinitionError, match=r"has no __name__ to call the API by; give one: tool_api\(name=\.\.\.\)"
    ):
        describe_function(bound)
    assert describe_function(bound, DescribeOptions(name="dashed")).name == "dashed"
