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
from typing import Callable
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


def _is_number(value: object) -> bool:
    # bool is an int subclass, but True is never a sensible duration or count.
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)


def is_positive_duration(value: object) -> bool:
    """A finite number of seconds > 0."""
    return _is_number(value) and value > 0  # type: ignore[operator]


def is_duration(value: object) -> bool:
    """A finite number of seconds >= 0."""
    return _is_number(value) and value >= 0  # type: ignore[operator]


def is_count(value: object) -> bool:
    """An int >= 0 (not a bool)."""
    return isinstance(value, int) and not isinstance(value, bool) and value >= 0


def is_positive_count(value: object) -> bool:
    """An int >= 1 (not a bool)."""
    return is_count(value) and value >= 1  # type: ignore[operator]


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
