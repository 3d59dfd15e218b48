"""An MCP toolkit for a URL given on the inspector page, connecting only where the page's rule allows.

The Servers panel checks a URL's host before connecting (public and loopback addresses
only); the SDK's HTTP client would then resolve the name again, so a name answering
a loopback address to the check and a private one to the connection (DNS rebinding)
would reach the operator's network. This toolkit's HTTP transport uses a client whose
connections are pinned (:mod:`lagent_like._net._pinned`): each one resolves, checks
every address with the same rule, and connects to a checked one. Imported only when
the page connects a URL: it needs the ``mcp`` extra.
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator
from types import ModuleType
from typing import Any, Optional

from mcp.client.streamable_http import streamable_http_client
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
        self._rule = rule
        self._bearer = {"Authorization": f"Bearer {token}"} if token is not None else {}
        super().__init__(url=url, token=token, **options)

    @contextlib.asynccontextmanager
    async def _http_transport(self, url: str) -> AsyncIterator[Any]:
        """The SDK's streamable-HTTP transport over a pinned client (closed here: the SDK leaves it open)."""
        httpx = _sdk_httpx()
        # The SDK's own client timeouts (30 s, and 300 s to read a held-open stream).
        timeout = httpx.Timeout(
            getattr(sdk_http, "MCP_DEFAULT_TIMEOUT", 30.0),
            read=getattr(sdk_http, "MCP_DEFAULT_SSE_READ_TIMEOUT", 300.0),
        )
        client = pinned_async_client(self._rule, httpx, headers=self._bearer, timeout=timeout)
        # Nested, not parenthesized: the package must still compile on Python 3.9.
        async with client:  # noqa: SIM117
            async with streamable_http_client(url, http_client=client) as streams:
                yield streams
