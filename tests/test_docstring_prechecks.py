"""The cheap scans that decide how a docstring is read never skip one that needs care.

``parse_docstring`` finds the docstring's style and whether a Google docstring has a
title line to look at before docstring-parser reads it (``Args: None``, an unknown
title after a known one) from one scan for colons (``_MARKERS``). The full checks run
only when that scan finds a reason; these tests hold the scan to the full checks, and
show the behaviour at the edges through ``tool_api``.
"""

from __future__ import annotations

import warnings
from typing import Any, Callable

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from lagent_like import DefinitionWarning, tool_api
from lagent_like.spec import _docstrings as docstrings
from lagent_like.toolkits._tool_api import api_spec_of

LINES = [
    "Say hello.",
    "Args:",
    "Args:  \t",
    "Args: None",
    "Args:  none.  ",
    "Returns: N/A",
    "Raises: --.",
    "Yields: NA",
    "Params: n/a\r",
    "Args: None x",
    "Args : None",
    "Returns:None",
    "Args: Nothing..",
    "Note:",
    "Usage:",
    "Usage: see below",
    "Foo Bar:",
    "Note: see Args:",
    "Foo: Args: None",
    "Ärgs:",
    "Args::",
    ":",
    "    city: the city name",
    "    days (int): how many days",
    ":param city: the city",
    "  :type city: str",
    "mentions :param in prose",
    ":parameter z:",
    ":rtype: int",
    "----------",
    "Parameters",
    "",
]


@settings(max_examples=1000, deadline=None)
@given(st.lists(st.sampled_from(LINES), max_size=7), st.sampled_from(["", "    ", "\t"]), st.booleans())
def test_the_marker_scan_agrees_with_the_full_checks(
    lines: list[str], indent: str, newline_at_end: bool
) -> None:
    text = "\n" + "\n".join(indent + line for line in lines) + ("\n" if newline_at_end else "")
    markers = docstrings._MARKERS().findall(text)
    # Markers that always pass the cheap checks: two plain colons, and a reST field.
    assert docstrings._needs_care(text, markers) == docstrings._needs_care(text, [("", "")] * 2)
    assert docstrings._style(text, markers) == docstrings._style(text, [("param", "")])


def nothing_with_dot_and_spaces() -> str:
    """Say hello.

    Args:  none.
    """
    return "hello"


def nothing_after_a_section(city: str) -> str:
    """Weather of a city.

    Args:
        city: the city name
    Returns: N/A
    """
    return city


def title_with_trailing_whitespace(city: str) -> str:
    """Weather of a city.

    Args:\t
        city: the city name

    Usage:   \t
        title_with_trailing_whitespace(city="Paris")
    """
    return city


def field_in_prose(city: str) -> str:
    """Weather of a city; mentions :param in prose.

    Args:
        city: the city name
    """
    return city


@pytest.mark.parametrize(
    ("func", "description", "parameters", "notes"),
    [
        pytest.param(nothing_with_dot_and_spaces, "Say hello.", [], [], id="args-none-dot-and-spaces"),
        pytest.param(
            nothing_after_a_section,
            "Weather of a city.",
            [("city", "the city name")],
            [],
            id="returns-none-after-args",
        ),
        pytest.param(
            title_with_trailing_whitespace,
            "Weather of a city.",
            [("city", "the city name")],
            ["unknown section 'Usage:' is left out of the description"],
            id="titles-with-trailing-whitespace",
        ),
        pytest.param(
            field_in_prose,
            "Weather of a city; mentions :param in prose.",
            [("city", "the city name")],
            [],
            id="rest-field-name-in-google-prose",
        ),
    ],
)
def test_docstrings_at_the_edges_of_the_scan_are_read_with_care(
    func: Callable[..., Any], description: str, parameters: list[tuple[str, str]], notes: list[str]
) -> None:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        spec = api_spec_of(tool_api(func))
    assert spec is not None
    assert spec.summary == description
    assert [(p.name, p.description) for p in spec.params] == parameters
    assert list(spec.doc_warnings) == notes
    assert [str(w.message) for w in caught if w.category is DefinitionWarning] == [
        f"{func.__qualname__}: {note}" for note in notes
    ]
