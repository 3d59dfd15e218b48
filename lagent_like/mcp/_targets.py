"""One ``--mcp`` target (a URL or a command line) to a toolkit, and the toolkit's name.

The command line (``--mcp``) and the inspector page (its Servers panel) both take a
server as one text and name its toolkit after the server; this is the one place that
reads the text and picks the name, so that both do it alike. Importing it does not
import the SDK: :func:`open_target` does, when it connects.
"""

from __future__ import annotations

import shlex
from collections.abc import Collection, Sequence
from typing import Any, Optional, TextIO

__all__ = ["is_url", "name_toolkits", "open_target", "target_words", "toolkit_name"]


def is_url(target: str) -> bool:
    """Whether ``target`` names a streamable-HTTP server (else it is a command line)."""
    return target.strip().startswith(("http://", "https://"))


def target_words(target: str) -> list[str]:
    """The program and arguments of a command-line ``target``, split as a shell would.

    Raises:
        ValueError: the text is empty or its quotes are not closed.
    """
    try:
        words = shlex.split(target)
    except ValueError as exc:
        raise ValueError(f"the command line cannot be read: {exc}") from None
    if not words:
        raise ValueError("an MCP server needs a URL or a command, e.g. 'python -m my_server'")
    return words


def open_target(
    target: str,
    token: Optional[str] = None,
    *,
    shared_session: bool = False,
    validation: str = "strict",
    connect_timeout: Optional[float] = 60.0,
    errlog: Optional[TextIO] = None,
) -> Any:
    """Connect to ``target``: an ``MCPToolkit`` over streamable HTTP (a URL) or stdio (a command).

    Args:
        target: an ``http(s)://`` URL, or a command line to start.
        token: the bearer token of an HTTP server (not used for a command).
        shared_session: one MCP session for all callers.
        validation: how the toolkit checks arguments before sending them.
        connect_timeout: seconds to wait for the server to answer and list its tools.
        errlog: where a started server's stderr goes (default ``sys.stderr``).

    Returns:
        The connected ``MCPToolkit`` (named ``MCP``; see :func:`name_toolkits`).

    Raises:
        ValueError: the command line is empty or badly quoted.
        ImportError: the ``mcp`` extra is missing.
        MCPConnectionError: the server cannot be started or reached.
    """
    from .client import MCPToolkit

    if is_url(target):
        # Never a token on the command line, where other local users can read it.
        return MCPToolkit(
            url=target.strip(),
            token=token,
            shared_session=shared_session,
            validation=validation,
            connect_timeout=connect_timeout,
        )
    words = target_words(target)
    return MCPToolkit(
        command=words[0],
        args=tuple(words[1:]),
        shared_session=shared_session,
        validation=validation,
        connect_timeout=connect_timeout,
        errlog=errlog,
    )


def toolkit_name(server_name: Optional[str], taken: Collection[str]) -> str:
    """A toolkit name for a server called ``server_name``: legal in a call, not in ``taken``.

    Args:
        server_name: the server's ``serverInfo`` name (``None`` or empty: ``MCP``).
        taken: names already used by other tools.

    Returns:
        The name made legal (``time.keeper`` -> ``time_keeper``) and unique
        (``time``, ``time_2``, ...).
    """
    # A dot would split 'Toolkit.tool'; anything but letters, digits, - and _ may break an export.
    base = "".join(c if c.isalnum() or c in "-_" else "_" for c in server_name or "").strip("_") or "MCP"
    name, number = base, 1
    while name in taken:
        number += 1
        name = f"{base}_{number}"
    return name


def name_toolkits(toolkits: Sequence[Any], taken: Sequence[str] = ()) -> None:
    """Name each ``MCPToolkit`` after its server, unique among them and apart from ``taken``."""
    used = set(taken)
    for toolkit in toolkits:
        info = toolkit.server_info
        name = toolkit_name(info.name if info is not None else None, used)
        used.add(name)
        if name != toolkit.name:
            toolkit.rename(name)
