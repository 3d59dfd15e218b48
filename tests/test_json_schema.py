"""JSON Schema of every API, and the function-calling exports built from it."""

from __future__ import annotations

import dataclasses
import enum
import json
import re
from typing import Any, Callable, Dict, List, Literal, Optional, TypedDict, Union, get_type_hints

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from jsonschema import Draft202012Validator
from typing_extensions import Annotated

from lagent_like import ActionExecutor, ActionStatusCode, BaseAction, ToolNotFoundError, tool_api
from lagent_like.actions.function_tool import FunctionTool


class JsPoint(TypedDict):
    x: int
    y: int


class JsRoute(TypedDict, total=False):
    start: JsPoint
    stops: list[JsPoint]


@dataclasses.dataclass
class JsBox:
    width: int
    height: float = 1.0


class JsColor(enum.Enum):
    RED = "red"
    GREEN = "green"


DEFAULT_BOX = JsBox(2)


class JsKit(BaseAction):
    """A toolkit with an API of every type."""

    @tool_api
    def every(
        self,
        s: str,
        i: int,
        f: float,
        b: bool,
        li: list[int],
        ls: List[str],
        ti: tuple[int, ...],
        tp: tuple[int, str],
        ss: set[str],
        d: dict[str, int],
        df: Dict[str, float],
        point: JsPoint,
        box: JsBox,
        unit: Literal["C", "F"],
        level: Literal[1, 2],
        color: JsColor,
        o: Optional[int],
        u: Union[int, str],
        a: Any,
        doc,
        raw,
    ) -> str:
        """Take one value of every type.

        Second paragraph of the description.

        Args:
            s: a string
            i: an integer
            f: a number
            b: a flag
            li: integers
            point: a point
            box: a box
            unit: temperature unit
            color: a color
            o: maybe an integer
            doc (int): typed by the docstring
            raw: typed nowhere
        """
        return "ok"

    @tool_api
    def defaults(
        self,
        n: int = 3,
        x: float = 0.5,
        on: bool = False,
        word: str = "hi",
        unit: Literal["C", "F"] = "C",
        color: JsColor = JsColor.GREEN,
        maybe: Optional[int] = None,
        maybe_list: Optional[list[int]] = None,
        labelled: Annotated[int, "a labelled integer"] = 0,
        box: JsBox = DEFAULT_BOX,
    ) -> str:
        """Every parameter has a default.

        Args:
            n: a count
            labelled: overridden by Annotated
        """
        return "ok"

    @tool_api
    def nested(self, route: JsRoute, boxes: list[JsBox]) -> str:
        """Nested objects.

        Args:
            route: where to go
        """
        return "ok"

    @tool_api
    def open_kw(self, x: int, **kwargs: Any) -> str:
        """Takes any keyword argument."""
        return "ok"


POINT = {
    "type": "object",
    "title": "JsPoint",
    "properties": {"x": {"type": "integer"}, "y": {"type": "integer"}},
    "required": ["x", "y"],
    "additionalProperties": False,
}
BOX = {
    "type": "object",
    "title": "JsBox",
    "properties": {"width": {"type": "integer"}, "height": {"type": "number"}},
    "required": ["width"],
    "additionalProperties": False,
}


def test_json_schema_of_an_api_with_every_type() -> None:
    assert JsKit().json_schema("every") == {
        "type": "object",
        "properties": {
            "s": {"type": "string", "description": "a string"},
            "i": {"type": "integer", "description": "an integer"},
            "f": {"type": "number", "description": "a number"},
            "b": {"type": "boolean", "description": "a flag"},
            "li": {"type": "array", "items": {"type": "integer"}, "description": "integers"},
            "ls": {"type": "array", "items": {"type": "string"}},
            "ti": {"type": "array", "items": {"type": "integer"}},
            "tp": {
                "type": "array",
                "prefixItems": [{"type": "integer"}, {"type": "string"}],
                "minItems": 2,
                "maxItems": 2,
            },
            "ss": {"type": "array", "items": {"type": "string"}, "uniqueItems": True},
            "d": {"type": "object", "additionalProperties": {"type": "integer"}},
            "df": {"type": "object", "additionalProperties": {"type": "number"}},
            "point": {**POINT, "description": "a point"},
            "box": {**BOX, "description": "a box"},
            "unit": {"type": "string", "enum": ["C", "F"], "description": "temperature unit"},
            "level": {"type": "integer", "enum": [1, 2]},
            "color": {"type": "string", "enum": ["red", "green"], "description": "a color"},
            "o": {"type": ["integer", "null"], "description": "maybe an integer"},
            "u": {"type": ["integer", "string"]},
            "a": {},
            "doc": {"type": "integer", "description": "typed by the docstring"},
            "raw": {"type": "string", "description": "typed nowhere"},
        },
        "required": [
            "s",
            "i",
            "f",
            "b",
            "li",
            "ls",
            "ti",
            "tp",
            "ss",
            "d",
            "df",
            "point",
            "box",
            "unit",
            "level",
            "color",
            "o",
            "u",
            "a",
            "doc",
            "raw",
        ],
        "additionalProperties": False,
    }


def test_json_schema_defaults_are_json_values_and_the_rest_is_left_out() -> None:
    assert JsKit().json_schema("defaults") == {
        "type": "object",
        "properties": {
            "n": {"type": "integer", "description": "a count", "default": 3},
            "x": {"type": "number", "default": 0.5},
            "on": {"type": "boolean", "default": False},
            "word": {"type": "string", "default": "hi"},
            "unit": {"type": "string", "enum": ["C", "F"], "default": "C"},
            "color": {"type": "string", "enum": ["red", "green"], "default": "green"},
            "maybe": {"type": ["integer", "null"], "default": None},
            "maybe_list": {
                "anyOf": [{"type": "array", "items": {"type": "integer"}}, {"type": "null"}],
                "default": None,
            },
            "labelled": {"type": "integer", "description": "a labelled integer", "default": 0},
            "box": BOX,
        },
        "required": [],
        "additionalProperties": False,
    }


def test_json_schema_inlines_nested_typed_dicts_and_dataclasses() -> None:
    assert JsKit().json_schema("nested") == {
        "type": "object",
        "properties": {
            "route": {
                "type": "object",
                "title": "JsRoute",
                "properties": {"start": POINT, "stops": {"type": "array", "items": POINT}},
                "required": [],
                "additionalProperties": False,
                "description": "where to go",
            },
            "boxes": {"type": "array", "items": BOX},
        },
        "required": ["route", "boxes"],
        "additionalProperties": False,
    }


def test_json_schema_of_var_keyword_api_allows_additional_properties() -> None:
    assert JsKit().json_schema("open_kw") == {
        "type": "object",
        "properties": {"x": {"type": "integer"}},
        "required": ["x"],
        "additionalProperties": True,
    }


class JsEcho(BaseAction):
    def run(self, text: str, times: int = 1) -> str:
        """Repeat the text.

        Args:
            text: what to repeat
            times: how many times
        """
        return text * times


ECHO_SCHEMA = {
    "type": "object",
    "properties": {
        "text": {"type": "string", "description": "what to repeat"},
        "times": {"type": "integer", "description": "how many times", "default": 1},
    },
    "required": ["text"],
    "additionalProperties": False,
}


def test_json_schema_of_a_simple_tool_is_the_run_api() -> None:
    assert JsEcho().json_schema() == ECHO_SCHEMA
    assert JsEcho().json_schema("run") == ECHO_SCHEMA


def test_json_schema_of_an_unknown_api_raises_key_error() -> None:
    with pytest.raises(KeyError, match="JsKit has no API 'nope'"):
        JsKit().json_schema("nope")


def test_json_schema_returns_a_fresh_copy() -> None:
    tool = JsEcho()
    schema = tool.json_schema()
    schema["properties"]["text"]["type"] = "integer"
    schema["required"].append("times")
    assert tool.json_schema() == ECHO_SCHEMA


@dataclasses.dataclass
class JsNode:
    value: int
    children: list[JsNode] = dataclasses.field(default_factory=list)


class JsTree(BaseAction):
    """A self-referential type."""

    @tool_api
    def walk(self, root: JsNode) -> str:
        """Walk a tree."""
        return "ok"


def test_json_schema_of_a_self_referential_type_stops_at_the_second_visit() -> None:
    assert JsTree().json_schema("walk") == {
        "type": "object",
        "properties": {
            "root": {
                "type": "object",
                "title": "JsNode",
                "properties": {
                    "value": {"type": "integer"},
                    "children": {"type": "array", "items": {"type": "object"}},
                },
                "required": ["value"],
                "additionalProperties": False,
            }
        },
        "required": ["root"],
        "additionalProperties": False,
    }


def _schemas_of_every_export(executor: ActionExecutor) -> list[dict[str, Any]]:
    return (
        [tool["function"]["parameters"] for tool in executor.to_openai_tools()]
        + [tool["input_schema"] for tool in executor.to_anthropic_tools()]
        + [tool["inputSchema"] for tool in executor.to_mcp_tools()]
    )


def test_every_exported_schema_is_a_valid_draft_2020_12_schema() -> None:
    executor = ActionExecutor([JsKit(), JsEcho()])
    schemas = _schemas_of_every_export(executor)
    assert len(schemas) == 3 * 5
    for schema in schemas:
        Draft202012Validator.check_schema(schema)


def test_every_exported_schema_is_json_serialisable() -> None:
    executor = ActionExecutor([JsKit(), JsEcho()])
    for schema in _schemas_of_every_export(executor):
        assert json.loads(json.dumps(schema)) == schema


class JsWeather(BaseAction):
    """Weather look-ups."""

    @tool_api
    def current(self, city: str, unit: Literal["C", "F"] = "C") -> str:
        """Current weather of a city.

        Args:
            city: city name
            unit: temperature unit
        """
        return f"sunny in {city}"

    @tool_api
    def forecast(self, city: str, days: int = 3) -> str:
        """Forecast for the next days.

        Args:
            city: city name
            days: how many days
        """
        return f"{days} days of rain in {city}"


CURRENT_SCHEMA = {
    "type": "object",
    "properties": {
        "city": {"type": "string", "description": "city name"},
        "unit": {"type": "string", "enum": ["C", "F"], "description": "temperature unit", "default": "C"},
    },
    "required": ["city"],
    "additionalProperties": False,
}
FORECAST_SCHEMA = {
    "type": "object",
    "properties": {
        "city": {"type": "string", "description": "city name"},
        "days": {"type": "integer", "description": "how many days", "default": 3},
    },
    "required": ["city"],
    "additionalProperties": False,
}
EXPORTED = [
    ("JsWeather__current", "Current weather of a city.", CURRENT_SCHEMA),
    ("JsWeather__forecast", "Forecast for the next days.", FORECAST_SCHEMA),
    ("JsEcho", "Repeat the text.", ECHO_SCHEMA),
]


def small_executor() -> ActionExecutor:
    return ActionExecutor([JsWeather(), JsEcho()])


def test_to_openai_tools() -> None:
    assert small_executor().to_openai_tools() == [
        {"type": "function", "function": {"name": name, "description": text, "parameters": schema}}
        for name, text, schema in EXPORTED
    ]


def test_to_anthropic_tools() -> None:
    assert small_executor().to_anthropic_tools() == [
        {"name": name, "description": text, "input_schema": schema} for name, text, schema in EXPORTED
    ]


def test_to_mcp_tools() -> None:
    assert small_executor().to_mcp_tools() == [
        {"name": name, "description": text, "inputSchema": schema} for name, text, schema in EXPORTED
    ]


def test_to_openai_tools_literal_first_entry() -> None:
    assert small_executor().to_openai_tools()[0] == {
        "type": "function",
        "function": {
            "name": "JsWeather__current",
            "description": "Current weather of a city.",
            "parameters": {
                "type": "object",
                "properties": {
                    "city": {"type": "string", "description": "city name"},
                    "unit": {
                        "type": "string",
                        "enum": ["C", "F"],
                        "description": "temperature unit",
                        "default": "C",
                    },
                },
                "required": ["city"],
                "additionalProperties": False,
            },
        },
    }


def _names(executor: ActionExecutor) -> list[list[str]]:
    return [
        [tool["function"]["name"] for tool in executor.to_openai_tools()],
        [tool["name"] for tool in executor.to_anthropic_tools()],
        [tool["name"] for tool in executor.to_mcp_tools()],
    ]


def test_disabled_tools_are_left_out_of_every_export() -> None:
    executor = ActionExecutor([JsWeather(enable=False), JsEcho()])
    assert _names(executor) == [["JsEcho"]] * 3


def test_executor_json_schema_by_name_and_by_alias() -> None:
    executor = small_executor()
    assert executor.json_schema("JsWeather.forecast") == FORECAST_SCHEMA
    assert executor.json_schema("JsWeather__forecast") == FORECAST_SCHEMA
    assert executor.json_schema("JsEcho") == ECHO_SCHEMA


def test_executor_json_schema_of_an_unknown_name_raises() -> None:
    with pytest.raises(ToolNotFoundError, match=re.escape("no tool named 'JsWeather.nope' in this executor")):
        small_executor().json_schema("JsWeather.nope")


def test_exports_follow_enable_changes() -> None:
    executor = small_executor()
    weather = executor.actions["JsWeather"]
    assert _names(executor) == [["JsWeather__current", "JsWeather__forecast", "JsEcho"]] * 3
    weather.enable = False
    assert _names(executor) == [["JsEcho"]] * 3
    weather.enable = True
    assert _names(executor) == [["JsWeather__current", "JsWeather__forecast", "JsEcho"]] * 3


def test_exports_follow_add_and_del_action() -> None:
    executor = ActionExecutor([JsEcho()])
    assert _names(executor) == [["JsEcho"]] * 3
    executor.add_action(JsWeather())
    assert _names(executor) == [["JsEcho", "JsWeather__current", "JsWeather__forecast"]] * 3
    executor.del_action("JsEcho")
    assert _names(executor) == [["JsWeather__current", "JsWeather__forecast"]] * 3


def js_shout(text: str) -> str:
    """Shout the text.

    Args:
        text: what to shout
    """
    return text.upper()


def test_exports_follow_an_action_replaced_under_the_same_name() -> None:
    executor = ActionExecutor([JsEcho()])
    assert executor.to_openai_tools()[0]["function"]["description"] == "Repeat the text."
    executor.add_action(FunctionTool(js_shout, name="JsEcho"))
    assert executor.to_openai_tools() == [
        {
            "type": "function",
            "function": {
                "name": "JsEcho",
                "description": "Shout the text.",
                "parameters": {
                    "type": "object",
                    "properties": {"text": {"type": "string", "description": "what to shout"}},
                    "required": ["text"],
                    "additionalProperties": False,
                },
            },
        }
    ]


@pytest.mark.parametrize(
    "export",
    [
        pytest.param(ActionExecutor.to_openai_tools, id="openai"),
        pytest.param(ActionExecutor.to_anthropic_tools, id="anthropic"),
        pytest.param(ActionExecutor.to_mcp_tools, id="mcp"),
    ],
)
def test_exported_lists_are_copies(export: Callable[[ActionExecutor], list[dict[str, Any]]]) -> None:
    executor = small_executor()
    before = export(executor)
    tools = export(executor)
    tools[0].clear()
    tools[1]["extra"] = True
    schema = json.dumps(tools[2])
    tools.append({"name": "injected"})
    tools.reverse()
    assert export(executor) == before
    assert json.dumps(export(executor)[2]) == schema
    assert executor.json_schema("JsEcho") == ECHO_SCHEMA


def test_exported_schema_mutation_does_not_reach_the_action() -> None:
    executor = small_executor()
    # The exported schemas are shared by every export and read-only (issue 25: no copy per call).
    with pytest.raises(TypeError, match=r"read-only; edit a copy made with copy\.deepcopy\(\)"):
        executor.to_openai_tools()[2]["function"]["parameters"]["properties"]["text"]["type"] = "integer"
    with pytest.raises(TypeError, match=r"read-only; edit a copy made with copy\.deepcopy\(\)"):
        executor.to_mcp_tools()[0]["inputSchema"]["required"].append("unit")
    assert executor.json_schema("JsEcho") == ECHO_SCHEMA
    assert executor.json_schema("JsWeather.current") == CURRENT_SCHEMA
    assert executor.to_openai_tools()[2]["function"]["parameters"] == ECHO_SCHEMA


# --- validity: values drawn from a schema are accepted --------------------------------

_ANY_JSON = st.none() | st.booleans() | st.integers() | st.text() | st.lists(st.integers(), max_size=3)


def from_schema(schema: dict[str, Any]) -> st.SearchStrategy[Any]:
    """A strategy for JSON values valid against the small schema subset the package emits."""
    if "enum" in schema:
        return st.sampled_from(schema["enum"])
    if "anyOf" in schema:
        return st.one_of([from_schema(s) for s in schema["anyOf"]])
    kind = schema.get("type")
    if isinstance(kind, list):
        return st.one_of([from_schema({**schema, "type": k}) for k in kind])
    if kind is None:
        return _ANY_JSON
    if kind == "string":
        return st.text(max_size=20)
    if kind == "integer":
        return st.integers()
    if kind == "number":
        # Integers are JSON numbers too; keep them exact as floats.
        return st.integers(-(2**53), 2**53) | st.floats(allow_nan=False, allow_infinity=False)
    if kind == "boolean":
        return st.booleans()
    if kind == "null":
        return st.none()
    if kind == "array":
        if "prefixItems" in schema:
            return st.tuples(*[from_schema(s) for s in schema["prefixItems"]]).map(list)
        items = from_schema(schema.get("items", {}))
        return st.lists(items, max_size=4, unique=schema.get("uniqueItems", False))
    if kind == "object":
        properties = schema.get("properties")
        if properties is not None:
            required = set(schema.get("required", []))
            return st.fixed_dictionaries(
                {k: from_schema(s) for k, s in properties.items() if k in required},
                optional={k: from_schema(s) for k, s in properties.items() if k not in required},
            )
        values = schema.get("additionalProperties", {})
        return st.dictionaries(
            st.text(max_size=5), from_schema(values if isinstance(values, dict) else {}), max_size=3
        )
    raise AssertionError(f"unexpected schema {schema!r}")


EVERY_SCHEMA = JsKit().json_schema("every")
PARAMETERS = list(EVERY_SCHEMA["properties"])


EVERY_HINTS = get_type_hints(JsKit.every, include_extras=True)


def one_parameter_function(name: str) -> Callable[..., str]:
    """A function whose one parameter ``v`` is declared like ``JsKit.every``'s parameter ``name``."""

    def echo(v):  # type: ignore[no-untyped-def]
        return "ok"

    echo.__annotations__ = {"v": EVERY_HINTS[name]} if name in EVERY_HINTS else {}
    if name == "doc":
        echo.__doc__ = "Echo.\n\nArgs:\n    v (int): typed by the docstring\n"
    return echo


def test_one_parameter_functions_are_described_like_the_original_parameter() -> None:
    for name in PARAMETERS:
        schema = FunctionTool(one_parameter_function(name), name="JsOne").json_schema()
        expected = {k: v for k, v in EVERY_SCHEMA["properties"][name].items() if k != "description"}
        assert {k: v for k, v in schema["properties"]["v"].items() if k != "description"} == expected, name


@pytest.mark.parametrize("name", PARAMETERS)
@settings(max_examples=50, deadline=None, derandomize=True)
@given(data=st.data())
def test_values_drawn_from_a_parameter_schema_are_accepted_by_the_executor(
    name: str, data: st.DataObject
) -> None:
    schema = EVERY_SCHEMA["properties"][name]
    value = data.draw(from_schema(schema))
    Draft202012Validator(schema).validate(value)

    ret = ActionExecutor([FunctionTool(one_parameter_function(name), name="JsOne")])(
        "JsOne", json.dumps({"v": value})
    )
    assert (ret.state, ret.errmsg) == (ActionStatusCode.SUCCESS, None)


@pytest.mark.parametrize(
    "name",
    [pytest.param(n, id=n) for n in PARAMETERS],
)
@settings(max_examples=50, deadline=None, derandomize=True)
@given(data=st.data())
def test_values_drawn_from_a_parameter_schema_pass_its_validator(name: str, data: st.DataObject) -> None:
    value = data.draw(from_schema(EVERY_SCHEMA["properties"][name]))
    validator = JsKit().argument_checks("every")[0].get(name)
    if validator is not None:
        validator(value)


@settings(max_examples=50, deadline=None, derandomize=True)
@given(args=from_schema(EVERY_SCHEMA))
def test_whole_argument_objects_drawn_from_the_schema_are_accepted(args: dict[str, Any]) -> None:
    Draft202012Validator(EVERY_SCHEMA).validate(args)
    ret = ActionExecutor([JsKit()])("JsKit.every", json.dumps(args))
    assert (ret.state, ret.errmsg) == (ActionStatusCode.SUCCESS, None)
