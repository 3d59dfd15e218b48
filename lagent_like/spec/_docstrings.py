"""Read the parts of a docstring that tool descriptions need, tolerating real-world ones.

docstring-parser reads the sections (Google, NumPy, reST/Sphinx). This thin adapter
adds what it does not do: picking the style by cheap markers (its automatic mode runs
every parser), reducing reST roles (``:class:`str```) to their text, reading the
``name (type): description`` items that Lagent's ``returns_named_value`` and
``explode_return`` options put under ``Returns:``, and tolerance. Docstrings written
for people rather than for docstring-parser (``Args: None``, an entry without a colon,
an empty section, a section the parser cannot read) never stop a class from loading:
what can be read is read, and each doubtful spot becomes a note in
:attr:`DocInfo.warnings`, which the caller turns into a warning and a lint finding.
The commonest Google docstrings never reach docstring-parser: ``_google_fast`` reads
them to the same result in a fraction of the time.
"""

from __future__ import annotations

import inspect
import re
from dataclasses import dataclass, field
from functools import lru_cache
from operator import itemgetter
from typing import Any, Callable, Optional

from .._private.lazy import lazy_pattern
from .._private.records import FACTORY, field_eq, field_repr
from ..exceptions import LagentLikeError
from ._google_fast import read_plain_google

_ROLE = lazy_pattern(r":[\w.+-]+(?::[\w.+-]+)*:`~?([^`]+)`")
_TITLED = lazy_pattern(r"^(.*?)\s*<[^<>]+>$", re.DOTALL)
_ITEM = lazy_pattern(
    r"^[-*+]?\s*(?P<name>[\w.]+)\s*(?:\((?P<type>[^()]*(?:\([^()]*\)[^()]*)*)\))?\s*:\s*(?P<desc>.*)$"
)
_BULLET = lazy_pattern(r"^[-*+]\s+")

# Style detection by cheap markers; docstring-parser's automatic mode runs every
# style's parser and keeps the best, which costs several times one parse.
# Speed (the define benchmark): the line patterns run on "\n" + docstring and start
# with that newline instead of ``^`` under ``re.M``: a literal first character lets
# ``re`` jump from newline to newline instead of trying every position (3x faster).
_REST_MARKER = lazy_pattern(
    r"\n\s*:(?:param|parameter|arg|argument|key|keyword|type|returns?|rtype|raises?)\b"
)
_NUMPY_MARKER = lazy_pattern(r"^\s*-{3,}\s*$", re.M)
_PARSERS: dict[str, Callable[[str], Any]] = {}
#: docstring-parser's ``ParseError``, ``DocstringStyle.NUMPYDOC`` and the classes of the
#: parameter and return entries, bound with the parsers.
_LIBRARY: dict[str, Any] = {}

# Google section titles docstring-parser reads (its defaults, plus Napoleon's other
# names for parameters), and those whose entries are parameters.
_PARAM_TITLES = ("Args", "Arguments", "Parameters", "Params", "Keyword Args", "Keyword Arguments")
_OTHER_TITLES = ("Raises", "Exceptions", "Except", "Attributes", "Example", "Examples", "Returns", "Yields")
# Napoleon's titles that hold no parameter: left out of the description without a note.
_QUIET_TITLES = frozenset(
    {"Note", "Notes", "Warning", "Warnings", "See Also", "Todo", "References", "Methods", "Warns"}
)
_KNOWN_TITLES = frozenset(_PARAM_TITLES + _OTHER_TITLES) | _QUIET_TITLES
_TITLE_LINE = lazy_pattern(r"^([A-Z][\w ]*?):[ \t]*$")
# Any line's first word before a colon: run on the raw docstring, so at any indentation
# (on "\n" + docstring, as _REST_MARKER).
_COLUMN0_COLON = lazy_pattern(r"\n[ \t]*([A-Z][\w ]*?):(.*)")
# What decides how a docstring is read, found in one scan (speed, the define benchmark:
# a regex call costs about as much as a short scan, and _REST_MARKER's and
# _COLUMN0_COLON's scans of every line cost more). It starts with a literal colon,
# which ``re`` skips to, and finds each colon that starts a reST field name (group 1;
# _REST_MARKER then checks it starts its line), that ends its line (section titles
# do), or that is followed only by a word saying "nothing" (group 2, as in
# ``Args: None``). Fewer than two such colons and no such word: no title line needs care.
_MARKERS = lazy_pattern(
    r":(?:(param|parameter|arg|argument|key|keyword|type|returns?|rtype|raises?)\b"
    r"|[^\S\n]*(?:(None|none|N/?A|n/a|-+|Nothing)\.?[^\S\n]*)?(?![^\n]))"
)
_FIELD, _NOTHING_WORD = itemgetter(0), itemgetter(1)  # of a _MARKERS match
# ``Args: None`` and the like on one line: no parameters (or no return value).
_NOTHING_LINE = lazy_pattern(
    r"^(?:Args|Arguments|Parameters|Params|Returns|Yields|Raises):\s*(?:None|none|N/?A|n/a|-+|Nothing)\.?\s*$"
)
_NOTHING_ENTRY = frozenset({"none", "none.", "n/a", "na", "-", "--", "nothing", "no arguments", "no args"})


def _parser(style: str) -> Callable[[str], Any]:
    """docstring-parser's parser for ``style``, imported and built on first use."""
    if not _PARSERS:
        from docstring_parser import DocstringParam, DocstringReturns, DocstringStyle, ParseError
        from docstring_parser.google import DEFAULT_SECTIONS, GoogleParser, Section, SectionType
        from docstring_parser.numpydoc import NumpydocParser
        from docstring_parser.rest import parse as parse_rest

        keyword = [Section(title, "param", SectionType.MULTIPLE) for title in _PARAM_TITLES[4:]]
        quiet = [Section(title, "note", SectionType.SINGULAR) for title in sorted(_QUIET_TITLES)]
        google = GoogleParser(sections=[*DEFAULT_SECTIONS, *keyword, *quiet])
        # Speed (the define benchmark): docstring-parser's title pattern starts with ``^``
        # under re.M, so ``re`` tries it at every character. The same pattern with each
        # title anchored by a lookbehind ("not after a character other than a newline")
        # starts with the titles' first letters, which ``re`` skips to: a tenth of each
        # Google parse. The parser reads only group 1 (the title) and the match's span,
        # which are unchanged (tests/test_docstring_styles.py compares them).
        titles = "|".join(rf"{t}(?<![^\n]{t})" for t in google.sections)
        google.titles_re = re.compile(rf"({titles}):[ \t\r\f\v]*$", flags=re.M)
        _LIBRARY.update(
            ParseError=ParseError,
            NUMPYDOC=DocstringStyle.NUMPYDOC,
            DocstringParam=DocstringParam,
            DocstringReturns=DocstringReturns,
        )
        _PARSERS.update(google=google.parse, numpy=NumpydocParser().parse, rest=parse_rest)
    return _PARSERS[style]


@dataclass(init=False, repr=False, eq=False)
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

    # Written here rather than by @dataclass, which compiles them at import
    # (lagent_like._private.records says why).
    def __init__(
        self,
        name: str,
        type: Optional[str],
        description: str,
    ) -> None:
        self.name = name
        self.type = type
        self.description = description

    __repr__ = field_repr
    __eq__ = field_eq


@dataclass(init=False, repr=False, eq=False)
class DocInfo:
    """The parts of one docstring that a tool description uses.

    Attributes:
        description: short and long description joined by a blank line.
        params: parameter name -> ``(type text or None, description)`` in docstring order.
        returns_text: the first ``Returns`` entry as parsed (type, colon, description).
        google_text: the Google docstring as read (its ``Returns`` section, whose
            relative indentation tells items from their continuation lines, is found
            only when an option asks for it); empty for other styles.
        named_returns: named return values when the style names them itself (NumPy).
        warnings: what was doubtful and how it was read, one sentence each.
    """

    description: str = ""
    params: dict[str, tuple[Optional[str], str]] = field(default_factory=dict)
    returns_text: str = ""
    google_text: str = ""
    named_returns: list[ReturnItem] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)

    # Written here rather than by @dataclass, which compiles them at import
    # (lagent_like._private.records says why).
    def __init__(
        self,
        description: str = "",
        params: dict[str, tuple[Optional[str], str]] = FACTORY,
        returns_text: str = "",
        google_text: str = "",
        named_returns: list[ReturnItem] = FACTORY,
        warnings: list[str] = FACTORY,
    ) -> None:
        self.description = description
        self.params = {} if params is FACTORY else params
        self.returns_text = returns_text
        self.google_text = google_text
        self.named_returns = [] if named_returns is FACTORY else named_returns
        self.warnings = [] if warnings is FACTORY else warnings

    __repr__ = field_repr
    __eq__ = field_eq


def reduce_roles(text: str) -> str:
    """Replace reST roles by their text: ``:class:`~a.B``` -> ``B``, ``:obj:`int``` -> ``int``."""

    def _text(match: re.Match[str]) -> str:
        target = match.group(1)
        titled = _TITLED().match(target)
        if titled:
            return titled.group(1)
        return target.rsplit(".", 1)[-1] if match.group(0).count("~") else target

    return _ROLE().sub(_text, text) if "`" in text else text


def _style(lines: str, markers: list[tuple[str, str]]) -> str:
    r"""The docstring's style, from ``"\n" + docstring`` and its :data:`_MARKERS`."""
    if any(map(_FIELD, markers)) and _REST_MARKER().search(lines):
        return "rest"
    if "---" in lines and _NUMPY_MARKER().search(lines):
        return "numpy"
    return "google"


class DocstringSyntaxError(LagentLikeError, ValueError):
    """docstring-parser cannot read a docstring's sections; caught here and re-read leniently."""


#: How many distinct docstrings :func:`parse_docstring` remembers.
PARSED_CACHE_SIZE = 4096


# Speed (the define benchmark): a catalogue repeats its docstrings (generated tools,
# overrides, one function reused by several classes), and reading one costs more than
# the rest of describing its function. The result depends on the text alone.
@lru_cache(maxsize=PARSED_CACHE_SIZE)
def parse_docstring(doc: Optional[str]) -> DocInfo:
    """Parse a raw ``__doc__`` (any style) into a :class:`DocInfo`; never raises.

    What cannot be read as written is read as well as possible and noted in
    :attr:`DocInfo.warnings`. Each text is read once: the result is shared by every
    docstring of that text, so callers copy what they change.
    """
    if not doc or doc.isspace():
        return DocInfo()
    if "\n" not in doc and ":" not in doc and "`" not in doc and "---" not in doc:
        # One line with no section title (they end with a colon), role or style
        # marker: all description.
        return DocInfo(doc.expandtabs().strip())  # as inspect.cleandoc expands tabs
    plain = read_plain_google(doc, _KNOWN_TITLES)
    if plain is not None:  # the common Google shape, read as docstring-parser reads it
        return DocInfo(plain[0], plain[1], plain[2], doc, [], [])
    if "`" in doc:
        doc = reduce_roles(doc)
    lines = "\n" + doc  # what the line patterns search (see _REST_MARKER)
    markers = _MARKERS().findall(lines)
    style = _style(lines, markers)
    notes: list[str] = []
    if style == "google" and _needs_care(lines, markers):
        text = _tolerant_google(inspect.cleandoc(doc), notes)
    elif doc.lstrip().split("\n", 1)[0].rstrip().endswith(":"):
        # A first line that is a section title (``Args:``): docstring-parser's own
        # cleandoc would dedent the entries below it, and the leading newline stops it.
        text = "\n" + inspect.cleandoc(doc)
    else:
        text = doc  # docstring-parser cleans it
    try:
        info = parse_with_library(text, style)
    except DocstringSyntaxError as exc:
        error = str(exc)
        text = inspect.cleandoc(text)
        if style == "google" and not notes:
            # An entry docstring-parser refuses (``Args: None``): without it, once more.
            text = _tolerant_google(text, notes)
            try:
                return _finish(parse_with_library("\n" + text, style), text, notes)
            except DocstringSyntaxError as again:
                error = str(again)
        notes.append(f"{error}; only the description before the sections is used")
        info = DocInfo(_head(text))
    return _finish(info, text if style == "google" else "", notes)


def _finish(info: DocInfo, google_text: str, notes: list[str]) -> DocInfo:
    info.google_text = google_text
    info.warnings = notes
    return info


def _needs_care(lines: str, markers: list[tuple[str, str]]) -> bool:
    r"""Whether a Google docstring has a title line to look at before parsing it.

    The docstring comes as ``"\n" + docstring``, with its :data:`_MARKERS`.

    Those are an unknown title after a known one (docstring-parser drops its text) and
    ``Args: None`` on one line. Entries docstring-parser refuses are found when it does.
    """
    if len(markers) < 2 and not any(map(_NOTHING_WORD, markers)):
        return False
    seen = False
    for title, rest in _COLUMN0_COLON().findall(lines):
        if rest.strip():
            if title in _KNOWN_TITLES and _NOTHING_LINE().match(f"{title}: {rest}"):
                return True
        elif title in _KNOWN_TITLES:
            seen = True
        elif seen:
            return True
    return False


def _head(text: str) -> str:
    """The text before the first Google section title."""
    lines = text.split("\n")
    for index, line in enumerate(lines):
        match = _TITLE_LINE().match(line)
        if match and match.group(1) in _KNOWN_TITLES:
            return "\n".join(lines[:index]).strip()
    return text.strip()


def _tolerant_google(text: str, notes: list[str]) -> str:
    """``text`` with what stops docstring-parser's Google reader taken out, noted in ``notes``.

    Taken out: ``Args: None`` lines, empty sections, parameter entries without a colon
    (``None`` silently, others with a note). Noted only: unknown section titles after
    the first known one, whose text docstring-parser leaves out of the description.
    """
    lines = [line for line in text.split("\n") if not _NOTHING_LINE().match(line)]
    kept: list[str] = []
    seen_title = False
    index = 0
    while index < len(lines):
        line = lines[index]
        match = _TITLE_LINE().match(line)
        title = match.group(1) if match else None
        if title is None or title not in _KNOWN_TITLES:
            if title is not None and seen_title:
                notes.append(f"unknown section {title + ':'!r} is left out of the description")
            kept.append(line)
            index += 1
            continue
        seen_title = True
        end = index + 1
        while end < len(lines) and (not lines[end] or lines[end][0].isspace()):
            end += 1
        body = _entries(title, lines[index + 1 : end], notes)
        if body:
            kept += [line, *body]
        index = end
    return "\n".join(kept)


def _entries(title: str, body: list[str], notes: list[str]) -> list[str]:
    """A section's lines, without parameter entries that have no colon; ``[]`` if none is left."""
    content = [line for line in body if line.strip()]
    if not content:
        return []
    if title not in _PARAM_TITLES:
        return body
    indent = len(content[0]) - len(content[0].lstrip())
    kept: list[str] = []
    dropping = False
    for line in body:
        stripped = line.strip()
        if stripped and len(line) - len(line.lstrip()) <= indent:
            dropping = ":" not in stripped
            if dropping and stripped.lower() not in _NOTHING_ENTRY:
                notes.append(
                    f"the {title}: entry {stripped!r} has no colon (name: description) and is ignored"
                )
        if not dropping:
            kept.append(line)
    return kept if any(line.strip() for line in kept) else []


def parse_with_library(text: str, style: str) -> DocInfo:
    """Parse a cleaned docstring with docstring-parser's parser for ``style``.

    Raises:
        DocstringSyntaxError: docstring-parser cannot read it.
    """
    parse = _parser(style)
    try:
        parsed = parse(text)
    except _LIBRARY["ParseError"] as exc:
        raise DocstringSyntaxError(f"cannot read the {style} docstring's sections ({exc})") from None
    short, long = (parsed.short_description or "").strip(), (parsed.long_description or "").strip()
    if short and long:
        short += ("\n\n" if parsed.blank_after_short_description else "\n") + long
    info = DocInfo(short or long, {}, "", "", [], [])  # every field: no default factories to call
    returns = []
    param_class, returns_class = _LIBRARY["DocstringParam"], _LIBRARY["DocstringReturns"]
    for meta in parsed.meta:  # what Docstring.params and .many_returns select, in one pass
        if isinstance(meta, param_class):
            info.params[meta.arg_name] = (meta.type_name, (meta.description or "").strip())
        elif isinstance(meta, returns_class):
            returns.append(meta)
    if returns:
        first = returns[0]
        head = f"{first.type_name}: " if first.type_name else ""
        info.returns_text = head + (first.description or "")
        if parsed.style is _LIBRARY["NUMPYDOC"]:
            info.named_returns = [
                ReturnItem(r.return_name, r.type_name, (r.description or "").strip())
                for r in returns
                if r.return_name
            ]
    return info


def _returns_raw(info: DocInfo) -> str:
    return returns_section(inspect.cleandoc(info.google_text)) if info.google_text else ""


def returns_section(text: str) -> str:
    """The first Google ``Returns``/``Yields`` section, dedented, keeping relative indentation.

    Relative indentation tells items from their continuation lines; ``inspect.cleandoc``
    would dedent the first line apart from the others and lose it.
    """
    lines = text.split("\n")
    for index, line in enumerate(lines):
        match = _TITLE_LINE().match(line)
        if match and match.group(1) in ("Returns", "Yields"):
            end = index + 1
            while end < len(lines) and (not lines[end] or lines[end][0].isspace()):
                end += 1
            body = lines[index + 1 : end]
            margin = min((len(b) - len(b.lstrip()) for b in body if b.strip()), default=0)
            return "\n".join(b[margin:] for b in body).strip()
    return ""


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
        match = _ITEM().match(line) if _indent(raw) <= base else None
        if match:
            items.append(
                ReturnItem(match["name"], (match["type"] or "").strip() or None, match["desc"].strip())
            )
        elif items:
            tail = _BULLET().sub("", line)
            items[-1].description = f"{items[-1].description} {tail}".strip()
    return items


def named_return_items(info: DocInfo) -> list[ReturnItem]:
    """The ``Returns:`` entries read as named values (``returns_named_value=True``)."""
    if info.named_returns:
        return info.named_returns
    return parse_items((_returns_raw(info) or info.returns_text).splitlines())


def exploded_return_items(info: DocInfo) -> list[ReturnItem]:
    """The members listed under the ``Returns:`` entry (``explode_return=True``).

    The first line describes the returned value as a whole and the lines below it list
    its members, unless the section starts with the member list itself.
    """
    lines = [line for line in (_returns_raw(info) or info.returns_text).splitlines() if line.strip()]
    if lines and not _BULLET().match(lines[0].strip()):
        lines = lines[1:]
    return parse_items(lines)
