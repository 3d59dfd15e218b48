"""Checking and coercing a model's arguments against the declared parameter types.

The coercion matrix runs twice: against the validators an action compiles
(``argument_checks``), and end to end through the executor with ``JsonParser`` and
``TupleParser``, where a tool records what it received.
"""

from __future__ import annotations

import dataclasses
import enum
import json
from typing import Any, Dict, List, Literal, NamedTuple, Optional, TypedDict, Union

import pytest

from lagent_like import (
    ActionExecutor,
    ActionStatusCode,
    ArgumentError,
    BaseAction,
    BaseParser,
    JsonParser,
    TupleParser,
    tool_api,
)
from lagent_like._private.json_values import json_value
from lagent_like.types._validation import Refusal, check_of


class ValPoint(TypedDict):
    x: int
    y: int


@dataclasses.dataclass
class ValBox:
    width: int
    height: float = 1.0


class ValColor(enum.Enum):
    RED = "red"
    GREEN = "green"


class ValTypes(BaseAction):
    """One API per declared type; each returns the repr of what it received."""

    def __init__(self, parser: type[BaseParser] = JsonParser) -> None:
        super().__init__(parser=parser)
        self.calls: list[tuple[str, Any]] = []

    def _got(self, api: str, value: Any) -> str:
        self.calls.append((api, value))
        return repr(value)

    @tool_api
    def text(self, s: str) -> str:
        """A string."""
        return self._got("text", s)

    @tool_api
    def count(self, n: int) -> str:
        """An integer."""
        return self._got("count", n)

    @tool_api
    def ratio(self, x: float) -> str:
        """A number."""
        return self._got("ratio", x)

    @tool_api
    def flag(self, on: bool) -> str:
        """A boolean."""
        return self._got("flag", on)

    @tool_api
    def ints(self, xs: list[int]) -> str:
        """A list of integers."""
        return self._got("ints", xs)

    @tool_api
    def strs(self, names: List[str]) -> str:
        """A list of strings."""
        return self._got("strs", names)

    @tool_api
    def int_tuple(self, ns: tuple[int, ...]) -> str:
        """A tuple of integers."""
        return self._got("int_tuple", ns)

    @tool_api
    def pair(self, pair: tuple[int, str]) -> str:
        """A fixed pair."""
        return self._got("pair", pair)

    @tool_api
    def tags(self, tags: set[str]) -> str:
        """A set of strings."""
        return self._got("tags", tags)

    @tool_api
    def counts(self, counts: dict[str, int]) -> str:
        """A mapping to integers."""
        return self._got("counts", counts)

    @tool_api
    def weights(self, weights: Dict[str, float]) -> str:
        """A mapping to numbers."""
        return self._got("weights", weights)

    @tool_api
    def point(self, point: ValPoint) -> str:
        """A TypedDict."""
        return self._got("point", point)

    @tool_api
    def box(self, box: ValBox) -> str:
        """A dataclass."""
        return self._got("box", box)

    @tool_api
    def unit(self, unit: Literal["C", "F"]) -> str:
        """A string literal."""
        return self._got("unit", unit)

    @tool_api
    def level(self, level: Literal[1, 2]) -> str:
        """An integer literal."""
        return self._got("level", level)

    @tool_api
    def color(self, color: ValColor) -> str:
        """An Enum."""
        return self._got("color", color)

    @tool_api
    def maybe(self, n: Optional[int]) -> str:
        """An optional integer (still required: it has no default)."""
        return self._got("maybe", n)

    @tool_api
    def either(self, v: Union[int, str]) -> str:
        """An integer or a string."""
        return self._got("either", v)

    @tool_api
    def anything(self, v: Any) -> str:
        """Any value."""
        return self._got("anything", v)

    @tool_api
    def doc_typed(self, n) -> str:
        """Typed by the docstring.

        Args:
            n (int): a count
        """
        return self._got("doc_typed", n)

    @tool_api
    def untyped(self, v) -> str:
        """Not typed at all.

        Args:
            v: anything
        """
        return self._got("untyped", v)


class Accepted(NamedTuple):
    api: str
    param: str
    value: Any  # a JSON value: what a model can send
    received: str  # repr of what the tool receives


class Refused(NamedTuple):
    api: str
    param: str
    value: Any
    message: str  # the errmsg after 'ValTypes.<api>: '


Case = Union[Accepted, Refused]

ACCEPTED: dict[str, Accepted] = {
    "str": Accepted("text", "s", "abc", "'abc'"),
    "str-empty": Accepted("text", "s", "", "''"),
    "str-from-int": Accepted("text", "s", 3, "'3'"),
    "str-from-float": Accepted("text", "s", 2.5, "'2.5'"),
    "int": Accepted("count", "n", 3, "3"),
    "int-from-str": Accepted("count", "n", "3", "3"),
    "int-from-negative-str": Accepted("count", "n", "-4", "-4"),
    "int-from-padded-str": Accepted("count", "n", " 7 ", "7"),
    "int-from-integral-float": Accepted("count", "n", 3.0, "3"),
    "float": Accepted("ratio", "x", 2.5, "2.5"),
    "float-from-int": Accepted("ratio", "x", 3, "3.0"),
    "float-from-str": Accepted("ratio", "x", "2.5", "2.5"),
    "bool-true": Accepted("flag", "on", True, "True"),
    "bool-false": Accepted("flag", "on", False, "False"),
    "bool-from-str-true": Accepted("flag", "on", "true", "True"),
    "bool-from-str-false": Accepted("flag", "on", "false", "False"),
    "bool-from-str-True": Accepted("flag", "on", "True", "True"),
    "list[int]": Accepted("ints", "xs", [1, 2], "[1, 2]"),
    "list[int]-empty": Accepted("ints", "xs", [], "[]"),
    "list[int]-items-from-str": Accepted("ints", "xs", ["1", 2], "[1, 2]"),
    "list[int]-from-json-text": Accepted("ints", "xs", "[1, 2]", "[1, 2]"),
    "List[str]": Accepted("strs", "names", ["a", "b"], "['a', 'b']"),
    "List[str]-from-json-text": Accepted("strs", "names", '["a"]', "['a']"),
    "tuple[int, ...]": Accepted("int_tuple", "ns", [1, "2"], "(1, 2)"),
    "tuple[int, ...]-empty": Accepted("int_tuple", "ns", [], "()"),
    "tuple[int, str]": Accepted("pair", "pair", [1, "a"], "(1, 'a')"),
    "tuple[int, str]-from-json-text": Accepted("pair", "pair", '[1, "a"]', "(1, 'a')"),
    "set[str]": Accepted("tags", "tags", ["a", "a"], "{'a'}"),
    "dict[str, int]": Accepted("counts", "counts", {"a": 1}, "{'a': 1}"),
    "dict[str, int]-values-from-str": Accepted("counts", "counts", {"a": "2"}, "{'a': 2}"),
    "dict[str, int]-from-json-text": Accepted("counts", "counts", '{"a": 1}', "{'a': 1}"),
    "Dict[str, float]": Accepted("weights", "weights", {"a": 0.5}, "{'a': 0.5}"),
    "Dict[str, float]-from-int": Accepted("weights", "weights", {"a": 1}, "{'a': 1.0}"),
    "TypedDict": Accepted("point", "point", {"x": 1, "y": 2}, "{'x': 1, 'y': 2}"),
    "TypedDict-field-from-str": Accepted("point", "point", {"x": "1", "y": 2}, "{'x': 1, 'y': 2}"),
    "TypedDict-from-json-text": Accepted("point", "point", '{"x": 1, "y": 2}', "{'x': 1, 'y': 2}"),
    "dataclass": Accepted("box", "box", {"width": 2}, "ValBox(width=2, height=1.0)"),
    "dataclass-fields-coerced": Accepted(
        "box", "box", {"width": "2", "height": 3}, "ValBox(width=2, height=3.0)"
    ),
    "Literal[str]": Accepted("unit", "unit", "C", "'C'"),
    "Literal[int]": Accepted("level", "level", 2, "2"),
    "Enum-from-value": Accepted("color", "color", "red", "<ValColor.RED: 'red'>"),
    "Optional[int]-null": Accepted("maybe", "n", None, "None"),
    "Optional[int]": Accepted("maybe", "n", 3, "3"),
    "Optional[int]-from-str": Accepted("maybe", "n", "3", "3"),
    "Union[int, str]-int": Accepted("either", "v", 3, "3"),
    "Union[int, str]-str": Accepted("either", "v", "abc", "'abc'"),
    "Union[int, str]-digits-stay-str": Accepted("either", "v", "007", "'007'"),
    "Union[int, str]-fraction-becomes-str": Accepted("either", "v", 2.5, "'2.5'"),
    "Any-null": Accepted("anything", "v", None, "None"),
    "Any-nested": Accepted("anything", "v", [1, {"a": None}], "[1, {'a': None}]"),
    "docstring-int-from-str": Accepted("doc_typed", "n", "3", "3"),
    "docstring-int": Accepted("doc_typed", "n", 4, "4"),
    "untyped-object": Accepted("untyped", "v", {"a": [1]}, "{'a': [1]}"),
    "untyped-str-not-coerced": Accepted("untyped", "v", "3", "'3'"),
    "untyped-null": Accepted("untyped", "v", None, "None"),
}

REFUSED: dict[str, Refused] = {
    "str-from-object": Refused("text", "s", {"a": 1}, "'s' expected string, got object {'a': 1}"),
    "str-from-bool": Refused("text", "s", True, "'s' expected string, got boolean true"),
    "str-from-null": Refused("text", "s", None, "'s' expected string, got null"),
    "int-from-fraction": Refused("count", "n", 2.5, "'n' expected integer, got number 2.5"),
    "int-from-word": Refused("count", "n", "abc", "'n' expected integer, got string 'abc'"),
    "int-from-fraction-str": Refused("count", "n", "2.5", "'n' expected integer, got string '2.5'"),
    "int-from-true": Refused("count", "n", True, "'n' expected integer, got boolean true"),
    "int-from-null": Refused("count", "n", None, "'n' expected integer, got null"),
    "int-from-list": Refused("count", "n", [1], "'n' expected integer, got array [1]"),
    "float-from-word": Refused("ratio", "x", "abc", "'x' expected number, got string 'abc'"),
    "float-from-nan-str": Refused("ratio", "x", "nan", "'x' expected number, got string 'nan'"),
    "float-from-true": Refused("ratio", "x", True, "'x' expected number, got boolean true"),
    "float-from-null": Refused("ratio", "x", None, "'x' expected number, got null"),
    "bool-from-int": Refused("flag", "on", 1, "'on' expected boolean, got integer 1"),
    "bool-from-yes": Refused("flag", "on", "yes", "'on' expected boolean, got string 'yes'"),
    "bool-from-null": Refused("flag", "on", None, "'on' expected boolean, got null"),
    "list[int]-from-bare-str": Refused("ints", "xs", "abc", "'xs' expected array, got string 'abc'"),
    "list[int]-from-object": Refused("ints", "xs", {"a": 1}, "'xs' expected array, got object {'a': 1}"),
    "list[int]-from-json-object-text": Refused(
        "ints", "xs", '{"a": 1}', "'xs' expected array, got string '{\"a\": 1}'"
    ),
    "list[int]-bad-item": Refused("ints", "xs", [1, "x"], "'xs[1]' expected integer, got string 'x'"),
    "list[int]-fraction-item": Refused("ints", "xs", [1, 2.5], "'xs[1]' expected integer, got number 2.5"),
    "list[int]-from-null": Refused("ints", "xs", None, "'xs' expected array, got null"),
    "List[str]-bad-item": Refused("strs", "names", ["a", None], "'names[1]' expected string, got null"),
    "List[str]-from-bare-str": Refused("strs", "names", "a", "'names' expected array, got string 'a'"),
    "tuple[int, ...]-bad-item": Refused(
        "int_tuple", "ns", [1, "x"], "'ns[1]' expected integer, got string 'x'"
    ),
    "tuple[int, str]-too-short": Refused(
        "pair", "pair", [1], "'pair' expected array of 2 items, got array [1]"
    ),
    "tuple[int, str]-bad-item": Refused(
        "pair", "pair", [1, True], "'pair[1]' expected string, got boolean true"
    ),
    "set[str]-bad-item": Refused("tags", "tags", ["a", [1]], "'tags[1]' expected string, got array [1]"),
    "dict[str, int]-bad-value": Refused(
        "counts",
        "counts",
        {"a": "x"},
        "\"counts['a']\" expected integer, got string 'x'",
    ),
    "dict[str, int]-from-array": Refused("counts", "counts", [1], "'counts' expected object, got array [1]"),
    "dict[str, int]-from-bare-str": Refused(
        "counts", "counts", "abc", "'counts' expected object, got string 'abc'"
    ),
    "Dict[str, float]-bad-value": Refused(
        "weights",
        "weights",
        {"a": "x"},
        "\"weights['a']\" expected number, got string 'x'",
    ),
    "TypedDict-bad-field": Refused(
        "point", "point", {"x": "a", "y": 2}, "'point.x' expected integer, got string 'a'"
    ),
    "TypedDict-missing-key": Refused(
        "point",
        "point",
        {"x": 1},
        "'point' expected object (ValPoint) with required keys ['y'], got object {'x': 1}",
    ),
    "TypedDict-unknown-key": Refused(
        "point",
        "point",
        {"x": 1, "y": 2, "z": 3},
        "'point' expected object (ValPoint) with keys ['x', 'y'], got object {'x': 1, 'y': 2, 'z': 3}",
    ),
    "TypedDict-from-bare-str": Refused(
        "point", "point", "abc", "'point' expected object (ValPoint), got string 'abc'"
    ),
    "dataclass-bad-field": Refused(
        "box", "box", {"width": "w"}, "'box.width' expected integer, got string 'w'"
    ),
    "dataclass-missing-field": Refused(
        "box",
        "box",
        {"height": 1.5},
        "'box' expected object (ValBox) with required keys ['width'], got object {'height': 1.5}",
    ),
    "Literal[str]-not-member": Refused(
        "unit", "unit", "K", "'unit' expected one of ['C', 'F'], got string 'K'"
    ),
    "Literal[str]-wrong-case": Refused(
        "unit", "unit", "c", "'unit' expected one of ['C', 'F'], got string 'c'"
    ),
    "Literal[int]-not-member": Refused("level", "level", 3, "'level' expected one of [1, 2], got integer 3"),
    "Literal[int]-from-str": Refused("level", "level", "1", "'level' expected one of [1, 2], got string '1'"),
    "Literal[int]-from-true": Refused(
        "level", "level", True, "'level' expected one of [1, 2], got boolean true"
    ),
    "Enum-not-a-value": Refused(
        "color", "color", "purple", "'color' expected one of ['red', 'green'], got string 'purple'"
    ),
    "Enum-member-name-is-not-a-value": Refused(
        "color", "color", "RED", "'color' expected one of ['red', 'green'], got string 'RED'"
    ),
    "Optional[int]-from-word": Refused("maybe", "n", "x", "'n' expected integer or null, got string 'x'"),
    "Optional[int]-from-fraction": Refused("maybe", "n", 2.5, "'n' expected integer or null, got number 2.5"),
    "Union[int, str]-from-array": Refused(
        "either", "v", [2.5], "'v' expected integer or string, got array [2.5]"
    ),
    "Union[int, str]-from-null": Refused("either", "v", None, "'v' expected integer or string, got null"),
    "docstring-int-from-word": Refused("doc_typed", "n", "x", "'n' expected integer, got string 'x'"),
    "docstring-int-from-fraction": Refused("doc_typed", "n", 2.5, "'n' expected integer, got number 2.5"),
}


def _exec_params(cases: dict[str, Any]) -> list[Any]:
    return [pytest.param(case, id=name) for name, case in cases.items()]


def _check_params(cases: dict[str, Any]) -> list[Any]:
    return [pytest.param(case, id=name) for name, case in cases.items()]


def _check(case: Case) -> Any:
    """Run the value through the validator the action compiled for the parameter."""
    validators, _ = ValTypes().argument_checks(case.api)
    validator = validators.get(case.param)
    return case.value if validator is None else validator(case.value)


@pytest.mark.parametrize("case", _check_params(ACCEPTED))
def test_argument_checks_accept_and_coerce(case: Accepted) -> None:
    assert repr(_check(case)) == case.received


@pytest.mark.parametrize("case", _check_params(REFUSED))
def test_argument_checks_refuse_with_a_message_naming_parameter_type_and_value(case: Refused) -> None:
    with pytest.raises(ArgumentError) as info:
        _check(case)
    assert Refusal.of(info.value).describe(case.param, info.value.value) == case.message


@pytest.mark.parametrize("case", _check_params(REFUSED))
def test_checks_behind_the_validators_return_the_same_refusal_without_raising(case: Refused) -> None:
    validators, _ = ValTypes().argument_checks(case.api)
    refusal = check_of(validators[case.param])(case.value)
    assert type(refusal) is Refusal
    assert refusal.describe(case.param, case.value) == case.message


@pytest.mark.parametrize("case", _check_params(ACCEPTED))
def test_checks_behind_the_validators_return_the_same_values(case: Accepted) -> None:
    validators, _ = ValTypes().argument_checks(case.api)
    validator = validators.get(case.param)
    if validator is not None:
        assert repr(check_of(validator)(case.value)) == case.received


def _own_validator(value: Any) -> Any:
    """A validator a tool supplies itself: raises ``ArgumentError`` with a path."""
    if value == "ok":
        return value
    raise ArgumentError("the word ok", value[0], "[0]")


def test_check_of_a_tools_own_validator_turns_its_invalid_into_a_refusal() -> None:
    check = check_of(_own_validator)
    assert check("ok") == "ok"
    refusal = check(["no"])
    assert type(refusal) is Refusal
    assert refusal.describe("word", ["no"]) == "'word[0]' expected the word ok, got string 'no'"


PARSERS = [pytest.param(JsonParser, id="json"), pytest.param(TupleParser, id="tuple")]


def _command(parser: type[BaseParser], case: Case) -> str:
    # The same value either way: a JSON object, or a Python tuple literal of one item.
    if parser is JsonParser:
        return json.dumps({case.param: case.value})
    return repr((case.value,))


@pytest.mark.parametrize("parser", PARSERS)
@pytest.mark.parametrize("case", _exec_params(ACCEPTED))
def test_executor_passes_the_coerced_value_to_the_tool(parser: type[BaseParser], case: Accepted) -> None:
    tool = ValTypes(parser=parser)
    ret = ActionExecutor([tool])(f"ValTypes.{case.api}", _command(parser, case))
    assert (ret.state, ret.errmsg) == (ActionStatusCode.SUCCESS, None)
    assert ret.result == [{"type": "text", "content": case.received}]
    assert len(tool.calls) == 1
    # The record holds the coerced value as JSON (a tuple as a list, an Enum as its value).
    assert repr(ret.args) == repr({case.param: json_value(tool.calls[0][1])})


@pytest.mark.parametrize("parser", PARSERS)
@pytest.mark.parametrize("case", _exec_params(REFUSED))
def test_executor_refuses_without_calling_the_tool(parser: type[BaseParser], case: Refused) -> None:
    tool = ValTypes(parser=parser)
    command = _command(parser, case)
    ret = ActionExecutor([tool])(f"ValTypes.{case.api}", command)
    assert ret.state == ActionStatusCode.ARGS_ERROR
    assert ret.errmsg == f"ValTypes.{case.api}: {case.message}"
    assert ret.args == {"inputs": command, "name": case.api}
    assert ret.result is None
    assert tool.calls == []


def test_dict_input_with_python_values_is_checked_like_json() -> None:
    tool = ValTypes()
    ret = ActionExecutor([tool])("ValTypes.count", {"n": "12"})
    assert ret.result == [{"type": "text", "content": "12"}]
    assert tool.calls == [("count", 12)]


def test_tuple_literal_tuples_fit_a_fixed_tuple_parameter() -> None:
    tool = ValTypes(parser=TupleParser)
    ret = ActionExecutor([tool])("ValTypes.pair", "((1, 'a'),)")
    assert ret.result == [{"type": "text", "content": "(1, 'a')"}]


class ValCalc(BaseAction):
    """Calculator."""

    def __init__(self, parser: type[BaseParser] = JsonParser) -> None:
        super().__init__(parser=parser)
        self.calls: list[dict[str, Any]] = []

    @tool_api
    def add(self, a: int, b: int) -> int:
        """Add two integers.

        Args:
            a: first
            b: second
        """
        self.calls.append({"a": a, "b": b})
        return a + b


@pytest.mark.parametrize(
    ("command", "errmsg"),
    [
        pytest.param(
            '{"a": "x"}',
            "ValCalc.add: 'a' expected integer, got string 'x'; 'b' is required",
            id="type-and-missing",
        ),
        pytest.param(
            '{"b": 2.5, "a": "x"}',
            "ValCalc.add: 'a' expected integer, got string 'x'; 'b' expected integer, got number 2.5",
            id="two-types-in-parameter-order",
        ),
        pytest.param(
            '{"zz": 1, "b": null}',
            "ValCalc.add: 'a' is required; 'b' expected integer, got null; 'zz' is not a parameter; parameters: a, b",
            id="missing-type-then-unknown",
        ),
        pytest.param(
            '{"a": 1, "b": true, "bb": 2}',
            "ValCalc.add: 'b' expected integer, got boolean true; 'bb' is not a parameter (did you mean 'b'?); "
            "parameters: a, b",
            id="unknown-with-hint",
        ),
        pytest.param("{}", "ValCalc.add: 'a' is required; 'b' is required", id="all-missing"),
    ],
)
def test_all_problems_of_one_json_call_in_one_message(command: str, errmsg: str) -> None:
    tool = ValCalc()
    ret = ActionExecutor([tool])("ValCalc.add", command)
    assert (ret.state, ret.errmsg) == (ActionStatusCode.ARGS_ERROR, errmsg)
    assert ret.args == {"inputs": command, "name": "add"}
    assert tool.calls == []


def test_all_problems_of_one_tuple_call_in_one_message() -> None:
    tool = ValCalc(parser=TupleParser)
    ret = ActionExecutor([tool])("ValCalc.add", "('x', 2.5)")
    assert ret.state == ActionStatusCode.ARGS_ERROR
    assert (
        ret.errmsg
        == "ValCalc.add: 'a' expected integer, got string 'x'; 'b' expected integer, got number 2.5"
    )
    assert tool.calls == []


@pytest.mark.parametrize("parser", PARSERS)
def test_coerced_arguments_are_what_the_tool_and_the_record_get(parser: type[BaseParser]) -> None:
    tool = ValCalc(parser=parser)
    command = '{"a": "3", "b": 4.0}' if parser is JsonParser else "('3', 4.0)"
    ret = ActionExecutor([tool])("ValCalc.add", command)
    assert ret.result == [{"type": "text", "content": "7"}]
    assert tool.calls == [{"a": 3, "b": 4}]
    assert repr(ret.args) == "{'a': 3, 'b': 4}"


class ValMixed(BaseAction):
    """Several typed parameters."""

    @tool_api
    def place(self, n: int, xs: list[int], point: ValPoint, unit: Literal["C", "F"] = "C") -> str:
        """Place things."""
        return "placed"


def test_nested_problems_of_several_parameters_in_one_message() -> None:
    ret = ActionExecutor([ValMixed()])(
        "ValMixed.place", '{"n": "x", "xs": [1, "y"], "point": {"x": "a", "y": 2}, "unit": "K"}'
    )
    assert ret.state == ActionStatusCode.ARGS_ERROR
    assert ret.errmsg == (
        "ValMixed.place: 'n' expected integer, got string 'x'; "
        "'xs[1]' expected integer, got string 'y'; "
        "'point.x' expected integer, got string 'a'; "
        "'unit' expected one of ['C', 'F'], got string 'K'"
    )


def test_container_problems_are_reported_when_the_scalars_are_fine() -> None:
    ret = ActionExecutor([ValMixed()])(
        "ValMixed.place", '{"n": 1, "xs": [1, "y"], "point": {"x": 1, "y": 2}}'
    )
    assert ret.state == ActionStatusCode.ARGS_ERROR
    assert ret.errmsg == "ValMixed.place: 'xs[1]' expected integer, got string 'y'"


class ValNested(BaseAction):
    """Nested containers."""

    @tool_api
    def grid(self, rows: list[list[int]]) -> str:
        """A grid."""
        return repr(rows)


def test_nested_paths_accumulate_indexes() -> None:
    validators, _ = ValNested().argument_checks("grid")
    with pytest.raises(ArgumentError) as info:
        validators["rows"]([[1], [2, "x"]])
    assert (
        Refusal.of(info.value).describe("rows", info.value.value)
        == "'rows[1][1]' expected integer, got string 'x'"
    )


class ValLevel(enum.Enum):
    LOW = 1
    HIGH = 2


class ValLevels(BaseAction):
    """Enums with integer values."""

    @tool_api
    def set_level(self, level: ValLevel) -> str:
        """Set a level."""
        return repr(level)


def test_enum_member_from_its_integer_value() -> None:
    ret = ActionExecutor([ValLevels()])("ValLevels.set_level", {"level": ValLevel.HIGH})
    assert ret.result == [{"type": "text", "content": "<ValLevel.HIGH: 2>"}]
    validators, _ = ValLevels().argument_checks("set_level")
    assert validators["level"](1) is ValLevel.LOW
    assert validators["level"](ValLevel.HIGH) is ValLevel.HIGH


def test_enum_with_integer_values_refuses_a_boolean() -> None:
    validators, _ = ValLevels().argument_checks("set_level")
    with pytest.raises(ArgumentError) as info:
        validators["level"](True)
    assert (
        Refusal.of(info.value).describe("level", info.value.value)
        == "'level' expected one of [1, 2], got boolean true"
    )


def test_dataclass_parameter_accepts_an_instance() -> None:
    validators, _ = ValTypes().argument_checks("box")
    box = ValBox(width=3)
    assert validators["box"](box) is box


def test_dataclass_instance_reaches_the_tool_through_the_executor() -> None:
    tool = ValTypes()
    ret = ActionExecutor([tool])("ValTypes.box", {"box": ValBox(width=3)})
    assert ret.result == [{"type": "text", "content": "ValBox(width=3, height=1.0)"}]


@pytest.mark.parametrize(
    "text", [pytest.param("--1", id="double-sign"), pytest.param("+-1", id="mixed-signs")]
)
def test_malformed_signed_integer_is_reported_with_the_other_problems(text: str) -> None:
    ret = ActionExecutor([ValCalc()])("ValCalc.add", json.dumps({"a": text, "b": "x"}))
    assert ret.state == ActionStatusCode.ARGS_ERROR
    assert ret.errmsg == (
        f"ValCalc.add: 'a' expected integer, got string '{text}'; 'b' expected integer, got string 'x'"
    )


def test_integer_too_large_for_a_float_is_refused_as_a_number() -> None:
    big = 10**400
    ret = ActionExecutor([ValTypes()])("ValTypes.ratio", json.dumps({"x": big}))
    assert ret.state == ActionStatusCode.ARGS_ERROR
    assert ret.errmsg == f"ValTypes.ratio: 'x' expected number, got integer {repr(big)[:117]}..."


class ValBag(BaseAction):
    """A bare set."""

    @tool_api
    def keep(self, items: set) -> str:
        """Keep distinct items."""
        return repr(items)


def test_unhashable_items_for_a_set_are_refused_naming_the_parameter() -> None:
    validators, _ = ValBag().argument_checks("keep")
    with pytest.raises(ArgumentError) as info:
        validators["items"]([[1]])
    assert Refusal.of(info.value).describe("items", info.value.value).startswith("'items")


def test_argument_checks_of_an_unknown_api_are_empty() -> None:
    assert ValTypes().argument_checks("nope") == ({}, {})


def test_argument_checks_give_the_exact_class_of_scalar_parameters_only() -> None:
    tool = ValTypes()
    assert tool.argument_checks("count")[1] == {"n": int}
    assert tool.argument_checks("doc_typed")[1] == {"n": int}
    assert tool.argument_checks("ints")[1] == {}
    assert tool.argument_checks("untyped") == ({}, {})


class ValScores(BaseAction):
    """A mapping next to a number."""

    @tool_api
    def rate(self, scores: dict[str, int], factor: float) -> str:
        """Scale scores."""
        return repr((scores, factor))


def test_dict_parameter_is_accepted_next_to_a_coerced_parameter() -> None:
    ret = ActionExecutor([ValScores()])("ValScores.rate", '{"scores": {"a": 1}, "factor": 2}')
    assert (ret.state, ret.errmsg) == (ActionStatusCode.SUCCESS, None)
    assert ret.result == [{"type": "text", "content": "({'a': 1}, 2.0)"}]


@dataclasses.dataclass
class ValNode:
    value: int
    children: list[ValNode] = dataclasses.field(default_factory=list)


class ValTree(BaseAction):
    """A self-referential type."""

    @tool_api
    def walk(self, root: ValNode) -> str:
        """Walk a tree."""
        return repr(root)


def test_self_referential_dataclass_is_validated_at_every_depth() -> None:
    executor = ActionExecutor([ValTree()])
    ret = executor("ValTree.walk", '{"root": {"value": 1, "children": [{"value": "2"}]}}')
    assert ret.result == [
        {"type": "text", "content": "ValNode(value=1, children=[ValNode(value=2, children=[])])"}
    ]
    ret = executor("ValTree.walk", '{"root": {"value": 1, "children": [{"value": "x"}]}}')
    assert ret.errmsg == "ValTree.walk: 'root.children[0].value' expected integer, got string 'x'"


def test_a_refused_argument_raises_the_one_public_argument_error() -> None:
    from lagent_like import ArgumentError, ModelInputError

    validators, _ = ValTypes().argument_checks("point")
    with pytest.raises(ArgumentError) as info:
        validators["point"]({"x": 1, "y": "b"})
    assert isinstance(info.value, ModelInputError)
    assert (info.value.expected, info.value.value, info.value.path) == ("integer", "b", ".y")
    assert (
        Refusal.of(info.value).describe("point", info.value.value)
        == "'point.y' expected integer, got string 'b'"
    )


def test_a_refusal_and_its_argument_error_are_one_refused_argument() -> None:
    """The returned form (``Refusal``) and the raised form (``ArgumentError``) convert losslessly."""
    refusal = Refusal("integer", "x", "[1]")
    error = refusal.error("the given value")
    assert type(error) is ArgumentError
    assert (error.expected, error.value, error.path) == ("integer", "x", "[1]")
    back = Refusal.of(error)
    assert repr(back) == repr(refusal) == "Refusal('integer', 'x', '[1]')"
    assert back.describe("a", None) == "'a[1]' expected integer, got string 'x'"
