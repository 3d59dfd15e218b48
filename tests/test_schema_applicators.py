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
from lagent_like.types._families import Refusal
from lagent_like.types._schema_compiler import SchemaCompiler

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


# --- against the reference validator -------------------------------------------------------

SCHEMAS = {
    "not-string": NOT_A_STRING,
    "not-integer": {"not": {"type": "integer"}},
    "not-number": {"not": {"type": "number"}},
    "not-boolean": {"not": {"type": "boolean"}},
    "not-array": {"not": {"type": "array"}},
    "not-enum": {"not": {"enum": [1, "a"]}},
    "not-minimum": {"not": {"minimum": 3}},
    "not-max-length": {"not": {"maxLength": 1}},
    "integer-not-const": {"type": "integer", "not": {"const": 3}},
    "if-then-else": STRING_OR_TEN,
    "if-integer": {"if": {"type": "integer"}, "then": {"minimum": 1}},
    "if-property": {"if": {"properties": {"k": {"const": 1}}}, "then": {"required": ["v"]}},
    "contains": WITH_A_STRING,
    "min-contains": {"type": "array", "contains": {"type": "integer"}, "minContains": 2},
    "property-names": {"type": "object", "propertyNames": {"maxLength": 1}},
    "any-of": {"anyOf": [{"type": "integer"}, {"type": "string"}]},
    "any-of-bounded": {"anyOf": [{"type": "string", "maxLength": 1}, {"type": "integer"}]},
    "all-of-contradiction": STRING_AND_INTEGER,
    "all-of": {"allOf": [{"type": "integer"}, {"minimum": 2}]},
    "then-against-type": {"type": "string", "if": {"minLength": 1}, "then": {"type": "integer"}},
    "any-of-against-properties": {**INTEGER_PROPERTY, "anyOf": [{"properties": {"a": {"type": "string"}}}]},
    "dependent-schemas": {**INTEGER_PROPERTY, "dependentSchemas": {"a": {"properties": {"b": {"not": {"type": "string"}}}}}},
    "items-not-string": {"type": "array", "items": {"not": {"type": "string"}}},
    "types-not-string": {"type": ["integer", "string"], "not": {"type": "string"}},
    "number-multiple": {"type": "number", "multipleOf": 0.5},
}  # fmt: skip
VALUES = [1, 3, 2.5, 12, -1, "3", "a", "abc", "", "true", True, None, [1, 2], [1, "a"], ["a", "b"], {}, {"a": 1},
          {"k": 1}, {"k": 1, "v": 2}, {"a": "1", "b": "x"}, {"a": 1, "b": 2}, {"ab": 1}, "[1]", '{"a": 1}']  # fmt: skip


@pytest.mark.parametrize("schema", [pytest.param(s, id=name) for name, s in SCHEMAS.items()])
def test_what_a_schema_tool_receives_is_valid_and_a_valid_value_arrives_unchanged(
    schema: dict[str, Any],
) -> None:
    jsonschema = pytest.importorskip(
        "jsonschema", reason="needs the 'test' extra: pip install '.[test]' (or 'lagent-like[test]')"
    )
    reference = jsonschema.Draft202012Validator(schema)
    wrong = []
    for mode in ("coerce", "strict"):
        compiler = SchemaCompiler(schema, mode, json_numbers=True)
        check = compiler.compile(schema, "x")
        for value in VALUES:
            out = check(value)
            accepted = type(out) is not Refusal
            if reference.is_valid(value) and not (accepted and type(out) is type(value) and out == value):
                wrong.append((mode, value, out))
            if accepted and not reference.is_valid(out):
                wrong.append((mode, value, out))
            if mode == "strict" and accepted != reference.is_valid(value):
                wrong.append((mode, value, out))
    assert (compiler.problems, wrong) == ([], [])
