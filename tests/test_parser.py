"""Parsers: reading what models write, and rendering what tools return."""

from __future__ import annotations

import re
import sys
import warnings
from pathlib import Path
from typing import Any, Optional

import pytest

from lagent_like import (
    BaseAction,
    BaseParser,
    JsonParser,
    ParseError,
    ToolDefinitionError,
    TupleParser,
    tool_api,
)
from lagent_like.parsers._arguments import Repaired


class ParserWeather(BaseAction):
    """Weather look-ups."""

    @tool_api
    def current(self, city: str, unit: str = "C") -> dict[str, Any]:
        """Current weather of a city.

        Args:
            city: city name
            unit: temperature unit
        """
        return {"city": city, "unit": unit}


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        pytest.param('{"city": "Paris"}', {"city": "Paris"}, id="strict"),
        pytest.param(' \n{"city": "Paris"}\t\n', {"city": "Paris"}, id="strict-with-surrounding-space"),
        pytest.param('{"city": "Paris"}{"city": "Rome"}', {"city": "Paris"}, id="two-objects"),
        pytest.param('```json\n{"city": "Paris"}\n```', {"city": "Paris"}, id="json-fence"),
        pytest.param('```\n{"city": "Paris"}\n```', {"city": "Paris"}, id="bare-fence"),
        pytest.param('```python\n{"city": "Paris"}\n```', {"city": "Paris"}, id="other-fence"),
        pytest.param('```json\n{"city": "Paris"}', {"city": "Paris"}, id="unclosed-fence"),
        pytest.param(
            'Sure! The arguments are {"city": "Paris", "unit": "F"} as requested.',
            {"city": "Paris", "unit": "F"},
            id="prose-around",
        ),
        pytest.param("{'city': 'Paris'}", {"city": "Paris"}, id="single-quotes"),
        pytest.param('{"city": "Paris",}', {"city": "Paris"}, id="trailing-comma"),
        pytest.param('{\n  // the city\n  "city": "Paris" /* c */\n}', {"city": "Paris"}, id="comments"),
        pytest.param("{city: 'Paris'}", {"city": "Paris"}, id="unquoted-key"),
        pytest.param('"{\\"city\\": \\"Paris\\"}"', {"city": "Paris"}, id="double-encoded"),
        pytest.param('{"city": "Zürich 東京"}', {"city": "Zürich 東京"}, id="non-ascii"),
        pytest.param('{"city": "a}b{c"} trailing', {"city": "a}b{c"}, id="braces-inside-strings"),
    ],
)
def test_json_parser_reads_dirty_model_json(text: str, expected: dict[str, Any]) -> None:
    parser = JsonParser(ParserWeather())
    assert parser.parse_inputs(text, "current") == expected


def test_json_parser_accepts_python_literals_outside_strings_only() -> None:
    class ParserFlags(BaseAction):
        @tool_api
        def set(self, on: bool, off: bool, note: Optional[str] = None, label: str = "") -> str:
            """Set flags."""
            return f"{on} {off}"

    parser = JsonParser(ParserFlags())
    assert parser.parse_inputs(
        "{'on': True, 'off': False, 'note': None, 'label': 'True or None',}", "set"
    ) == {
        "on": True,
        "off": False,
        "note": None,
        "label": "True or None",
    }


def test_json_parser_accepts_a_dict() -> None:
    parser = JsonParser(ParserWeather())
    assert parser.parse_inputs({"city": "Oslo"}, "current") == {"city": "Oslo"}


@pytest.mark.parametrize("blank", [pytest.param("", id="empty"), pytest.param("  \n", id="spaces"), None])
def test_json_parser_reads_blank_input_as_no_arguments(blank: Any) -> None:
    class ParserClock(BaseAction):
        def run(self, zone: str = "UTC") -> str:
            """Current time."""
            return zone

    assert JsonParser(ParserClock()).parse_inputs(blank) == {}


@pytest.mark.parametrize(
    ("text", "message"),
    [
        pytest.param(
            '{"city": "Paris",, }',
            r"^ParserWeather\.current: invalid JSON arguments: Stray comma at line 1, column 18\. "
            r'Write one JSON object such as \{"city": <STRING>, "unit": <STRING>\}$',
            id="syntax-with-position",
        ),
        pytest.param(
            '{"city": "Paris"',
            r"^ParserWeather\.current: invalid JSON arguments: the arguments end in the middle of an object "
            r"at character 16: the output was probably cut off\. Write one JSON object",
            id="unterminated",
        ),
        pytest.param(
            "[1, 2]",
            r'^ParserWeather\.current: expected a JSON object such as \{"city": <STRING>, "unit": <STRING>\}, '
            r"got list \[1, 2\]$",
            id="array",
        ),
        pytest.param("42", r"expected a JSON object .*, got int 42$", id="number"),
        pytest.param(
            '{"town": "Paris"}',
            r"^ParserWeather\.current: 'city' is required; 'town' is not a parameter; parameters: city, unit$",
            id="unknown-and-missing",
        ),
        pytest.param(
            '{"citi": "Paris"}',
            r"'citi' is not a parameter \(did you mean 'city'\?\)",
            id="suggestion",
        ),
        pytest.param('{"unit": "F"}', r"^ParserWeather\.current: 'city' is required$", id="missing"),
        pytest.param("just prose, no json", r"invalid JSON arguments: ", id="prose-only"),
        pytest.param("[" * 100_000, r"invalid JSON arguments", id="deep-nesting"),
    ],
)
def test_json_parser_says_what_is_wrong(text: str, message: str) -> None:
    parser = JsonParser(ParserWeather())
    with pytest.raises(ParseError, match=message):
        parser.parse_inputs(text, "current")


def test_json_parser_rejects_other_input_types() -> None:
    parser = JsonParser(ParserWeather())
    with pytest.raises(ParseError, match=r"expected a JSON object .*, got tuple \('Paris',\)"):
        parser.parse_inputs(("Paris",), "current")


def test_parser_names_the_unknown_api() -> None:
    parser = JsonParser(ParserWeather())
    with pytest.raises(ParseError, match=r"^ParserWeather has no API 'curent'\. Did you mean 'current'\?"):
        parser.parse_inputs("{}", "curent")


def test_json_parser_accepts_any_argument_for_kwargs_apis() -> None:
    class ParserOpen(BaseAction):
        @tool_api
        def call(self, a: int, **extra: Any) -> str:
            """Takes anything."""
            return "ok"

    assert JsonParser(ParserOpen()).parse_inputs('{"a": 1, "z": 2}', "call") == {"a": 1, "z": 2}


class ParserAdd(BaseAction):
    def run(self, a: int, b: int, c: int = 0) -> int:
        """Add numbers.

        Args:
            a: first
            b: second
            c: third
        """
        return a + b + c


@pytest.mark.parametrize(
    ("inputs", "expected"),
    [
        pytest.param("(1, 2)", {"a": 1, "b": 2}, id="tuple-string"),
        pytest.param("(1, 2, 3)", {"a": 1, "b": 2, "c": 3}, id="all"),
        pytest.param((1, 2), {"a": 1, "b": 2}, id="tuple"),
        pytest.param([1, 2], {"a": 1, "b": 2}, id="list"),
        pytest.param("```python\n(1, 2)\n```", {"a": 1, "b": 2}, id="fenced"),
        pytest.param("  (1, 2)  ", {"a": 1, "b": 2}, id="spaces"),
    ],
)
def test_tuple_parser_maps_values_in_order(inputs: Any, expected: dict[str, Any]) -> None:
    assert TupleParser(ParserAdd()).parse_inputs(inputs) == expected


def test_tuple_parser_takes_a_single_literal_as_a_one_tuple() -> None:
    class ParserShout(BaseAction):
        def run(self, text: str) -> str:
            """Shout."""
            return text.upper()

    assert TupleParser(ParserShout()).parse_inputs("'hi'") == {"text": "hi"}
    assert TupleParser(ParserShout()).parse_inputs('("import math;math.sqrt(100)", )') == {
        "text": "import math;math.sqrt(100)"
    }


@pytest.mark.parametrize(
    ("inputs", "message"),
    [
        pytest.param(
            "(1,)",
            r"^ParserAdd: too few arguments: got 1, missing 'b'; write \(<a: NUMBER>, <b: NUMBER>, <c: NUMBER>\)$",
            id="too-few",
        ),
        pytest.param(
            "(1, 2, 3, 4)",
            r"^ParserAdd: too many arguments: takes at most 3 \(a, b, c\), got 4$",
            id="too-many",
        ),
        pytest.param(
            "(1, 2", r"^ParserAdd: invalid tuple arguments: .* at line 1, column \d+\. ", id="syntax"
        ),
        pytest.param(
            "(len('x'), 2)",
            r"^ParserAdd: invalid tuple arguments: only Python literals are accepted \(ValueError\)",
            id="call-expression",
        ),
        pytest.param({"a": 1}, r"^ParserAdd: expected a tuple such as .*, got dict", id="dict"),
    ],
)
def test_tuple_parser_says_what_is_wrong(inputs: Any, message: str) -> None:
    with pytest.raises(ParseError, match=message):
        TupleParser(ParserAdd()).parse_inputs(inputs)


def test_tuple_parser_never_evaluates_code(tmp_path: Path) -> None:
    marker = tmp_path / "pwned"
    attack = f"(__import__('os').system('touch {marker}'), 1)"
    with pytest.raises(ParseError, match="only Python literals are accepted"):
        TupleParser(ParserAdd()).parse_inputs(attack)
    assert not marker.exists()


class ParserPair(BaseAction):
    """Two values of any type."""

    def run(self, first: Any, second: Any = None) -> str:
        """Pair values.

        Args:
            first: the first value
            second: the second value
        """
        return repr((first, second))


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        pytest.param(r"('C:\data', 2)", {"first": "C:\\data", "second": 2}, id="invalid-escape"),
        pytest.param(r"('C:\data\new', 2)", {"first": "C:\\data\new", "second": 2}, id="valid-after-invalid"),
        pytest.param(r"(b'\d', 1)", {"first": b"\\d", "second": 1}, id="bytes-invalid-escape"),
        pytest.param(r"(b'\u00e9', 1)", {"first": b"\\u00e9", "second": 1}, id="bytes-unicode-escape"),
        pytest.param(r"('\777', 1)", {"first": "\u01ff", "second": 1}, id="large-octal"),
        pytest.param(r"(b'\777', 1)", {"first": b"\xff", "second": 1}, id="bytes-large-octal"),
        pytest.param(r"(r'\d', '\\d')", {"first": "\\d", "second": "\\d"}, id="raw-and-escaped"),
        pytest.param("('1if', '2 in 3')", {"first": "1if", "second": "2 in 3"}, id="keyword-in-string"),
    ],
)
def test_tuple_parser_reads_deprecated_python_text_as_python_does_without_warning(
    text: str, expected: dict[str, Any]
) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert TupleParser(ParserPair()).parse_inputs(text) == expected


# Python 3.9's parser words these two errors differently.
_ELSE_EXPECTED = (
    "expected 'else' after 'if'" if sys.version_info >= (3, 10) else "unexpected EOF while parsing"
)
_UNCLOSED = r"'\(' was never closed" if sys.version_info >= (3, 10) else "unexpected EOF while parsing"


@pytest.mark.parametrize(
    ("text", "message"),
    [
        pytest.param("(1if 2)", rf"^ParserPair: invalid tuple arguments: {_ELSE_EXPECTED}", id="if"),
        pytest.param(
            "(0xfor 1)", r"^ParserPair: invalid tuple arguments: only Python literals are accepted", id="or"
        ),
        pytest.param(
            "(1.in [2])", r"^ParserPair: invalid tuple arguments: only Python literals are accepted", id="in"
        ),
        pytest.param(r"('C:\data', 2", rf"^ParserPair: invalid tuple arguments: {_UNCLOSED}", id="unclosed"),
        pytest.param(
            "\\\ud800",
            r"^ParserPair: invalid tuple arguments: only Python literals are accepted \(UnicodeEncodeError\)",
            id="backslash-and-lone-surrogate",
        ),
    ],
)
def test_tuple_parser_refuses_broken_text_without_warning(text: str, message: str) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(ParseError, match=message):
            TupleParser(ParserPair()).parse_inputs(text)


def test_base_parser_hands_raw_input_to_the_first_parameter() -> None:
    assert BaseParser(ParserAdd()).parse_inputs("raw text") == {"a": "raw text"}


def test_parser_refuses_required_names_that_are_not_parameters() -> None:
    description = {
        "name": "ParserBroken",
        "description": "",
        "parameters": [{"name": "a", "type": "STRING", "description": ""}],
        "required": ["a", "b"],
    }
    with pytest.raises(ToolDefinitionError, match=r"API 'ParserBroken' requires \['b'\], which are not"):
        BaseAction(description)


@pytest.mark.parametrize(
    ("outputs", "content"),
    [
        pytest.param("plain", "plain", id="str"),
        pytest.param({"city": "Zürich", "t": 3}, '{"city": "Zürich", "t": 3}', id="dict-non-ascii-kept"),
        pytest.param([1, "二"], '[1, "二"]', id="list"),
        pytest.param((1, 2), "[1, 2]", id="tuple"),
        pytest.param({"when": Path("/x")}, '{"when": "/x"}', id="unserialisable-via-str"),
        pytest.param(3.5, "3.5", id="float"),
        pytest.param(None, "None", id="none"),
        pytest.param("emoji 🙂 kept", "emoji 🙂 kept", id="no-dropped-characters"),
    ],
)
def test_parse_outputs_renders_text(outputs: Any, content: str) -> None:
    assert BaseParser(ParserAdd()).parse_outputs(outputs) == [{"type": "text", "content": content}]


def test_parse_outputs_passes_result_items_through() -> None:
    items = [{"type": "image", "content": "/tmp/a.png"}, {"type": "text", "content": "a chart"}]
    assert BaseParser(ParserAdd()).parse_outputs(items) == items


class ParserModes(BaseAction):
    """APIs whose validation mode is set at different levels."""

    @tool_api
    def plain(self, n: int) -> int:
        """Sets no mode."""
        return n

    @tool_api(validation="off")
    def own(self, n: int) -> int:
        """Sets its own mode."""
        return n


@pytest.mark.parametrize(
    ("parser", "inputs"),
    [
        pytest.param(JsonParser, ("Paris",), id="json-not-an-object"),
        pytest.param(JsonParser, "[1, 2]", id="json-array"),
        pytest.param(JsonParser, '"\\"\\\\\\"x\\\\\\"\\""', id="json-encoded-three-times"),
        pytest.param(JsonParser, "{'city': ", id="json-cut-off"),
        pytest.param(JsonParser, '{"unit": "F"}', id="json-missing"),
        pytest.param(JsonParser, '{"city": "Paris", "x": 1}', id="json-unknown"),
        pytest.param(TupleParser, "(1,", id="tuple-syntax"),
        pytest.param(TupleParser, "(print(1),)", id="tuple-not-a-literal"),
        pytest.param(TupleParser, {"city": "Paris"}, id="tuple-not-a-tuple"),
        pytest.param(TupleParser, "('Paris', 'C', 3)", id="tuple-too-many"),
        pytest.param(TupleParser, "()", id="tuple-too-few"),
    ],
)
def test_readers_return_the_parse_error_of_refused_input(parser: type[BaseParser], inputs: Any) -> None:
    refused = parser(ParserWeather()).reader("current")(inputs)
    assert isinstance(refused, ParseError)
    with pytest.raises(ParseError, match=f"^{re.escape(refused.err_msg)}$"):
        parser(ParserWeather()).parse_inputs(inputs, "current")


def test_a_lagent_style_parsers_parse_error_is_returned_by_its_reader() -> None:
    class ParserRefusing(JsonParser):
        def parse_inputs(self, inputs: Any, name: str = "run") -> dict[str, Any]:
            raise ParseError("never")

    refused = ParserRefusing(ParserWeather()).reader("current")("{}")
    assert isinstance(refused, ParseError) and refused.err_msg == "never"


def test_readers_return_clean_arguments_as_a_dict_and_repaired_ones_with_their_repairs() -> None:
    read = JsonParser(ParserWeather()).reader("current")
    clean = read('{"city": "Paris"}')
    assert (type(clean), clean) == (dict, {"city": "Paris"})
    assert read("{'city': 'Paris',}") == Repaired({"city": "Paris"}, ["single quotes", "trailing comma"])
    assert read("\"{'city': 'Paris'}\"") == Repaired(
        {"city": "Paris"}, ["double-encoded JSON", "single quotes"]
    )
    assert JsonParser(ParserWeather()).parse_inputs("{'city': 'Paris'}", "current") == {"city": "Paris"}


@pytest.mark.parametrize("parser", [JsonParser, TupleParser])
def test_a_reader_can_be_made_for_another_validation_mode(parser: type[BaseParser]) -> None:
    made = parser(ParserModes())
    text = '{"n": "3"}' if parser is JsonParser else "('3',)"
    assert made.reader("plain")(text) == {"n": 3}
    assert made.reader("plain", "coerce") is made.reader("plain")
    strict = made.reader("plain", "strict")
    assert strict is made.reader("plain", "strict")
    refused = strict(text)
    assert isinstance(refused, ParseError)
    assert refused.err_msg == "ParserModes.plain: 'n' expected integer, got string '3'"
    assert made.reader("plain", "off")(text) == {"n": "3"}
    # Without a mode, the one the action resolved: the API's own, else the tool's.
    assert made.reader("own")(text) == {"n": "3"}
    tool_strict = parser(ParserModes(validation="strict"))
    assert isinstance(tool_strict.reader("plain")(text), ParseError)


def test_a_reader_for_an_unknown_mode_or_api_is_refused() -> None:
    made = JsonParser(ParserModes())
    with pytest.raises(ToolDefinitionError, match=r"^JsonParser: validation must be one of"):
        made.reader("plain", "lax")
    with pytest.raises(ParseError, match=r"^ParserModes has no API 'plian'\. Did you mean 'plain'\?"):
        made.reader("plian", "strict")
