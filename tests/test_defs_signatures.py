"""Issue 20, item 8: real-world docstrings and signatures are read, or refused, never half-read.

Hugging Face's ``(choices: [...])`` becomes an ``enum`` that is checked; ``**kwargs: T``
is exported as ``additionalProperties: T`` and checked; ``*args`` is refused.
"""

from __future__ import annotations

import json
import warnings
from typing import Any, Optional

import pytest

from lagent_like import ActionExecutor, ActionStatusCode, FunctionTool, ToolDefinitionError, tool_api
from lagent_like.exceptions import DefinitionWarning


def get_current_temperature(location: str, unit: str = "celsius") -> str:
    """Get the current temperature at a location.

    Args:
        location: The location to get the temperature for, in the format "City, Country"
        unit: The unit to return the temperature in. (choices: ["celsius", "fahrenheit"])
    """
    return f"22 {unit} in {location}"


def test_hugging_face_choices_become_an_enum_and_leave_the_description() -> None:
    tool = FunctionTool(get_current_temperature)
    assert tool.description["parameters"][1] == {
        "name": "unit",
        "type": "STRING",
        "description": "The unit to return the temperature in.",
        "enum": ["celsius", "fahrenheit"],
    }
    assert tool.json_schema()["properties"]["unit"] == {
        "type": "string",
        "enum": ["celsius", "fahrenheit"],
        "description": "The unit to return the temperature in.",
        "default": "celsius",
    }


@pytest.mark.parametrize(
    ("arguments", "state", "result"),
    [
        pytest.param({"location": "Paris, France", "unit": "fahrenheit"}, ActionStatusCode.SUCCESS, "22 fahrenheit in Paris, France", id="a-choice"),
        pytest.param({"location": "Paris, France"}, ActionStatusCode.SUCCESS, "22 celsius in Paris, France", id="default"),
        pytest.param({"location": "Paris, France", "unit": "kelvin"}, ActionStatusCode.ARGS_ERROR, None, id="not-a-choice"),
    ],
)  # fmt: skip
def test_hugging_face_choices_are_checked(
    arguments: dict[str, Any], state: int, result: Optional[str]
) -> None:
    executor = ActionExecutor([get_current_temperature])
    record = executor("get_current_temperature", json.dumps(arguments))
    assert record.state == state
    if result is None:
        assert record.errmsg == (
            "get_current_temperature: 'unit' expected one of ['celsius', 'fahrenheit'], got string 'kelvin'"
        )
    else:
        assert record.result == [{"type": "text", "content": result}]


def pick_level(level: Optional[int] = None) -> str:
    """Pick a level.

    Args:
        level: how loud (Choices: [1, 2, 3])
    """
    return str(level)


def test_choices_keep_the_type_and_its_optional() -> None:
    schema = FunctionTool(pick_level).json_schema()["properties"]["level"]
    assert schema["anyOf"] == [{"type": "integer", "enum": [1, 2, 3]}, {"type": "null"}]
    executor = ActionExecutor([pick_level])
    assert (
        executor("pick_level", '{"level": 4}').errmsg
        == "pick_level: 'level' expected one of [1, 2, 3] or null, got integer 4"
    )
    assert executor("pick_level", '{"level": 2}').result == [{"type": "text", "content": "2"}]


def wrong_choices(count: int) -> None:
    """Count.

    Args:
        count: how many (choices: [1, "two"])
    """


def test_choices_the_type_refuses_are_a_definition_error() -> None:
    with pytest.raises(
        ToolDefinitionError, match=r"parameter 'count' lists the choices \['two'\], which its type int"
    ):
        tool_api(wrong_choices)


def unreadable_choices(unit: str) -> None:
    """Convert.

    Args:
        unit: the unit (choices: celsius or fahrenheit)
    """


def test_choices_that_are_not_a_json_list_warn_and_stay_in_the_description() -> None:
    with pytest.warns(
        DefinitionWarning, match=r"the choices of parameter 'unit' are not a non-empty JSON list"
    ):
        spec = tool_api(unreadable_choices).api_description
    assert spec["parameters"] == [
        {"name": "unit", "type": "STRING", "description": "the unit (choices: celsius or fahrenheit)"}
    ]


def tag_photo(photo_id: str, **scores: float) -> str:
    """Tag a photo with scores.

    Args:
        photo_id: the photo
    """
    return f"{photo_id}: {sorted(scores.items())}"


def test_typed_var_keyword_is_exported_as_additional_properties() -> None:
    schema = FunctionTool(tag_photo).json_schema()
    assert schema["additionalProperties"] == {"type": "number"}
    executor = ActionExecutor([tag_photo])
    assert executor.to_openai_tools()[0]["function"]["parameters"]["additionalProperties"] == {
        "type": "number"
    }


@pytest.mark.parametrize(
    ("arguments", "state", "text"),
    [
        pytest.param({"photo_id": "p1", "cat": 0.9, "dog": 1}, ActionStatusCode.SUCCESS, "p1: [('cat', 0.9), ('dog', 1.0)]", id="numbers"),
        pytest.param({"photo_id": "p1", "cat": "high"}, ActionStatusCode.ARGS_ERROR, "tag_photo: 'cat' expected number, got string 'high'", id="string"),
        pytest.param({"photo_id": "p1", "cat": None}, ActionStatusCode.ARGS_ERROR, "tag_photo: 'cat' expected number, got null", id="null"),
    ],
)  # fmt: skip
def test_typed_var_keyword_values_are_checked(arguments: dict[str, Any], state: int, text: str) -> None:
    record = ActionExecutor([tag_photo])("tag_photo", json.dumps(arguments))
    assert record.state == state
    if state == ActionStatusCode.SUCCESS:
        assert record.result == [{"type": "text", "content": text}]
    else:
        assert record.errmsg == text


def pass_through(query: str, **options: Any) -> str:
    """Pass options through."""
    return f"{query} {sorted(options.items())}"


def test_untyped_var_keyword_stays_open() -> None:
    assert FunctionTool(pass_through).json_schema()["additionalProperties"] is True
    record = ActionExecutor([pass_through])("pass_through", '{"query": "q", "x": [1]}')
    assert record.result == [{"type": "text", "content": "q [('x', [1])]"}]


def add_all(*numbers: int) -> int:
    """Add numbers."""
    return sum(numbers)


def add_after(first: int, *rest: int, scale: int = 1) -> int:
    """Add numbers."""
    return first + sum(rest) * scale


@pytest.mark.parametrize(
    ("func", "message"),
    [
        pytest.param(add_all, r"add_all: parameter '\*numbers' cannot be given by a model, which sends arguments by name; take a list instead \(numbers: list\[...\]\) or leave it out", id="only-var-positional"),
        pytest.param(add_after, r"add_after: parameter '\*rest' cannot be given by a model", id="between-parameters"),
    ],
)  # fmt: skip
def test_var_positional_is_refused_at_definition(func: Any, message: str) -> None:
    with pytest.raises(ToolDefinitionError, match=message):
        tool_api(func)
    with pytest.raises(ToolDefinitionError, match=message):
        FunctionTool(func)


def test_class_methods_with_var_positional_are_refused() -> None:
    from lagent_like import BaseAction

    with pytest.raises(
        ToolDefinitionError, match=r"Spread.run: parameter '\*values' cannot be given by a model"
    ):

        class Spread(BaseAction, register=False):
            def run(self, *values: str) -> str:
                """Join values."""
                return "".join(values)


def test_no_warning_for_a_plain_definition() -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        tool_api(tag_photo)
