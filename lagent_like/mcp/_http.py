"""The guard in front of ``serve-mcp --transport http``: a bearer token and the Host/Origin check.

Served tools may read files or run code, so an HTTP endpoint must not answer whoever
can reach the port (any local user on loopback) or a web page the browser was tricked
into sending there (DNS rebinding). Every request therefore needs the operator's
bearer token, and its ``Host`` (and ``Origin``, when a browser sends one) must name
the address the server is bound to, whatever that address is; the SDK's own check
covers only the exact names ``127.0.0.1``, ``localhost`` and ``::1``.

The guard is a plain ASGI middleware, so it applies to every path of the app and
costs two header lookups per request. This module does not import the SDK.
"""

from __future__ import annotations

import hmac
import ipaddress
import json
import os
import secrets
import socket
from collections.abc import Awaitable, Iterable, MutableMapping
from pathlib import Path
from typing import Any, Callable, Optional
from urllib.parse import urlsplit

__all__ = ["TOKEN_ENV", "TOKEN_FILE_ENV", "HttpGuard", "allowed_hosts_for", "listen", "resolve_token"]

#: Environment variable holding the operator's token.
TOKEN_ENV = "LAGENT_LIKE_MCP_TOKEN"
#: Environment variable naming a file whose first line is the token.
TOKEN_FILE_ENV = "LAGENT_LIKE_MCP_TOKEN_FILE"

Scope = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[MutableMapping[str, Any]]]
Send = Callable[[MutableMapping[str, Any]], Awaitable[None]]
App = Callable[[Scope, Receive, Send], Awaitable[None]]


def resolve_token(token: Optional[str], token_file: Optional[str] = None) -> tuple[str, bool]:
    """The bearer token to require, and whether it was generated here (and must be shown).

    The first of: ``token``; the first line of ``token_file``; ``$LAGENT_LIKE_MCP_TOKEN``;
    the first line of the file named by ``$LAGENT_LIKE_MCP_TOKEN_FILE``; a new random
    token (as Jupyter does).

    Raises:
        ValueError: a given token (or token file) is empty.
        OSError: a token file cannot be read.
    """
    sources: list[tuple[str, Optional[str]]] = [
        ("the token", token),
        (f"the token file {token_file}", _first_line(token_file)),
        (f"${TOKEN_ENV}", os.environ.get(TOKEN_ENV)),
        (f"the token file ${TOKEN_FILE_ENV}", _first_line(os.environ.get(TOKEN_FILE_ENV))),
    ]
    for label, value in sources:
        if value is None:
            continue
        # Keys read from files end in a newline: the token is what precedes it.
        value = value.strip()
        if not value:
            raise ValueError(f"{label} is empty; give a non-empty bearer token or none to generate one")
        return value, False
    return secrets.token_urlsafe(32), True


def _first_line(path: Optional[str]) -> Optional[str]:
    if not path:
        return None
    lines = Path(path).read_text(encoding="utf-8").splitlines()
    return lines[0] if lines else ""


def _unspecified(host: str) -> bool:
    try:
        return ipaddress.ip_address(host).is_unspecified
    except ValueError:
        return False


def _loopback(host: str) -> bool:
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return host == "localhost"


def allowed_hosts_for(bind: str, extra: Iterable[str] = ()) -> frozenset[str]:
    """The host names a request may address, for a server bound to ``bind``.

    The bind address itself; for loopback addresses also ``localhost``; for a wildcard
    bind (``0.0.0.0``, ``::``) the machine's names and addresses; plus ``extra`` (names a
    proxy or DNS entry gives the server). Compared without port, case-insensitively.
    """
    hosts = {bind.lower().strip("[]"), *(h.lower().strip("[]") for h in extra)}
    if _loopback(bind):
        hosts.add("localhost")
    if _unspecified(bind):
        hosts |= {"localhost", "127.0.0.1", "::1", socket.gethostname().lower(), socket.getfqdn().lower()}
        try:
            infos = socket.getaddrinfo(socket.gethostname(), None)
        except OSError:
            infos = []
        hosts |= {str(info[4][0]).lower() for info in infos}
    return frozenset(hosts)


def _host_name(value: str) -> str:
    """``value`` of a ``Host`` header without its port (``[::1]:80`` -> ``::1``)."""
    value = value.strip().lower()
    if value.startswith("["):
        return value[1 : value.find("]")] if "]" in value else value
    return value.rsplit(":", 1)[0] if value.count(":") == 1 else value


class HttpGuard:
    """ASGI middleware: refuse requests without the bearer token or addressed to another host.

    Answers ``421`` for a ``Host`` that is not the server's, ``403`` for a foreign
    ``Origin`` and ``401`` for a missing token (``WWW-Authenticate: Bearer``) or a wrong
    one (``Bearer error="invalid_token"``, RFC 6750); other requests go to ``app`` untouched.
    """

    def __init__(self, app: App, token: str, allowed_hosts: frozenset[str]) -> None:
        self._app = app
        self._expected = f"Bearer {token}".encode()
        self._hosts = allowed_hosts

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "lifespan":
            await self._app(scope, receive, send)
            return
        if scope["type"] != "http":  # the app has no other routes (no websockets)
            await send({"type": "websocket.close", "code": 1008})
            return
        host = origin = authorization = b""
        for key, value in scope["headers"]:
            if key == b"host":
                host = value
            elif key == b"origin":
                origin = value
            elif key == b"authorization":
                authorization = value
        if _host_name(host.decode("latin-1")) not in self._hosts:
            await _refuse(send, 421, "Invalid Host header")
        elif origin and not self._origin_allowed(origin.decode("latin-1")):
            await _refuse(send, 403, "Invalid Origin header")
        elif not hmac.compare_digest(authorization, self._expected):
            await _refuse_token(send, authorization)
        else:
            await self._app(scope, receive, send)

    def _origin_allowed(self, origin: str) -> bool:
        try:
            parts = urlsplit(origin)
        except ValueError:
            return False
        return parts.scheme in ("http", "https") and (parts.hostname or "") in self._hosts


#: JSON-RPC error code of a refused request (the range left to servers).
REFUSED = -32001


#: The 401 answers: no bearer token at all, or one that is not the server's.
TOKEN_REQUIRED = "a bearer token is required (Authorization: Bearer <token>)"
TOKEN_NOT_VALID = "the bearer token is not valid (use the token the server was given or printed at start)"


async def _refuse_token(send: Send, authorization: bytes) -> None:
    scheme, _, given = authorization.partition(b" ")
    if scheme.lower() == b"bearer" and given.strip():
        # A client with a stale or mistyped token must learn that, not be told to add one.
        await _refuse(send, 401, TOKEN_NOT_VALID, b'Bearer error="invalid_token"')
    else:
        await _refuse(send, 401, TOKEN_REQUIRED, b"Bearer")


async def _refuse(send: Send, status: int, message: str, challenge: bytes = b"") -> None:
    # A JSON-RPC error body: MCP clients show its message (with the status in it)
    # instead of a bare "Server returned an error response".
    error = {"code": REFUSED, "message": f"HTTP {status}: {message}"}
    body = json.dumps({"jsonrpc": "2.0", "id": None, "error": error}).encode()
    headers = [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]
    if challenge:
        headers.append((b"www-authenticate", challenge))
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": body})


def listen(host: str, port: int) -> socket.socket:
    """A bound, listening socket, so that port 0 gets a free port known before serving starts."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    # Small answers must leave at once: without TCP_NODELAY, Nagle's algorithm and the
    # client's delayed ACK hold each response for ~40 ms (48 ms per call instead of 5).
    # Linux hands the option on to every accepted connection; uvicorn does not set it on
    # sockets it is given.
    sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    try:
        sock.bind((host, port))
        # Listening at once queues clients that connect before the app is up.
        sock.listen(128)
    except OSError:
        sock.close()
        raise
    return sock
