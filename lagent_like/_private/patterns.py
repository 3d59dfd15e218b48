"""JSON Schema ``pattern`` and ``patternProperties``, matched in linear time (google-re2).

A pattern comes from a schema the operator may not have written (an MCP server's, a
function definition's) and is matched against text a model wrote. Python's ``re``
backtracks: ``^(a+)+$`` against thirty ``a`` and a ``!`` runs for minutes while holding
the GIL, and no thread can interrupt it. RE2 matches in time linear in the text, so a
pattern can never hang a call; the price is that it refuses what needs backtracking
(backreferences, lookahead, lookbehind), and such a pattern is refused when the tool is
defined, never run with ``re`` instead. Without google-re2 (the ``patterns`` extra)
no pattern can be checked in bounded time, so every pattern is refused the same way,
naming the extra.

RE2 is also closer to the ECMA-262 dialect JSON Schema names: ``\\d`` and ``\\w`` are
ASCII, and ``$`` matches only at the very end (Python's ``re`` also accepts a trailing
newline there).
"""

from __future__ import annotations

import functools
import re
from typing import Any, Callable, Union

__all__ = ["PatternSearch", "compile_pattern"]

#: A compiled pattern's ``search``: a truthy match where the pattern occurs in the text.
PatternSearch = Callable[[str], Any]

#: What replaces a pattern that cannot be honoured: why, for the tool's definition error.
_MISSING = (
    "cannot be checked in bounded time without google-re2: install it with "
    "pip install 'lagent-like[patterns]' (Python's re can backtrack for hours on one value)"
)


@functools.lru_cache(maxsize=512)
def compile_pattern(text: str) -> Union[PatternSearch, str]:
    """``text`` as a search function running in linear time, or why it cannot be one.

    Args:
        text: a JSON Schema pattern (searched, not anchored: JSON Schema's rule).

    Returns:
        The compiled pattern's ``search``, or a sentence (starting with a verb, for
        "'pattern' '<text>' ...") saying why the pattern cannot be honoured: it does
        not compile, it needs backtracking, or google-re2 is missing.
    """
    try:
        re.compile(text)  # compiling never backtracks; a syntax error is named as such
    except re.error as exc:
        return f"does not compile: {exc}"
    try:
        import re2
    except ImportError:
        return _MISSING
    options = re2.Options()
    options.log_errors = False  # RE2 would print every refusal to stderr
    options.never_capture = True  # only whether it matches is asked: faster, same answer
    try:
        search: PatternSearch = re2.compile(text, options).search
    except re2.error as exc:
        return f"cannot be run in linear time (google-re2): {_reason(exc)}"
    return search


def _reason(exc: Exception) -> str:
    """RE2's reason, as text, with a hint for the features it leaves out on purpose."""
    raw = exc.args[0] if exc.args else exc
    reason = raw.decode("utf-8", "replace") if isinstance(raw, bytes) else str(raw)
    if "perl operator" in reason or ("escape sequence: \\" in reason and reason[-1:].isdigit()):
        reason += " (lookaround and backreferences need backtracking, which could hang a call)"
    return reason
