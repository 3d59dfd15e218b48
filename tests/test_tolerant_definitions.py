"""Real-world docstrings never stop a tool from loading: doubtful spots warn and lint."""

from __future__ import annotations

import warnings
from typing import Any, Callable

import pytest

from lagent_like import BaseAction, DefinitionWarning, ToolDefinitionError, tool_api
from lagent_like.cli.lint import LintFinding, lint_action
from lagent_like.toolkits._tool_api import api_spec_of


def args_none() -> str:
    """Say hello.

    Args:
        None

    Returns:
        str: a greeting
    """
    return "hello"


def args_none_one_line() -> str:
    """Say hello.

    Args: None
    """
    return "hello"


def args_without_blank_line(city: str) -> str:
    """Weather of a city.
    Args:
        city: the city name
    """
    return city


def args_empty(city: str) -> str:
    """Weather of a city.

    Args:

    Returns:
        str: the weather
    """
    return city


def quiet_sections(city: str) -> str:
    """Weather of a city.

    Args:
        city: the city name

    Note:
        Uses a public service.

    Raises:
        ValueError: unknown city
    """
    return city


def odd_type_spellings(text, count=1, words=None, whole=None, flag=None, mapping=None):  # type: ignore[no-untyped-def]
    """Odd types.

    Args:
        text (str, optional): a text
        count (:obj:`int`): a count
        words (List[str]): some words
        whole (integer): a whole number
        flag (bool or None): a flag
        mapping (dict of str to int): a mapping
    """
    return text


@pytest.mark.parametrize(
    ("func", "description", "parameters"),
    [
        pytest.param(args_none, "Say hello.", [], id="args-none"),
        pytest.param(args_none_one_line, "Say hello.", [], id="args-none-one-line"),
        pytest.param(
            args_without_blank_line,
            "Weather of a city.",
            [{"name": "city", "type": "STRING", "description": "the city name"}],
            id="args-without-blank-line",
        ),
        pytest.param(
            args_empty,
            "Weather of a city.",
            [{"name": "city", "type": "STRING", "description": ""}],
            id="empty-args-section",
        ),
        pytest.param(
            quiet_sections,
            "Weather of a city.",
            [{"name": "city", "type": "STRING", "description": "the city name"}],
            id="note-and-raises-sections",
        ),
        pytest.param(
            odd_type_spellings,
            "Odd types.",
            [
                {"name": "text", "type": "STRING", "description": "a text"},
                {"name": "count", "type": "NUMBER", "description": "a count"},
                {"name": "words", "type": "Array", "description": "some words"},
                {"name": "whole", "type": "NUMBER", "description": "a whole number"},
                {"name": "flag", "type": "BOOLEAN", "description": "a flag"},
                {"name": "mapping", "type": "OBJECT", "description": "a mapping"},
            ],
            id="odd-type-spellings",
        ),
    ],
)
def test_real_world_docstrings_load_without_warnings(
    func: Callable[..., Any], description: str, parameters: list[dict[str, Any]]
) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        described = tool_api(func)
    api = described.api_description  # type: ignore[attr-defined]
    assert (api["description"], api["parameters"]) == (description, parameters)


def ghost_parameter(city: str) -> str:
    """Weather of a city.

    Args:
        city: the city name
        country: the country, no longer taken
    """
    return city


def entry_without_colon(city: str, days: int = 1) -> str:
    """Forecast of a city.

    Args:
        city the city name
        days: how many days
    """
    return city


def unknown_section(city: str) -> str:
    """Weather of a city.

    Args:
        city: the city name

    Usage:
        unknown_section(city="Paris")
    """
    return city


@pytest.mark.parametrize(
    ("func", "parameters", "warning"),
    [
        pytest.param(
            ghost_parameter,
            [("city", "the city name")],
            "ghost_parameter: the docstring describes ['country'], which the signature does not have "
            "(left out); parameters are ['city']",
            id="documented-parameter-the-function-lacks",
        ),
        pytest.param(
            entry_without_colon,
            [("city", ""), ("days", "how many days")],
            "entry_without_colon: the Args: entry 'city the city name' has no colon (name: description) "
            "and is ignored",
            id="entry-without-colon",
        ),
        pytest.param(
            unknown_section,
            [("city", "the city name")],
            "unknown_section: unknown section 'Usage:' is left out of the description",
            id="unknown-section",
        ),
    ],
)
def test_doubtful_docstrings_load_with_one_warning_at_the_definition(
    func: Callable[..., Any], parameters: list[tuple[str, str]], warning: str
) -> None:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        described = tool_api(func)
    assert [(w.category, str(w.message), w.filename) for w in caught] == [
        (DefinitionWarning, warning, __file__)
    ]
    spec = api_spec_of(described)
    assert spec is not None
    assert [(p["name"], p["description"]) for p in spec.description["parameters"]] == parameters
    assert spec.doc_warnings == (warning.split(": ", 1)[1],)


def define_third_party_store() -> type[BaseAction]:
    """A toolkit documented for people rather than for parsers, as real ones are."""

    class ThirdPartyStore(BaseAction, register=False):
        """A key-value store, documented for people rather than for parsers.
        Args:
            None
        """

        @tool_api
        def keys(self) -> list[str]:
            """List the keys.

            Args:
                None
            """
            return ["a"]

        @tool_api
        def get(self, key: str) -> str:
            """Read a key.

            Args:
                key (str): the key
                default (str): removed in 2.0
            """
            return key

    return ThirdPartyStore


def test_a_toolkit_with_doubtful_docstrings_loads_and_lint_reports_them() -> None:
    with pytest.warns(
        DefinitionWarning, match=r"<locals>.ThirdPartyStore.get: the docstring describes \['default'\]"
    ):
        store = define_third_party_store()
    action = store()
    assert [api["name"] for api in action.description["api_list"]] == ["keys", "get"]
    assert action("", "keys").result == [{"type": "text", "content": '["a"]'}]
    doubtful = [f for f in lint_action(action) if f.code == "doubtful-definition"]
    assert doubtful == [
        LintFinding(
            "warning",
            "ThirdPartyStore",
            "ThirdPartyStore.get",
            "doubtful-definition",
            "the docstring describes ['default'], which the signature does not have (left out); "
            "parameters are ['key']; fix the docstring",
        )
    ]


def test_contradictions_still_raise_naming_class_and_method() -> None:
    with pytest.raises(
        ToolDefinitionError, match=r"<locals>.Both: defines run and the tool APIs \['other'\]"
    ):

        class Both(BaseAction, register=False):
            def run(self) -> str:
                """Run."""
                return ""

            @tool_api
            def other(self) -> str:
                """Other."""
                return ""


def test_a_parameter_that_cannot_be_described_raises() -> None:
    def only_positional(x: int, /) -> int:
        """Double.

        Args:
            x: a number
        """
        return 2 * x

    with pytest.raises(ToolDefinitionError, match=r"parameter 'x' is positional-only; tools receive keyword"):
        tool_api(only_positional)
