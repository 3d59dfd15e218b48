"""Lagent's import path ``lagent.actions.python_interpreter``.

The tool lives in :mod:`lagent_like.tools.interpreters.python_interpreter`.
"""

from ..tools.interpreters.python_interpreter import AsyncPythonInterpreter, PythonInterpreter

__all__ = ["AsyncPythonInterpreter", "PythonInterpreter"]
