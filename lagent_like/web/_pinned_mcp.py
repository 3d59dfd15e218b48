"""An MCP toolkit for a URL given on the inspector page, connecting only where the page's rule allows.

The Servers panel checks a URL's host before connecting (public and loopback addresses
only); the SDK's HTTP client would then resolve the name again, so a name answering
a loopback address to the check and a private one to the connection (DNS rebinding)
would reach the operator's network. This toolkit's connections are made by clients
(``MCPToolkit``'s ``http_client_factory``) whose connections are pinned
(:mod:`lagent_like._net._pinned`): each one resolves, checks every address with the
same rule, and connects to a checked one. Imported only when
the page connects a URL: it needs the ``mcp`` extra.
"""

from __future__ import annotations

from types import ModuleType
from typing import Any, Callable, Optional

from mcp.shared import _httpx_utils as sdk_http

from .._net._pinned import pinned_async_client
from .._net.egress import AddressRule
from ..mcp.client import MCPToolkit

__all__ = ["PinnedMCPToolkit"]


def _sdk_httpx() -> ModuleType:
    """The ``httpx`` module the SDK's transport takes a client of (``httpx2`` in SDK 2)."""
    module = getattr(sdk_http, "httpx2", None) or getattr(sdk_http, "httpx", None)
    if not isinstance(module, ModuleType):
        raise RuntimeError("the MCP SDK's HTTP helpers name no httpx module; cannot pin its connections")
    return module


class PinnedMCPToolkit(MCPToolkit):
    """An ``MCPToolkit`` over streamable HTTP whose connections go only where ``rule`` allows.

    Args:
        url: the server's streamable-HTTP endpoint.
        rule: the addresses the connections may go to.
        token: the bearer token the server needs, if any.
        **options: the other ``MCPToolkit`` options (``connect_timeout``, ...).
    """

    def __init__(self, url: str, rule: AddressRule, token: Optional[str] = None, **options: Any) -> None:
        super().__init__(url=url, token=token, http_client_factory=_pinned_factory(rule), **options)


def _pinned_factory(rule: AddressRule) -> Callable[..., Any]:
    """An ``http_client_factory`` of clients whose connections are pinned to addresses ``rule`` allows."""

    def pinned_client(headers: Optional[dict[str, str]] = None, timeout: Any = None, auth: Any = None) -> Any:
        httpx = _sdk_httpx()
        if timeout is None:
            # The SDK's own client timeouts (30 s, and 300 s to read a held-open stream).
            timeout = httpx.Timeout(
                getattr(sdk_http, "MCP_DEFAULT_TIMEOUT", 30.0),
                read=getattr(sdk_http, "MCP_DEFAULT_SSE_READ_TIMEOUT", 300.0),
            )
        options = {"auth": auth} if auth is not None else {}
        return pinned_async_client(rule, httpx, headers=headers, timeout=timeout, **options)

    return pinned_client
