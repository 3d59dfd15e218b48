"""``lagent-like serve-mcp`` and ``inspect``: the commands that start a server for the tools.

Both hand tools to another program (an MCP client, a browser), so both decide which
code-executing tools may be offered, read a bearer token from a file or the
environment (never from the command line, where every local user can read it) and
need an optional extra (``mcp``, ``web``) that is imported only here.
"""

from __future__ import annotations

import argparse
import os
import sys
from typing import Any, Callable, Optional

from .. import ActionExecutor
from .common import PROG, CliError, chosen_tools, load_web, read_secret, reason

__all__ = ["MCP_TOKEN_ENV", "cmd_inspect", "cmd_serve_mcp"]

#: Where ``inspect --mcp URL`` finds the bearer token of an HTTP MCP server by default
#: (the variable ``serve-mcp`` reads too).
MCP_TOKEN_ENV = "LAGENT_LIKE_MCP_TOKEN"


def cmd_serve_mcp(args: argparse.Namespace) -> int:
    """``serve-mcp``: serve the selected tools over MCP until stopped."""
    # Imported here: the MCP SDK is an optional extra and only this command needs it.
    try:
        from ..mcp import serve_mcp
        from ..mcp._http import resolve_token
    except ImportError as exc:
        raise CliError(str(exc)) from exc
    from .. import AsyncActionExecutor

    withheld: list[str] = []

    def withhold(cls: type) -> bool:
        # Tools that run code a model wrote (class attribute runs_code = True, as the
        # interpreters declare) are served only when asked for by name; they are not
        # even built (an interpreter may start a sandbox).
        if getattr(cls, "runs_code", False) is not True:
            return False
        withheld.append(getattr(cls, "__tool_description__", {}).get("name", cls.__name__))
        return True

    tools = chosen_tools(args, None if args.tools or args.allow_code else withhold)
    if withheld:
        print(
            f"{PROG}: not serving the code-executing tools {', '.join(withheld)}; "
            "name them with --tools or pass --allow-code",
            file=sys.stderr,
            flush=True,
        )
    if not tools:
        raise CliError("no tools to serve: import a module with -m MODULE or name them with --tools A,B")
    # Never a token on the command line, where every local user can read it: a file,
    # else the environment, else a new one that serve_mcp prints.
    token = None
    if args.transport == "http" and args.token_file is not None:
        try:
            token, _ = resolve_token(None, args.token_file)
        except (OSError, ValueError) as exc:
            raise CliError(f"cannot read the bearer token: {reason(exc)}") from exc
    # The async executor runs async tools on the server's loop and sync ones in threads.
    serve_mcp(
        AsyncActionExecutor(actions=tools),
        transport=args.transport,
        host=args.host,
        port=args.port,
        token=token,
        allowed_hosts=args.allow_host,
        max_client_calls=args.max_client_calls or None,
        max_connections=args.max_connections,
        max_connections_per_peer=args.max_connections_per_peer,
        head_timeout=args.head_timeout,
    )
    return 0


def _explicit_code_tools(
    names: Optional[str], tools: list[Any], runs_code: Callable[[Any], bool]
) -> set[str]:
    """Code-executing tools the operator named in ``--tools``: naming one allows it."""
    named = {name.strip() for name in (names or "").split(",")}
    return {tool.name for tool in tools if runs_code(tool) and tool.name in named}


def _mcp_token(token_file: Optional[str]) -> Optional[str]:
    """The bearer token for ``--mcp URL``: the file's first line, else the environment."""
    if token_file is None:
        return os.environ.get(MCP_TOKEN_ENV) or None
    return read_secret(
        token_file,
        "the MCP token file",
        lambda exc: f"cannot read the MCP token file: {reason(exc)}",
        first_line=True,
    )


def _mcp_toolkit(target: str, token: Optional[str]) -> Any:
    """An ``MCPToolkit`` for ``--mcp``: an http(s) URL, or a command line to start."""
    import shlex

    try:
        from ..mcp import MCPToolkit
    except ImportError as exc:
        raise CliError(str(exc)) from exc
    if target.startswith(("http://", "https://")):
        # Never a token on the command line, where other local users can read it.
        return MCPToolkit(url=target, token=token)
    words = shlex.split(target)
    if not words:
        raise CliError("--mcp needs a URL or a command, e.g. --mcp 'python -m my_server'")
    return MCPToolkit(command=words[0], args=tuple(words[1:]))


def cmd_inspect(args: argparse.Namespace) -> int:
    """``inspect``: serve the inspector page over the selected tools and traces."""
    web = load_web()
    from ..agents import AgentResult

    for path in args.trace:
        AgentResult.load(path)  # a bad trace file fails before any tool or server starts
    for directory in args.files_dir:
        if not os.path.isdir(directory):  # likewise
            raise CliError(f"--files-dir {directory}: not a directory")
    # With only --mcp, the server's tools alone (not every registered tool).
    tools = [] if args.mcp and not args.tools and not args.imports else chosen_tools(args)
    toolkits: list[Any] = []
    try:
        token = _mcp_token(args.mcp_token_file) if args.mcp else None
        toolkits += [_mcp_toolkit(target, token) for target in args.mcp]
        tools += toolkits
        if not tools and not args.trace:
            raise CliError(
                "no tools to inspect: import a module with -m MODULE, name tools with --tools A,B "
                "or use --mcp URL_OR_COMMAND"
            )
        allow_code = True if args.allow_code else _explicit_code_tools(args.tools, tools, web.runs_code)
        executor = ActionExecutor(actions=tools)
        web.inspect(
            executor,
            port=args.port,
            allow_code=allow_code,
            traces=args.trace,
            files_dirs=args.files_dir,
            out=sys.stdout,
        )
    finally:
        for toolkit in toolkits:
            toolkit.close()
    return 0
