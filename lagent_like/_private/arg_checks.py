"""Checks of constructor arguments, failing at once with a message that names the argument.

Why: a wrong setting (``timeout=True``, ``max_retries=-1``, a ``nan`` delay, a URL
without a scheme) passed to a client would otherwise fail much later and far from the
mistake, or never (``True`` is an ``int``). Each predicate here answers one question
about a value; :func:`check_arguments` turns the first failure into a ``ValueError``
worded the same way everywhere: ``Owner: name must be expected, got value``.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from typing import Callable, Optional
from urllib.parse import urlsplit

__all__ = [
    "check_arguments",
    "is_count",
    "is_duration",
    "is_http_url",
    "is_non_blank_str",
    "is_positive_count",
    "is_positive_duration",
]


def _number(value: object) -> Optional[float]:
    """``value`` if it is a finite number, else ``None``."""
    # bool is an int subclass, but True is never a sensible duration or count.
    if isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value):
        return value
    return None


def _count(value: object) -> Optional[int]:
    """``value`` if it is an int (not a bool), else ``None``."""
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def is_positive_duration(value: object) -> bool:
    """A finite number of seconds > 0."""
    number = _number(value)
    return number is not None and number > 0


def is_duration(value: object) -> bool:
    """A finite number of seconds >= 0."""
    number = _number(value)
    return number is not None and number >= 0


def is_count(value: object) -> bool:
    """An int >= 0 (not a bool)."""
    count = _count(value)
    return count is not None and count >= 0


def is_positive_count(value: object) -> bool:
    """An int >= 1 (not a bool)."""
    count = _count(value)
    return count is not None and count >= 1


def is_http_url(value: object) -> bool:
    """An ``http://`` or ``https://`` URL with a host."""
    if not isinstance(value, str):
        return False
    parts = urlsplit(value)
    return parts.scheme in ("http", "https") and bool(parts.netloc)


def is_non_blank_str(value: object) -> bool:
    """A string with something besides whitespace."""
    return isinstance(value, str) and bool(value.strip())


def check_arguments(owner: str, checks: Iterable[tuple[str, object, Callable[[object], bool], str]]) -> None:
    """Raise ``ValueError`` for the first value that fails its check.

    Args:
        owner: the class whose arguments are checked, for the message.
        checks: ``(name, value, predicate, what is expected)`` rows, checked in order.

    Raises:
        ValueError: naming the argument, what it must be and the value received.
    """
    for name, value, accepts, expected in checks:
        if not accepts(value):
            raise ValueError(f"{owner}: {name} must be {expected}, got {value!r}")
