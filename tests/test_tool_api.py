"""``tool_api``: describing plain functions and methods from signature and docstring."""

from __future__ import annotations

import asyncio
import inspect
from typing import Any

import pytest
from typing_extensions import Annotated

from lagent_like import DefinitionWarning, ToolDefinitionError, tool_api
from lagent_like.toolkits._tool_api import api_spec_of


def key_order(value: Any) -> Any:
    """The keys of every dict in ``value``, nested, in order (``==`` ignores key order)."""
    if isinstance(value, dict):
        return [(key, key_order(item)) for key, item in value.items()]
    if isinstance(value, list):
        return [key_order(item) for item in value]
    return None


# -- the three examples of the Lagent tutorial (seed 004) -------------------------------


@tool_api
def bold(text: str) -> str:
    """make text bold

    Args:
        text (str): input text

    Returns:
        str: bold text
    """
    return "**" + text + "**"


def test_seed_bold_description_is_exact() -> None:
    expected = {
        "name": "bold",
        "description": "make text bold",
        "parameters": [{"name": "text", "type": "STRING", "description": "input text"}],
        "required": ["text"],
    }
    assert bold.api_description == expected
    assert list(bold.api_description) == ["name", "description", "parameters", "required"]
    assert list(bold.api_description["parameters"][0]) == ["name", "type", "description"]
    assert key_order(bold.api_description) == key_order(expected)


def test_seed_bold_returns_named_value_is_exact() -> None:
    @tool_api(returns_named_value=True)
    def bold(text: str) -> str:
        """make text bold

        Args:
            text (str): input text

        Returns:
            bold_text (str): bold text
        """
        return "**" + text + "**"

    expected = {
        "name": "bold",
        "description": "make text bold",
        "parameters": [{"name": "text", "type": "STRING", "description": "input text"}],
        "required": ["text"],
        "return_data": [{"name": "bold_text", "description": "bold text", "type": "STRING"}],
    }
    assert bold.api_description == expected
    assert list(bold.api_description) == ["name", "description", "parameters", "required", "return_data"]
    assert list(bold.api_description["return_data"][0]) == ["name", "description", "type"]
    assert key_order(bold.api_description) == key_order(expected)


@tool_api(explode_return=True)
def list_args(a: str, b: int, c: float = 0.0) -> dict:
    """Return arguments in dict format

    Args:
        a (str): a
        b (int): b
        c (float): c

    Returns:
        dict: input arguments
            - a (str): a
            - b (int): b
            - c: c
    """
    return {"a": a, "b": b, "c": c}


def test_seed_list_args_explode_return_is_exact() -> None:
    expected = {
        "name": "list_args",
        "description": "Return arguments in dict format",
        "parameters": [
            {"name": "a", "type": "STRING", "description": "a"},
            {"name": "b", "type": "NUMBER", "description": "b"},
            {"name": "c", "type": "FLOAT", "description": "c"},
        ],
        "required": ["a", "b"],
        "return_data": [
            {"name": "a", "description": "a", "type": "STRING"},
            {"name": "b", "description": "b", "type": "NUMBER"},
            {"name": "c", "description": "c"},
        ],
    }
    assert list_args.api_description == expected
    assert key_order(list_args.api_description) == key_order(expected)
    assert list_args("x", 2) == {"a": "x", "b": 2, "c": 0.0}


# -- the decorator itself -------------------------------------------------------------


def shout(text: str) -> str:
    """Shout."""
    return text.upper()


@pytest.mark.parametrize(
    ("decorate", "name"),
    [
        pytest.param(tool_api, "shout", id="bare"),
        pytest.param(tool_api(), "shout", id="empty-call"),
        pytest.param(tool_api(name="yell"), "yell", id="name-option"),
    ],
)
def test_decorated_function_is_returned_unchanged_and_callable(decorate: Any, name: str) -> None:
    assert decorate(shout) is shout
    assert shout("hi") == "HI"
    assert shout.api_description["name"] == name
    assert shout.api_description["description"] == "Shout."


@tool_api
async def fetch_twice(url: str) -> str:
    """Fetch a page twice."""
    await asyncio.sleep(0)
    return url * 2


def test_async_function_stays_a_coroutine_function_and_works_when_awaited() -> None:
    assert inspect.iscoroutinefunction(fetch_twice)
    assert asyncio.run(fetch_twice("ab")) == "abab"
    assert fetch_twice.api_description == {
        "name": "fetch_twice",
        "description": "Fetch a page twice.",
        "parameters": [{"name": "url", "type": "STRING", "description": ""}],
        "required": ["url"],
    }


class Greeter:
    @tool_api
    def greet(self, who: str, punctuation: str = "!") -> str:
        """Greet someone.

        Args:
            who: the person
            punctuation: what ends the greeting
        """
        return f"hello {who}{punctuation}"

    @tool_api(name="greet_later")
    async def agreet(self, who: str) -> str:
        """Greet asynchronously."""
        return f"hi {who}"


def test_methods_sync_and_async_are_described_without_self_and_stay_callable() -> None:
    assert Greeter.greet.api_description == {
        "name": "greet",
        "description": "Greet someone.",
        "parameters": [
            {"name": "who", "type": "STRING", "description": "the person"},
            {"name": "punctuation", "type": "STRING", "description": "what ends the greeting"},
        ],
        "required": ["who"],
    }
    assert Greeter().greet("Ada") == "hello Ada!"
    assert inspect.iscoroutinefunction(Greeter.agreet)
    assert Greeter.agreet.api_description["name"] == "greet_later"
    assert [p["name"] for p in Greeter.agreet.api_description["parameters"]] == ["who"]
    assert asyncio.run(Greeter().agreet("Bo")) == "hi Bo"


# -- parameters -----------------------------------------------------------------------


@tool_api
def add(a: Annotated[int, "augend"], b: Annotated[int, "addend"] = 1) -> int:
    """Add operation

    Args:
        a (int): a
        b (int): b
    """
    return a + b


def test_annotated_description_overrides_docstring() -> None:
    assert add.api_description["parameters"] == [
        {"name": "a", "type": "NUMBER", "description": "augend"},
        {"name": "b", "type": "NUMBER", "description": "addend"},
    ]
    assert add.api_description["required"] == ["a"]


@tool_api
def scale(factor: float, times, label, note="") -> float:
    """Scale.

    Args:
        factor (str): the factor; the hint says float
        times (int): how often
        label: a label, typed nowhere
    """
    return factor * times


@pytest.mark.parametrize(
    ("index", "expected"),
    [
        pytest.param(
            0, ("factor", "FLOAT", "the factor; the hint says float"), id="type-hint-wins-over-docstring"
        ),
        pytest.param(1, ("times", "NUMBER", "how often"), id="docstring-type-without-annotation"),
        pytest.param(
            2, ("label", "STRING", "a label, typed nowhere"), id="args-entry-without-type-is-string"
        ),
        pytest.param(3, ("note", "STRING", ""), id="no-docstring-entry-empty-description"),
    ],
)
def test_parameter_type_and_description_sources(index: int, expected: tuple[str, str, str]) -> None:
    name, type_name, description = expected
    assert scale.api_description["parameters"][index] == {
        "name": name,
        "type": type_name,
        "description": description,
    }
    assert scale.api_description["required"] == ["factor", "times", "label"]


@tool_api
def no_docstring(x: int, y: str = "a") -> None:
    pass


def test_function_without_docstring_has_empty_description() -> None:
    assert no_docstring.api_description == {
        "name": "no_docstring",
        "description": "",
        "parameters": [
            {"name": "x", "type": "NUMBER", "description": ""},
            {"name": "y", "type": "STRING", "description": ""},
        ],
        "required": ["x"],
    }


@tool_api
def spread(first: str, *, flag: bool = False, **kwargs: Any) -> None:
    """Spread.

    Args:
        first: the first
        flag: a keyword-only flag
        **kwargs: options
    """


# *args is refused since issue 20 (tests/test_defs_signatures.py).
def test_var_kwargs_are_not_described() -> None:
    assert spread.api_description["parameters"] == [
        {"name": "first", "type": "STRING", "description": "the first"},
        {"name": "flag", "type": "BOOLEAN", "description": "a keyword-only flag"},
    ]
    assert spread.api_description["required"] == ["first"]


def label_text(cls: str, text: str) -> str:
    """Label a text.

    Args:
        cls: the class label
        text: the text
    """
    return f"{cls}:{text}"


def test_plain_function_parameter_named_cls_is_described() -> None:
    described = tool_api(label_text).api_description
    assert [p["name"] for p in described["parameters"]] == ["cls", "text"]
    assert described["required"] == ["cls", "text"]


def convert(value: str, unit: str = "m", precision: int = 2, verbose: bool = False) -> str:
    """Convert."""
    return value


@pytest.mark.parametrize(
    ("options", "names"),
    [
        pytest.param({"include_arguments": ["value", "unit"]}, ["value", "unit"], id="include"),
        pytest.param({"exclude_arguments": ["verbose"]}, ["value", "unit", "precision"], id="exclude"),
        pytest.param({"include_arguments": ["precision", "value"]}, ["value", "precision"], id="keeps-order"),
        pytest.param({"exclude_arguments": []}, ["value", "unit", "precision", "verbose"], id="exclude-none"),
    ],
)
def test_include_and_exclude_arguments_select_parameters(
    options: dict[str, list[str]], names: list[str]
) -> None:
    described = tool_api(**options)(convert).api_description
    assert [p["name"] for p in described["parameters"]] == names
    assert described["required"] == ["value"]


# -- return data ----------------------------------------------------------------------


class ApiArxivSearch:
    @tool_api(explode_return=True)
    def get_arxiv_article_information(self, query: str) -> dict:
        """Run Arxiv search and get the article meta information.

        Args:
            query (:class:`str`): the content of search query

        Returns:
            :class:`dict`: article information
                * content (str): a list of 3 arxiv search papers
        """
        return {"content": query}


def test_explode_return_reads_star_bullets_and_reduces_roles() -> None:
    papers = {"name": "content", "description": "a list of 3 arxiv search papers", "type": "STRING"}
    expected = {
        "name": "get_arxiv_article_information",
        "description": "Run Arxiv search and get the article meta information.",
        "parameters": [{"name": "query", "type": "STRING", "description": "the content of search query"}],
        "required": ["query"],
        "return_data": [papers],
    }
    described = ApiArxivSearch.get_arxiv_article_information.api_description
    assert described == expected
    assert key_order(described) == key_order(expected)


# -- definition errors ----------------------------------------------------------------


def documents_a_ghost(city: str) -> str:
    """Weather.

    Args:
        city: the city
        country: not a parameter
    """
    return city


class ApiHolder:
    def method(self, a: int) -> int:
        """Method.

        Args:
            b: wrong name
        """
        return a


@pytest.mark.parametrize(
    ("func", "owner", "stray"),
    [
        pytest.param(documents_a_ghost, "documents_a_ghost", "country", id="function"),
        pytest.param(ApiHolder.method, "ApiHolder.method", "b", id="method-qualname"),
    ],
)
def test_docstring_naming_missing_parameter_warns_and_describes_the_rest(
    func: Any, owner: str, stray: str
) -> None:
    pattern = (
        rf"^{owner}: the docstring describes \['{stray}'\], which the signature does not have "
        r"\(left out\)"
    )
    with pytest.warns(DefinitionWarning, match=pattern):
        described = tool_api(func)
    spec = api_spec_of(described)
    assert spec is not None
    assert [p["name"] for p in spec.description["parameters"]] == ["city" if stray == "country" else "a"]
    assert len(spec.doc_warnings) == 1


def many_problems(a: int, /, b: int, c: int = 0) -> int:
    """Many problems.

    Args:
        z: not a parameter
    """
    return a + b + c


def test_all_problems_of_one_definition_are_reported_together() -> None:
    with pytest.raises(ToolDefinitionError, match=r"^many_problems: 3 problems:\n") as info:
        tool_api(exclude_arguments=["b", "nope"])(many_problems)
    message = str(info.value)
    assert len(info.value.problems) == 3
    assert "parameter 'a' is positional-only" in message
    assert "exclude_arguments names ['nope']" in message
    assert "parameter 'b' is left out of the description but has no default" in message


def positional_only(a: int, /) -> int:
    """Positional only."""
    return a


def two_params(a: int, b: int = 1) -> int:
    """Two.

    Returns:
        int: the sum, members not listed
    """
    return a + b


LEFT_OUT = r"parameter 'a' is left out of the description but has no default"
POSITIONAL = r"parameter 'a' is positional-only; tools receive keyword arguments"


@pytest.mark.parametrize(
    ("func", "options", "pattern"),
    [
        pytest.param(positional_only, {}, POSITIONAL, id="positional-only"),
        pytest.param(two_params, {"exclude_arguments": ["a"]}, LEFT_OUT, id="exclude-required"),
        pytest.param(two_params, {"include_arguments": ["b"]}, LEFT_OUT, id="include-omits-required"),
        pytest.param(
            two_params,
            {"include_arguments": ["a", "x"]},
            r"include_arguments names \['x'\]",
            id="include-unknown",
        ),
        pytest.param(
            two_params, {"exclude_arguments": ["y"]}, r"exclude_arguments names \['y'\]", id="exclude-unknown"
        ),
        pytest.param(
            two_params,
            {"explode_return": True},
            r"explode_return=True needs a Returns: entry",
            id="explode-no-items",
        ),
    ],
)
def test_bad_definitions_raise_tool_definition_error(
    func: Any, options: dict[str, Any], pattern: str
) -> None:
    with pytest.raises(ToolDefinitionError, match=rf"^{func.__name__}: {pattern}"):
        tool_api(**options)(func)
