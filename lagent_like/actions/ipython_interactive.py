"""Lagent's import path ``lagent.actions.ipython_interactive``.

The tool lives in :mod:`lagent_like.tools.interpreters.ipython_interactive`.
"""

from ..tools.interpreters.ipython_interactive import AsyncIPythonInteractive, IPythonInteractive

__all__ = ["AsyncIPythonInteractive", "IPythonInteractive"]
