"""The base of the records' status codes: an ``IntEnum`` that prints as its number.

Its own module, below :mod:`lagent_like.schema`, because two homes build on it: the
schema's ``ActionStatusCode`` and ``ActionValidCode``, and Lagent 0.5's stream codes
(:mod:`lagent_like._private._lagent05_messages`), which load only when first read.
"""

from __future__ import annotations

from enum import IntEnum

__all__ = ["Code"]


class Code(IntEnum):
    """A record's code: an ``IntEnum`` that prints as its number."""

    def __str__(self) -> str:
        """The number, as ``IntEnum`` prints it from Python 3.11 on, on every version."""
        return str(self.value)
