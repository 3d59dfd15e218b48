"""Model Context Protocol (MCP) for lagent_like tools: serve them, and use other servers' tools.

MCP is how agent hosts (Claude Desktop, IDEs, other frameworks) discover and call
tools across a process or network boundary. This package gives lagent_like both ends:

- :func:`serve_mcp` / :func:`build_mcp_server` publish an executor's tools as an MCP
  server (stdio or streamable HTTP), with the executor's JSON Schemas, validation,
  hooks and policies;
- :class:`MCPToolkit` connects to any MCP server and presents its tools as one
  toolkit an :class:`~lagent_like.ActionExecutor` can hold.

The official ``mcp`` SDK is an optional extra (``pip install 'lagent-like[mcp]'``, from a
clone ``pip install '.[mcp]'``).
Neither ``import lagent_like`` nor ``import lagent_like.mcp`` imports it: the names
below are loaded on first use, and raise an ``ImportError`` that says what to install
when the SDK is missing.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .client import MCPConnectionError, MCPToolkit
    from .server import build_mcp_server, serve_mcp

__all__ = ["MCPConnectionError", "MCPToolkit", "build_mcp_server", "serve_mcp"]

#: Public name -> the submodule defining it.
_HOMES = {
    "MCPConnectionError": "client",
    "MCPToolkit": "client",
    "build_mcp_server": "server",
    "serve_mcp": "server",
}


def __getattr__(name: str) -> Any:
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(f"{__name__}.{home}"), name)


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
