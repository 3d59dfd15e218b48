"""The package logger, created on first use.

``logging`` is imported lazily because only failures log, and importing
``lagent_like`` should stay cheap. The package never configures handlers or levels.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import logging

#: Name of the logger that tool failures and skipped plugins are reported to.
LOGGER_NAME = "lagent_like"


def logger() -> logging.Logger:
    """The ``lagent_like`` logger."""
    import logging

    return logging.getLogger(LOGGER_NAME)
