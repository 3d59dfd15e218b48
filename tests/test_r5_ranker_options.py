"""LexicalRanker refuses options that would silently rank otherwise (a bool, a string, a typo'd field)."""

from __future__ import annotations

from typing import Any

import pytest

from lagent_like import ActionExecutor, FunctionTool
from lagent_like.executors._find import LexicalRanker


@pytest.mark.parametrize(
    ("options", "error", "message"),
    [
        pytest.param({"spelling": True}, TypeError, r"spelling must be a number, got bool True", id="bool"),
        pytest.param({"grams": "12"}, TypeError, r"grams must be a number, got str '12'", id="str"),
        pytest.param(
            {"coverage": -0.2}, ValueError, r"coverage must be a finite number >= 0, got -0\.2", id="neg"
        ),
        pytest.param({"k1": float("nan")}, ValueError, r"k1 must be a finite number >= 0, got nan", id="nan"),
        pytest.param({"name_bonus": float("inf")}, ValueError, r"name_bonus must be a finite", id="inf"),
        pytest.param({"b": 1.5}, ValueError, r"b must be between 0 and 1, got 1\.5", id="b-above-1"),
        pytest.param(
            {"weights": {"titel": 2.0}},
            ValueError,
            r"weights names no field \['titel'\]: the fields are \['title', 'description', 'parameters'\]",
            id="unknown-field",
        ),
        pytest.param({"weights": [("title", 2.0)]}, TypeError, r"weights must be a dict", id="weights-list"),
        pytest.param(
            {"weights": {"title": None}}, TypeError, r"title must be a number, got NoneType", id="weight"
        ),
    ],
)
def test_a_lexical_ranker_refuses_an_option_that_is_not_a_usable_number(
    options: dict[str, Any], error: type[Exception], message: str
) -> None:
    with pytest.raises(error, match=rf"^LexicalRanker: {message}"):
        LexicalRanker(**options)


def forecast(city: str) -> str:
    """Get the weather forecast for a city.

    Args:
        city: the city.
    """
    return city


def test_a_lexical_ranker_takes_whole_numbers_and_zero_weights() -> None:
    ranker = LexicalRanker(k1=2, b=0, grams=0, spelling=0, weights={"parameters": 0})
    executor = ActionExecutor([FunctionTool(forecast)])
    assert [m.name for m in executor.find_tools("weather forecast", k=1, ranker=ranker)] == ["forecast"]
