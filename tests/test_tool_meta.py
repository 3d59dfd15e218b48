"""``ToolMeta`` and ``BaseAction``: how a class becomes a described tool."""

from __future__ import annotations

from collections import OrderedDict
from typing import Any

import pytest

from lagent_like import (
    BaseAction,
    JsonParser,
    ToolDefinitionError,
    ToolMeta,
    TupleParser,
    get_tool,
    list_tools,
    tool_api,
)


def key_order(value: Any) -> Any:
    """The keys of every dict in ``value``, nested, in order (``==`` ignores key order)."""
    if isinstance(value, dict):
        return [(key, key_order(item)) for key, item in value.items()]
    if isinstance(value, list):
        return [key_order(item) for item in value]
    return None


JSON_HINT = JsonParser.PARAMETER_DESCRIPTION
TEXT_PARAM = {"name": "text", "type": "STRING", "description": "input text"}


class MetaBold(BaseAction):
    def run(self, text: str) -> str:
        """make text bold

        Args:
            text (str): input text

        Returns:
            str: bold text
        """
        return "**" + text + "**"


def test_simple_tool_with_undecorated_run_is_described() -> None:
    expected = {
        "name": "MetaBold",
        "description": "make text bold",
        "parameters": [TEXT_PARAM],
        "required": ["text"],
    }
    assert isinstance(MetaBold, ToolMeta)
    assert MetaBold.__tool_description__ == expected
    assert key_order(MetaBold.__tool_description__) == key_order(expected)
    assert MetaBold()("{'text': 'hi'}").result == [{"type": "text", "content": "**hi**"}]


class MetaBoldNamed(BaseAction):
    """Class docstring, not used: run has its own."""

    @tool_api(returns_named_value=True)
    def run(self, text: str) -> str:
        """make text bold

        Args:
            text (str): input text

        Returns:
            bold_text (str): bold text
        """
        return "**" + text + "**"


def test_decorated_run_with_returns_named_value_keeps_return_data() -> None:
    expected = {
        "name": "MetaBoldNamed",
        "description": "make text bold",
        "parameters": [TEXT_PARAM],
        "required": ["text"],
        "return_data": [{"name": "bold_text", "description": "bold text", "type": "STRING"}],
    }
    assert MetaBoldNamed.__tool_description__ == expected
    assert key_order(MetaBoldNamed.__tool_description__) == key_order(expected)


class MetaEcho(BaseAction):
    """Repeat what was said."""

    def run(self, text: str) -> str:
        return text


class MetaEchoSectionsOnly(BaseAction):
    """Repeat what was said."""

    def run(self, text: str) -> str:
        """
        Args:
            text (str): input text
        """
        return text


@pytest.mark.parametrize(
    ("cls", "parameters"),
    [
        pytest.param(
            MetaEcho, [{"name": "text", "type": "STRING", "description": ""}], id="run-without-docstring"
        ),
        pytest.param(MetaEchoSectionsOnly, [TEXT_PARAM], id="run-docstring-without-description"),
    ],
)
def test_simple_tool_falls_back_to_class_docstring(cls: type[BaseAction], parameters: list[Any]) -> None:
    assert cls.__tool_description__["description"] == "Repeat what was said."
    assert cls.__tool_description__["parameters"] == parameters


class MetaEmphasis(BaseAction):
    """a toolkit which provides different styles of text emphasis

    Args:
        style: not part of the description
    """

    @tool_api
    def bold(self, text: str) -> str:
        """make text bold

        Args:
            text (str): input text
        """
        return "**" + text + "**"

    @tool_api
    def italic(self, text: str) -> str:
        """make text italic

        Args:
            text (str): input text
        """
        return "*" + text + "*"


def test_toolkit_is_described_by_its_class_docstring() -> None:
    assert MetaEmphasis.__tool_description__ == {
        "name": "MetaEmphasis",
        "description": "a toolkit which provides different styles of text emphasis",
        "api_list": [
            {
                "name": "bold",
                "description": "make text bold",
                "parameters": [TEXT_PARAM],
                "required": ["text"],
            },
            {
                "name": "italic",
                "description": "make text italic",
                "parameters": [TEXT_PARAM],
                "required": ["text"],
            },
        ],
    }
    assert list(MetaEmphasis.__tool_description__) == ["name", "description", "api_list"]


def test_toolkit_without_docstring_has_empty_description() -> None:
    class MetaBare(BaseAction):
        @tool_api
        def ping(self) -> str:
            return "pong"

    assert MetaBare.__tool_description__["description"] == ""
    assert MetaBare.__tool_description__["api_list"][0]["parameters"] == []


def test_tool_name_attribute_names_the_tool() -> None:
    class MetaInternalName(BaseAction):
        __tool_name__ = "meta_fancy"

        def run(self, x: int) -> int:
            """Identity."""
            return x

    assert MetaInternalName.__tool_description__["name"] == "meta_fancy"
    assert MetaInternalName().name == "meta_fancy"
    assert "meta_fancy" in list_tools()
    assert "MetaInternalName" not in list_tools()


class MetaMoreEmphasis(MetaEmphasis):
    @tool_api
    def underline(self, text: str) -> str:
        """make text underlined"""
        return "_" + text + "_"


def test_subclass_inherits_parent_apis_and_adds_its_own() -> None:
    described = MetaMoreEmphasis.__tool_description__
    assert described["name"] == "MetaMoreEmphasis"
    assert described["description"] == "a toolkit which provides different styles of text emphasis"
    assert [api["name"] for api in described["api_list"]] == ["bold", "italic", "underline"]
    assert MetaMoreEmphasis()('{"text": "x"}', "bold").result == [{"type": "text", "content": "**x**"}]


class MetaLoudEmphasis(MetaEmphasis):
    def bold(self, text: str, level: int = 1) -> str:
        """make text very bold"""
        return "**" + text.upper() + "**"


def test_override_without_decorator_stays_an_api_described_from_the_override() -> None:
    assert MetaLoudEmphasis.__tool_description__["api_list"][0] == {
        "name": "bold",
        "description": "make text very bold",
        "parameters": [
            {"name": "text", "type": "STRING", "description": ""},
            {"name": "level", "type": "NUMBER", "description": ""},
        ],
        "required": ["text"],
    }
    assert MetaLoudEmphasis()({"text": "x"}, "bold").result == [{"type": "text", "content": "**X**"}]


def test_run_and_other_apis_in_one_class_raise_naming_the_class() -> None:
    with pytest.raises(
        ToolDefinitionError, match=r"<locals>\.MetaBoth: defines run and the tool APIs \['other'\]"
    ):

        class MetaBoth(BaseAction):
            def run(self, x: int) -> int:
                return x

            @tool_api
            def other(self, y: int) -> int:
                return y


def test_subclass_of_simple_tool_adding_apis_raises_naming_the_class() -> None:
    with pytest.raises(
        ToolDefinitionError, match=r"<locals>\.MetaBoldPlus: defines run and the tool APIs \['shout'\]"
    ):

        class MetaBoldPlus(MetaBold):
            @tool_api
            def shout(self, text: str) -> str:
                return text.upper()


def test_several_class_problems_are_reported_together() -> None:
    with pytest.raises(ToolDefinitionError, match=r"<locals>\.MetaClash: 2 problems:\n") as info:

        class MetaClash(BaseAction):
            def run(self, x: int) -> int:
                return x

            @tool_api
            def one(self) -> None: ...

            @tool_api(name="one")
            def two(self) -> None: ...

    assert "several methods use the API names ['one']" in str(info.value)


# -- instances ------------------------------------------------------------------------


def test_instance_descriptions_are_deep_copies() -> None:
    first, second = MetaEmphasis(), MetaEmphasis()
    first.description["api_list"][0]["parameters"][0]["name"] = "changed"
    first.description["api_list"].append({"name": "extra"})
    first.description["description"] = "changed"
    assert MetaEmphasis.__tool_description__["api_list"][0]["parameters"][0]["name"] == "text"
    assert len(MetaEmphasis.__tool_description__["api_list"]) == 2
    assert second.description["api_list"][0]["parameters"][0]["name"] == "text"
    assert second.description["description"] == "a toolkit which provides different styles of text emphasis"
    assert MetaEmphasis.bold.api_description["parameters"][0]["name"] == "text"


def test_parser_hint_goes_into_the_instance_only() -> None:
    action = MetaEmphasis()
    assert [api["parameter_description"] for api in action.description["api_list"]] == [JSON_HINT, JSON_HINT]
    assert "parameter_description" not in MetaEmphasis.__tool_description__["api_list"][0]
    assert "parameter_description" not in MetaEmphasis.bold.api_description


@pytest.mark.parametrize(
    ("parser", "word"),
    [pytest.param(JsonParser, "JSON", id="json"), pytest.param(TupleParser, "tuple", id="tuple")],
)
def test_parser_inserts_an_english_parameter_description(parser: type[Any], word: str) -> None:
    hint = MetaBold(parser=parser).description["parameter_description"]
    assert hint == parser.PARAMETER_DESCRIPTION
    assert hint[0].isupper()
    assert hint.endswith(".")
    assert hint.isascii()
    assert len(hint.split()) > 5
    assert word in hint
    assert list(MetaBold(parser=parser).description)[-1] == "parameter_description"


def test_json_and_tuple_parser_descriptions_differ() -> None:
    json_hint = MetaBold(parser=JsonParser).description["parameter_description"]
    tuple_hint = MetaBold(parser=TupleParser).description["parameter_description"]
    assert json_hint != tuple_hint


def test_seed_base_action_from_a_description_dict() -> None:
    given = {
        "name": "bold",
        "description": "a function used to make text bold",
        "parameters": [{"name": "text", "type": "STRING", "description": "input content"}],
        "required": ["text"],
    }
    action = BaseAction(given)
    expected = {**given, "parameter_description": JSON_HINT}
    assert action.description == expected
    assert key_order(action.description) == key_order(expected)
    assert "parameter_description" not in given
    assert (action.name, action.is_toolkit, action.enable) == ("bold", False, True)


def test_description_given_as_ordered_dict_is_copied() -> None:
    given = OrderedDict(name="bold", description="d", parameters=[], required=[])
    action = BaseAction(given)
    assert action.description is not given
    assert "parameter_description" not in given


def test_seed_phrase_emphasis_from_the_registry() -> None:
    class PhraseEmphasis(BaseAction):
        """a toolkit which provides different styles of text emphasis"""

        @tool_api
        def bold(self, text):
            """make text bold

            Args:
                text (str): input text

            Returns:
                str: bold text
            """
            return "**" + text + "**"

        @tool_api
        def italic(self, text):
            """make text italic

            Args:
                text (str): input text

            Returns:
                str: italic text
            """
            return "*" + text + "*"

    def api(name: str, description: str) -> dict[str, Any]:
        return {
            "name": name,
            "description": description,
            "parameters": [TEXT_PARAM],
            "required": ["text"],
            "parameter_description": JSON_HINT,
        }

    expected = {
        "name": "PhraseEmphasis",
        "description": "a toolkit which provides different styles of text emphasis",
        "api_list": [api("bold", "make text bold"), api("italic", "make text italic")],
    }
    action = get_tool("PhraseEmphasis")
    assert isinstance(action, PhraseEmphasis)
    assert action.description == expected
    assert key_order(action.description) == key_order(expected)


@pytest.mark.parametrize(
    ("action", "name", "is_toolkit"),
    [
        pytest.param(MetaBold(), "MetaBold", False, id="simple"),
        pytest.param(MetaEmphasis(), "MetaEmphasis", True, id="toolkit"),
    ],
)
def test_instance_properties(action: BaseAction, name: str, is_toolkit: bool) -> None:
    assert action.name == name
    assert action.is_toolkit is is_toolkit
    assert action.description["name"] == name
    assert action.enable is True
    action.enable = False
    assert action.enable is False
    assert BaseAction.__dict__["description"].fset is None


def test_enable_false_at_construction() -> None:
    assert MetaBold(enable=False).enable is False


def test_register_false_keeps_a_class_out_of_the_registry() -> None:
    class MetaAbstractBase(BaseAction, register=False):
        """Shared helpers."""

    class MetaConcrete(MetaAbstractBase):
        def run(self, x: int) -> int:
            """Identity."""
            return x

    assert "MetaAbstractBase" not in list_tools()
    assert list_tools()[-1] == "MetaConcrete"
