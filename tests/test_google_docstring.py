"""The fast Google reader agrees with docstring-parser wherever it answers."""

from __future__ import annotations

import inspect

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from lagent_like._private.docstrings import parse_docstring, parse_with_library, reduce_roles
from lagent_like._private.google_docstring import read_google, returns_section

CORPUS = {
    "one-line": "Make text bold.",
    "short-long": "Make text bold.\n\nIt wraps the text in two asterisks.\nTwo lines.",
    "short-long-no-blank": "Make text bold.\nStill the description.",
    "args": "Add.\n\nArgs:\n    a (int): first\n    b: second\n",
    "args-multiline": "Add.\n\nArgs:\n    a (int): first line\n        continued here\n    b (str, optional): second\n",
    "args-question-optional": "Add.\n\nArgs:\n    a (int?): first\n",
    "returns-typed": "Bold.\n\nArgs:\n    text (str): input\n\nReturns:\n    str: bold text\n",
    "returns-named": "Bold.\n\nReturns:\n    bold_text (str): bold text\n",
    "returns-plain": "Bold.\n\nReturns:\n    the bold text\n",
    "explode": (
        "Return args.\n\nArgs:\n    a (str): a\n\nReturns:\n    dict: input arguments\n"
        "        - a (str): a\n        - b (int): b\n        - c: c\n"
    ),
    "all-sections": (
        "Do it.\n\nLong.\n\nParameters:\n    x: the x\n\nRaises:\n    ValueError: bad\n\n"
        "Example:\n    >>> do(1)\n\nYields:\n    int: numbers\n"
    ),
    "unknown-meta-after-section": "Do.\n\nArgs:\n    x: the x\nTrailing text at column zero.\n",
    "keyword-args-title-not-a-section": "Do.\n\nKeyword Args:\n    x: the x\n",
    "star-args": "Do.\n\nArgs:\n    *args: positional\n    **kwargs: named\n",
    "type-with-parens": "Do.\n\nArgs:\n    x (Dict[str, int]): mapping\n",
    "roles": "Search.\n\nArgs:\n    query (:class:`str`): the query\n",
}


def _library(text: str) -> object:
    cleaned = reduce_roles(inspect.cleandoc(text))
    info = parse_with_library(cleaned, "google")
    info.returns_raw = returns_section(cleaned)
    return info


@pytest.mark.parametrize("text", [pytest.param(t, id=k) for k, t in CORPUS.items()])
def test_fast_reader_matches_docstring_parser(text: str) -> None:
    cleaned = reduce_roles(inspect.cleandoc(text))
    assert read_google(cleaned) is not None
    assert parse_docstring(text) == _library(text)


@pytest.mark.parametrize(
    "text",
    [
        pytest.param("Do.\n\nArgs:\n    no colon here\n", id="entry-without-colon"),
        pytest.param("Do.\n\nArgs:\n    x: one\n\nArgs:\n    y: two\n", id="repeated-section"),
    ],
)
def test_fast_reader_defers_what_it_does_not_handle(text: str) -> None:
    assert read_google(inspect.cleandoc(text)) is None


# Raw ``__doc__`` strings as methods carry them: indented, with the closing quotes' line.
COMMON = {
    "args": "Add.\n\n        Args:\n            a: first\n            b (int): second\n        ",
    "no-blank-line": "Add.\n        Args:\n            a: first\n        ",
    "margin-in-blank-lines": (
        "Add.\n        \n        Args:\n            a: first\n        \n        Returns:\n            int: sum\n        "
    ),
    "returns-named": "Add.\n\n    Args:\n        a: first\n\n    Returns:\n        total (int): the sum\n",
    "returns-plain": "Add.\n\n    Parameters:\n      a (str, optional): first\n\n    Returns:\n      the sum",
    "flush-left": "Add.\n\nArgs:\n  a: first\n  b: second",
    "typed-with-parens": "Add.\n\n    Args:\n        x (Dict[str, int]): mapping\n        y (int?): y\n    ",
}


@pytest.mark.parametrize("text", [pytest.param(t, id=k) for k, t in COMMON.items()])
def test_raw_doc_of_the_common_shape_reads_as_docstring_parser_does(text: str) -> None:
    assert parse_docstring(text) == _library(text)


@pytest.mark.parametrize(
    "text",
    [
        pytest.param("Add.\n\n    More.\n\n    Args:\n        a: first\n", id="long-description"),
        pytest.param("Add.\n\n    Args:\n        a: first\n            more\n", id="continuation-line"),
        pytest.param("Add.\n\n    Args:\n        a:\tfirst\n", id="tab"),
        pytest.param("Add.\n\n    Args:\n        a (:class:`int`): first\n", id="role"),
        pytest.param("Add:\n\n    Args:\n        a: first\n", id="summary-ends-with-colon"),
        pytest.param(
            "Add.\n\n    Args:\n        a: first\n  \n    Returns:\n        int: x\n", id="odd-blank"
        ),
        pytest.param("Add.\n\n    Returns:\n        dict: d\n            - a (str): a\n", id="bullets"),
        pytest.param("Add.\n\n    Raises:\n        ValueError: bad\n", id="other-section"),
    ],
)
def test_raw_doc_of_other_shapes_reads_as_docstring_parser_does(text: str) -> None:
    assert parse_docstring(text) == _library(text)


@pytest.mark.parametrize(
    ("text", "description"),
    [
        pytest.param("  Make text bold.  ", "Make text bold.", id="padded"),
        pytest.param("Tab\there.", "Tab     here.", id="tab-expanded-like-cleandoc"),
        pytest.param("Returns the text.", "Returns the text.", id="title-word-without-colon"),
    ],
)
def test_one_line_docstring_is_its_description(text: str, description: str) -> None:
    assert parse_docstring(text).description == description


_words = st.text(alphabet="abcdefgh xyz_", min_size=1, max_size=12).map(str.strip).filter(bool)


@settings(max_examples=150, deadline=None)
@given(
    summary=_words,
    params=st.lists(
        st.tuples(
            st.from_regex(r"[a-z]{1,6}", fullmatch=True),
            st.sampled_from(["", " (int)", " (str, optional)", " (list[int])"]),
            _words,
            st.booleans(),
        ),
        max_size=4,
        unique_by=lambda p: p[0],
    ),
    returns=st.sampled_from(["", "str: text", "name (int): count", "plain words"]),
)
def test_fast_reader_matches_on_generated_docstrings(
    summary: str, params: list[tuple[str, str, str, bool]], returns: str
) -> None:
    lines = [summary, ""]
    if params:
        lines.append("Args:")
        for name, type_part, desc, continued in params:
            lines.append(f"    {name}{type_part}: {desc}")
            if continued:
                lines.append(f"        more {desc}")
        lines.append("")
    if returns:
        lines += ["Returns:", f"    {returns}"]
    text = "\n".join(lines)
    assert parse_docstring(text) == _library(text)
