"""A fast reader for the Google docstring sections that tool descriptions use.

Google style is what Lagent (and most tool authors) write, and describing a toolkit
should cost little when a class is defined. docstring-parser's Google parser is
general (every section, every meta object) and costs about as much as all the rest
of describing an API together. This reader follows the same algorithm for the parts
a description needs (the description, the ``Args`` family, the ``Returns`` entry)
and returns ``None`` for anything it does not handle the same way, so the caller
falls back to docstring-parser. ``tests/test_google_docstring.py`` checks the two
agree.
"""

from __future__ import annotations

import inspect
import re
import sys
from typing import Optional

# docstring-parser's default Google sections, so both split a docstring alike.
_TITLES = (
    "Arguments",
    "Args",
    "Parameters",
    "Params",
    "Raises",
    "Exceptions",
    "Except",
    "Attributes",
    "Example",
    "Examples",
    "Returns",
    "Yields",
)
_PARAM_TITLES = frozenset({"Arguments", "Args", "Parameters", "Params"})
# docstring-parser reads Yields as a return entry too; the first of them counts.
_RETURN_TITLES = frozenset({"Returns", "Yields"})
# docstring-parser finds titles with the regex ``^(Args|...):[ \t\r\f\v]*$`` (multiline);
# a line is such a title exactly when it starts in column 0 and, once these trailing
# characters are stripped, is one of these keys. Lines are compared, not searched,
# because a regex scan of the whole text costs more than the rest of the reading.
_TITLE_LINES = {title + ":": title for title in _TITLES}
_TITLE_TRAILING = " \t\r\f\v"
_TYPED_ARG = re.compile(r"\s*(.+?)\s*\(\s*(.*[^\s]+)\s*\)")
_MULTIPLE = re.compile(r"(\s*[^:\s]+:)|([^:]*\]:.*)")


def clean_lines(doc: str) -> list[str]:
    """``inspect.cleandoc(doc).split("\\n")``, without joining the lines only to split them again."""
    lines = doc.expandtabs().split("\n")
    margin = sys.maxsize
    for line in lines[1:]:
        content = len(line.lstrip())
        if content:
            margin = min(margin, len(line) - content)
    lines[0] = lines[0].lstrip()
    return _dedented(lines, margin)


def plain_lines(doc: str) -> Optional[list[str]]:
    """:func:`clean_lines` of a docstring of the common shape, else ``None``.

    The common shape is indented with spaces only and has no tab, carriage return or
    backtick, and no line starting with ``:`` or ``-``: so no reST role or field, no
    NumPy rule and no bullet list, and Google style is the only reading. Screening
    for that costs nothing extra here, while the general path pays a regex scan per
    style marker.
    """
    if "\t" in doc or "\r" in doc or "`" in doc:
        return None
    lines = doc.split("\n")
    head = lines[0].lstrip()
    if head[:1] in _ODD_STARTS:
        return None
    margin = sys.maxsize
    for line in lines[1:]:
        content = line.lstrip(" ")
        if content:
            if content[0] in _ODD_STARTS or content[0].isspace():
                return None
            margin = min(margin, len(line) - len(content))
    lines[0] = head
    return _dedented(lines, margin)


#: First characters that keep a docstring off the :func:`plain_lines` path.
_ODD_STARTS = frozenset(":-")


def _dedented(lines: list[str], margin: int) -> list[str]:
    """The rest of ``inspect.cleandoc`` once the first line is stripped and the margin known."""
    if margin < sys.maxsize:
        lines[1:] = [line[margin:] for line in lines[1:]]
    while lines and not lines[-1]:
        lines.pop()
    while lines and not lines[0]:
        lines.pop(0)
    return lines


class GoogleDoc:
    """What :func:`read_google` extracts.

    Attributes:
        short: the first line of the description.
        long: the rest of the description, stripped.
        blank_after_short: a blank line separates ``short`` and ``long``.
        params: name -> ``(type or None, stripped description)`` per ``Args`` entry, in
            order (a repeated name keeps its first place and its last entry).
        returns: ``(type or None, description)`` of the first ``Returns``/``Yields`` entry.
        returns_raw: that section's text, dedented, keeping relative indentation.
    """

    __slots__ = ("blank_after_short", "long", "params", "returns", "returns_raw", "short")

    def __init__(self, short: str, long: str, blank_after_short: bool) -> None:
        self.short = short
        self.long = long
        self.blank_after_short = blank_after_short
        self.params: dict[str, tuple[Optional[str], str]] = {}
        self.returns: Optional[tuple[Optional[str], str]] = None
        self.returns_raw = ""


def _entry(text: str) -> Optional[tuple[str, str]]:
    """Split ``before: description`` the way docstring-parser does; ``None`` if no colon."""
    if ":" not in text:
        return None
    before, desc = text.split(":", 1)
    if before and "\n" in before:
        first, rest = before.split("\n", 1)
        before = first + inspect.cleandoc(rest)
    if desc:
        desc = desc[1:] if desc[0] == " " else desc
        if "\n" in desc:
            first, rest = desc.split("\n", 1)
            desc = first + "\n" + inspect.cleandoc(rest)
        desc = desc.strip("\n")
    return before, desc


def _param(text: str) -> Optional[tuple[str, Optional[str], str]]:
    if "\n" in text:
        entry = _entry(text)
        if entry is None:
            return None
        before, desc = entry
    else:
        # The common one-line entry: what _entry does, minus its multi-line handling.
        before, colon, desc = text.partition(":")
        if not colon:
            return None
        if desc[:1] == " ":
            desc = desc[1:]
    if "(" not in before:
        return before, None, desc
    match = _TYPED_ARG.match(before)
    if not match:
        return before, None, desc
    name, type_name = match.group(1, 2)
    if type_name.endswith(", optional"):
        type_name = type_name[:-10]
    elif type_name.endswith("?"):
        type_name = type_name[:-1]
    return name, type_name, desc


def _returns(chunk: str) -> Optional[tuple[Optional[str], str]]:
    text = inspect.cleandoc(chunk)
    if not _MULTIPLE.match(text):
        return None, text
    entry = _entry(text)
    return None if entry is None else entry


def _split(lines: list[str]) -> tuple[int, list[tuple[str, list[str]]]]:
    """Cut cleaned lines the way docstring-parser cuts the text they join into.

    Returns the index of the first section title (``len(lines)`` when there is none)
    and ``(title, lines)`` per section. A section runs to the next title, or to the
    first line that starts in column 0 (docstring-parser drops the rest as an unknown
    meta block); its lines keep their indentation, without the empty lines around them.
    """
    first = len(lines)
    sections: list[tuple[str, list[str]]] = []
    title: Optional[str] = None
    start = 0
    end: Optional[int] = None
    for index, line in enumerate(lines):
        if not line or line[0].isspace():
            continue
        found = _TITLE_LINES.get(line.rstrip(_TITLE_TRAILING))
        if found is None:
            if title is not None and end is None:
                end = index  # column-0 text ends the section
            continue
        if title is None:
            first = index
        else:
            sections.append((title, _trimmed(lines, start, index if end is None else end)))
        title, start, end = found, index + 1, None
    if title is not None:
        sections.append((title, _trimmed(lines, start, len(lines) if end is None else end)))
    return first, sections


def _trimmed(lines: list[str], start: int, end: int) -> list[str]:
    """``lines[start:end]`` without leading and trailing empty lines."""
    while start < end and not lines[start]:
        start += 1
    while end > start and not lines[end - 1]:
        end -= 1
    return lines[start:end]


def returns_section(text: str) -> str:
    """The first ``Returns``/``Yields`` section, dedented but keeping relative indentation."""
    for title, chunk in _split(text.split("\n"))[1]:
        if title in _RETURN_TITLES:
            return _dedent("\n".join(chunk))
    return ""


def _dedent(chunk: str) -> str:
    # Not inspect.cleandoc: it dedents the first line apart from the others, which
    # would lose the indentation that separates items from continuation lines.
    lines = chunk.splitlines()
    margin = min((len(line) - len(line.lstrip()) for line in lines if line.strip()), default=0)
    return "\n".join(line[margin:] for line in lines).strip()


def read_google(text: str) -> Optional[GoogleDoc]:
    """Read a cleaned docstring as Google style; ``None`` to defer to docstring-parser."""
    return read_google_lines(text.split("\n"))


def read_google_lines(lines: list[str]) -> Optional[GoogleDoc]:
    """:func:`read_google` of the lines of a cleaned docstring (see :func:`clean_lines`)."""
    first, sections = _split(lines)
    if first == 0:
        doc = GoogleDoc("", "", False)
    else:
        rest = lines[1:first]
        # What splitting the text before the first title at its first newline gives.
        blank = (not rest or rest[0] == "") if first < len(lines) else (len(rest) > 1 and rest[0] == "")
        doc = GoogleDoc(lines[0].strip(), "\n".join(rest).strip(), blank)
    if len(sections) > 1 and len({title for title, _ in sections}) != len(sections):
        return None  # docstring-parser keeps only the last of repeated sections
    for title, chunk in sections:
        if title in _RETURN_TITLES:
            if doc.returns is None:
                text = "\n".join(chunk)
                if not text.strip():
                    return None
                doc.returns = _returns(text)
                if doc.returns is None:
                    return None
                doc.returns_raw = _dedent(text)
        elif title in _PARAM_TITLES and not _read_args(chunk, doc.params):
            return None
    return doc


def _read_args(chunk: list[str], params: dict[str, tuple[Optional[str], str]]) -> bool:
    """Add the entries of an ``Args`` section to ``params``; ``False`` to defer to docstring-parser."""
    if not chunk:
        return False
    body = chunk[0].lstrip()
    if not body:
        return False  # a first line of blanks: docstring-parser's indent would span lines
    # An entry starts on each line indented exactly like the first one.
    width = len(chunk[0]) - len(body)
    indent = chunk[0][:width]
    entries: list[list[str]] = []
    for line in chunk:
        if line.startswith(indent) and line[width : width + 1].strip():
            entries.append([line[width:]])
        elif entries:
            entries[-1].append(line)
    for entry in entries:
        param = _param(entry[0] if len(entry) == 1 else "\n".join(entry).strip("\n"))
        if param is None:
            return False
        params[param[0]] = (param[1], param[2].strip())
    return True
