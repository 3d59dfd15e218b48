"""Lagent's import path ``lagent.actions.ipython_interactive``.

The tool lives in :mod:`lagent_like.tools.ipython_interactive`.
"""

from ..tools.ipython_interactive import AsyncIPythonInteractive, IPythonInteractive

__all__ = ["AsyncIPythonInteractive", "IPythonInteractive"]
