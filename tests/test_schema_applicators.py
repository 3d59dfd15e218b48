"""The schema engine where it is subtle: applicators test the value as sent, never a converted copy.

``not``, ``if``, ``contains`` and ``propertyNames`` ask whether a value *is* valid
against a subschema; converting it first would answer for another value (``1`` is
not a string, though it converts to ``"1"``). ``anyOf``/``oneOf`` take the member the
value fits as sent, and convert only through a member when none fits.
"""

from __future__ import annotations

from typing import Any

import pytest

from lagent_like import ActionExecutor, SchemaTool, ToolDefinitionError, tool_from_schema
from lagent_like.schema import ActionStatusCode

SUCCESS = ActionStatusCode.SUCCESS
ARGS_ERROR = ActionStatusCode.ARGS_ERROR


def probe(prop: Any, validation: str = "coerce", **extra: Any) -> SchemaTool:
    """A tool of one required parameter ``x`` with schema ``prop``, returning ``repr(x)``."""
    parameters = {"type": "object", "properties": {"x": prop}, "required": ["x"], **extra}
    return SchemaTool({"name": "probe", "parameters": parameters}, lambda x: repr(x), validation=validation)


def run(tool: SchemaTool, sent: str) -> tuple[Any, Any]:
    ret = ActionExecutor([tool])("probe", f'{{"x": {sent}}}')
    return ret.state, ret.errmsg or ret.result[0]["content"]


NOT_A_STRING = {"not": {"type": "string"}}
STRING_OR_TEN = {"if": {"type": "string"}, "then": {"maxLength": 2}, "else": {"minimum": 10}}
WITH_A_STRING = {"type": "array", "contains": {"type": "string"}}


@pytest.mark.parametrize(
    ("prop", "sent", "outcome"),
    [
        pytest.param(NOT_A_STRING, "1", (SUCCESS, "1"), id="not-string-accepts-an-integer"),
        pytest.param(
            NOT_A_STRING,
            '"a"',
            (ARGS_ERROR, "probe: 'x' expected value and not string, got string 'a'"),
            id="not-string-refuses-a-string",
        ),
        pytest.param({"not": {"type": "integer"}}, '"3"', (SUCCESS, "'3'"), id="not-integer-accepts-digit-text"),
        pytest.param({"not": {"type": "boolean"}}, '"true"', (SUCCESS, "'true'"), id="not-boolean-accepts-text"),
        pytest.param(
            {"type": "integer", "not": {"const": 3}},
            '"3"',
            (ARGS_ERROR, "probe: 'x' expected integer and not exactly 3, got string '3'"),
            id="not-sees-the-value-its-own-type-made",
        ),
        pytest.param(
            STRING_OR_TEN,
            "5",
            (ARGS_ERROR, "probe: 'x' expected number >= 10, got integer 5"),
            id="if-is-false-for-an-integer",
        ),
        pytest.param(STRING_OR_TEN, "12", (SUCCESS, "12"), id="else-accepts"),
        pytest.param(
            STRING_OR_TEN,
            '"abc"',
            (ARGS_ERROR, "probe: 'x' expected string of at most 2 characters, got string 'abc'"),
            id="then-applies-to-a-string",
        ),
        pytest.param(
            WITH_A_STRING,
            "[1, 2]",
            (ARGS_ERROR, "probe: 'x' expected array with an item that is string, got array [1, 2]"),
            id="contains-counts-no-converted-item",
        ),
        pytest.param(WITH_A_STRING, '[1, "a"]', (SUCCESS, "[1, 'a']"), id="contains-finds-a-string"),
        pytest.param(
            {"type": "object", "propertyNames": {"type": "number"}},
            '{"1": 2}',
            (ARGS_ERROR, "probe: 'x' expected object whose keys are each number, got object {'1': 2}"),
            id="property-names-are-strings",
        ),
        pytest.param({"anyOf": [{"type": "integer"}, {"type": "string"}]}, '"3"', (SUCCESS, "'3'"), id="any-of-as-sent"),
        pytest.param(
            {"anyOf": [{"type": "integer"}, {"type": "boolean"}]}, '"3"', (SUCCESS, "3"), id="any-of-converts-if-none-fits"
        ),
        pytest.param({"oneOf": [{"type": "number"}, {"type": "string"}]}, "3", (SUCCESS, "3"), id="one-of-keeps-3"),
    ],
)  # fmt: skip
def test_an_applicator_tests_the_value_as_sent(
    prop: dict[str, Any], sent: str, outcome: tuple[Any, Any]
) -> None:
    assert run(probe(prop), sent) == outcome


@pytest.mark.parametrize(
    ("sent", "outcome"),
    [
        pytest.param("1", (SUCCESS, "1"), id="integer"),
        pytest.param(
            '"a"', (ARGS_ERROR, "probe: 'x' expected value and not string, got string 'a'"), id="string"
        ),
    ],
)
def test_not_is_the_same_in_strict_mode(sent: str, outcome: tuple[Any, Any]) -> None:
    assert run(probe(NOT_A_STRING, validation="strict"), sent) == outcome


def test_a_reference_used_inside_not_and_outside_it_keeps_both_meanings() -> None:
    defs = {"$defs": {"Text": {"type": "string"}}}
    parameters = {
        "type": "object",
        "properties": {"a": {"not": {"$ref": "#/$defs/Text"}}, "b": {"$ref": "#/$defs/Text"}},
        "required": ["a", "b"],
        **defs,
    }
    tool = tool_from_schema({"name": "pair", "parameters": parameters}, lambda a, b: repr((a, b)))
    assert ActionExecutor([tool])("pair", '{"a": 1, "b": 2}').result[0]["content"] == "(1, '2')"


def test_a_problem_in_a_definition_used_inside_not_is_reported_once() -> None:
    # The definition is compiled twice (as a test inside ``not``, and as itself).
    bad = {"$defs": {"Code": {"type": "string", "pattern": "("}}}
    with pytest.raises(ToolDefinitionError) as caught:
        probe({"not": {"$ref": "#/$defs/Code"}}, **bad)
    assert str(caught.value).count("parameters.$defs.Code: 'pattern' '(' does not compile") == 1


# --- parts of a schema that convert a value for each other -----------------------------------

STRING_AND_INTEGER = {"allOf": [{"type": "string"}, {"type": "integer"}]}
INTEGER_PROPERTY = {"type": "object", "properties": {"a": {"type": "integer"}}}


@pytest.mark.parametrize(
    ("prop", "sent", "outcome"),
    [
        pytest.param(
            STRING_AND_INTEGER,
            "1",
            (ARGS_ERROR, "probe: 'x' expected string but the schema's other parts turn it into integer 1"),
            id="all-of-refuses-an-integer",
        ),
        pytest.param(
            STRING_AND_INTEGER,
            '"1"',
            (ARGS_ERROR, "probe: 'x' expected string but the schema's other parts turn it into integer 1"),
            id="all-of-refuses-digit-text",
        ),
        pytest.param(
            {"type": "string", "if": {"minLength": 1}, "then": {"type": "integer"}},
            '"3"',
            (ARGS_ERROR, "probe: 'x' expected string but the schema's other parts turn it into integer 3"),
            id="then-against-type",
        ),
        pytest.param(
            {**INTEGER_PROPERTY, "anyOf": [{"properties": {"a": {"type": "string"}}}]},
            '{"a": 1}',
            (ARGS_ERROR, "probe: 'x.a' expected integer but the schema's other parts turn it into string '1'"),
            id="any-of-against-properties",
        ),
        pytest.param(
            {**INTEGER_PROPERTY, "patternProperties": {"^a": {"type": "string"}}},
            '{"a": 1}',
            (ARGS_ERROR, "probe: 'x.a' expected integer but the schema's other parts turn it into string '1'"),
            id="pattern-against-property",
        ),
        pytest.param({"allOf": [{"type": "integer"}, {"minimum": 2}]}, '"3"', (SUCCESS, "3"), id="all-of-agreeing"),
        pytest.param(
            {**INTEGER_PROPERTY, "anyOf": [{"required": ["a"]}]}, '{"a": "3"}', (SUCCESS, "{'a': 3}"), id="any-of-agreeing"
        ),
    ],
)  # fmt: skip
def test_a_value_the_parts_of_a_schema_convert_differently_is_refused(
    prop: dict[str, Any], sent: str, outcome: tuple[Any, Any]
) -> None:
    assert run(probe(prop), sent) == outcome
