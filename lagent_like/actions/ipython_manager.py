"""Lagent's import path ``lagent.actions.ipython_manager``.

The tool lives in :mod:`lagent_like.tools.ipython_manager`.
"""

from ..tools.ipython_manager import IPythonInteractiveManager

__all__ = ["IPythonInteractiveManager"]
