"""Arguments checked without rebuilding what is already right (issue 25): same object back, same refusals."""

from __future__ import annotations

import json
from typing import Any

import pytest

from lagent_like import ActionExecutor, FunctionTool
from lagent_like.types import _families as fam
from lagent_like.types._python_values import _mapping, _sequence

ARRAY = fam.ARRAY.checks[fam.COERCE]
OBJECT = fam.OBJECT.checks[fam.COERCE]
STR = fam.STRING.checks[fam.COERCE]
INT = fam.INTEGER.checks[fam.COERCE]
STRINGS = _sequence(ARRAY, STR, list)
COUNTS = _mapping(OBJECT, STR, INT)
ROWS = _sequence(ARRAY, COUNTS, list)


@pytest.mark.parametrize(
    ("check", "value"),
    [
        pytest.param(STRINGS, ["a", "b", "c"], id="list-of-str"),
        pytest.param(STRINGS, [], id="empty-list"),
        pytest.param(COUNTS, {"a": 1, "b": 2}, id="dict-of-int"),
        pytest.param(ROWS, [{"a": 1}, {"b": 2}], id="list-of-dicts"),
    ],
)
def test_value_already_of_its_type_comes_back_itself(check: Any, value: Any) -> None:
    assert check(value) is value


@pytest.mark.parametrize(
    ("check", "value", "expected"),
    [
        pytest.param(STRINGS, ["a", 1], ["a", "1"], id="list-item-coerced"),
        pytest.param(STRINGS, ("a", "b"), ["a", "b"], id="tuple-becomes-list"),
        pytest.param(COUNTS, {"a": "3"}, {"a": 3}, id="dict-value-coerced"),
        pytest.param(ROWS, [{"a": 1}, {"b": "2"}], [{"a": 1}, {"b": 2}], id="nested-item-coerced"),
    ],
)
def test_value_that_needs_a_change_comes_back_as_a_new_value(check: Any, value: Any, expected: Any) -> None:
    result = check(value)
    assert result == expected
    assert result is not value


@pytest.mark.parametrize(
    ("value", "message"),
    [
        pytest.param(
            ["a", True, "b", None], "'words[1]' expected string, got boolean true", id="first-of-two"
        ),
        pytest.param([None], "'words[0]' expected string, got null", id="only-item"),
    ],
)
def test_refused_item_is_named_by_the_first_refused_index(value: list[Any], message: str) -> None:
    refusal = STRINGS(value)
    assert type(refusal) is fam.Refusal
    assert refusal.describe("words", value) == message


def take(words: list[str], rows: list[dict[str, int]]) -> str:
    """Count.

    Args:
        words: the words
        rows: the rows
    """
    return f"{len(words)} {sum(sum(r.values()) for r in rows)}"


@pytest.mark.parametrize(
    ("arguments", "result"),
    [
        pytest.param({"words": ["a"] * 1000, "rows": [{"x": 1}] * 10}, "1000 10", id="all-right"),
        pytest.param({"words": ["a", 2], "rows": [{"x": "1"}]}, "2 1", id="coerced"),
    ],
)
def test_executor_reads_large_and_coerced_arrays(arguments: dict[str, Any], result: str) -> None:
    executor = ActionExecutor([FunctionTool(take)])
    assert executor("take", json.dumps(arguments)).result == [{"type": "text", "content": result}]


def wide_with_required(width: int, required: str) -> FunctionTool:
    """A ``FunctionTool`` ``wide`` of ``width`` int parameters, ``required`` first, the others optional."""
    params = ", ".join(f"p{i:03d}: int" + ("" if f"p{i:03d}" == required else " = 0") for i in range(width))
    params = params.replace(f"p{required[1:]}: int, ", "")
    namespace: dict[str, Any] = {}
    exec(f"def wide({required}: int, {params}) -> int:\n    '''Sum.'''\n    return 0\n", namespace)
    return FunctionTool(namespace["wide"])


@pytest.mark.parametrize(
    ("arguments", "errmsg"),
    [
        pytest.param(
            {"p010": "x", "p01x": 1},
            "wide: 'p050' is required; 'p010' expected integer, got string 'x'; 'p01x' is not a parameter "
            "(did you mean 'p010'?); parameters: 100 in all, too many to list here (all are in the tool "
            "descriptions you were given)",
            id="bad-value-missing-required-unknown",
        ),
        pytest.param(
            {"p099": 1, "p050": "y"},
            "wide: 'p050' expected integer, got string 'y'",
            id="only-the-given-one",
        ),
    ],
)
def test_wide_api_reports_problems_in_signature_order(arguments: dict[str, Any], errmsg: str) -> None:
    executor = ActionExecutor([wide_with_required(100, "p050")])
    assert executor("wide", json.dumps(arguments)).errmsg == errmsg
