"""Small text helpers shared by messages for models and programmers."""

from __future__ import annotations

import functools
from collections.abc import Collection, Iterable, Sequence
from typing import Union

from ._names_index import SCANNED_WHOLE, NameIndex, scan
from .lazy import lazy_pattern

#: The longest value text :func:`preview` shows.
MAX_SHOWN = 120
#: A fence's language tag (compiled on first use: only argument repair reads fences).
_TAG = lazy_pattern(r"[ \t]*([\w+-]*)")


def fenced_blocks(text: str) -> list[tuple[str, str]]:
    """``(language tag, body)`` of each Markdown code fence in ``text``, in order.

    An unclosed fence runs to the end of the text (models get cut off). Scanned with
    ``str.find`` rather than one regex, which would retry at every backtick of a long
    fence-less text and take quadratic time.
    """
    blocks = []
    position = 0
    while True:
        start = text.find("```", position)
        if start < 0:
            break
        line_end = text.find("\n", start + 3)
        if line_end < 0:
            break
        tag = _TAG().match(text, start + 3, line_end)
        end = text.find("```", line_end + 1)
        blocks.append((tag.group(1) if tag else "", text[line_end + 1 : end if end >= 0 else len(text)]))
        if end < 0:
            break
        position = end + 3
    return blocks


#: Words longer than this are not memoized: the cache holds 2,048 entries, and each
#: keeps its word alive (names over MCP can be megabytes long).
_MAX_CACHED_WORD = 256
#: Most names a message lists; a longer list is given by its count (see :func:`listing`).
MAX_LISTED = 30


def close_matches(word: str, candidates: Union[Iterable[str], NameIndex], limit: int = 3) -> list[str]:
    """Candidates that look like ``word``: same spelling ignoring case first, then similar.

    ``candidates`` may be a :class:`NameIndex` built once for a large pool (a
    catalogue of tools); a large pool given as names is indexed for this call.
    """
    if type(candidates) is tuple and len(candidates) <= SCANNED_WHOLE and len(word) <= _MAX_CACHED_WORD:
        return list(_close_matches(word, candidates, limit))  # the common case first: a few names
    if isinstance(candidates, NameIndex):
        return candidates.close(word, limit)
    pool = tuple(candidates)
    if len(pool) > SCANNED_WHOLE:
        return NameIndex(pool).close(word, limit)
    if len(word) > _MAX_CACHED_WORD:
        longest = max(map(len, pool), default=0)
        # difflib's ratio 2*M/(len(a)+len(b)) reaches its 0.6 cutoff only when the word
        # is at most about twice as long as a candidate: a longer one matches nothing
        # (the same-spelling match needs equal lengths), and difflib would take
        # quadratic time to say so.
        if len(word) > 3 * longest:
            return []
        return scan(word, pool, limit)
    return list(_close_matches(word, pool, limit))


@functools.lru_cache(maxsize=2048)
def _close_matches(word: str, pool: tuple[str, ...], limit: int) -> tuple[str, ...]:
    # Memoized: difflib costs several microseconds per candidate, and a model tends to
    # repeat the same wrong name; the answer depends on nothing else.
    return tuple(scan(word, pool, limit))


def suggestion(matches: Sequence[str]) -> str:
    """``" Did you mean 'x' or 'y'?"`` for ``matches``, ``""`` for none."""
    if not matches:
        return ""
    return " Did you mean " + " or ".join(repr(m) for m in matches) + "?"


def did_you_mean(word: str, candidates: Union[Iterable[str], NameIndex]) -> str:
    """``" Did you mean 'x'?"`` when something close exists, else ``""``."""
    return suggestion(close_matches(word, candidates))


def listing(names: Collection[str]) -> str:
    """``names`` comma-separated; more than :data:`MAX_LISTED` of them by their count.

    A message for a model never carries a whole catalogue: the close names are
    suggested, and the rest are where the model already has them.
    """
    if len(names) > MAX_LISTED:
        return (
            f"{len(names):,} in all, too many to list here (all are in the tool descriptions you were given)"
        )
    return ", ".join(names) or "none"


def preview(value: object) -> str:
    """A short repr of a value for an error message; never raises.

    Some values have no repr (an int too long to convert, an object whose ``__repr__``
    fails); they are shown by their type.
    """
    try:
        text = repr(value)
    except Exception:  # noqa: BLE001 - a message must be built whatever arrived
        return f"<{type(value).__name__} object>"
    return text if len(text) <= MAX_SHOWN else text[: MAX_SHOWN - 3] + "..."


def as_text(value: object) -> str:
    """``value`` itself when it is a string, else its :func:`preview`."""
    return value if isinstance(value, str) else preview(value)
