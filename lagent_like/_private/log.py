"""The package logger, created on first use.

``logging`` is imported lazily because only failures log, and importing
``lagent_like`` should stay cheap and inert. On first use the logger gets a
``NullHandler``, as the logging HOWTO asks of libraries: without it, Python's
last-resort handler would print every failing tool's traceback to stderr of programs
that never configured logging. Levels and other handlers are left to the application.
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

    log = logging.getLogger(LOGGER_NAME)
    if not any(isinstance(h, logging.NullHandler) for h in log.handlers):
        log.addHandler(logging.NullHandler())
    return log
