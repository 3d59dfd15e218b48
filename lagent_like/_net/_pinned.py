"""Async HTTP connections made only to addresses an :class:`~.egress.AddressRule` checked, just before.

Why it exists: checking a URL's host and then letting an HTTP client resolve the name
again leaves a window (DNS rebinding): the name may answer a public or loopback address
to the check and a private one to the connection. :mod:`.egress` closes it for
``requests``; the MCP SDK's client is ``httpx`` (``httpx2`` in SDK 2), so this module
does the same there, one level down: the connection pool's network backend resolves the
host, refuses it unless the rule allows every address it has (:meth:`AddressRule.addresses`),
and opens the TCP connection to a checked address itself. TLS is untouched: the pool
still gives the URL's host name as the server name, so the certificate is verified
against the name, not the address. Every connection of the client goes this way,
redirect hops included; the client ignores the environment's proxy settings (through a
proxy, the proxy would choose the address).

The ``httpx`` flavour is the caller's (the SDK's): pass the module. Imported only when a
pinned client is made.
"""

from __future__ import annotations

import importlib
from collections.abc import Iterable
from types import ModuleType
from typing import Any, Optional

from .egress import AddressRule

__all__ = ["PinnedBackend", "pinned_async_client"]


class PinnedBackend:
    """An ``httpcore`` network backend that connects only to addresses ``rule`` allows.

    Args:
        rule: which addresses may be connected to.
        inner: the backend that opens the connections (``httpcore.AnyIOBackend()``).
        connect_errors: the exception types of a connection that failed (tried on
            the next address).
    """

    def __init__(
        self, rule: AddressRule, inner: Any, connect_errors: tuple[type[BaseException], ...]
    ) -> None:
        self.rule = rule
        self.inner = inner
        self.connect_errors = connect_errors

    async def connect_tcp(
        self,
        host: str,
        port: int,
        timeout: Optional[float] = None,
        local_address: Optional[str] = None,
        socket_options: Optional[Iterable[Any]] = None,
    ) -> Any:
        """Resolve ``host``, check every address, and connect to the first checked one that answers.

        Raises:
            AddressRefused: ``host`` has an address the rule refuses; nothing was sent.
            OSError: ``host`` does not resolve (as the ``connect_errors`` of the pool).
        """
        import anyio.to_thread

        # getaddrinfo blocks: off the event loop, as the inner backend's own lookup would be.
        addresses = await anyio.to_thread.run_sync(self.rule.addresses, host.strip("[]"), port)
        failure: Optional[BaseException] = None
        for address in addresses:
            try:
                return await self.inner.connect_tcp(
                    address, port, timeout=timeout, local_address=local_address, socket_options=socket_options
                )
            except self.connect_errors as exc:
                failure = exc
        raise failure if failure is not None else OSError(f"{host} has no address")

    async def connect_unix_socket(
        self, path: str, timeout: Optional[float] = None, socket_options: Optional[Iterable[Any]] = None
    ) -> Any:
        """Refuse: a pinned client connects over TCP only.

        Raises:
            OSError: always.
        """
        raise OSError(f"a pinned HTTP client does not connect to the unix socket {path}")

    async def sleep(self, seconds: float) -> None:
        """Sleep as the inner backend does (the pool's retry back-off)."""
        await self.inner.sleep(seconds)


def pinned_async_client(
    rule: AddressRule, httpx: ModuleType, verify: Any = True, **client_options: Any
) -> Any:
    """An ``httpx.AsyncClient`` whose every connection goes through :class:`PinnedBackend`.

    Args:
        rule: which addresses may be connected to.
        httpx: the ``httpx`` module to build with (``httpx`` or ``httpx2``; its
            ``httpcore`` twin is found by name).
        verify: how TLS certificates are verified, as ``httpx``'s ``verify`` (default:
            the system's CAs); always against the URL's host name.
        **client_options: passed to ``AsyncClient`` (headers, timeout, ...); never a
            transport, proxy or ``trust_env``, which this sets.

    Returns:
        The client; use it as an async context manager, as ``httpx`` asks.

    Raises:
        TypeError: ``client_options`` names a transport, proxy, mounts or ``trust_env``.
        RuntimeError: this ``httpx`` builds its transport in a way this module does not
            know (its connection pool is not where it was); nothing is connected.
    """
    taken = sorted({"transport", "proxy", "mounts", "trust_env"} & set(client_options))
    if taken:
        raise TypeError(f"pinned_async_client sets {taken} itself")
    httpcore = importlib.import_module("httpcore2" if httpx.__name__ == "httpx2" else "httpcore")
    transport = httpx.AsyncHTTPTransport(trust_env=False)
    if not isinstance(getattr(transport, "_pool", None), httpcore.AsyncConnectionPool):
        raise RuntimeError(
            f"{httpx.__name__} {getattr(httpx, '__version__', '?')} keeps no AsyncConnectionPool "
            f"where the pinned client puts its own; connections cannot be pinned"
        )
    backend = PinnedBackend(rule, httpcore.AnyIOBackend(), (httpcore.ConnectError, httpcore.ConnectTimeout))
    # The pool the transport made (httpx's default limits), with the backend that resolves and checks.
    transport._pool = httpcore.AsyncConnectionPool(
        ssl_context=httpx.create_ssl_context(verify=verify, trust_env=False),
        max_connections=100,
        max_keepalive_connections=20,
        keepalive_expiry=5.0,
        network_backend=backend,
    )
    return httpx.AsyncClient(transport=transport, trust_env=False, **client_options)
