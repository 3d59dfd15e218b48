"""Lagent's import path ``lagent.actions.ipython_manager``.

The tool lives in :mod:`lagent_like.tools.interpreters.ipython_manager`.
"""

from ..tools.interpreters.ipython_manager import IPythonInteractiveManager

__all__ = ["IPythonInteractiveManager"]
