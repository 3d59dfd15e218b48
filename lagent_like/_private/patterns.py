r"""JSON Schema ``pattern`` and ``patternProperties``, matched in linear time (google-re2).

A pattern comes from a schema the operator may not have written (an MCP server's, a
function definition's) and is matched against text a model wrote. Python's ``re``
backtracks: ``^(a+)+$`` against thirty ``a`` and a ``!`` runs for minutes while holding
the GIL, and no thread can interrupt it. RE2 matches in time linear in the text, so a
pattern can never hang a call; the price is that it refuses what needs backtracking
(backreferences, lookahead, lookbehind), and such a pattern is refused when the tool is
defined, never run with ``re`` instead. Without google-re2 (the ``patterns`` extra)
no pattern can be checked in bounded time, so every pattern is refused the same way,
naming the extra.

RE2 is also closer to the ECMA-262 dialect JSON Schema names: ``\d`` and ``\w`` are
ASCII, and ``$`` matches only at the very end (Python's ``re`` also accepts a trailing
newline there).
"""

from __future__ import annotations

import functools
import re
from typing import Any, Callable, NamedTuple, Optional, Union

from .install import install_hint

__all__ = ["PatternProblem", "PatternSearch", "compile_pattern"]

#: A compiled pattern's ``search``: a truthy match where the pattern occurs in the text.
PatternSearch = Callable[[str], Any]

#: How to keep a tool whose pattern cannot be honoured: leave its arguments unchecked.
_UNCHECKED = "or give the tool validation='off' to leave its arguments unchecked"

#: What replaces a pattern that cannot be honoured: why, for the tool's definition error.
_MISSING = (
    "cannot be checked in bounded time without google-re2: install it with "
    f"{install_hint('patterns')} (Python's re can backtrack for hours on one value), "
    f"{_UNCHECKED}"
)


class PatternProblem(NamedTuple):
    """Why a pattern cannot be honoured.

    Attributes:
        reason: a sentence starting with a verb, for "'pattern' '<text>' <reason>".
        syntax: no engine can read the pattern (else the engine cannot run it).
    """

    reason: str
    syntax: bool


@functools.lru_cache(maxsize=512)
def compile_pattern(text: str) -> Union[PatternSearch, PatternProblem]:
    """``text`` as a search function running in linear time, or why it cannot be one.

    Args:
        text: a JSON Schema pattern (searched, not anchored: JSON Schema's rule).

    Returns:
        A function telling whether the pattern occurs in a string, or why the pattern
        cannot be honoured: it does not compile, it needs backtracking, or google-re2
        is missing.
    """
    try:
        import re2
    except ImportError:
        return _syntax_error(text) or PatternProblem(_MISSING, syntax=False)
    options = re2.Options()
    options.log_errors = False  # RE2 would print every refusal to stderr
    options.never_capture = True  # only whether it matches is asked: faster, same answer
    try:
        # Bytes in and out: the str API maps every match back to character offsets,
        # three times slower, and cannot encode a lone surrogate (valid in JSON).
        found = re2.compile(_utf8(text), options).search
    except re2.error as exc:
        return _syntax_error(text) or PatternProblem(
            f"cannot be run in linear time (google-re2): {_reason(exc)}", syntax=False
        )

    def search(value: str) -> bool:
        return found(_utf8(value)) is not None

    return search


def _utf8(text: str) -> bytes:
    r"""``text`` in UTF-8, a lone surrogate (``"\ud800"`` in JSON) kept as its three bytes."""
    return text.encode("utf-8", "surrogatepass")


def _syntax_error(text: str) -> Optional[PatternProblem]:
    """Why Python's ``re`` cannot read ``text`` either (compiling never backtracks), if it cannot."""
    try:
        re.compile(text)
    except re.error as exc:
        return PatternProblem(f"does not compile: {exc}", syntax=True)
    return None


def _reason(exc: Exception) -> str:
    """RE2's reason, as text, with a hint for the features it leaves out on purpose."""
    raw = exc.args[0] if exc.args else exc
    reason = raw.decode("utf-8", "replace") if isinstance(raw, bytes) else str(raw)
    if "perl operator" in reason or ("escape sequence: \\" in reason and reason[-1:].isdigit()):
        reason += " (lookaround and backreferences need backtracking, which could hang a call)"
    return f"{reason}; rewrite it in RE2's syntax, {_UNCHECKED}"
