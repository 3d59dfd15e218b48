"""Read the parts of a docstring that tool descriptions need.

docstring-parser detects the style (Google, NumPy, reST/Sphinx) and splits sections.
Two things it does not do are done here: reducing reST roles (``:class:`str```) to
their text, and reading the ``name (type): description`` items that Lagent's
``returns_named_value`` and ``explode_return`` options put under ``Returns:``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any, Callable, Optional

from .google_docstring import (
    GoogleDoc,
    clean_lines,
    plain_lines,
    read_google_lines,
    returns_section,
)

_ROLE = re.compile(r":[\w.+-]+(?::[\w.+-]+)*:`~?([^`]+)`")
_TITLED = re.compile(r"^(.*?)\s*<[^<>]+>$", re.DOTALL)
_ITEM = re.compile(
    r"^[-*+]?\s*(?P<name>[\w.]+)\s*(?:\((?P<type>[^()]*(?:\([^()]*\)[^()]*)*)\))?\s*:\s*(?P<desc>.*)$"
)
_BULLET = re.compile(r"^[-*+]\s+")

# Style detection by cheap markers; docstring-parser's automatic mode runs every
# style's parser and keeps the best, which costs several times one parse.
_REST_MARKER = re.compile(
    r"^\s*:(?:param|parameter|arg|argument|key|keyword|type|returns?|rtype|raises?)\b", re.M
)
_NUMPY_MARKER = re.compile(r"^\s*-{3,}\s*$", re.M)
_PARSERS: dict[str, Callable[[str], Any]] = {}


def _parser(style: str) -> Callable[[str], Any]:
    """docstring-parser's parser for ``style``, imported and built on first use.

    Google docstrings mostly take the fast path, so many programs never need it.
    """
    if not _PARSERS:
        from docstring_parser.google import GoogleParser
        from docstring_parser.numpydoc import NumpydocParser
        from docstring_parser.rest import parse as parse_rest

        _PARSERS.update(google=GoogleParser().parse, numpy=NumpydocParser().parse, rest=parse_rest)
    return _PARSERS[style]


@dataclass
class ReturnItem:
    """One named value under ``Returns:``.

    Attributes:
        name: the value's name.
        type: the docstring's type text, or ``None`` when it gives none.
        description: the text after the colon, continuation lines joined by spaces.
    """

    name: str
    type: Optional[str]
    description: str


@dataclass
class DocInfo:
    """The parts of one docstring that a tool description uses.

    Attributes:
        description: short and long description joined by a blank line.
        params: parameter name -> ``(type text or None, description)`` in docstring order.
        returns_text: the first ``Returns`` entry as parsed (type, colon, description).
        returns_raw: the Google ``Returns`` section with its relative indentation, which
            tells items from their continuation lines; empty for other styles.
        named_returns: named return values when the style names them itself (NumPy).
    """

    description: str = ""
    params: dict[str, tuple[Optional[str], str]] = field(default_factory=dict)
    returns_text: str = ""
    returns_raw: str = ""
    named_returns: list[ReturnItem] = field(default_factory=list)


def reduce_roles(text: str) -> str:
    """Replace reST roles by their text: ``:class:`~a.B``` -> ``B``, ``:obj:`int``` -> ``int``."""

    def _text(match: re.Match[str]) -> str:
        target = match.group(1)
        titled = _TITLED.match(target)
        if titled:
            return titled.group(1)
        return target.rsplit(".", 1)[-1] if match.group(0).count("~") else target

    return _ROLE.sub(_text, text) if "`" in text else text


def _style(text: str) -> str:
    if _REST_MARKER.search(text):
        return "rest"
    if "---" in text and _NUMPY_MARKER.search(text):
        return "numpy"
    return "google"


class DocstringSyntaxError(ValueError):
    """docstring-parser could not read a docstring; the message says why."""


def parse_docstring(doc: Optional[str]) -> DocInfo:
    """Parse a raw ``__doc__`` (any style) into a :class:`DocInfo`.

    Raises:
        DocstringSyntaxError: the docstring is malformed for its style.
    """
    if not doc or not doc.strip():
        return DocInfo()
    if "\n" not in doc and ":" not in doc and "`" not in doc and "---" not in doc:
        # One line with no section title (they end with a colon), role or style
        # marker: all description.
        return DocInfo(doc.expandtabs().strip())  # as inspect.cleandoc expands tabs
    lines = plain_lines(doc)
    if lines is not None:
        style = "google"  # the only reading of the shape plain_lines accepts
    else:
        lines = clean_lines(doc)
        if "`" in doc:
            lines = reduce_roles("\n".join(lines)).split("\n")
        style = _style("\n".join(lines))
        if style != "google":
            return parse_with_library("\n".join(lines), style)
    fast = read_google_lines(lines)
    if fast is not None:
        return _from_google(fast)
    text = "\n".join(lines)
    info = parse_with_library(text, style)
    info.returns_raw = returns_section(text)
    return info


def _from_google(doc: GoogleDoc) -> DocInfo:
    if doc.short and doc.long:
        description = doc.short + ("\n\n" if doc.blank_after_short else "\n") + doc.long
    else:
        description = doc.short or doc.long
    info = DocInfo(description, doc.params)
    if doc.returns is not None:
        type_name, description = doc.returns
        info.returns_text = (f"{type_name}: " if type_name else "") + description
        info.returns_raw = doc.returns_raw
    return info


def parse_with_library(text: str, style: str) -> DocInfo:
    """Parse a cleaned docstring with docstring-parser's parser for ``style``.

    Raises:
        DocstringSyntaxError: the docstring is malformed for its style.
    """
    from docstring_parser import DocstringStyle, ParseError

    try:
        parsed = _parser(style)(text)
    except ParseError as exc:
        raise DocstringSyntaxError(f"cannot parse the {style} docstring: {exc}") from None
    short, long = (parsed.short_description or "").strip(), (parsed.long_description or "").strip()
    separator = "\n\n" if parsed.blank_after_short_description else "\n"
    info = DocInfo(description=separator.join(p for p in (short, long) if p))
    for param in parsed.params:
        info.params[param.arg_name] = (param.type_name, (param.description or "").strip())
    returns = parsed.many_returns
    if returns:
        first = returns[0]
        head = f"{first.type_name}: " if first.type_name else ""
        info.returns_text = head + (first.description or "")
        if parsed.style is DocstringStyle.NUMPYDOC:
            info.named_returns = [
                ReturnItem(r.return_name, r.type_name, (r.description or "").strip())
                for r in returns
                if r.return_name
            ]
    return info


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip())


def parse_items(lines: list[str]) -> list[ReturnItem]:
    """Read ``name (type): description`` items.

    Items start at the indentation of the first line; deeper lines (and lines that
    are not items) continue the previous item.
    """
    lines = [line for line in lines if line.strip()]
    if not lines:
        return []
    base = _indent(lines[0])
    items: list[ReturnItem] = []
    for raw in lines:
        line = raw.strip()
        match = _ITEM.match(line) if _indent(raw) <= base else None
        if match:
            items.append(
                ReturnItem(match["name"], (match["type"] or "").strip() or None, match["desc"].strip())
            )
        elif items:
            tail = _BULLET.sub("", line)
            items[-1].description = f"{items[-1].description} {tail}".strip()
    return items


def named_return_items(info: DocInfo) -> list[ReturnItem]:
    """The ``Returns:`` entries read as named values (``returns_named_value=True``)."""
    if info.named_returns:
        return info.named_returns
    return parse_items((info.returns_raw or info.returns_text).splitlines())


def exploded_return_items(info: DocInfo) -> list[ReturnItem]:
    """The members listed under the ``Returns:`` entry (``explode_return=True``).

    The first line describes the returned value as a whole and the lines below it list
    its members, unless the section starts with the member list itself.
    """
    lines = [line for line in (info.returns_raw or info.returns_text).splitlines() if line.strip()]
    if lines and not _BULLET.match(lines[0].strip()):
        lines = lines[1:]
    return parse_items(lines)
