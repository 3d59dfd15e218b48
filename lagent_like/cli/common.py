"""What every ``lagent-like`` command shares: the error line, JSON output and the tools.

Each command (:mod:`.commands`, :mod:`.chat`, :mod:`.serve`) reports failures the same
way (a :class:`CliError` becomes one ``lagent-like: error: ...`` line, exit status 2),
prints JSON the same way and turns ``-m MODULE`` / ``--tools A,B`` into tool instances
the same way, so those pieces live here once.
"""

from __future__ import annotations

import dataclasses
import importlib
import importlib.util
import json
import os
import sys
from collections.abc import Sequence
from typing import Any, Callable, Optional

from .._private.module_files import ModuleFileError, import_file, is_module_file
from ..exceptions import LagentLikeError
from ..mcp._targets import name_toolkits
from ..registry import get_tool_cls, list_tools
from ..toolkits._modules import module_functions

__all__ = [
    "EXPORTS",
    "MCP_TOKEN_ENV",
    "PROG",
    "CliError",
    "Imported",
    "allow_cwd_imports",
    "chosen_tools",
    "construct",
    "construct_named",
    "dump",
    "import_modules",
    "read_secret",
    "reason",
    "select_tools",
    "load_web",
    "module_functions",
    "mcp_token",
    "name_toolkits",
    "open_mcp_toolkits",
]

PROG = "lagent-like"

#: ``prompt --format`` values other than ``react``: the executor's export methods.
EXPORTS = {
    "openai": "to_openai_tools",
    "anthropic": "to_anthropic_tools",
    "gemini": "to_gemini_tools",
    "mcp": "to_mcp_tools",
}


#: Where ``--mcp URL`` finds the bearer token of an HTTP MCP server by default (the
#: variable ``serve-mcp`` reads too).
MCP_TOKEN_ENV = "LAGENT_LIKE_MCP_TOKEN"


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


@dataclasses.dataclass
class Imported:
    """What the ``-m`` modules define: the tools a command offers before the built-ins.

    Attributes:
        modules: the imported modules' names (a file's name is its stem).
        functions: a ``FunctionTool`` for each function tool, in module order (see
            :func:`module_functions`).
    """

    modules: list[str] = dataclasses.field(default_factory=list)
    functions: list[Any] = dataclasses.field(default_factory=list)

    def owns(self, cls: type) -> bool:
        """Whether tool class ``cls`` was defined by one of the modules (or their submodules)."""
        module = getattr(cls, "__module__", "")
        return any(module == name or module.startswith(name + ".") for name in self.modules)

    def registered(self) -> list[tuple[str, type]]:
        """``(registry name, class)`` of the modules' tool classes, in registration order."""
        return [(name, cls) for name, cls in list_tools(with_class=True) if self.owns(cls)]


def import_modules(names: list[str]) -> Imported:
    """Import the ``-m`` modules so that their tools register; a failure is a ``CliError``.

    A name ending in ``.py`` or holding a path separator is a file, imported by path
    (its folder first on ``sys.path``, as ``python path/to/file.py`` does).

    Returns:
        The modules' names and function tools.
    """
    if names:
        allow_cwd_imports()
    imported = Imported()
    for name in names:
        try:
            module = import_file(name) if is_module_file(name) else importlib.import_module(name)
        except ModuleFileError as exc:
            raise CliError(str(exc)) from exc
        except Exception as exc:  # any failure of user code is an error line
            raise CliError(f"cannot import module {name!r}: {reason(exc)}") from exc
        imported.modules.append(module.__name__)
        imported.functions += [_function_tool(name, func) for func in module_functions(module)]
    return imported


def _function_tool(module: str, func: Callable[..., Any]) -> Any:
    """``FunctionTool(func)``; a function that cannot be described is a ``CliError``."""
    from ..exceptions import ToolDefinitionError
    from ..toolkits._function_tool import FunctionTool

    try:
        return FunctionTool(func)
    except ToolDefinitionError as exc:
        raise CliError(f"module {module!r}: {exc}") from exc


def construct(name: str, cls: type) -> Any:
    """Instantiate ``cls`` without arguments; ``TypeError`` and ``ImportError`` are left to the caller.

    A ``TypeError`` is a tool that needs arguments, an ``ImportError`` one whose optional
    extra is not installed: offered by default, such tools are left out.
    """
    try:
        return cls()
    except (TypeError, ImportError):
        raise
    except Exception as exc:  # a tool's constructor is user code
        raise CliError(f"cannot construct tool {name!r}: {reason(exc)}") from exc


def construct_named(name: str, cls: type) -> Any:
    """Instantiate a tool the user named: needing arguments is an error line too."""
    try:
        return construct(name, cls)
    except TypeError as exc:
        raise CliError(f"cannot construct tool {name!r} without arguments: {reason(exc)}") from exc
    except ImportError as exc:
        raise CliError(f"cannot construct tool {name!r}: {reason(exc)}") from exc


#: Registered tools never offered by default: executors bring their own refusal actions.
_INTERNAL_TOOLS = frozenset({"BaseAction", "InvalidAction", "NoAction", "FinishAction"})


def select_tools(
    names: Optional[str],
    skip: Optional[Callable[[type], bool]] = None,
    functions: Sequence[Any] = (),
    own: Optional[Callable[[type], bool]] = None,
) -> list[Any]:
    """Instances of the tools named in ``names`` (comma-separated), in that order.

    Without names: every registered tool but the internal ones (and the classes
    ``skip`` picks; only those ``own`` picks when given) that can be built without
    arguments, in registration order (tools needing arguments or an optional extra that
    is not installed are skipped), then ``functions``.

    Args:
        names: the tool names, comma-separated, or ``None`` for all.
        skip: picks registered classes to leave out when no names are given.
        functions: the function tools of the ``-m`` modules (``import_modules``);
            a name is looked up among them before the registry.
        own: when given, picks the registered classes to offer when no names are
            given (the ``-m`` modules' own, ``Imported.owns``).

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
        if name in _INTERNAL_TOOLS or cls in ASYNC_TWINS or (own is not None and not own(cls)):
            continue
        if skip is not None and skip(cls):
            continue
        try:
            tools.append(construct(name, cls))
        except (TypeError, ImportError):  # needs arguments, or an extra not installed here
            continue
    return tools + list(functions)


def chosen_tools(args: Any, skip: Optional[Callable[[type], bool]] = None) -> list[Any]:
    """The tools a command offers: ``--tools``, else the ``-m`` modules' own, else every one.

    With ``-m MODULE`` and no ``--tools``, only the modules' tools (their classes
    that need no arguments, then their functions) unless ``--with-builtins``.

    Args:
        args: the parsed command line (``tools``, ``imported`` and, where the command
            has it, ``with_builtins``).
        skip: as for :func:`select_tools`.

    Raises:
        CliError: the ``-m`` modules define no tools at all (and no names or
            ``--with-builtins`` say which to offer).
    """
    imported: Imported = args.imported
    mine_only = bool(imported.modules) and not args.tools and not getattr(args, "with_builtins", False)
    if mine_only and not imported.functions and not imported.registered():
        raise CliError(
            f"the module(s) {', '.join(imported.modules)} define no tools: name tools with --tools A,B "
            "or pass --with-builtins"
        )
    return select_tools(
        args.tools, skip, functions=imported.functions, own=imported.owns if mine_only else None
    )


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


def mcp_token(token_file: Optional[str]) -> Optional[str]:
    """The bearer token for ``--mcp URL``: the file's first line, else the environment."""
    if token_file is None:
        return os.environ.get(MCP_TOKEN_ENV) or None
    return read_secret(
        token_file,
        "the MCP token file",
        lambda exc: f"cannot read the MCP token file: {reason(exc)}",
        first_line=True,
    )


def _mcp_toolkit(target: str, token: Optional[str], shared_session: bool, validation: str) -> Any:
    """An ``MCPToolkit`` for ``--mcp``: an http(s) URL, or a command line to start."""
    try:
        from ..mcp._targets import open_target

        return open_target(target, token, shared_session=shared_session, validation=validation)
    except ImportError as exc:
        raise CliError(str(exc)) from exc
    except ValueError as exc:  # an empty or badly quoted command line
        raise CliError(f"--mcp {target!r}: {exc}") from None


def open_mcp_toolkits(
    args: Any, taken: Sequence[str] = (), shared_session: bool = False, validation: str = "strict"
) -> list[Any]:
    """Connect to every ``--mcp`` server; each toolkit is named after its server.

    The name is the server's own (its ``serverInfo`` name), made legal and unique among
    the servers and the names in ``taken`` (``time``, ``time_2``, ...). If one server
    cannot be reached, those already connected are closed before the error.

    Args:
        args: the parsed command line (``mcp``, ``mcp_token_file``).
        taken: names already used by other tools.
        shared_session: one MCP session for all callers (a proxy's sessionless clients).
        validation: how the toolkits check arguments before sending them (``"off"``: the
            server checks them, as a proxy wants, so its clients get the server's own
            answers).

    Raises:
        CliError: the SDK is missing, a token file cannot be read or ``--mcp`` is empty.
        MCPConnectionError: a server cannot be started or reached.
    """
    if not args.mcp:
        return []
    token = mcp_token(args.mcp_token_file)
    toolkits: list[Any] = []
    try:
        for target in args.mcp:
            toolkits.append(_mcp_toolkit(target, token, shared_session, validation))
        name_toolkits(toolkits, taken)
    except BaseException:
        for toolkit in toolkits:
            toolkit.close()
        raise
    return toolkits
