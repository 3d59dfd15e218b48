"""Lagent's import path ``lagent.actions.python_interpreter``.

The tool lives in :mod:`lagent_like.tools.python_interpreter`.
"""

from ..tools.python_interpreter import AsyncPythonInterpreter, PythonInterpreter

__all__ = ["AsyncPythonInterpreter", "PythonInterpreter"]
