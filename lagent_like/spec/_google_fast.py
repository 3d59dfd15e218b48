"""Read the common Google docstring without docstring-parser, the same as it would.

Why: defining a tool reads its docstring, and docstring-parser's Google reader was
most of that cost (bench_scale's define row, one docstring per tool). Most tool
docstrings have a plain shape: a summary, maybe more paragraphs, then ``Args:``
entries (``name (type): text`` or ``name: text``), ``Returns:`` and ``Raises:``.
:func:`read_plain_google` reads them in two tiers: one pattern for the commonest
shape (one-line entries, one indentation), then a reader line by line (continuation
lines, ``Example:`` and other ignored sections). Either gives exactly the fields
:func:`~lagent_like.spec._docstrings.parse_with_library` takes from docstring-parser's
result (tests/test_r3_docfast_equality.py compares both over every docstring of the
package and of the tests, hand-written odd cases and generated ones). Whatever it is
not sure of (other styles and sections, tabs and other whitespace, roles, odd
indentation, a blank line inside an entry, a line that reads as a title ...) it
declines with ``None``, and the caller reads the docstring with docstring-parser.
"""

from __future__ import annotations

import re
from inspect import cleandoc
from typing import Optional

from .._private.lazy import lazy_pattern

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
# whitespace than spaces and newlines (cleandoc expands tabs; docstring-parser's
# title pattern and indentation treat the rest apart), reST roles, NumPy rules.
# Speed: a few ``in`` scans cost a tenth of one regex search; the regex runs only on
# non-ASCII text, for the other kinds of whitespace.
_DECLINED_TEXT = ("\t", "`", "---", "\r", "\f", "\v")
_OTHER_SPACE = lazy_pattern(r"[^\S\n ]")
# What the caller's care check takes for a section title (an unknown one after a known
# one is noted there).
_TITLE_LIKE = lazy_pattern(r"[A-Z][\w ]*")
# A line that starts like a section title, known or not (as the caller's care check
# reads titles); which title it is is checked in Python.
_TITLE = r"[A-Z][\w ]*:"
# A character of a line's text: anything but a newline, a backtick (reST roles) and
# whitespace other than a space (every character ``str.isspace`` accepts), so that a
# match needs none of the checks of :data:`_DECLINED_TEXT`.
_CHAR = "[^\t\n\x0b\x0c\r\x1c-\x1f\x85\xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000`]"
# ``name`` or ``name (type)`` before an entry's colon (the type on its line, of line
# characters, without parentheses); anything else (spaces before the colon, nested
# parentheses, an empty type) is left to docstring-parser.
_TYPE = rf"[^()\s`](?:{_CHAR[:-1]}()]*[^()\s`])?"
_HEAD = rf"(\w+)(?: *\( *({_TYPE}) *\))?"
_ITEM_HEAD = lazy_pattern(_HEAD)
_BLANK = r"\n(?P=indent)?(?=\n)"
_ENTRY = rf"\n(?P=indent)(?P=depth)\w{_CHAR}*"
# The most common shape in one pattern (speed: one scan in C instead of a loop over
# lines): a summary line; description lines, all at the indentation of the first line
# below the summary; then sections, each a title at that indentation and one-line
# entries below it, all at one depth; blank lines empty or of that indentation. No
# summary or description line starts like a title (``Note: ...`` starts a section,
# ``Args: None`` is read with care by the caller) or with ``---`` (NumPy's rules).
_SHAPE = lazy_pattern(
    rf"[ ]*(?!{_TITLE}|---)(?P<summary>[^\s:`](?:{_CHAR}*[^\s:`])?)[ ]*"
    r"(?=\n(?:[ ]*\n)*(?P<indent>[ ]*)\S)"
    rf"(?P<long>(?:\n(?:(?P=indent)(?!{_TITLE}|---)[^\s:`]{_CHAR}*|(?P=indent)?(?=\n)))*?)"
    rf"(?P<sections>(?:\n(?P=indent){_TITLE}[ ]*(?:{_BLANK})*"
    rf"(?=\n(?P=indent)(?P<depth>[ ]+))(?:{_ENTRY})(?:{_BLANK}|{_ENTRY})*)+)"
    r"(?:\n(?P=indent)?)?"
)
# The lines of a :data:`_SHAPE` match's sections: the indentation (group 1) and the
# rest (group 2), read as ``name (type): text`` where it has that form (groups 3 to 5).
_ROWS = lazy_pattern(rf"\n( *)({_HEAD}:([^\n]*)|[^\n]*)")
_READ_SECTIONS = _PARAM_SECTIONS | _RAISES_SECTIONS | {"Returns"}


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
    shaped = _SHAPE().fullmatch(doc)
    found = None if shaped is None else _read_shaped(shaped, titles)
    if found is not None:
        return found  # else line by line: the entries may still be plain
    for text in _DECLINED_TEXT:
        if text in doc:
            return None
    if not doc.isascii() and _OTHER_SPACE().search(doc):
        return None
    lines = cleandoc(doc).split("\n")
    if lines[0].rstrip().endswith(":"):
        return None  # read apart by the caller (a title first)
    first = _scan(lines, titles)
    if first is None:
        return None
    description = _description(lines[:first] if first >= 0 else lines, first >= 0)
    read = _read_sections(_sections(lines, first))
    return None if read is None else (description, read[0], read[1])


def _read_shaped(match: re.Match[str], titles: frozenset[str]) -> Optional[Plain]:
    """What a :data:`_SHAPE` match says, or ``None`` when a title or an entry is not plain."""
    params: dict[str, tuple[Optional[str], str]] = {}
    returns: list[str] = []
    headings: list[str] = []
    title = ""
    margin = len(match["indent"])
    for indent, line, name, type_name, text in _ROWS().findall(match["sections"]):
        if line and len(indent) == margin:
            title = line.rstrip(" ")[:-1]
            headings.append(title)
            continue
        text = text.strip()
        if not (name and text) or name in titles:  # else the common entry, ``name (type): text``
            odd = _odd_entry(title, line, name, type_name, text, titles)
            if odd is None:
                return None
            if odd:
                returns += [line] if title == "Returns" else []  # a paragraph break in its text
                continue
        if title == "Returns":
            returns.append(line)
        elif title in _PARAM_SECTIONS:
            params[name] = (_type_text(type_name) if type_name.endswith(_CUT) else type_name or None), text
    if len(headings) != len(_READ_SECTIONS.intersection(headings)):
        return None  # a title twice (docstring-parser keeps the last one's entries), or one not read here
    found = _returns(returns) if returns else ""
    return None if found is None else (_shaped_description(match), params, found)


def _odd_entry(
    title: str, line: str, name: str, type_name: str, text: str, titles: frozenset[str]
) -> Optional[bool]:
    """An entry that is not ``name (type): text``: ``True`` a blank line, ``False`` plain, ``None`` not.

    Not plain: what the caller reads with care (a known title and text, ``Args: None``;
    a title-like line), what docstring-parser refuses (no colon), a parameter entry
    without a plain name.
    """
    if not line:
        return True
    if name:
        if name in titles:
            return None
        untyped_title = not type_name and not text and _TITLE_LIKE().fullmatch(name) is not None
        return None if untyped_title else False
    if title in _PARAM_SECTIONS:
        return None  # not ``name (type): text``
    head, colon, rest = line.partition(":")
    if not colon:
        return False if title == "Returns" else None  # docstring-parser refuses it elsewhere
    if head in titles:
        return None
    return None if not rest.strip() and _TITLE_LIKE().fullmatch(head) is not None else False


def _shaped_description(match: re.Match[str]) -> str:
    """The description of a :data:`_SHAPE` match: its summary, then its other lines dedented."""
    long = match["long"]
    if not long or long.isspace():
        return match["summary"]
    margin = len(match["indent"])
    return _description([match["summary"], *[line[margin:] for line in long.split("\n")[1:]]], True)


#: The endings docstring-parser cuts off a parameter's type (it reads them as "optional").
_CUT = (", optional", "?")


def _type_text(type_name: str) -> Optional[str]:
    """The type of a parameter entry as docstring-parser gives it (``, optional`` and ``?`` cut)."""
    if not type_name:
        return None
    if type_name.endswith(", optional"):
        return type_name[:-10]
    return type_name[:-1] if type_name.endswith("?") else type_name


def _read_sections(
    sections: list[tuple[str, list[str]]],
) -> Optional[tuple[dict[str, tuple[Optional[str], str]], str]]:
    """The parameters and the return text of ``(title, lines)`` sections, or ``None``."""
    params: dict[str, tuple[Optional[str], str]] = {}
    returns = ""
    for title, body in sections:
        if title in _PARAM_SECTIONS or title in _RAISES_SECTIONS:
            items = _items(body)
            if items is None:
                return None
            if title in _PARAM_SECTIONS and not _add_params(items, params):
                return None
        elif title == "Returns":
            found = _returns(body)
            if found is None:
                return None
            returns = found
        elif title not in _IGNORED_SECTIONS:
            return None
    return params, returns


def _add_params(items: list[tuple[str, str]], params: dict[str, tuple[Optional[str], str]]) -> bool:
    """Add parameter items to ``params``; ``False`` if one is not plain."""
    for head, text in items:
        entry = _param(head, text)
        if entry is None:
            return False
        params[entry[0]] = entry[1]
    return True


def _scan(lines: list[str], titles: frozenset[str]) -> Optional[int]:
    """The index of the first section title (-1 if none), or ``None`` if a line needs care.

    Needing care: a line starting with a colon (reST fields), a line of spaces, a known
    title followed by text on its line (``Args: None``), a title-like line after the
    first title that is no known title (the caller notes those), a column-0 line after
    the first title that is no title (docstring-parser drops it), a title twice.
    """
    first = -1
    seen_title = False
    found: set[str] = set()
    for index, line in enumerate(lines):
        kind = _line_kind(line, titles, seen_title)
        if kind is None:
            return None
        if kind == "title":
            seen_title = True
        elif kind == "section":
            seen_title = True
            title = line.rstrip(" ")[:-1]
            if title in found:
                return None
            found.add(title)
            if first < 0:
                first = index
        elif kind == "text" and first >= 0 and line[0] != " ":
            return None
    return first


def _line_kind(line: str, titles: frozenset[str], seen_title: bool) -> Optional[str]:
    """``'blank'``, ``'section'`` (a column-0 title), ``'title'``, ``'text'``, or ``None`` (needs care)."""
    stripped = line.strip(" ")
    if not stripped or stripped[0] == ":":
        return None if line else "blank"
    head, colon, rest = stripped.partition(":")
    if colon and head in titles:
        if rest:
            return None
        return "title" if line[0] == " " else "section"
    if seen_title and colon and not rest and _TITLE_LIKE().fullmatch(head):
        return None
    return "text"


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
    match = _ITEM_HEAD().fullmatch(head)
    if match is None:
        return None
    return match.group(1), (_type_text(match.group(2) or ""), text)


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
