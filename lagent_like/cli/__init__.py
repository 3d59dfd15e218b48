"""The ``lagent-like`` command (:mod:`.commands`) and the schema doctor it runs (:mod:`.lint`).

The command is split by concern: :mod:`.parser` declares the command line,
:mod:`.common` holds what every command shares (the error line, JSON output, the
tool selection), :mod:`.chat` runs the agent against a model server and :mod:`.serve`
starts the MCP server or the inspector page. The doctor's checks of one API are in
:mod:`.lint_checks`.
"""

from .commands import main

__all__ = ["main"]
