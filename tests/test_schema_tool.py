"""Tools built from JSON-schema function definitions: shapes, descriptions, checks, exports."""

from __future__ import annotations

import json
from typing import Any

import jsonschema
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from lagent_like.actions.action_executor import ActionExecutor
from lagent_like.actions.parser import JsonParser, TupleParser
from lagent_like.exceptions import ToolDefinitionError
from lagent_like.schema import ActionReturn, ActionStatusCode
from lagent_like.toolkits._schema_tool import SchemaTool, tool_from_schema

ARGS_ERROR = ActionStatusCode.ARGS_ERROR
SUCCESS = ActionStatusCode.SUCCESS


class Recorder:
    """A handler that records the keyword arguments of every call and returns them as JSON."""

    def __init__(self) -> None:
        self.calls: list[dict[str, Any]] = []

    def __call__(self, **kwargs: Any) -> str:
        self.calls.append(kwargs)
        return json.dumps(kwargs, sort_keys=True)


def call(tool: SchemaTool, arguments: str) -> ActionReturn:
    """Run ``tool`` the way an agent does: through an executor, by its exact name."""
    return ActionExecutor([tool])(tool.name, arguments)


# --- the accepted shapes --------------------------------------------------------------

WEATHER_PARAMETERS = {
    "type": "object",
    "properties": {
        "location": {"type": "string", "description": "City and country e.g. New York"},
        "unit": {"type": "string", "enum": ["C", "F"], "description": "temperature unit"},
    },
    "required": ["location"],
    "additionalProperties": False,
}
WEATHER_TEXT = "Get weather for a given location."


@pytest.mark.parametrize(
    "schema",
    [
        pytest.param(
            {"name": "get_weather", "description": WEATHER_TEXT, "parameters": WEATHER_PARAMETERS},
            id="openai-bare",
        ),
        pytest.param(
            {
                "type": "function",
                "function": {
                    "name": "get_weather",
                    "description": WEATHER_TEXT,
                    "parameters": WEATHER_PARAMETERS,
                },
            },
            id="openai-wrapped",
        ),
        pytest.param(
            {"name": "get_weather", "description": WEATHER_TEXT, "input_schema": WEATHER_PARAMETERS},
            id="anthropic",
        ),
        pytest.param(
            {
                "type": "function",
                "name": "get_weather",
                "description": WEATHER_TEXT,
                "parameters": WEATHER_PARAMETERS,
            },
            id="livekit-raw",
        ),
        pytest.param(
            {"name": "get_weather", "description": WEATHER_TEXT, "inputSchema": WEATHER_PARAMETERS},
            id="mcp",
        ),
    ],
)
def test_every_shape_gives_the_same_lagent_description_and_call(schema: dict[str, Any]) -> None:
    handler = Recorder()
    tool = tool_from_schema(schema, handler)
    assert tool.name == "get_weather"
    assert tool.description == {
        "name": "get_weather",
        "description": WEATHER_TEXT,
        "parameters": [
            {"name": "location", "type": "STRING", "description": "City and country e.g. New York"},
            {"name": "unit", "type": "STRING", "description": "temperature unit", "enum": ["C", "F"]},
        ],
        "required": ["location"],
        "parameter_description": JsonParser.PARAMETER_DESCRIPTION,
    }
    ret = call(tool, '{"location": "Paris", "unit": "F"}')
    assert (ret.state, ret.format_result()) == (SUCCESS, '{"location": "Paris", "unit": "F"}')
    assert tool.json_schema() == WEATHER_PARAMETERS


def test_a_function_without_parameters_takes_no_arguments() -> None:
    tool = tool_from_schema({"name": "ping", "description": "Ping."}, lambda: "pong")
    assert tool.description["parameters"] == []
    assert tool.json_schema() == {
        "type": "object",
        "properties": {},
        "required": [],
        "additionalProperties": False,
    }
    assert call(tool, "{}").format_result() == "pong"


def test_the_tuple_parser_reads_arguments_in_property_order() -> None:
    tool = tool_from_schema(
        {"name": "get_weather", "parameters": WEATHER_PARAMETERS}, Recorder(), parser=TupleParser
    )
    ret = call(tool, "('Paris', 'C')")
    assert ret.format_result() == '{"location": "Paris", "unit": "C"}'


# --- the Lagent type of each schema --------------------------------------------------


@pytest.mark.parametrize(
    ("prop", "lagent_type"),
    [
        pytest.param({"type": "string"}, "STRING", id="string"),
        pytest.param({"type": "str"}, "STRING", id="str"),
        pytest.param({"type": "integer"}, "NUMBER", id="integer"),
        pytest.param({"type": "int"}, "NUMBER", id="int"),
        pytest.param({"type": "number"}, "FLOAT", id="number"),
        pytest.param({"type": "float"}, "FLOAT", id="float"),
        pytest.param({"type": "boolean"}, "BOOLEAN", id="boolean"),
        pytest.param({"type": "bool"}, "BOOLEAN", id="bool"),
        pytest.param({"type": "array"}, "Array", id="array"),
        pytest.param({"type": "list"}, "Array", id="list"),
        pytest.param({"type": "tuple"}, "Array", id="tuple"),
        pytest.param({"type": "object"}, "OBJECT", id="object"),
        pytest.param({"type": "dict"}, "OBJECT", id="dict"),
        pytest.param({"type": "any"}, "STRING", id="any"),
        pytest.param({}, "STRING", id="no-type"),
        pytest.param({"type": ["integer", "null"]}, "NUMBER", id="type-list-with-null"),
        pytest.param({"type": ["integer", "string"]}, "STRING", id="type-list-mixed"),
        pytest.param({"anyOf": [{"type": "number"}, {"type": "null"}]}, "FLOAT", id="optional-anyOf"),
        pytest.param({"enum": [1, 2, 3]}, "NUMBER", id="enum-values"),
        pytest.param({"const": True}, "BOOLEAN", id="const-value"),
        pytest.param({"$ref": "#/$defs/Count"}, "NUMBER", id="ref"),
    ],
)
def test_each_schema_type_maps_to_its_lagent_type(prop: dict[str, Any], lagent_type: str) -> None:
    parameters = {"type": "object", "properties": {"x": prop}, "$defs": {"Count": {"type": "integer"}}}
    tool = tool_from_schema({"name": "probe", "parameters": parameters}, Recorder())
    assert tool.description["parameters"][0]["type"] == lagent_type


def test_a_referenced_schema_lends_its_description_and_enum() -> None:
    parameters = {
        "type": "object",
        "properties": {
            "unit": {"$ref": "#/definitions/Unit"},
            "scale": {"$ref": "#/definitions/Unit", "description": "own"},
        },
        "definitions": {"Unit": {"type": "string", "enum": ["C", "F"], "description": "temperature unit"}},
    }
    tool = tool_from_schema({"name": "probe", "parameters": parameters}, Recorder())
    assert tool.description["parameters"] == [
        {"name": "unit", "type": "STRING", "description": "temperature unit", "enum": ["C", "F"]},
        {"name": "scale", "type": "STRING", "description": "own", "enum": ["C", "F"]},
    ]


# --- keywords: accepted values and the value the handler receives ---------------------


def probe(prop: Any, **extra: Any) -> tuple[SchemaTool, Recorder]:
    """A tool ``probe`` with one optional property ``x`` of schema ``prop``."""
    handler = Recorder()
    parameters = {"type": "object", "properties": {"x": prop}, **extra}
    return tool_from_schema({"name": "probe", "parameters": parameters}, handler), handler


POINT = {
    "type": "object",
    "properties": {"lat": {"type": "number"}, "lon": {"type": "number"}},
    "required": ["lat", "lon"],
}


@pytest.mark.parametrize(
    ("prop", "given", "received"),
    [
        pytest.param({"type": "string"}, '"a"', "a", id="string"),
        pytest.param({"type": "integer"}, '"3"', 3, id="integer-from-text"),
        pytest.param({"type": "integer"}, "3.0", 3, id="integer-from-whole-float"),
        pytest.param({"type": "int"}, '"3"', 3, id="int-dialect"),
        pytest.param({"type": "number"}, '"2.5"', 2.5, id="number-from-text"),
        pytest.param({"type": "number"}, "3", 3, id="number-keeps-an-integer"),
        pytest.param({"type": "boolean"}, '"true"', True, id="boolean-from-text"),
        pytest.param({"type": "array"}, '"[1, 2]"', [1, 2], id="array-from-json-text"),
        pytest.param({"type": "object"}, '"{\\"a\\": 1}"', {"a": 1}, id="object-from-json-text"),
        pytest.param({"type": "any"}, '{"k": [1]}', {"k": [1]}, id="any"),
        pytest.param({"type": ["integer", "string"]}, '"007"', "007", id="type-list-keeps-fitting-member"),
        pytest.param({"type": ["string", "integer"]}, "7", 7, id="type-list-integer"),
        pytest.param({"type": ["integer", "null"]}, "null", None, id="type-list-null"),
        pytest.param({"type": "string", "enum": ["C", "F"]}, '"F"', "F", id="enum"),
        pytest.param({"type": "integer", "enum": [1, 2]}, '"2"', 2, id="enum-after-coercion"),
        pytest.param({"const": "on"}, '"on"', "on", id="const"),
        pytest.param(
            {"type": "integer", "minimum": 1, "maximum": 10}, "10", 10, id="minimum-maximum-inclusive"
        ),
        pytest.param({"type": "number", "exclusiveMinimum": 0}, "0.1", 0.1, id="exclusiveMinimum"),
        pytest.param(
            {"type": "number", "maximum": 10, "exclusiveMaximum": True},
            "9.5",
            9.5,
            id="exclusiveMaximum-draft4",
        ),
        pytest.param({"type": "number", "multipleOf": 0.5}, "1.5", 1.5, id="multipleOf"),
        pytest.param({"type": "string", "minLength": 2, "maxLength": 5}, '"abcde"', "abcde", id="length"),
        pytest.param({"type": "string", "pattern": "[0-9]+"}, '"a1b"', "a1b", id="pattern-searches"),
        pytest.param({"type": "array", "items": {"type": "integer"}}, '["1", 2]', [1, 2], id="items-coerced"),
        pytest.param(
            {"type": "array", "items": [{"type": "string"}, {"type": "integer"}]},
            '["a", "2"]',
            ["a", 2],
            id="items-tuple-form",
        ),
        pytest.param(
            {"type": "array", "minItems": 1, "maxItems": 2}, "[0, 0]", [0, 0], id="minItems-maxItems"
        ),
        pytest.param(
            {"type": "array", "uniqueItems": True}, "[1, true, [1]]", [1, True, [1]], id="uniqueItems"
        ),
        pytest.param(POINT, '{"lat": "1.5", "lon": 2}', {"lat": 1.5, "lon": 2.0}, id="nested-properties"),
        pytest.param(
            {"type": "object", "additionalProperties": {"type": "integer"}},
            '{"a": "1"}',
            {"a": 1},
            id="additionalProperties-schema",
        ),
        pytest.param({"anyOf": [{"type": "integer"}, {"type": "string"}]}, '"x"', "x", id="anyOf"),
        pytest.param(
            {"anyOf": [{"type": "integer"}, {"type": "string"}]}, '"007"', "007", id="anyOf-prefers-fit-as-is"
        ),
        pytest.param(
            {"oneOf": [{"type": "boolean"}, {"type": "integer"}]},
            '"5"',
            5,
            id="oneOf-coerces-when-nothing-fits",
        ),
        pytest.param({"allOf": [{"type": "integer"}, {"minimum": 1}]}, '"2"', 2, id="allOf"),
        pytest.param({"type": "string", "nullable": True}, "null", None, id="nullable"),
        pytest.param(
            {"$ref": "#/$defs/Point"}, '{"lat": 1, "lon": 2}', {"lat": 1.0, "lon": 2.0}, id="ref-defs"
        ),
        pytest.param(
            {"type": "string", "description": "d", "title": "t", "examples": ["x"], "format": "email"},
            '"not an email"',
            "not an email",
            id="annotations-unchecked",
        ),
        pytest.param(True, '"anything"', "anything", id="true-schema"),
    ],
)
def test_a_value_the_schema_allows_reaches_the_handler(prop: Any, given: str, received: Any) -> None:
    tool, handler = probe(prop, **{"$defs": {"Point": POINT}})
    ret = call(tool, f'{{"x": {given}}}')
    assert (ret.state, ret.errmsg) == (SUCCESS, None)
    assert handler.calls == [{"x": received}]
    assert type(handler.calls[0]["x"]) is type(received)


# --- keywords: refused values and the message a model reads ---------------------------


@pytest.mark.parametrize(
    ("prop", "given", "errmsg"),
    [
        pytest.param({"type": "string"}, "true", "'x' expected string, got boolean true", id="string"),
        pytest.param({"type": "integer"}, '"x"', "'x' expected integer, got string 'x'", id="integer"),
        pytest.param(
            {"type": "integer"}, "2.5", "'x' expected integer, got number 2.5", id="integer-fraction"
        ),
        pytest.param(
            {"type": "integer"}, '"+-3"', "'x' expected integer, got string '+-3'", id="integer-odd-sign"
        ),
        pytest.param({"type": "boolean"}, '"yes"', "'x' expected boolean, got string 'yes'", id="boolean"),
        pytest.param({"type": "array"}, '"a, b"', "'x' expected array, got string 'a, b'", id="array"),
        pytest.param(
            {"type": ["integer", "null"]},
            '"a"',
            "'x' expected integer or null, got string 'a'",
            id="type-list",
        ),
        pytest.param(
            {"type": "string", "enum": ["C", "F"]},
            '"K"',
            "'x' expected one of ['C', 'F'], got string 'K'",
            id="enum",
        ),
        pytest.param({"const": "on"}, '"off"', "'x' expected exactly 'on', got string 'off'", id="const"),
        pytest.param(
            {"type": "integer", "minimum": 1}, "0", "'x' expected integer >= 1, got integer 0", id="minimum"
        ),
        pytest.param(
            {"type": "integer", "minimum": 1},
            '"0"',
            "'x' expected integer >= 1, got string '0'",
            id="minimum-coerced",
        ),
        pytest.param(
            {"type": "integer", "maximum": 10},
            "11",
            "'x' expected integer <= 10, got integer 11",
            id="maximum",
        ),
        pytest.param(
            {"type": "integer", "minimum": 1, "maximum": 10},
            "11",
            "'x' expected integer >= 1 and <= 10, got integer 11",
            id="range",
        ),
        pytest.param(
            {"type": "number", "exclusiveMinimum": 0},
            "0",
            "'x' expected number > 0, got integer 0",
            id="exclusiveMinimum",
        ),
        pytest.param(
            {"type": "number", "maximum": 10, "exclusiveMaximum": True},
            "10",
            "'x' expected number < 10, got integer 10",
            id="exclusiveMaximum-draft4",
        ),
        pytest.param(
            {"type": "integer", "multipleOf": 5},
            "7",
            "'x' expected integer that is a multiple of 5, got integer 7",
            id="multipleOf",
        ),
        pytest.param(
            {"type": "string", "minLength": 2},
            '"a"',
            "'x' expected string of at least 2 characters, got string 'a'",
            id="minLength",
        ),
        pytest.param(
            {"type": "string", "maxLength": 5},
            '"abcdef"',
            "'x' expected string of at most 5 characters, got string 'abcdef'",
            id="maxLength",
        ),
        pytest.param(
            {"type": "string", "minLength": 2, "maxLength": 5},
            '"a"',
            "'x' expected string of 2 to 5 characters, got string 'a'",
            id="length",
        ),
        pytest.param(
            {"type": "string", "pattern": "^[a-z]+$"},
            '"Ab"',
            "'x' expected string matching '^[a-z]+$', got string 'Ab'",
            id="pattern",
        ),
        pytest.param(
            {"type": "array", "items": {"type": "integer"}},
            '[1, "b"]',
            "'x[1]' expected integer, got string 'b'",
            id="items",
        ),
        pytest.param(
            {"type": "array", "items": [{"type": "string"}]},
            "[true]",
            "'x[0]' expected string, got boolean true",
            id="items-tuple-form",
        ),
        pytest.param(
            {"type": "array", "minItems": 1},
            "[]",
            "'x' expected array of at least 1 items, got array []",
            id="minItems",
        ),
        pytest.param(
            {"type": "array", "maxItems": 1},
            "[1, 2]",
            "'x' expected array of at most 1 items, got array [1, 2]",
            id="maxItems",
        ),
        pytest.param(
            {"type": "array", "uniqueItems": True},
            "[1, 1.0]",
            "'x' expected array with unique items, got array [1, 1.0]",
            id="uniqueItems",
        ),
        pytest.param(
            POINT,
            '{"lat": 1}',
            "'x' expected object with required keys ['lat', 'lon'], got object {'lat': 1}",
            id="nested-required",
        ),
        pytest.param(
            POINT, '{"lat": "a", "lon": 1}', "'x.lat' expected number, got string 'a'", id="nested-property"
        ),
        pytest.param(
            {**POINT, "additionalProperties": False},
            '{"lat": 1, "lon": 2, "alt": 3}',
            "'x' expected object with only the keys ['lat', 'lon'], got object {'lat': 1, 'lon': 2, 'alt': 3}",
            id="nested-additionalProperties-false",
        ),
        pytest.param(
            {"type": "object", "additionalProperties": {"type": "integer"}},
            '{"a": "z"}',
            "'x.a' expected integer, got string 'z'",
            id="additionalProperties-schema",
        ),
        pytest.param(
            {"anyOf": [{"type": "integer"}, {"type": "boolean"}]},
            '"z"',
            "'x' expected integer or boolean, got string 'z'",
            id="anyOf",
        ),
        pytest.param(
            {"oneOf": [{"type": "integer", "minimum": 1}, {"type": "null"}]},
            "0",
            "'x' expected integer >= 1 or null, got integer 0",
            id="oneOf",
        ),
        pytest.param(
            {"allOf": [{"type": "integer"}, {"minimum": 1}]},
            "0",
            "'x' expected number >= 1, got integer 0",
            id="allOf",
        ),
        pytest.param(
            {"type": "string", "nullable": True},
            "[1]",
            "'x' expected string or null, got array [1]",
            id="nullable",
        ),
        pytest.param({"$ref": "#/$defs/Count"}, "0", "'x' expected integer >= 1, got integer 0", id="ref"),
        pytest.param(
            False,
            "1",
            "'x' expected nothing (the schema allows no value here), got integer 1",
            id="false-schema",
        ),
    ],
)
def test_a_value_the_schema_refuses_is_reported_and_never_reaches_the_handler(
    prop: Any, given: str, errmsg: str
) -> None:
    tool, handler = probe(prop, **{"$defs": {"Count": {"type": "integer", "minimum": 1}}})
    ret = call(tool, f'{{"x": {given}}}')
    assert (ret.state, ret.errmsg) == (ARGS_ERROR, f"probe: {errmsg}")
    assert handler.calls == []


# --- one call, several problems --------------------------------------------------------

FORECAST_PARAMETERS = {
    "type": "object",
    "properties": {
        "city": {"type": "string", "minLength": 1},
        "days": {"type": "integer", "minimum": 1, "maximum": 14},
        "unit": {"type": "string", "enum": ["C", "F"]},
    },
    "required": ["city", "days"],
}


def test_every_problem_of_one_call_is_reported_together() -> None:
    handler = Recorder()
    tool = tool_from_schema({"name": "forecast", "parameters": FORECAST_PARAMETERS}, handler)
    ret = call(tool, '{"days": 0, "unit": "K", "wind": true}')
    assert ret.state == ARGS_ERROR
    assert ret.errmsg == (
        "forecast: 'city' is required; 'days' expected integer >= 1 and <= 14, got integer 0; "
        "'unit' expected one of ['C', 'F'], got string 'K'; 'wind' is not a parameter; parameters: city, days, unit"
    )
    assert handler.calls == []


def test_schema_defaults_fill_omitted_arguments_over_the_handler_defaults() -> None:
    received = []

    def forecast(city: str, days: int = 3) -> str:
        received.append((city, days))
        return "ok"

    parameters = {**FORECAST_PARAMETERS, "required": ["city"]}
    parameters["properties"] = {
        **FORECAST_PARAMETERS["properties"],
        "days": {"type": "integer", "default": 7},
    }
    parameters["properties"].pop("unit")
    tool = tool_from_schema({"name": "forecast", "parameters": parameters}, forecast)
    assert call(tool, '{"city": "Oslo"}').state == SUCCESS
    assert received == [("Oslo", 7)]


def test_plain_primitive_properties_skip_their_check_when_the_value_already_fits() -> None:
    tool = tool_from_schema({"name": "forecast", "parameters": FORECAST_PARAMETERS}, Recorder())
    validators, exact = tool.argument_checks()
    assert list(validators) == ["city", "days", "unit"]
    assert "city" not in exact  # minLength makes it more than a plain string: always checked
    plain, _ = probe({"type": "number", "description": "any float"})
    assert plain.argument_checks()[1] == {"x": float}
    assert plain.argument_checks("other") == ({}, {})


def test_unknown_arguments_reach_a_handler_with_kwargs_when_the_schema_allows_them() -> None:
    handler = Recorder()
    parameters = {"type": "object", "properties": {"a": {"type": "integer"}}, "additionalProperties": True}
    tool = tool_from_schema({"name": "open", "parameters": parameters}, handler)
    assert call(tool, '{"a": "1", "b": [2]}').state == SUCCESS
    assert handler.calls == [{"a": 1, "b": [2]}]


# --- names, async handlers -----------------------------------------------------------


def test_a_dotted_name_is_kept_and_callable_by_its_exact_name() -> None:
    def factorial(n: int) -> int:
        result = 1
        for i in range(2, n + 1):
            result *= i
        return result

    schema = {
        "name": "math.factorial",
        "description": "n!",
        "parameters": {
            "type": "object",
            "properties": {"n": {"type": "integer", "minimum": 0}},
            "required": ["n"],
        },
    }
    executor = ActionExecutor([tool_from_schema(schema, factorial)])
    assert [info["name"] for info in executor.get_actions_info()] == ["math.factorial"]
    ret = executor("math.factorial", '{"n": "5"}')
    assert (ret.state, ret.type, ret.format_result()) == (SUCCESS, "math.factorial", "120")
    refused = executor("math.factorial", '{"n": -1}')
    assert (refused.state, refused.errmsg) == (
        ARGS_ERROR,
        "math.factorial: 'n' expected integer >= 0, got integer -1",
    )
    alias = executor.alias_of("math.factorial")
    assert executor(alias, '{"n": 3}').format_result() == "6"


def test_an_async_handler_is_awaited() -> None:
    async def lookup(location: str, unit: str = "C") -> dict[str, Any]:
        return {"weather": "sunny", "location": location}

    tool = tool_from_schema({"name": "get_weather", "parameters": WEATHER_PARAMETERS}, lookup)
    ret = call(tool, '{"location": "Rome"}')
    assert (ret.state, ret.format_result()) == (SUCCESS, '{"weather": "sunny", "location": "Rome"}')


def test_an_object_with_an_async_call_method_is_awaited() -> None:
    class Lookup:
        async def __call__(self, location: str, unit: str = "C") -> str:
            return f"{location} {unit}"

    tool = tool_from_schema({"name": "get_weather", "parameters": WEATHER_PARAMETERS}, Lookup())
    assert call(tool, '{"location": "Rome", "unit": "F"}').format_result() == "Rome F"


def test_an_exception_in_the_handler_is_an_api_error() -> None:
    def broken(location: str, unit: str = "C") -> str:
        raise LookupError("no station")

    tool = tool_from_schema({"name": "get_weather", "parameters": WEATHER_PARAMETERS}, broken)
    ret = call(tool, '{"location": "Rome"}')
    assert (ret.state, ret.errmsg) == (ActionStatusCode.API_ERROR, "LookupError: no station")


# --- JSON Schema export -----------------------------------------------------------------

DIALECT_PARAMETERS = {
    "type": "object",
    "description": "a spec written loosely",
    "properties": {
        "name": {"type": "str"},
        "count": {"type": "int", "minimum": 0, "exclusiveMinimum": True},
        "ratio": {"type": "float", "maximum": 1, "exclusiveMaximum": False},
        "flags": {"type": "list", "items": {"type": "bool"}},
        "pair": {"type": "tuple", "items": [{"type": "str"}, {"type": "int"}]},
        "meta": {"type": "dict", "additionalProperties": {"type": "any"}},
        "note": {"type": "string", "nullable": True, "enum": ["a", "b"]},
        "tag": {"$ref": "#/definitions/Tag"},
    },
    "required": ["name"],
    "definitions": {"Tag": {"type": "str", "minLength": 1}},
}


def test_json_schema_is_the_given_schema_in_standard_words() -> None:
    tool = tool_from_schema({"name": "loose", "parameters": DIALECT_PARAMETERS}, Recorder())
    assert tool.json_schema() == {
        "type": "object",
        "properties": {
            "name": {"type": "string"},
            "count": {"type": "integer", "exclusiveMinimum": 0},
            "ratio": {"type": "number", "maximum": 1},
            "flags": {"type": "array", "items": {"type": "boolean"}},
            "pair": {"type": "array", "prefixItems": [{"type": "string"}, {"type": "integer"}]},
            "meta": {"type": "object", "additionalProperties": {}},
            "note": {"type": ["string", "null"], "enum": ["a", "b", None]},
            "tag": {"$ref": "#/definitions/Tag"},
        },
        "required": ["name"],
        "additionalProperties": False,
        "description": "a spec written loosely",
        "definitions": {"Tag": {"type": "string", "minLength": 1}},
    }
    assert DIALECT_PARAMETERS["properties"]["count"] == {
        "type": "int",
        "minimum": 0,
        "exclusiveMinimum": True,
    }


def test_json_schema_is_a_fresh_copy_and_only_for_run() -> None:
    tool = tool_from_schema({"name": "loose", "parameters": DIALECT_PARAMETERS}, Recorder())
    tool.json_schema()["properties"].clear()
    assert next(iter(tool.json_schema()["properties"])) == "name"
    with pytest.raises(KeyError, match="loose has no API 'other'"):
        tool.json_schema("other")


@pytest.mark.parametrize(
    "parameters",
    [
        pytest.param(WEATHER_PARAMETERS, id="weather"),
        pytest.param(FORECAST_PARAMETERS, id="forecast"),
        pytest.param(DIALECT_PARAMETERS, id="dialect"),
        pytest.param({"type": "object", "properties": {"x": POINT}, "$defs": {"P": POINT}}, id="nested"),
        pytest.param(
            {
                "type": "object",
                "properties": {
                    "x": {"type": "number", "minimum": 0, "exclusiveMinimum": True, "nullable": True}
                },
            },
            id="draft4-nullable",
        ),
    ],
)
def test_every_exported_schema_is_valid_draft_2020_12(parameters: dict[str, Any]) -> None:
    tool = tool_from_schema({"name": "t", "parameters": parameters}, Recorder())
    jsonschema.Draft202012Validator.check_schema(tool.json_schema())
    for exported in ActionExecutor([tool]).to_openai_tools():
        jsonschema.Draft202012Validator.check_schema(exported["function"]["parameters"])


# --- generated inputs ------------------------------------------------------------------

JSON_VALUES = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-50, 50)
    | st.floats(-50, 50, allow_nan=False)
    | st.text(max_size=6),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=3), inner, max_size=3),
    max_leaves=6,
)
FORECAST_VALID = st.fixed_dictionaries(
    {"city": st.text(min_size=1, max_size=12), "days": st.integers(1, 14)},
    optional={"unit": st.sampled_from(["C", "F"])},
)
no_fixture_check = settings(
    max_examples=50, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)


@no_fixture_check
@given(FORECAST_VALID)
def test_generated_valid_arguments_reach_the_handler_unchanged(arguments: dict[str, Any]) -> None:
    jsonschema.validate(arguments, FORECAST_PARAMETERS)
    handler = Recorder()
    tool = tool_from_schema({"name": "forecast", "parameters": FORECAST_PARAMETERS}, handler)
    ret = call(tool, json.dumps(arguments))
    assert (ret.state, ret.errmsg) == (SUCCESS, None)
    assert handler.calls == [arguments]


@no_fixture_check
@given(FORECAST_VALID, st.sampled_from(["city", "days", "unit"]), JSON_VALUES)
def test_generated_arguments_are_judged_as_jsonschema_judges_them(
    arguments: dict[str, Any], key: str, value: Any
) -> None:
    arguments = {**arguments, key: value}
    validator = jsonschema.Draft202012Validator(FORECAST_PARAMETERS)
    handler = Recorder()
    tool = tool_from_schema({"name": "forecast", "parameters": FORECAST_PARAMETERS}, handler)
    ret = call(tool, json.dumps(arguments))
    if validator.is_valid(arguments):
        assert (ret.state, handler.calls) == (SUCCESS, [arguments])
    elif ret.state == ARGS_ERROR:
        assert handler.calls == []
        assert ret.errmsg.startswith(f"forecast: {key!r} expected ")
    else:  # accepted only through a lossless coercion ("3" -> 3), and then valid
        assert ret.state == SUCCESS
        assert validator.is_valid(handler.calls[0])


@no_fixture_check
@given(FORECAST_VALID, st.integers().filter(lambda n: not 1 <= n <= 14))
def test_generated_out_of_range_days_are_refused(arguments: dict[str, Any], days: int) -> None:
    handler = Recorder()
    tool = tool_from_schema({"name": "forecast", "parameters": FORECAST_PARAMETERS}, handler)
    ret = call(tool, json.dumps({**arguments, "days": days}))
    assert (ret.state, ret.errmsg) == (
        ARGS_ERROR,
        f"forecast: 'days' expected integer >= 1 and <= 14, got integer {days}",
    )
    assert handler.calls == []


# --- definitions that cannot be honoured ------------------------------------------------


def accept_all(**kwargs: Any) -> None:
    return None


def positional_only(a: str, /) -> None:
    return None


@pytest.mark.parametrize(
    ("schema", "handler", "message"),
    [
        pytest.param(
            {"parameters": {}},
            accept_all,
            "tool_from_schema: 'name' must be a non-empty string, got None",
            id="no-name",
        ),
        pytest.param(
            {"name": ""},
            accept_all,
            "tool_from_schema: 'name' must be a non-empty string, got ''",
            id="empty-name",
        ),
        pytest.param(
            {"name": "t"}, None, "t: the handler must be a function, got NoneType None", id="no-handler"
        ),
        pytest.param(
            {"name": "t"},
            "run",
            "t: the handler must be a function, got str 'run'",
            id="handler-not-callable",
        ),
        pytest.param(
            "get_weather",
            accept_all,
            "tool_from_schema: 2 problems:\n  - the schema must be a dict",
            id="not-a-dict",
        ),
        pytest.param(
            {"type": "web_search", "name": "t"},
            accept_all,
            "t: 'type' is 'web_search'; only function definitions",
            id="not-a-function",
        ),
        pytest.param(
            {"name": "t", "parameters": {"type": "array"}},
            accept_all,
            "t: parameters: 'type' must be 'object', got 'array'",
            id="parameters-not-object",
        ),
        pytest.param(
            {"name": "t", "parameters": {"type": "object", "properties": ["a"]}},
            accept_all,
            r"t: parameters: 'properties' must map names to schemas, got \['a'\]",
            id="properties-not-a-dict",
        ),
        pytest.param(
            {"name": "t", "parameters": {"type": "object", "properties": {"a": {"type": "strnig"}}}},
            accept_all,
            "t: parameters.properties.a: unknown 'type' 'strnig'. Did you mean 'string'",
            id="unknown-type",
        ),
        pytest.param(
            {"name": "t", "parameters": {"type": "object", "properties": {}, "required": ["a"]}},
            accept_all,
            "t: parameters: 'required' names 'a', which is not a property",
            id="required-not-a-property",
        ),
        pytest.param(
            {
                "name": "t",
                "parameters": {"type": "object", "properties": {"a": {"type": "string", "pattern": "[a-"}}},
            },
            accept_all,
            r"t: parameters.properties.a: 'pattern' '\[a-' does not compile: unterminated character set",
            id="bad-pattern",
        ),
        pytest.param(
            {
                "name": "t",
                "parameters": {"type": "object", "properties": {"a": {"minimum": 5, "maximum": 1}}},
            },
            accept_all,
            "t: parameters.properties.a: 'minimum' 5 is greater than 'maximum' 1",
            id="minimum-above-maximum",
        ),
        pytest.param(
            {
                "name": "t",
                "parameters": {"type": "object", "properties": {"a": {"exclusiveMinimum": 1, "maximum": 1}}},
            },
            accept_all,
            "t: parameters.properties.a: 'exclusiveMinimum' 1 and 'maximum' 1 leave no number",
            id="empty-exclusive-range",
        ),
        pytest.param(
            {
                "name": "t",
                "parameters": {"type": "object", "properties": {"a": {"minLength": 3, "maxLength": 2}}},
            },
            accept_all,
            "t: parameters.properties.a: 'minLength' 3 is greater than 'maxLength' 2",
            id="minLength-above-maxLength",
        ),
        pytest.param(
            {
                "name": "t",
                "parameters": {"type": "object", "properties": {"a": {"minItems": 2, "maxItems": 1}}},
            },
            accept_all,
            "t: parameters.properties.a: 'minItems' 2 is greater than 'maxItems' 1",
            id="minItems-above-maxItems",
        ),
        pytest.param(
            {"name": "t", "parameters": {"type": "object", "properties": {"a": {"$ref": "#/$defs/Missing"}}}},
            accept_all,
            "t: parameters.properties.a: '\\$ref' '#/\\$defs/Missing' does not resolve",
            id="dangling-ref",
        ),
        pytest.param(
            {
                "name": "t",
                "parameters": {"type": "object", "properties": {"a": {"$ref": "https://x.org/s.json"}}},
            },
            accept_all,
            "t: parameters.properties.a: '\\$ref' 'https://x.org/s.json' is not a local reference",
            id="remote-ref",
        ),
        pytest.param(
            {
                "name": "t",
                "parameters": {
                    "type": "object",
                    "properties": {"a": {"type": "object", "unevaluatedProperties": False}},
                },
            },
            accept_all,
            "t: parameters.properties.a: the keyword 'unevaluatedProperties' is not supported",
            id="unsupported-keyword",
        ),
        pytest.param(
            {
                "name": "t",
                "parameters": {"type": "object", "properties": {"a": {"type": "integer", "multipleOf": 0}}},
            },
            accept_all,
            "t: parameters.properties.a: 'multipleOf' must be greater than 0, got 0",
            id="multipleOf-zero",
        ),
        pytest.param(
            {"name": "t", "parameters": {"type": "object", "properties": {"a": {"enum": []}}}},
            accept_all,
            r"t: parameters.properties.a: 'enum' must be a non-empty list, got \[\]",
            id="empty-enum",
        ),
        pytest.param(
            {"name": "t", "parameters": {"type": "object", "additionalProperties": {"type": "string"}}},
            lambda: None,
            "t: 'additionalProperties' or 'patternProperties' let more arguments through "
            "but the handler takes no \\*\\*kwargs",
            id="top-level-additionalProperties-schema-handler-without-kwargs",
        ),
        pytest.param(
            {"name": "t", "parameters": {"type": "object", "properties": {"a": {"type": "string"}}}},
            lambda b: None,
            r"t: 2 problems:\n  - the handler has no parameter for the properties \['a'\]; add them or \*\*kwargs\n"
            "  - the handler's parameter 'b' has no default; the schema does not require it",
            id="handler-signature-mismatch",
        ),
        pytest.param(
            {
                "name": "t",
                "parameters": {"type": "object", "properties": {"a": {"type": "string"}}, "required": ["a"]},
            },
            positional_only,
            "t: the handler's parameter 'a' is positional-only; arguments come by keyword",
            id="handler-positional-only",
        ),
        pytest.param(
            {"name": "t", "parameters": {"type": "object", "additionalProperties": True}},
            lambda: None,
            "t: 'additionalProperties' is true but the handler takes no \\*\\*kwargs",
            id="open-schema-handler-without-kwargs",
        ),
    ],
)
def test_a_schema_that_cannot_be_honoured_is_refused_at_build_time(
    schema: Any, handler: Any, message: str
) -> None:
    with pytest.raises(ToolDefinitionError, match=f"^{message}"):
        tool_from_schema(schema, handler)


def test_every_definition_problem_is_listed_at_once() -> None:
    parameters = {
        "type": "object",
        "properties": {
            "a": {"type": "strnig"},
            "b": {"type": "string", "pattern": "(", "minLength": -1},
            "c": {"type": "array", "items": {"$ref": "#/$defs/Nope"}},
        },
        "required": ["a", "zz"],
        "$defs": {"Unused": {"type": "float", "maximum": "ten"}},
    }
    with pytest.raises(ToolDefinitionError) as info:
        tool_from_schema({"name": "many", "parameters": parameters}, accept_all)
    assert info.value.owner == "many"
    assert info.value.problems == [
        "parameters.properties.a: unknown 'type' 'strnig'. Did you mean 'string' or 'str'? "
        "Use one of: any, array, boolean, integer, null, number, object, string",
        "parameters.properties.b: 'minLength' must be a non-negative integer, got -1",
        "parameters.properties.b: 'pattern' '(' does not compile: missing ), unterminated subpattern at position 0",
        "parameters.properties.c.items: '$ref' '#/$defs/Nope' does not resolve",
        "parameters: 'required' names 'zz', which is not a property",
        "parameters.$defs.Unused: 'maximum' must be a number, got 'ten'",
    ]


def test_a_schema_that_refers_to_itself_checks_nested_levels() -> None:
    parameters = {
        "type": "object",
        "properties": {"tree": {"$ref": "#/$defs/Node"}},
        "$defs": {
            "Node": {
                "type": "object",
                "properties": {
                    "value": {"type": "integer"},
                    "children": {"type": "array", "items": {"$ref": "#/$defs/Node"}},
                },
                "required": ["value"],
            }
        },
    }
    handler = Recorder()
    tool = tool_from_schema({"name": "walk", "parameters": parameters}, handler)
    ok = call(tool, '{"tree": {"value": "1", "children": [{"value": 2, "children": []}]}}')
    assert ok.state == SUCCESS
    assert handler.calls == [{"tree": {"value": 1, "children": [{"value": 2, "children": []}]}}]
    bad = call(tool, '{"tree": {"value": 1, "children": [{"value": "x"}]}}')
    assert bad.errmsg == "walk: 'tree.children[0].value' expected integer, got string 'x'"
