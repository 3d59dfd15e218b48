"""Lagent's import path ``lagent.actions.ipython_interpreter``.

The tool lives in :mod:`lagent_like.tools.interpreters.ipython_interpreter`.
"""

from ..tools.interpreters.ipython_interpreter import AsyncIPythonInterpreter, IPythonInterpreter

__all__ = ["AsyncIPythonInterpreter", "IPythonInterpreter"]
