"""Google, NumPy and reST/Sphinx docstrings describe a tool alike."""

from __future__ import annotations

from typing import Any, Callable

import pytest

from lagent_like import tool_api


def forecast_google(city, days=1, metric=True):
    """Weather forecast.

    Looks the city up and returns
    the forecast.

    Args:
        city (str): the city name
        days (int, optional): how many days
        metric (bool): use metric units
    """


def forecast_numpy(city, days=1, metric=True):
    """Weather forecast.

    Looks the city up and returns
    the forecast.

    Parameters
    ----------
    city : str
        the city name
    days : int, optional
        how many days
    metric : bool
        use metric units
    """


def forecast_rest(city, days=1, metric=True):
    """Weather forecast.

    Looks the city up and returns
    the forecast.

    :param city: the city name
    :type city: str
    :param days: how many days
    :type days: int, optional
    :param metric: use metric units
    :type metric: bool
    """


def forecast_rest_inline_types(city, days=1, metric=True):
    """Weather forecast.

    Looks the city up and returns
    the forecast.

    :param str city: the city name
    :param int days: how many days
    :param bool metric: use metric units
    """


FORECAST = {
    "name": "forecast",
    "description": "Weather forecast.\n\nLooks the city up and returns\nthe forecast.",
    "parameters": [
        {"name": "city", "type": "STRING", "description": "the city name"},
        {"name": "days", "type": "NUMBER", "description": "how many days"},
        {"name": "metric", "type": "BOOLEAN", "description": "use metric units"},
    ],
    "required": ["city"],
}

STYLES = [
    pytest.param(forecast_google, id="google"),
    pytest.param(forecast_numpy, id="numpy"),
    pytest.param(forecast_rest, id="rest"),
    pytest.param(forecast_rest_inline_types, id="rest-inline-types"),
]


@pytest.mark.parametrize("func", STYLES)
def test_every_style_gives_the_same_description(func: Callable[..., Any]) -> None:
    assert tool_api(name="forecast")(func).api_description == FORECAST


def describe_g(a: str) -> None:
    """Short line.

    First paragraph of the long part.

    Second paragraph.

    Args:
        a: the a
    """


def describe_n(a: str) -> None:
    """Short line.

    First paragraph of the long part.

    Second paragraph.

    Parameters
    ----------
    a : str
        the a
    """


def describe_r(a: str) -> None:
    """Short line.

    First paragraph of the long part.

    Second paragraph.

    :param a: the a
    """


@pytest.mark.parametrize(
    "func",
    [
        pytest.param(describe_g, id="google"),
        pytest.param(describe_n, id="numpy"),
        pytest.param(describe_r, id="rest"),
    ],
)
def test_short_and_long_description_are_joined_with_a_blank_line(func: Callable[..., Any]) -> None:
    described = tool_api(func).api_description
    assert described["description"] == "Short line.\n\nFirst paragraph of the long part.\n\nSecond paragraph."
    assert described["parameters"] == [{"name": "a", "type": "STRING", "description": "the a"}]


def roles_google(query, limit=3):
    """Search with :func:`~pkg.search.run`.

    Args:
        query (:class:`str`): the :obj:`query` text
        limit (:py:class:`int`): at most :attr:`limit` hits
    """


def roles_numpy(query, limit=3):
    """Search with :func:`~pkg.search.run`.

    Parameters
    ----------
    query : :class:`str`
        the :obj:`query` text
    limit : :py:class:`int`
        at most :attr:`limit` hits
    """


def roles_rest(query, limit=3):
    """Search with :func:`~pkg.search.run`.

    :param query: the :obj:`query` text
    :type query: :class:`str`
    :param limit: at most :attr:`limit` hits
    :type limit: :py:class:`int`
    """


@pytest.mark.parametrize(
    "func",
    [
        pytest.param(roles_google, id="google"),
        pytest.param(roles_numpy, id="numpy"),
        pytest.param(roles_rest, id="rest"),
    ],
)
def test_rest_roles_are_reduced_to_their_text(func: Callable[..., Any]) -> None:
    assert tool_api(name="search")(func).api_description == {
        "name": "search",
        "description": "Search with run.",
        "parameters": [
            {"name": "query", "type": "STRING", "description": "the query text"},
            {"name": "limit", "type": "NUMBER", "description": "at most limit hits"},
        ],
        "required": ["query"],
    }


def role_with_title(path):
    """Open a file.

    Args:
        path: a path, see :class:`the path type <pathlib.Path>`
    """


def test_rest_role_with_explicit_title_is_reduced_to_the_title() -> None:
    described = tool_api(role_with_title).api_description
    assert described["parameters"][0]["description"] == "a path, see the path type"


def stats_numpy(values):
    """Statistics of numbers.

    Parameters
    ----------
    values : list of float
        the numbers

    Returns
    -------
    total : float
        the sum
    count : int
        how many numbers
    label : :class:`str`
        a summary
    """


def test_returns_named_value_reads_numpy_named_returns() -> None:
    described = tool_api(returns_named_value=True)(stats_numpy).api_description
    assert described == {
        "name": "stats_numpy",
        "description": "Statistics of numbers.",
        "parameters": [{"name": "values", "type": "Array", "description": "the numbers"}],
        "required": ["values"],
        "return_data": [
            {"name": "total", "description": "the sum", "type": "FLOAT"},
            {"name": "count", "description": "how many numbers", "type": "NUMBER"},
            {"name": "label", "description": "a summary", "type": "STRING"},
        ],
    }
    assert [list(item) for item in described["return_data"]] == [["name", "description", "type"]] * 3


def stats_google(values):
    """Statistics of numbers.

    Args:
        values (list of float): the numbers

    Returns:
        total (float): the sum
        count (int): how many numbers
        label (:class:`str`): a summary
    """


def test_returns_named_value_agrees_between_google_and_numpy() -> None:
    google = tool_api(returns_named_value=True)(stats_google).api_description
    numpy = tool_api(returns_named_value=True)(stats_numpy).api_description
    assert google["return_data"] == numpy["return_data"]
    assert google["parameters"] == numpy["parameters"]


def members_numpy(x: int) -> dict:
    """Members.

    Returns
    -------
    dict
        the members
            - a (str): the a
            * b (int): the b
    """


def members_rest(x: int) -> dict:
    """Members.

    :returns: the members

        - a (str): the a
        * b (int): the b
    :rtype: dict
    """


@pytest.mark.parametrize(
    "func",
    [pytest.param(members_numpy, id="numpy"), pytest.param(members_rest, id="rest")],
)
def test_explode_return_reads_members_in_every_style(func: Callable[..., Any]) -> None:
    assert tool_api(explode_return=True)(func).api_description["return_data"] == [
        {"name": "a", "description": "the a", "type": "STRING"},
        {"name": "b", "description": "the b", "type": "NUMBER"},
    ]


def bullets_right_under_returns(x: int) -> dict:
    """Members only.

    Returns:
        - a (str): first
        - b (int): second
    """
    return {"a": str(x), "b": x}


def test_explode_return_keeps_a_bullet_on_the_first_line() -> None:
    described = tool_api(explode_return=True)(bullets_right_under_returns).api_description
    assert [item["name"] for item in described["return_data"]] == ["a", "b"]


def named_value_with_continuation(x: int) -> int:
    """Count.

    Returns:
        total (int): the total
            Note: may be zero
    """
    return x


def test_returns_named_value_continuation_line_with_colon() -> None:
    described = tool_api(returns_named_value=True)(named_value_with_continuation).api_description
    assert described["return_data"] == [
        {"name": "total", "description": "the total Note: may be zero", "type": "NUMBER"}
    ]


@pytest.mark.parametrize(
    "text",
    [
        "Args:\n    a: x",
        "Summary.\n\nArgs:\n    a: first\n    b (int): second\n\nReturns:\n    int: sum\n",
        "Summary.\nArgs: inline\n  Args:\nNotes:\nSee Also:\t \nXArgs:\nArgs:x\n\nRaises:\n    E: when",
        "Keyword Args:\n    k: v\nWarns:\n    W: w\nReturns:",
        "no titles at all\nArguments\n",
    ],
)
def test_the_faster_title_pattern_finds_what_docstring_parsers_own_finds(text: str) -> None:
    # spec/docstrings.py replaces the Google parser's title pattern for speed; the
    # parser reads group 1 and the spans, which must be those of the library's pattern.
    from docstring_parser.google import GoogleParser

    from lagent_like.spec import _docstrings as docstrings

    ours = docstrings._parser("google").__self__
    library = GoogleParser(sections=list(ours.sections.values()))
    assert library.titles_re.pattern != ours.titles_re.pattern
    found = [(m.group(1), m.span()) for m in ours.titles_re.finditer(text)]
    assert found == [(m.group(1), m.span()) for m in library.titles_re.finditer(text)]
    assert found or "Args" not in text
