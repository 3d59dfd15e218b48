"""``guard``: no connection may leave 127.0.0.0/8 or ::1, and no name is looked up on the network.

Tests that build hostile URLs (private, metadata or disguised addresses) take this
fixture first: a URL that got round a tool's address rule then shows up as an attempt
here, refused before it leaves, never as a packet elsewhere. A stub answers the names
in ``Guard.names``; numeric hosts are parsed locally.
"""

from __future__ import annotations

import ipaddress
import socket
from collections.abc import Iterator
from typing import Any, Callable

import pytest

#: A public address the resolver stub hands out (never connected to: the guard refuses it).
PUBLIC = "93.184.216.34"


class Guard:
    """Connection attempts seen, and the names the resolver stub answers."""

    def __init__(self) -> None:
        self.attempts: list[tuple[str, int]] = []
        self.names: dict[str, Callable[[], list[str]]] = {
            "public.test": lambda: [PUBLIC],
            "mixed.test": lambda: [PUBLIC, "10.0.0.5"],
            "loopback.test": lambda: ["127.0.0.1"],
        }

    def refused(self) -> list[tuple[str, int]]:
        return [a for a in self.attempts if not ipaddress.ip_address(a[0].split("%")[0]).is_loopback]


@pytest.fixture
def guard(monkeypatch: pytest.MonkeyPatch) -> Iterator[Guard]:
    seen = Guard()
    real_connect, real_connect_ex = socket.socket.connect, socket.socket.connect_ex
    real_getaddrinfo = socket.getaddrinfo

    def allowed(address: Any) -> bool:
        seen.attempts.append((str(address[0]), int(address[1])))
        return ipaddress.ip_address(str(address[0]).split("%")[0]).is_loopback

    def connect(self: socket.socket, address: Any) -> None:
        if not allowed(address):
            raise ConnectionRefusedError(f"test guard: no connection to {address}")
        real_connect(self, address)

    def connect_ex(self: socket.socket, address: Any) -> int:
        return real_connect_ex(self, address) if allowed(address) else 111

    def getaddrinfo(
        host: Any, port: Any, family: int = 0, type: int = 0, proto: int = 0, flags: int = 0
    ) -> Any:
        name = host.decode() if isinstance(host, bytes) else str(host)
        if name in seen.names:
            return [
                (
                    socket.AF_INET6 if ":" in a else socket.AF_INET,
                    socket.SOCK_STREAM,
                    6,
                    "",
                    (a, int(port), 0, 0) if ":" in a else (a, int(port)),
                )
                for a in seen.names[name]()
            ]
        # Anything else must be an address already: no lookup leaves the machine.
        return real_getaddrinfo(host, port, family, type, proto, flags | socket.AI_NUMERICHOST)

    monkeypatch.setattr(socket.socket, "connect", connect)
    monkeypatch.setattr(socket.socket, "connect_ex", connect_ex)
    monkeypatch.setattr(socket, "getaddrinfo", getaddrinfo)
    yield seen
