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

from .. import ActionExecutor, list_tools
from .common import (
    MCP_TOKEN_ENV,
    PROG,
    CliError,
    chosen_tools,
    load_web,
    mcp_token,
    name_toolkits,
    open_mcp_toolkits,
    reason,
)

__all__ = ["MCP_TOKEN_ENV", "cmd_inspect", "cmd_serve_mcp"]


def _code_tools_withheld(withheld: list[str]) -> Callable[[type], bool]:
    """The ``skip`` of :func:`select_tools` that withholds code-executing tool classes."""

    def withhold(cls: type) -> bool:
        # Tools that run code a model wrote (class attribute runs_code = True, as the
        # interpreters declare) are served only when asked for by name; they are not
        # even built (an interpreter may start a sandbox).
        if getattr(cls, "runs_code", False) is not True:
            return False
        withheld.append(getattr(cls, "__tool_description__", {}).get("name", cls.__name__))
        return True

    return withhold


def _code_tool_names() -> set[str]:
    """The names of the registered code-executing tools: a proxied tool so named is one too.

    MCP has no annotation for "runs code"; a server that serves an interpreter (another
    ``serve-mcp``) serves it under the interpreter's name.
    """
    return {name for name, cls in list_tools(with_class=True) if getattr(cls, "runs_code", False) is True}


def _split_names(
    names: Optional[str], toolkits: list[Any]
) -> tuple[Optional[str], dict[str, Optional[set[str]]]]:
    """``--tools`` split between local tools and the proxied servers' tools.

    A name is a proxied server's tool when it is the tool's own name, ``toolkit.tool``
    or a toolkit's name (all its tools).

    Returns:
        ``(names of local tools or None when --tools is not given, the server tools each
        toolkit may serve: None for all)``.
    """
    if not names:
        return None, {toolkit.name: None for toolkit in toolkits}
    picked: dict[str, set[str]] = {toolkit.name: set() for toolkit in toolkits}
    rest = []
    for name in (part.strip() for part in names.split(",")):
        found = False
        for toolkit in toolkits:
            tools = (
                set(toolkit.tool_names)
                if name == toolkit.name
                else {tool for tool in toolkit.tool_names if name in (tool, f"{toolkit.name}.{tool}")}
            )
            picked[toolkit.name].update(tools)
            found = found or bool(tools)
        if name and not found:
            rest.append(name)
    return ",".join(rest), dict(picked)


def _serve_token(args: argparse.Namespace) -> Optional[str]:
    """The HTTP bearer token from ``--token-file``, else ``None`` (the environment or a new one)."""
    # Never a token on the command line, where every local user can read it.
    if args.transport != "http" or args.token_file is None:
        return None
    from ..mcp._http import resolve_token

    try:
        token, _ = resolve_token(None, args.token_file)
    except (OSError, ValueError) as exc:
        raise CliError(f"cannot read the bearer token: {reason(exc)}") from exc
    return token


def _say(text: str) -> None:
    print(f"{PROG}: {text}", file=sys.stderr, flush=True)


def _local_tools(args: argparse.Namespace, names: Optional[str]) -> list[Any]:
    """The local tools ``serve-mcp`` serves, code-executing ones withheld unless allowed."""
    if names == "" or (names is None and args.mcp and not args.imports):
        return []  # every name was a proxied tool, or only --mcp was given
    withheld: list[str] = []
    skip = None if names or args.allow_code else _code_tools_withheld(withheld)
    tools = chosen_tools(argparse.Namespace(**{**vars(args), "tools": names}), skip)
    if withheld:
        _say(
            f"not serving the code-executing tools {', '.join(withheld)}; "
            "name them with --tools or pass --allow-code"
        )
    return tools


def _proxied(
    args: argparse.Namespace, toolkits: list[Any]
) -> tuple[Optional[str], dict[str, Optional[set[str]]], set[str]]:
    """``(local --tools names, the tools each proxied server may serve, the names withheld)``.

    A server not named in ``--tools`` serves all its tools but the code-executing ones
    (unless ``--allow-code``), also those it adds later.
    """
    local, selection = _split_names(args.tools, toolkits)
    if args.allow_code:
        return local, selection, set()
    code = _code_tool_names()
    withheld = [
        f"{toolkit.name}.{tool}"
        for toolkit in toolkits
        if selection[toolkit.name] is None
        for tool in toolkit.tool_names
        if tool in code
    ]
    if withheld:
        _say(
            f"not serving the code-executing tools {', '.join(withheld)}; "
            "name them with --tools or pass --allow-code"
        )
    return local, selection, code


def cmd_serve_mcp(args: argparse.Namespace) -> int:
    """``serve-mcp``: serve the selected tools (and proxied servers' tools) over MCP until stopped."""
    # Imported here: the MCP SDK is an optional extra and only this command needs it.
    try:
        from ..mcp import serve_mcp
        from ..mcp._proxy import ProxyNames
    except ImportError as exc:
        raise CliError(str(exc)) from exc
    from .. import AsyncActionExecutor

    token = _serve_token(args)
    # One MCP session for all: clients without sessions must not start a server each.
    # Arguments go unchecked: the server's own validator answers, as it would directly.
    toolkits = open_mcp_toolkits(args, shared_session=True, validation="off")
    try:
        local_names, selection, code = _proxied(args, toolkits)
        tools = _local_tools(args, local_names)
        name_toolkits(toolkits, [tool.name for tool in tools])
        selection = dict(zip([toolkit.name for toolkit in toolkits], selection.values()))
        # The async executor runs async tools on the server's loop and sync ones in threads.
        executor = AsyncActionExecutor(actions=[*tools, *toolkits])
        names = ProxyNames(executor, selection, _say, code) if toolkits else None
        if names is not None:
            names.served(executor.to_mcp_tools())  # states clashes now, before clients come
        if not tools and (names is None or not names.served(executor.to_mcp_tools())):
            raise CliError(
                "no tools to serve: import a module with -m MODULE, name them with --tools A,B "
                "or proxy a server with --mcp URL_OR_COMMAND"
            )
        serve_mcp(
            executor,
            transport=args.transport,
            host=args.host,
            port=args.port,
            token=token,
            allowed_hosts=args.allow_host,
            max_client_calls=args.max_client_calls or None,
            max_connections=args.max_connections,
            max_connections_per_peer=args.max_connections_per_peer,
            head_timeout=args.head_timeout,
            names=names,
        )
    finally:
        for toolkit in toolkits:
            toolkit.close()
    return 0


def _explicit_code_tools(
    names: Optional[str], tools: list[Any], runs_code: Callable[[Any], bool]
) -> set[str]:
    """Code-executing tools the operator named in ``--tools``: naming one allows it."""
    named = {name.strip() for name in (names or "").split(",")}
    return {tool.name for tool in tools if runs_code(tool) and tool.name in named}


def cmd_inspect(args: argparse.Namespace) -> int:
    """``inspect``: serve the inspector page over the selected tools and traces."""
    web = load_web()
    from ..agents import AgentResult

    for path in args.trace:
        AgentResult.load(path)  # a bad trace file fails before any tool or server starts
    for directory in args.files_dir:
        if not os.path.isdir(directory):  # likewise
            raise CliError(f"--files-dir {directory}: not a directory")
    if args.runs_dir is not None and not os.path.isdir(args.runs_dir):
        raise CliError(f"--runs-dir {args.runs_dir}: not a directory")
    # With only --mcp, the server's tools alone (not every registered tool).
    tools = [] if args.mcp and not args.tools and not args.imports else chosen_tools(args)
    toolkits = open_mcp_toolkits(args, taken=[tool.name for tool in tools])
    try:
        tools += toolkits
        if not tools and not args.trace and args.runs_dir is None:
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
            runs_dir=args.runs_dir,
            out=sys.stdout,
            allow_connect_commands=args.allow_connect_commands,
            mcp_servers=list(zip(toolkits, args.mcp or [])),
            mcp_token=mcp_token(args.mcp_token_file) if args.mcp else None,
        )
    finally:
        for toolkit in toolkits:
            toolkit.close()
    return 0
