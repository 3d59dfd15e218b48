"""The plain Google reader gives exactly what docstring-parser gives, or declines.

Every docstring of the package, of the tests and of the seeds' examples, hand-written
odd cases and a fixed set of generated ones are read twice: with the plain reader and
with the plain reader switched off (docstring-parser). The two results must be equal
in every field of :class:`DocInfo`; where the reader is expected to decline, it must.
"""

from __future__ import annotations

import ast
import pathlib
import random
from typing import Any, Optional

import pytest

import lagent_like
from lagent_like import tool_api
from lagent_like.spec import _docstrings, _google_fast
from lagent_like.spec._google_fast import _SHAPE, read_plain_google
from lagent_like.toolkits._tool_api import api_spec_of

ROOT = pathlib.Path(__file__).resolve().parent.parent


def _read_both(doc: str, monkeypatch: pytest.MonkeyPatch) -> tuple[_docstrings.DocInfo, _docstrings.DocInfo]:
    """``doc`` parsed with the plain reader, then with docstring-parser alone (no cache)."""
    read = _docstrings.parse_docstring.__wrapped__
    fast = read(doc)
    with monkeypatch.context() as patch:
        patch.setattr(_docstrings, "read_plain_google", lambda text, titles: None)
        slow = read(doc)
    return fast, slow


def _source_docstrings(*folders: pathlib.Path) -> list[str]:
    """Every module, class and function docstring of the Python files under ``folders``."""
    found: dict[str, None] = {}
    kinds = (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)
    for folder in folders:
        for path in sorted(folder.rglob("*.py")):
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
                if isinstance(node, kinds):
                    doc = ast.get_docstring(node, clean=False)
                    if doc:
                        found[doc] = None
    return list(found)


def test_every_docstring_of_the_package_and_the_tests_reads_the_same_both_ways(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    docs = _source_docstrings(pathlib.Path(lagent_like.__file__).parent, ROOT / "tests")
    taken = 0
    for doc in docs:
        fast, slow = _read_both(doc, monkeypatch)
        assert fast == slow, doc
        taken += read_plain_google(doc, _docstrings._KNOWN_TITLES) is not None
    assert len(docs) > 1000
    assert taken > len(docs) // 4  # the reader is used, not declining everything


def _doc(*lines: str, indent: str = "    ") -> str:
    """A docstring as written in a function body: lines after the first indented by ``indent``."""
    return ("\n" + indent).join(lines) + "\n" + indent


PLAIN_CASES = [
    pytest.param(
        _doc("Add two integers.", "", "Args:", "    a (int): the first", "    b (int): the second"),
        id="summary-and-typed-args",
    ),
    pytest.param(_doc("Add.", "", "Args:", "    a: the first", "    b: the second"), id="untyped-args"),
    pytest.param(
        _doc(
            "Add.",
            "",
            "Args:",
            "    a (list[int], optional): items",
            "    b (int?): maybe",
            "    c ( str ): spaced",
        ),
        id="optional-markers-and-spaces-in-type",
    ),
    pytest.param(_doc("Add.", "", "Args:", "    a(int): no space"), id="type-without-space"),
    pytest.param(
        _doc("Add.", "", "Args:", "    a (?): x", "    b (, optional): y"), id="type-cut-to-nothing"
    ),
    pytest.param(
        _doc("Add.", "", "Args:", *[f"    p{i} (int): number {i}" for i in range(12)]),
        id="more-entries-than-one-pattern-reads",
    ),
    pytest.param(
        _doc("Add.", "", "Parameters:", "    a: x", "", "Returns:", "    int: y"),
        id="parameters-then-returns",
    ),
    pytest.param(
        _doc("Add.", "", "Args:", "    a (int):", "        the text below"), id="description-on-next-line"
    ),
    pytest.param(
        _doc(
            "Add.", "", "Args:", "    a (int): first line", "        second line", "            deeper line"
        ),
        id="continuation-lines-keep-relative-indent",
    ),
    pytest.param(_doc("Add.", "", "Args:", "    a: one", "", "    b: two"), id="blank-line-between-items"),
    pytest.param(_doc("Add.", "", "Args:", "    a: a: b: c"), id="colons-in-description"),
    pytest.param(_doc("Add.", "", "Returns:", "    int: the sum"), id="typed-return"),
    pytest.param(
        _doc("Add.", "", "Returns:", "    Dict[str, int]: the map"), id="bracketed-return-type-with-space"
    ),
    pytest.param(_doc("Add.", "", "Returns:", "    The sum: of both"), id="return-sentence-with-colon"),
    pytest.param(_doc("Add.", "", "Returns:", "    the sum of both"), id="return-without-colon"),
    pytest.param(
        _doc("Add.", "", "Returns:", "    int: the sum", "        of both", "    more"), id="return-continued"
    ),
    pytest.param(_doc("Add.", "", "Returns:", "    bold_text (str): bold"), id="named-return-item"),
    pytest.param(_doc("Add.", "", "Returns:"), id="empty-returns"),
    pytest.param(
        _doc("Add.", "", "Raises:", "    ValueError: when bad", "    KeyError: when missing"), id="raises"
    ),
    pytest.param(_doc("Add.", "", "Example:", "    >>> add(1, 2)", "    3"), id="example-section"),
    pytest.param(_doc("Add.", "", "Note:", "    Not a: parameter."), id="note-section"),
    pytest.param(
        _doc("Add.", "", "Keyword Args:", "    scale (float): factor", "", "Args:", "    a: first"),
        id="keyword-args-then-args",
    ),
    pytest.param(
        _doc("Add.", "The numbers:", "", "- one", "- two", "", "Args:", "    a: first"),
        id="long-description-with-colon-line-and-no-blank-after-summary",
    ),
    pytest.param(_doc("Add.", "", "More text.", "", "Even more."), id="paragraphs-only"),
    pytest.param(_doc("Add.", "", "Args:  ", "    a: first"), id="spaces-after-title"),
    pytest.param(
        _doc("Add.", "", "Args:", "    a: the first", "    Returns:", "    b: x"),
        id="indented-title-is-an-item",
    ),
    pytest.param("\n    Add.\n\n    Args:\n        a: first\n    ", id="leading-newline"),
    pytest.param("Add.\nArgs:\n    a: x", id="no-indent-no-blank"),
    pytest.param(_doc("加两个数。", "", "Args:", "    数: 第一个"), id="non-ascii"),
    # The seeds' examples (Lagent's own tools' docstrings).
    pytest.param(
        _doc(
            "make text bold", "", "Args:", "    text (str): input text", "", "Returns:", "    str: bold text"
        ),
        id="seed-004-bold",
    ),
    pytest.param(
        _doc(
            "make text bold",
            "",
            "Args:",
            "    text (str): input text",
            "",
            "Returns:",
            "    bold_text (str): bold text",
        ),
        id="seed-004-named-return",
    ),
    pytest.param(
        _doc(
            "Return arguments in dict format",
            "",
            "Args:",
            "    a (str): a",
            "    b (int): b",
            "    c (float): c",
            "",
            "Returns:",
            "    dict: input arguments in dict format",
        ),
        id="seed-004-dict",
    ),
    pytest.param(
        _doc(
            "make text italic",
            "",
            "Args:",
            "    text (str): input text",
            "",
            "Returns:",
            "    str: italic text",
            indent="        ",
        ),
        id="seed-004-method-indent",
    ),
]

DECLINED_CASES = [
    pytest.param("Add.\n\n\tArgs:\n\t\ta: x", id="tabs"),
    pytest.param(_doc("Add.", "", ":param a: the first"), id="rest-fields"),
    pytest.param(_doc("Add.", "", "Parameters", "----------", "a : int", "    the first"), id="numpy"),
    pytest.param(_doc("Add.", "", "Args:", "    a (:class:`int`): the first"), id="rest-role"),
    pytest.param(
        _doc("Add.", "", "Attributes:", "    a: x"), id="attributes-are-parameters-to-docstring-parser"
    ),
    pytest.param(_doc("Add.", "", "Yields:", "    int: x"), id="yields"),
    pytest.param(_doc("Add.", "", "Args: None"), id="args-none"),
    pytest.param(_doc("Add.", "", "Returns: int"), id="title-with-text"),
    pytest.param(_doc("Add.", "", "Args:", "", "Returns:", "    int: x"), id="empty-args"),
    pytest.param(_doc("Add.", "", "Args:", "    a the first"), id="item-without-colon"),
    pytest.param(
        _doc("Add.", "", "Args:", "    a: x", "", "Custom:", "    text"), id="unknown-title-after-args"
    ),
    pytest.param(_doc("Add.", "", "Args:", "    a: x", "    Custom words:"), id="title-like-line-after-args"),
    pytest.param(_doc("Add.", "", "Args:", "    a: x", "", "Closing words."), id="paragraph-after-sections"),
    pytest.param(_doc("Add.", "", "Args:", "    a: x", "", "        more"), id="blank-line-inside-item"),
    pytest.param("Add.\n      \n    Args:\n        a: x\n    ", id="line-of-spaces"),
    pytest.param(_doc("Add.", "", "Args:", "    a: x", "    \xa0b: y"), id="no-break-space-before-an-item"),
    pytest.param(_doc("Add.", "", "Args:\u3000", "    a: x"), id="ideographic-space-after-a-title"),
    pytest.param(_doc("Add.", "", "Args:", "    *args: x"), id="starred-name"),
    pytest.param(_doc("Add.", "", "Args:", "    a (foo", "    bar): x"), id="type-across-lines"),
    pytest.param(_doc("Add.", "", "Args:", "    a : x"), id="space-before-colon"),
    pytest.param(_doc("Add.", "", "Args:", "    a (dict(str, int)): x"), id="nested-parentheses"),
    pytest.param(_doc("Add.", "", "Args:", "    a: x", "Args:", "    b: y"), id="title-twice"),
    pytest.param(_doc("Args:", "    a: x"), id="title-first"),
    pytest.param(_doc("Add.", "", "Args:", "        a: x", "      b: y"), id="shallower-item"),
    pytest.param(
        _doc("Add.", "", "Returns:", "    list of x", "    y]: z"), id="bracket-colon-on-a-later-line"
    ),
]


@pytest.mark.parametrize("doc", PLAIN_CASES)
def test_a_plain_google_docstring_is_read_without_docstring_parser_and_equally(
    doc: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert read_plain_google(doc, _docstrings._KNOWN_TITLES) is not None
    fast, slow = _read_both(doc, monkeypatch)
    assert fast == slow


@pytest.mark.parametrize("doc", DECLINED_CASES)
def test_a_docstring_the_plain_reader_is_unsure_of_goes_to_docstring_parser(
    doc: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert read_plain_google(doc, _docstrings._KNOWN_TITLES) is None
    fast, slow = _read_both(doc, monkeypatch)
    assert fast == slow


_WORDS = (
    "sum",
    "the",
    "Value",
    "x:",
    "int",
    "list[int]:",
    "a (b)",
    "]:",
    "None",
    "Args:",
    "-",
    "é",
    "(",
    ")",
    "?",
)
_TYPES = ("", " (int)", " (list[int], optional)", " (str?)", "(int)", " ( int )", " (dict(a, b))", " (int) x")
_NAMES = ("a", "b_c", "d1", "é", "x y", "*k")


def _text(rng: random.Random, most: int) -> str:
    return " ".join(rng.choice(_WORDS) for _ in range(rng.randint(0, most)))


def _entry(rng: random.Random) -> list[str]:
    """One section entry (an item, a sentence, a return) and its continuation lines."""
    head = rng.choice(
        [
            rng.choice(_NAMES) + rng.choice(_TYPES) + ":" + rng.choice([" ", "", "  "]) + _text(rng, 5),
            _text(rng, 4),
            "int: " + _text(rng, 3),
            _text(rng, 3) + ": " + _text(rng, 2),
        ]
    )
    more = [
        rng.choice(["        ", "      ", "            ", "    ", ""]) + _text(rng, 4)
        for _ in range(rng.choice([0, 0, 1, 2]))
    ]
    return ["    " + head, *more]


def _generated(rng: random.Random) -> str:
    """A Google-like docstring with random sections, entries and odd spots."""
    lines = [_text(rng, 5) or "Summary."]
    if rng.random() < 0.6:
        lines += ["", _text(rng, 6)]
    titles = ["Args:", "Returns:", "Raises:", "Parameters:", "Example:", "Yields:", "Custom:"]
    for title in rng.sample(titles, rng.randint(0, 3)):
        lines += [""] if rng.random() < 0.7 else []
        lines.append(title + rng.choice(["", "", " "]))
        for _ in range(rng.randint(0, 3)):
            lines += _entry(rng)
    return ("\n    ".join(lines)) + rng.choice(["\n    ", "", "\n"])


def test_generated_google_docstrings_read_the_same_both_ways(monkeypatch: pytest.MonkeyPatch) -> None:
    rng = random.Random(25)
    taken = 0
    for _ in range(3000):
        doc = _generated(rng)
        fast, slow = _read_both(doc, monkeypatch)
        assert fast == slow, doc
        taken += read_plain_google(doc, _docstrings._KNOWN_TITLES) is not None
    assert taken > 300


_HEADS = ("a", "b_c", "x (int)", "y (list[int], optional)", "z (str?)", "w ( int )", "v(int)")
_ODD_HEADS = (
    "Foo",
    "Foo bar",
    "u (dict(a, b))",
    "t ()",
    "s (int) x",
    "Args",
    "Note",
    "1a",
    "*k",
    "Dict[str, int]",
    "a b]",
    "q (?)",
    "r (, optional)",
    "o (foo",
    "bar)",
    "k (:class:`int`)",
)
_ENTRY_TEXTS = ("", " x", " the first", "  two  spaces", " a: b", " None", " ends:", " Returns:", " x]: y")
_ODD_CHARACTERS = ("\t", "`", "\xa0", "\r", "\u3000", "---", "\x0b", "\x1c", "\n---\n", ":x:`y`")
_DESCRIPTION_LINES = (
    "The list:",
    "Note: x",
    "Returns: int",
    "Foo:",
    "- a",
    "   deeper",
    "x: y",
    ":param a: b",
    "See Also:",
)


def _shaped(rng: random.Random) -> str:
    """A docstring near the common shape: uniform indentation, one-line entries, odd spots now and then."""
    indent = rng.choice(["    ", "        ", "", "  "])
    blanks = ["", "", indent, indent, indent, indent + "  ", " "]
    lines = [rng.choice(["Add two.", "Add two numbers", " Add.", "Add:", "Returns: x"])]
    if rng.random() < 0.5:
        lines.append(rng.choice(blanks))
        for _ in range(rng.randint(1, 3)):
            lines.append(indent + (rng.choice(_DESCRIPTION_LINES) if rng.random() < 0.4 else "Plain words."))
    titles = [
        "Args:",
        "Returns:",
        "Raises:",
        "Parameters:",
        "Keyword Args:",
        "Args:",
        "Returns:",
        "Example:",
        "Yields:",
    ]
    for title in rng.sample(titles, rng.randint(1, 3)):
        lines += [rng.choice(blanks)] if rng.random() < 0.8 else []
        lines.append(indent + title + rng.choice(["", "", "", "", " ", "  x"]))
        depth = rng.choice(["    ", "    ", "  ", "        "])
        for _ in range(rng.randint(0, 3)):
            at = depth if rng.random() < 0.9 else rng.choice(["  ", "      ", "   "])
            head = rng.choice(_HEADS) if rng.random() < 0.7 else rng.choice(_ODD_HEADS)
            lines.append(indent + at + head + rng.choice([":"] * 8 + ["", " :"]) + rng.choice(_ENTRY_TEXTS))
            lines += [rng.choice(blanks)] if rng.random() < 0.1 else []
    doc = "\n".join(lines) + rng.choice(["\n" + indent, "", "\n", "\n  "])
    if rng.random() < 0.2:  # a character the pattern must refuse, somewhere
        at = rng.randrange(len(doc) + 1)
        doc = doc[:at] + rng.choice(_ODD_CHARACTERS) + doc[at:]
    return doc


def test_generated_docstrings_of_the_common_shape_read_the_same_both_ways(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    rng = random.Random(2025)
    shaped = 0
    for _ in range(6000):
        doc = _shaped(rng)
        fast, slow = _read_both(doc, monkeypatch)
        assert fast == slow, doc
        shaped += (
            _SHAPE().fullmatch(doc) is not None
            and read_plain_google(doc, _docstrings._KNOWN_TITLES) is not None
        )
    assert shaped > 100


PLAIN_DOC = """Add two integers for tool 7.

Args:
    a (int): the first addend of tool 7
    b (int): the second addend of tool 7
"""


def test_a_plain_docstring_is_read_by_one_pattern_never_by_docstring_parser(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    calls: list[str] = []
    original = _docstrings.parse_with_library

    def counted(text: str, style: str) -> Any:
        calls.append(text)
        return original(text, style)

    monkeypatch.setattr(_docstrings, "parse_with_library", counted)
    monkeypatch.setattr(_google_fast, "_scan", lambda lines, titles: pytest.fail("read line by line"))

    def add(a: int, b: int) -> int:
        return a + b

    add.__doc__ = PLAIN_DOC
    tool_api(add)
    spec: Optional[Any] = api_spec_of(add)
    assert calls == []
    assert spec is not None and spec.description == {
        "name": "add",
        "description": "Add two integers for tool 7.",
        "parameters": [
            {"name": "a", "type": "NUMBER", "description": "the first addend of tool 7"},
            {"name": "b", "type": "NUMBER", "description": "the second addend of tool 7"},
        ],
        "required": ["a", "b"],
    }
