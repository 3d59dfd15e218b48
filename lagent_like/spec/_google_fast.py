"""Read the common Google docstring without docstring-parser, the same as it would.

Why: defining a tool reads its docstring, and docstring-parser's Google reader is most
of that cost (the define benchmark, one docstring per tool). Most tool docstrings are
the plain shape: a summary, maybe more paragraphs, then ``Args:`` items (``name
(type): text`` or ``name: text``, with continuation lines), ``Returns:`` and
``Raises:``. :func:`read_plain_google` reads that shape and gives the fields
:func:`~lagent_like.spec._docstrings.parse_with_library` takes from docstring-parser's
result, equal to them (tests/test_r3_docfast_equality.py compares both over every
docstring of the package, of the tests and of hand-written odd cases). Whatever it
is not sure of (other styles, other sections, tabs, odd indentation, blank lines
inside an item, a colon where a title could be ...) it declines with ``None``, and
the caller reads the docstring with docstring-parser as before.
"""

from __future__ import annotations

import re
from inspect import cleandoc
from typing import Optional

#: ``(description, params, returns_text)`` as :class:`DocInfo` holds them.
Plain = tuple[str, dict[str, tuple[Optional[str], str]], str]

# Sections read here; any other known title (Attributes are parameters to
# docstring-parser, Yields a return value) sends the docstring to docstring-parser.
_PARAM_SECTIONS = frozenset(
    {"Args", "Arguments", "Parameters", "Params", "Keyword Args", "Keyword Arguments"}
)
_RAISES_SECTIONS = frozenset({"Raises", "Exceptions", "Except"})
# Sections docstring-parser reads into entries nobody here uses, never refusing them.
_IGNORED_SECTIONS = frozenset(
    {
        "Example",
        "Examples",
        "Note",
        "Notes",
        "Warning",
        "Warnings",
        "See Also",
        "Todo",
        "References",
        "Methods",
        "Warns",
    }
)
# What sends a docstring to docstring-parser before any line is read: tabs and other
# whitespace docstring-parser's title pattern treats apart, reST roles, NumPy rules.
_DECLINED_CHARACTERS = ("\t", "\r", "\f", "\v", "`", "---")
# ``name`` or ``name (type)`` before an item's colon; anything else (spaces before the
# colon, nested parentheses, an empty type) is left to docstring-parser.
# What the caller's care check takes for a section title (an unknown one after a known
# one is noted there).
_TITLE_LIKE = re.compile(r"[A-Z][\w ]*")
_ITEM_HEAD = re.compile(r"(\w+)(?: *\( *([^()\s](?:[^()]*[^()\s])?) *\))?")


def read_plain_google(doc: str, titles: frozenset[str]) -> Optional[Plain]:
    """Read a plain Google docstring, or ``None`` when it is not plainly one.

    Args:
        doc: the raw ``__doc__``.
        titles: every section title the Google reader knows (a column-0 line of one,
            then a colon, starts a section).

    Returns:
        The description, the parameters (name -> ``(type or None, text)``) and the
        first ``Returns`` entry as :func:`parse_with_library` builds them, or ``None``.
    """
    for marker in _DECLINED_CHARACTERS:
        if marker in doc:
            return None
    lines = cleandoc(doc).split("\n")
    if lines[0].rstrip().endswith(":"):
        return None  # read apart by the caller (a title first)
    first = _scan(lines, titles)
    if first is None:
        return None
    description = _description(lines[:first] if first >= 0 else lines, first >= 0)
    params: dict[str, tuple[Optional[str], str]] = {}
    returns = ""
    for title, body in _sections(lines, first):
        if title in _PARAM_SECTIONS or title in _RAISES_SECTIONS:
            items = _items(body)
            if items is None:
                return None
            if title in _PARAM_SECTIONS:
                for head, text in items:
                    entry = _param(head, text)
                    if entry is None:
                        return None
                    params[entry[0]] = entry[1]
        elif title == "Returns":
            found = _returns(body)
            if found is None:
                return None
            returns = found
        elif title not in _IGNORED_SECTIONS:
            return None
    return description, params, returns


def _scan(lines: list[str], titles: frozenset[str]) -> Optional[int]:
    """The index of the first section title (-1 if none), or ``None`` if a line needs care.

    Needing care: a line starting with a colon (reST fields), a line of spaces, other
    whitespace than spaces around a line (``\xa0``, ``\u3000``), a known
    title followed by text on its line (``Args: None``), a line ending in a colon after
    the first title that is no known title (the caller notes those), a column-0 line
    after the first title that is no title (docstring-parser drops it), a title twice.
    """
    first = -1
    seen_title = False
    found: set[str] = set()
    for index, line in enumerate(lines):
        stripped = line.strip(" ")
        if not stripped:
            if line:
                return None
            continue
        if stripped[0].isspace() or stripped[-1].isspace():
            return None  # other whitespace, which docstring-parser's patterns tell apart
        if stripped[0] == ":":
            return None
        head, colon, rest = stripped.partition(":")
        if colon and head in titles:
            if rest:
                return None
            seen_title = True
            if line[0] != " ":
                if head in found:
                    return None
                found.add(head)
                if first < 0:
                    first = index
        elif first >= 0 and line[0] != " ":
            return None
        elif seen_title and colon and not rest and _TITLE_LIKE.fullmatch(head):
            return None
    return first


def _description(lines: list[str], before_title: bool) -> str:
    """The short and long description joined as :func:`parse_with_library` joins them."""
    chunk = "\n".join(lines) + ("\n" if before_title and lines else "")
    short, newline, rest = chunk.partition("\n")
    short = short.strip()
    long = rest.strip() if newline else ""
    if short and long:
        return short + ("\n\n" if rest.startswith("\n") else "\n") + long
    return short or long


def _sections(lines: list[str], first: int) -> list[tuple[str, list[str]]]:
    """Each section's title and its lines, leading and trailing empty lines left out."""
    if first < 0:
        return []
    sections: list[tuple[str, list[str]]] = []
    for line in lines[first:]:
        if line and line[0] != " ":
            sections.append((line.rstrip()[:-1], []))
        else:
            sections[-1][1].append(line)
    for _, body in sections:
        while body and not body[-1]:
            body.pop()
        while body and not body[0]:
            del body[0]
    return sections


def _items(body: list[str]) -> Optional[list[tuple[str, str]]]:
    """A list section's items as ``(text before the colon, description)``, or ``None``."""
    if not body:
        return None  # docstring-parser refuses an empty list section
    indent = len(body[0]) - len(body[0].lstrip(" "))
    items: list[tuple[str, str, list[str]]] = []
    blank = False
    for line in body:
        if not line:
            blank = True
            continue
        depth = len(line) - len(line.lstrip(" "))
        if depth == indent:
            head, colon, text = line[indent:].partition(":")
            if not colon:
                return None
            items.append((head, text, []))
        elif depth < indent or blank:
            return None  # shallower than the items, or a paragraph inside one
        else:
            items[-1][2].append(line)
        blank = False
    return [(head, _item_text(text, more)) for head, text, more in items]


def _item_text(text: str, more: list[str]) -> str:
    """An item's description: its first line's text after the colon, then its continuation."""
    if more:
        text = text + "\n" + cleandoc("\n".join(more))
    return text.strip()


def _param(head: str, text: str) -> Optional[tuple[str, tuple[Optional[str], str]]]:
    """One parameter item as ``(name, (type or None, description))``, or ``None``."""
    match = _ITEM_HEAD.fullmatch(head)
    if match is None:
        return None
    name, type_name = match.group(1, 2)
    if type_name is not None:
        if type_name.endswith(", optional"):
            type_name = type_name[:-10]
        elif type_name.endswith("?"):
            type_name = type_name[:-1]
    return name, (type_name, text)


def _returns(body: list[str]) -> Optional[str]:
    """The ``Returns`` entry as text (``type: description`` or the description), or ``None``."""
    if not body:
        return ""  # nothing returned is described
    part = cleandoc("\n".join(body))
    colon = part.find(":")
    if colon <= 0:
        return part
    before = part[:colon]
    typed = before.split() == [before]  # one word straight before the colon
    if not typed and before[-1] == "]":
        if "\n" in before:
            return None
        typed = True
    if not typed:
        return part
    text = part[colon + 1 :]
    if text[:1] == " ":
        text = text[1:]
    if "\n" in text:
        head, rest = text.split("\n", 1)
        text = head + "\n" + cleandoc(rest)
    return f"{before}: {text.strip(chr(10))}"
