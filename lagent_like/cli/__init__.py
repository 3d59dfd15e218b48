"""The ``lagent-like`` command (:mod:`.commands`) and the schema doctor it runs (:mod:`.lint`)."""

from .commands import main

__all__ = ["main"]
