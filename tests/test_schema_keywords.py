"""JSON Schema keywords: enforced at any depth (the top of ``parameters`` included) or refused.

Real-world definitions in the style of the Berkeley Function-Calling Leaderboard (BFCL)
live in ``tests/data/bfcl_style_tools.json``: each loads and checks what it says.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from lagent_like import ActionExecutor, ActionStatusCode, ToolDefinitionError, tool_from_schema
from lagent_like.toolkits._schema_tool import SchemaTool

SUCCESS = ActionStatusCode.SUCCESS
ARGS_ERROR = ActionStatusCode.ARGS_ERROR

BFCL = {
    tool["name"]: tool
    for tool in json.loads((Path(__file__).parent / "data" / "bfcl_style_tools.json").read_text())
}


def echo(**kwargs: Any) -> str:
    return json.dumps(kwargs, sort_keys=True)


def run(tool: SchemaTool, arguments: dict[str, Any]) -> tuple[ActionStatusCode, str]:
    ret = ActionExecutor([tool])(tool.name, json.dumps(arguments))
    if ret.state == SUCCESS:
        return ret.state, ret.result[0]["content"]
    return ret.state, ret.errmsg


@pytest.mark.parametrize(
    ("name", "arguments", "outcome"),
    [
        pytest.param("calculate_triangle_area", {"base": 10, "height": "5"}, '{"base": 10, "height": 5}',
                     id="dict-type-word"),
        pytest.param("get_current_weather", {"location": "Paris"}, '{"location": "Paris"}',
                     id="required-without-properties"),
        pytest.param("get_current_weather", {}, "get_current_weather: 'location' is required",
                     id="required-without-properties-missing"),
        pytest.param("get_current_weather", {"location": "Paris", "unit": "C"},
                     "get_current_weather: 'unit' is not a parameter; parameters: location",
                     id="required-without-properties-extra"),
        pytest.param("book_flight", {"from_airport": "CDG", "to_airport": "XXX", "passengers": [{"age": 3}]},
                     "book_flight: 'to_airport' expected string matching '^[A-Z]{3}$' and not exactly 'XXX', "
                     "got string 'XXX'", id="nested-not"),
        pytest.param("book_flight", {"from_airport": "CDG", "to_airport": "JFK", "passengers": [{"age": "3"}]},
                     '{"from_airport": "CDG", "passengers": [{"age": 3}], "to_airport": "JFK"}',
                     id="nested-dict-items"),
        pytest.param("book_flight", {"from_airport": "CDG", "to_airport": "JFK", "passengers": [{}]},
                     "book_flight: 'passengers[0]' expected object with required keys ['age'], got object {}",
                     id="nested-required"),
        pytest.param("set_labels", {"resource": "vm", "label_1": "web"}, '{"label_1": "web", "resource": "vm"}',
                     id="top-patternProperties"),
        pytest.param("set_labels", {"resource": "vm", "label_1": "much-too-long"},
                     "set_labels: 'label_1' expected string of at most 8 characters, got string 'much-too-long'",
                     id="top-patternProperties-value"),
        pytest.param("set_labels", {"resource": "vm", "tag": "x"},
                     "set_labels: 'tag' is not a parameter; parameters: resource", id="top-patternProperties-other-key"),
        pytest.param("set_labels", {"resource": "vm"},
                     "set_labels: the arguments expected object of at least 2 properties, got object {'resource': 'vm'}",
                     id="top-minProperties"),
        pytest.param("store_metadata", {"key": "k", "size": "2.5"}, '{"key": "k", "size": 2.5}',
                     id="top-additionalProperties-schema"),
        pytest.param("store_metadata", {"key": "k", "size": "big"},
                     "store_metadata: 'size' expected number, got string 'big'",
                     id="top-additionalProperties-schema-refused"),
        pytest.param("ship", {"country": "US"}, '{"country": "US"}', id="top-if-not-taken"),
        pytest.param("ship", {"country": "FR"},
                     "ship: the arguments expected object with required keys ['customs'], got object {'country': 'FR'}",
                     id="top-if-then"),
        pytest.param("ship", {"country": "FR", "customs": "C1"}, '{"country": "FR", "customs": "C1"}',
                     id="top-if-then-met"),
    ],
)  # fmt: skip
def test_bfcl_style_tools_load_and_enforce_their_schemas(
    name: str, arguments: dict[str, Any], outcome: str
) -> None:
    tool = tool_from_schema(BFCL[name], echo)
    state, text = run(tool, arguments)
    assert (state, text) == (SUCCESS if outcome.startswith("{") else ARGS_ERROR, outcome)


def test_top_level_dependent_required_is_enforced() -> None:
    schema = {
        "name": "pay",
        "parameters": {
            "type": "object",
            "properties": {"card": {"type": "string"}, "billing": {"type": "string"}},
            "dependentRequired": {"card": ["billing"]},
        },
    }
    tool = tool_from_schema(schema, echo)
    assert run(tool, {"card": "4111"}) == (
        ARGS_ERROR,
        "pay: the arguments expected object where 'card' needs ['billing'], got object {'card': '4111'}",
    )
    assert run(tool, {"card": "4111", "billing": "Paris"}) == (
        SUCCESS,
        '{"billing": "Paris", "card": "4111"}',
    )
    assert run(tool, {}) == (SUCCESS, "{}")


def probe(prop: Any) -> SchemaTool:
    return tool_from_schema(
        {"name": "probe", "parameters": {"type": "object", "properties": {"x": prop}}}, echo
    )


@pytest.mark.parametrize(
    ("prop", "value", "outcome"),
    [
        pytest.param({"type": "object", "patternProperties": {"^n_": {"type": "integer"}}}, {"n_a": "1", "b": "x"},
                     '{"x": {"b": "x", "n_a": 1}}', id="patternProperties"),
        pytest.param({"type": "object", "patternProperties": {"^n_": {"type": "integer"}}}, {"n_a": "z"},
                     "probe: 'x.n_a' expected integer, got string 'z'", id="patternProperties-refused"),
        pytest.param({"type": "object", "patternProperties": {"^n_": {}}, "additionalProperties": False}, {"m": 1},
                     "probe: 'x' expected object with only the keys [], got object {'m': 1}",
                     id="patternProperties-closed"),
        pytest.param({"type": "object", "propertyNames": {"pattern": "^[a-z]+$"}}, {"A": 1},
                     "probe: 'x' expected object whose keys are each string matching '^[a-z]+$', got object {'A': 1}",
                     id="propertyNames"),
        pytest.param({"type": "object", "minProperties": 1}, {},
                     "probe: 'x' expected object of at least 1 properties, got object {}", id="minProperties"),
        pytest.param({"type": "object", "maxProperties": 1}, {"a": 1, "b": 2},
                     "probe: 'x' expected object of at most 1 properties, got object {'a': 1, 'b': 2}",
                     id="maxProperties"),
        pytest.param({"type": "object", "dependentSchemas": {"a": {"required": ["b"]}}}, {"a": 1},
                     "probe: 'x' expected object with required keys ['b'], got object {'a': 1}",
                     id="dependentSchemas"),
        pytest.param({"type": "object", "dependencies": {"a": ["b"]}}, {"a": 1},
                     "probe: 'x' expected object where 'a' needs ['b'], got object {'a': 1}", id="dependencies-draft7"),
        pytest.param({"type": "array", "contains": {"type": "integer", "minimum": 5}}, [1, 2],
                     "probe: 'x' expected array with an item that is integer >= 5, got array [1, 2]", id="contains"),
        pytest.param({"type": "array", "contains": {"const": 1}, "minContains": 2}, [1, 2],
                     "probe: 'x' expected array with at least 2 items that are exactly 1, got array [1, 2]",
                     id="minContains"),
        pytest.param({"type": "array", "contains": {"const": 1}, "maxContains": 1}, [1, 1],
                     "probe: 'x' expected array with exactly 1 items that are exactly 1, got array [1, 1]",
                     id="maxContains"),
        pytest.param({"type": "array", "items": [{"type": "integer"}], "additionalItems": {"type": "string"}},
                     [1, True], "probe: 'x[1]' expected string, got boolean true", id="additionalItems"),
        pytest.param({"type": "integer", "not": {"enum": [13]}}, 13,
                     "probe: 'x' expected integer and not one of [13], got integer 13", id="not"),
        pytest.param({"type": "integer", "not": {"enum": [13]}}, "12", '{"x": 12}', id="not-passes"),
        pytest.param({"if": {"type": "string"}, "then": {"minLength": 2}, "else": {"type": "integer"}}, "a",
                     "probe: 'x' expected string of at least 2 characters, got string 'a'", id="if-then"),
        pytest.param({"if": {"type": "string"}, "then": {"minLength": 2}, "else": {"type": "integer"}}, [1],
                     "probe: 'x' expected integer, got array [1]", id="if-else"),
    ],
)  # fmt: skip
def test_keywords_are_enforced_inside_properties(prop: Any, value: Any, outcome: str) -> None:
    state, text = run(probe(prop), {"x": value})
    assert (state, text) == (SUCCESS if outcome.startswith("{") else ARGS_ERROR, outcome)


@pytest.mark.parametrize(
    ("parameters", "message"),
    [
        pytest.param({"type": "object", "unevaluatedProperties": False},
                     "t: parameters: the keyword 'unevaluatedProperties' is not supported", id="top"),
        pytest.param({"type": "object", "properties": {"a": {"type": "array", "unevaluatedItems": False}}},
                     "t: parameters.properties.a: the keyword 'unevaluatedItems' is not supported", id="nested"),
        pytest.param({"type": "object", "properties": {"a": {"$dynamicRef": "#node"}}},
                     "t: parameters.properties.a: the keyword '\\$dynamicRef' is not supported", id="dynamicRef"),
        pytest.param({"type": "object", "patternProperties": {"(": {}}},
                     "t: parameters: 'patternProperties' '\\(' does not compile", id="bad-pattern-property"),
        pytest.param({"type": "object", "properties": {"a": {"type": "object", "dependentRequired": {"a": "b"}}}},
                     "t: parameters.properties.a: 'dependentRequired' must map names to lists of names",
                     id="bad-dependentRequired"),
    ],
)  # fmt: skip
def test_keywords_that_are_not_enforced_are_refused_at_definition(parameters: Any, message: str) -> None:
    with pytest.raises(ToolDefinitionError, match=f"^{message}"):
        tool_from_schema({"name": "t", "parameters": parameters}, echo)


def test_unevaluated_properties_true_says_nothing_and_is_accepted() -> None:
    tool = tool_from_schema(
        {"name": "t", "parameters": {"type": "object", "unevaluatedProperties": True}}, echo
    )
    assert run(tool, {}) == (SUCCESS, "{}")


def test_bfcl_required_without_properties_is_described_and_exported() -> None:
    tool = tool_from_schema(BFCL["get_current_weather"], echo)
    assert tool.description["parameters"] == [{"name": "location", "type": "STRING", "description": ""}]
    assert tool.description["required"] == ["location"]
    assert tool.json_schema() == {
        "type": "object",
        "properties": {"location": {}},
        "required": ["location"],
        "additionalProperties": False,
    }


def test_top_level_schema_keywords_are_exported_unchanged() -> None:
    tool = tool_from_schema(BFCL["set_labels"], echo)
    schema = tool.json_schema()
    assert schema["patternProperties"] == {"^label_[0-9]+$": {"type": "string", "maxLength": 8}}
    assert schema["minProperties"] == 2
    assert schema["additionalProperties"] is False


@pytest.mark.parametrize(
    ("arguments", "outcome"),
    [
        pytest.param({"x_a": 1}, '{"x_a": 1}', id="matching-name"),
        pytest.param({"x_a": "1"}, '{"x_a": 1}', id="matching-name-converted"),
        pytest.param({"y": 1}, "only_patterns: 'y' is not a parameter; parameters: none", id="other-name"),
        pytest.param({"x_a": 13}, "only_patterns: 'x_a' expected integer and not exactly 13, got integer 13",
                     id="nested-not"),
    ],
)  # fmt: skip
def test_parameters_with_only_pattern_properties_take_matching_names(arguments: Any, outcome: str) -> None:
    schema = {
        "name": "only_patterns",
        "parameters": {
            "type": "object",
            "patternProperties": {"^x_": {"type": "integer", "not": {"const": 13}}},
        },
    }
    state, text = run(tool_from_schema(schema, echo), arguments)
    assert (state, text) == (SUCCESS if outcome.startswith("{") else ARGS_ERROR, outcome)
