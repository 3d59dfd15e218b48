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
_TITLE_RE = re.compile("^(" + "|".join(_TITLES) + "):[ \t\r\f\v]*$", re.M)
_UNKNOWN_META = re.compile(r"\n\S")
_TYPED_ARG = re.compile(r"\s*(.+?)\s*\(\s*(.*[^\s]+)\s*\)")
_MULTIPLE = re.compile(r"(\s*[^:\s]+:)|([^:]*\]:.*)")


class GoogleDoc:
    """What :func:`read_google` extracts.

    Attributes:
        short: the first line of the description.
        long: the rest of the description, stripped.
        blank_after_short: a blank line separates ``short`` and ``long``.
        params: ``(name, type or None, description)`` per ``Args`` entry.
        returns: ``(type or None, description)`` of the first ``Returns``/``Yields`` entry.
        returns_raw: that section's text, dedented, keeping relative indentation.
    """

    __slots__ = ("blank_after_short", "long", "params", "returns", "returns_raw", "short")

    def __init__(self) -> None:
        self.short = ""
        self.long = ""
        self.blank_after_short = False
        self.params: list[tuple[str, Optional[str], str]] = []
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
    entry = _entry(text)
    if entry is None:
        return None
    before, desc = entry
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


def _sections(text: str) -> list[tuple[str, str]]:
    """``(title, chunk)`` of each section, cut the way docstring-parser cuts them."""
    matches = list(_TITLE_RE.finditer(text))
    sections = []
    for index, match in enumerate(matches):
        end = matches[index + 1].start() if index + 1 < len(matches) else len(text)
        body = text[match.end() : end]
        unknown = _UNKNOWN_META.search(body)
        if unknown is not None:
            body = body[: unknown.start()]
        sections.append((match.group(1), body.strip("\n")))
    return sections


def returns_section(text: str) -> str:
    """The first ``Returns``/``Yields`` section, dedented but keeping relative indentation."""
    for title, chunk in _sections(text):
        if title in _RETURN_TITLES:
            return _dedent(chunk)
    return ""


def _dedent(chunk: str) -> str:
    # Not inspect.cleandoc: it dedents the first line apart from the others, which
    # would lose the indentation that separates items from continuation lines.
    lines = chunk.splitlines()
    margin = min((len(line) - len(line.lstrip()) for line in lines if line.strip()), default=0)
    return "\n".join(line[margin:] for line in lines).strip()


def read_google(text: str) -> Optional[GoogleDoc]:
    """Read a cleaned docstring as Google style; ``None`` to defer to docstring-parser."""
    doc = GoogleDoc()
    first = _TITLE_RE.search(text)
    desc_chunk = text[: first.start()] if first else text
    parts = desc_chunk.split("\n", 1)
    doc.short = parts[0].strip()
    if len(parts) > 1:
        doc.blank_after_short = parts[1].startswith("\n")
        doc.long = parts[1].strip()
    sections = _sections(text)
    titles = [title for title, _ in sections]
    if len(set(titles)) != len(titles):
        return None  # docstring-parser keeps only the last of repeated sections
    for title, chunk in sections:
        if title in _RETURN_TITLES:
            if doc.returns is None:
                if not chunk.strip():
                    return None
                doc.returns = _returns(chunk)
                if doc.returns is None:
                    return None
                doc.returns_raw = _dedent(chunk)
        elif title in _PARAM_TITLES:
            indent = chunk[: len(chunk) - len(chunk.lstrip())]
            if not chunk.strip() or "\n" in indent:
                return None
            # An entry starts on each line indented exactly like the first one.
            width = len(indent)
            entries: list[list[str]] = []
            for line in chunk.split("\n"):
                if line.startswith(indent) and line[width : width + 1].strip():
                    entries.append([line[width:]])
                elif entries:
                    entries[-1].append(line)
            for lines in entries:
                param = _param("\n".join(lines).strip("\n"))
                if param is None:
                    return None
                doc.params.append((param[0], param[1], param[2].strip("\n")))
    return doc
