r"""Connections that go only where an address rule allows: the web tool's guard.

Why it exists: a URL written by a model must not make an agent a way into the
operator's network (loopback, private ranges, the cloud metadata address). Checking the
URL's text is not enough: parsers disagree about where the host is
(``http://127.0.0.1:80\@1.1.1.1/`` is 1.1.1.1 to :func:`urllib.parse.urlsplit` and
127.0.0.1 to ``requests``), and a name may resolve to a public address when checked and
to a private one when connected (DNS rebinding). So the check sits where the connection
is made: the connection class of a dedicated ``requests`` session resolves the host
once, refuses it unless the rule allows every address it has, and connects to a checked
address itself (the ``Host`` header and the TLS server name stay the host's). No packet
goes to a refused address. Each hop of a redirect opens its connection the same way,
and there is one session per rule, so a pooled connection opened under a looser rule is
never reused under a stricter one. These sessions ignore the environment's proxy
settings (through a proxy, the proxy would choose the address) and ``~/.netrc`` (the
model chooses the host, so it must not get the operator's passwords); a CA bundle named
by ``REQUESTS_CA_BUNDLE`` or ``CURL_CA_BUNDLE`` is still used.

Imported only when a guarded page is fetched: it needs ``requests`` and ``urllib3``.
"""

from __future__ import annotations

import ipaddress
import os
import socket
import threading
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any, Optional, Union

import requests
from requests.adapters import HTTPAdapter
from urllib3 import PoolManager
from urllib3.connection import HTTPConnection, HTTPSConnection
from urllib3.connectionpool import HTTPConnectionPool, HTTPSConnectionPool
from urllib3.exceptions import ConnectTimeoutError, NewConnectionError
from urllib3.util.connection import allowed_gai_family, create_connection

from ..exceptions import LagentLikeError

__all__ = ["AddressRefused", "AddressRule", "Network", "guarded_session"]

Network = Union[ipaddress.IPv4Network, ipaddress.IPv6Network]
_Address = Union[ipaddress.IPv4Address, ipaddress.IPv6Address]


class AddressRefused(LagentLikeError):
    """A host resolved to an address the rule refuses; nothing was sent to it.

    Deliberately not an ``OSError`` (nor a ``requests`` exception, which is one):
    ``urllib3`` and ``requests`` would take it for a network failure worth retrying
    and drop its words; this way it reaches the caller as raised.

    Attributes:
        host: the host as the connection had it.
        address: the refused address.
    """

    def __init__(self, host: str, address: str) -> None:
        self.host = host
        self.address = address
        if _as_address(host) is not None:
            super().__init__(f"{host} is a private or local address; not opened")
        else:
            super().__init__(f"{host} resolves to {address}, a private or local address; not opened")


def _as_address(text: str) -> Optional[_Address]:
    try:
        return ipaddress.ip_address(text)
    except ValueError:
        return None


def _views(address: _Address) -> Iterator[_Address]:
    """The address and every IPv4 address it carries (mapped, 6to4, Teredo)."""
    yield address
    if isinstance(address, ipaddress.IPv6Address):
        carried = [address.ipv4_mapped, address.sixtofour, *(address.teredo or ())]
        yield from (inner for inner in carried if inner is not None)


def _is_public(address: _Address) -> bool:
    # is_global alone lets multicast and some reserved IPv6 ranges through.
    return address.is_global and not (address.is_multicast or address.is_reserved)


@dataclass(frozen=True)
class AddressRule:
    """Which addresses may be connected to: public ones, and those in ``allowed``.

    Attributes:
        allowed: networks allowed although they are not public (an intranet, a test
            server on loopback).
    """

    allowed: tuple[Network, ...] = ()

    def refuses(self, address: str) -> bool:
        """Whether ``address`` (as ``getaddrinfo`` gives it) may not be connected to."""
        views = list(_views(ipaddress.ip_address(address)))
        if any(view in network for view in views for network in self.allowed):
            return False
        return not all(_is_public(view) for view in views)

    def addresses(self, host: str, port: int) -> list[str]:
        """Every address of ``host``, when the rule allows each one.

        Raises:
            AddressRefused: one of them is refused (a name that has a private address
                among public ones is refused: the connection could land on any).
            OSError: ``host`` does not resolve.
        """
        infos = socket.getaddrinfo(host, port, allowed_gai_family(), socket.SOCK_STREAM)
        found = list(dict.fromkeys(str(info[4][0]) for info in infos))
        for address in found:
            if self.refuses(address):
                raise AddressRefused(host, address)
        return found


class _PinnedConnection(HTTPConnection):
    """A connection that connects only to addresses its rule allowed, checked just before."""

    def __init__(self, *args: Any, address_rule: AddressRule, **kwargs: Any) -> None:
        self.address_rule = address_rule
        super().__init__(*args, **kwargs)

    def _new_conn(self) -> socket.socket:
        host = self._dns_host.strip("[]")
        try:
            addresses = self.address_rule.addresses(host, self.port)
        except (OSError, UnicodeError) as exc:
            raise NewConnectionError(self, f"Failed to resolve {host}: {exc}") from exc
        return self._connect_first(addresses)

    def _connect_first(self, addresses: Sequence[str]) -> socket.socket:
        """A socket to the first of ``addresses`` that answers, failing as ``urllib3`` does."""
        failure: Optional[OSError] = None
        for address in addresses:
            try:
                return create_connection(
                    (address, self.port),
                    self.timeout,
                    source_address=self.source_address,
                    socket_options=self.socket_options,
                )
            except OSError as exc:
                failure = exc
        if isinstance(failure, socket.timeout):
            raise ConnectTimeoutError(
                self, f"Connection to {self.host} timed out. (connect timeout={self.timeout})"
            )
        raise NewConnectionError(self, f"Failed to establish a new connection: {failure}")


class _PinnedHTTPSConnection(_PinnedConnection, HTTPSConnection):
    """The TLS twin: TLS starts on the socket :class:`_PinnedConnection` opened."""


class _PinnedHTTPPool(HTTPConnectionPool):
    ConnectionCls = _PinnedConnection


class _PinnedHTTPSPool(HTTPSConnectionPool):
    ConnectionCls = _PinnedHTTPSConnection


class _PinnedPoolManager(PoolManager):
    """Pools whose connections carry ``rule`` (added after the pool key is made)."""

    def __init__(self, rule: AddressRule, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.rule = rule
        self.pool_classes_by_scheme = {"http": _PinnedHTTPPool, "https": _PinnedHTTPSPool}

    def _new_pool(
        self,
        scheme: str,
        host: str,
        port: int,
        request_context: Optional[dict[str, Any]] = None,
    ) -> HTTPConnectionPool:
        context = dict(self.connection_pool_kw if request_context is None else request_context)
        context["address_rule"] = self.rule
        return super()._new_pool(scheme, host, port, context)


class _PinnedAdapter(HTTPAdapter):
    def __init__(self, rule: AddressRule, **kwargs: Any) -> None:
        self.rule = rule  # read by init_poolmanager, which the base __init__ calls
        super().__init__(**kwargs)

    def init_poolmanager(self, connections: int, maxsize: int, block: bool = False, **kwargs: Any) -> None:
        super().init_poolmanager(connections, maxsize, block, **kwargs)  # keeps the pool settings
        self.poolmanager = _PinnedPoolManager(
            self.rule, num_pools=connections, maxsize=maxsize, block=block, **kwargs
        )


_sessions: dict[AddressRule, requests.Session] = {}
_sessions_lock = threading.Lock()


def guarded_session(rule: AddressRule) -> requests.Session:
    """The session that connects only where ``rule`` allows (one per rule, made on first use).

    Like the shared session, its adapters keep
    :data:`~lagent_like._net.http.POOL_MAXSIZE` connections per host and never
    retry on their own.
    """
    from .http import POOL_MAXSIZE

    with _sessions_lock:
        session = _sessions.get(rule)
        if session is None:
            session = requests.Session()
            # No proxy and no .netrc from the environment; its CA bundle as requests reads it.
            session.trust_env = False
            session.verify = os.environ.get("REQUESTS_CA_BUNDLE") or os.environ.get("CURL_CA_BUNDLE") or True
            adapter = _PinnedAdapter(rule, pool_connections=8, pool_maxsize=POOL_MAXSIZE, max_retries=0)
            session.mount("http://", adapter)
            session.mount("https://", adapter)
            _sessions[rule] = session
        return session
