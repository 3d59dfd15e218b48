"""The connection gate takes any stream transport, not only asyncio's own classes (uvloop's too)."""

from __future__ import annotations

import asyncio
from typing import Any, ClassVar, Optional, cast

from lagent_like._private.connection_gate import ConnectionGate, _GatedProtocol


class DuckTransport:
    """A stream transport that, like uvloop's, does not derive from ``asyncio.Transport``."""

    def __init__(self, peer: tuple[str, int]) -> None:
        self.peer = peer
        self.written: list[bytes] = []
        self.closed = False

    def get_extra_info(self, name: str, default: Any = None) -> Any:
        return self.peer if name == "peername" else default

    def write(self, data: bytes) -> None:
        self.written.append(data)

    def close(self) -> None:
        self.closed = True

    def is_closing(self) -> bool:
        return self.closed


class RecordingProtocol(asyncio.Protocol):
    """The inner HTTP protocol: records the transport it was handed and the bytes it got."""

    made: ClassVar[list[Any]] = []
    data: ClassVar[list[bytes]] = []

    def connection_made(self, transport: Any) -> None:
        RecordingProtocol.made.append(transport)

    def data_received(self, data: bytes) -> None:
        RecordingProtocol.data.append(data)

    def connection_lost(self, exc: Optional[Exception]) -> None:
        pass


def gated_protocol(gate: ConnectionGate) -> type[_GatedProtocol]:
    return type("Gated", (_GatedProtocol,), {"gate": gate, "inner": RecordingProtocol})


def test_a_transport_not_derived_from_asyncio_transport_is_admitted_and_handed_on() -> None:
    RecordingProtocol.made.clear()
    RecordingProtocol.data.clear()

    async def connect() -> tuple[DuckTransport, _GatedProtocol]:
        transport = DuckTransport(("127.0.0.1", 50000))
        protocol = gated_protocol(ConnectionGate())()
        protocol.connection_made(cast(asyncio.BaseTransport, transport))
        protocol.data_received(b"GET / HTTP/1.1\r\n")
        protocol.connection_lost(None)
        return transport, protocol

    transport, _ = asyncio.run(connect())
    assert RecordingProtocol.made == [transport]
    assert RecordingProtocol.data == [b"GET / HTTP/1.1\r\n"]
    assert transport.written == [] and not transport.closed


def test_a_transport_not_derived_from_asyncio_transport_is_refused_over_the_limit() -> None:
    RecordingProtocol.made.clear()

    async def connect() -> list[DuckTransport]:
        kind = gated_protocol(ConnectionGate(max_connections=1))
        first, second = DuckTransport(("127.0.0.1", 50001)), DuckTransport(("127.0.0.1", 50002))
        kind().connection_made(cast(asyncio.BaseTransport, first))
        kind().connection_made(cast(asyncio.BaseTransport, second))
        return [first, second]

    first, second = asyncio.run(connect())
    assert RecordingProtocol.made == [first]
    assert second.closed
    assert second.written[0].startswith(b"HTTP/1.1 503 Service Unavailable\r\n")
    assert b"too many connections: this server takes 1" in second.written[0]
