"""What every ``lagent-like`` command shares: the error line, JSON output and the tools.

Each command (:mod:`.commands`, :mod:`.chat`, :mod:`.serve`) reports failures the same
way (a :class:`CliError` becomes one ``lagent-like: error: ...`` line, exit status 2),
prints JSON the same way and turns ``-m MODULE`` / ``--tools A,B`` into tool instances
the same way, so those pieces live here once.
"""

from __future__ import annotations

import importlib
import json
import os
import sys
from collections.abc import Sequence
from typing import Any, Callable, Optional

from ..exceptions import LagentLikeError
from ..registry import get_tool_cls, list_tools
from ..toolkits._modules import module_functions

__all__ = [
    "EXPORTS",
    "PROG",
    "CliError",
    "allow_cwd_imports",
    "construct",
    "construct_named",
    "dump",
    "import_modules",
    "read_secret",
    "reason",
    "select_tools",
    "load_web",
    "module_functions",
]

PROG = "lagent-like"

#: ``prompt --format`` values other than ``react``: the executor's export methods.
EXPORTS = {
    "openai": "to_openai_tools",
    "anthropic": "to_anthropic_tools",
    "mcp": "to_mcp_tools",
}


class CliError(LagentLikeError):
    """An error reported as one ``lagent-like: error: ...`` line with exit status 2."""


def dump(value: Any) -> str:
    """``value`` as the commands print JSON: indented, Unicode kept, anything else as text."""
    return json.dumps(value, indent=2, ensure_ascii=False, default=str)


def reason(exc: BaseException) -> str:
    """An exception as ``'Type: message'``."""
    return f"{type(exc).__name__}: {exc}"


def allow_cwd_imports() -> None:
    """Like ``python -m``, let modules in the current directory be found."""
    if "" not in sys.path and os.getcwd() not in sys.path:
        sys.path.insert(0, os.getcwd())


def import_modules(names: list[str]) -> list[Any]:
    """Import the ``-m`` modules so that their tools register; a failure is a ``CliError``.

    Returns:
        A ``FunctionTool`` for each function tool the modules define (see
        :func:`module_functions`), in module order.
    """
    if names:
        allow_cwd_imports()
    tools = []
    for name in names:
        try:
            module = importlib.import_module(name)
        except Exception as exc:  # any failure of user code is an error line
            raise CliError(f"cannot import module {name!r}: {reason(exc)}") from exc
        tools += [_function_tool(name, func) for func in module_functions(module)]
    return tools


def _function_tool(module: str, func: Callable[..., Any]) -> Any:
    """``FunctionTool(func)``; a function that cannot be described is a ``CliError``."""
    from ..exceptions import ToolDefinitionError
    from ..toolkits._function_tool import FunctionTool

    try:
        return FunctionTool(func)
    except ToolDefinitionError as exc:
        raise CliError(f"module {module!r}: {exc}") from exc


def construct(name: str, cls: type) -> Any:
    """Instantiate ``cls`` without arguments; ``TypeError`` is left to the caller."""
    try:
        return cls()
    except TypeError:
        raise
    except Exception as exc:  # a tool's constructor is user code
        raise CliError(f"cannot construct tool {name!r}: {reason(exc)}") from exc


def construct_named(name: str, cls: type) -> Any:
    """Instantiate a tool the user named: needing arguments is an error line too."""
    try:
        return construct(name, cls)
    except TypeError as exc:
        raise CliError(f"cannot construct tool {name!r} without arguments: {reason(exc)}") from exc


#: Registered tools never offered by default: executors bring their own refusal actions.
_INTERNAL_TOOLS = frozenset({"BaseAction", "InvalidAction", "NoAction", "FinishAction"})


def select_tools(
    names: Optional[str], skip: Optional[Callable[[type], bool]] = None, functions: Sequence[Any] = ()
) -> list[Any]:
    """Instances of the tools named in ``names`` (comma-separated), in that order.

    Without names: every registered tool but the internal ones (and the classes
    ``skip`` picks) that can be built without arguments, in registration order (tools
    needing arguments are skipped), then ``functions``.

    Args:
        names: the tool names, comma-separated, or ``None`` for all.
        skip: picks registered classes to leave out when no names are given.
        functions: the function tools of the ``-m`` modules (``import_modules``);
            a name is looked up among them before the registry.

    Raises:
        ToolNotFoundError: a name is not registered.
        CliError: a named tool cannot be constructed.
    """
    if names:
        by_name = {tool.name: tool for tool in functions}
        wanted = [name.strip() for name in names.split(",") if name.strip()]
        return [by_name.get(name) or construct_named(name, get_tool_cls(name)) for name in wanted]
    from ..actions import ASYNC_TWINS

    tools = []
    for name, cls in list_tools(with_class=True):
        # The Async* twins would offer every built-in twice.
        if name in _INTERNAL_TOOLS or cls in ASYNC_TWINS or (skip is not None and skip(cls)):
            continue
        try:
            tools.append(construct(name, cls))
        except TypeError:
            continue
    return tools + list(functions)


def read_secret(path: str, what: str, unreadable: Callable[[OSError], str], first_line: bool = False) -> str:
    """The key or token in file ``path``, stripped: never one given on the command line.

    Args:
        path: the file.
        what: how the error line names the file, e.g. ``'the key file'``.
        unreadable: the error line for a file that cannot be read.
        first_line: read only the first line (else the whole file).

    Raises:
        CliError: the file cannot be read or holds nothing.
    """
    try:
        with open(path, encoding="utf-8") as handle:
            secret = (handle.readline() if first_line else handle.read()).strip()
    except OSError as exc:
        raise CliError(unreadable(exc)) from None
    if not secret:
        raise CliError(f"{what} {path} is empty")
    return secret


def load_web() -> Any:
    """The :mod:`lagent_like.web` package; missing Starlette or uvicorn is a ``CliError``."""
    # Imported here: Starlette and uvicorn are an optional extra.
    try:
        from .. import web
    except ImportError as exc:
        raise CliError(str(exc)) from exc
    return web
