"""Whatever the HTTP pass-through cannot read or check, the SDK's app answers, the request untouched."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

pytest.importorskip("mcp", reason="needs the 'mcp' extra: pip install '.[mcp]' (or 'lagent-like[mcp]')")

from lagent_like.mcp._http_passthrough import HttpPassThrough
from lagent_like.mcp._passthrough import PassRules
from lagent_like.mcp._sessions import ClientLimits

BODY = b'{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"shout","arguments":{}}}'


class ChangedManager:
    """A session manager without the attributes the pass-through reads (as a changed SDK might have)."""


class BrokenNames:
    """Proxy names whose lookup fails (a bug): the request must still be answered."""

    def inward(self, name: str) -> Any:
        raise RuntimeError("broken lookup")

    @property
    def toolkits(self) -> list[Any]:
        return []


class Manager:
    """The session manager of the SDK as the pass-through reads it, with one open session."""

    max_request_body_size = 1 << 20

    def __init__(self, transport: Any) -> None:
        self._server_instances = {"s1": transport}
        self._session_owners: dict[str, Any] = {}


class Transport:
    """An SDK transport whose checks all pass."""

    is_terminated = False
    idle_scope = None

    class _security:
        @staticmethod
        async def validate_request(request: Any, is_post: bool) -> Any:
            return None

    @staticmethod
    def _check_content_type(request: Any) -> bool:
        return True


def _served(manager: Any, names: Any) -> tuple[list[tuple[bytes, bool]], list[dict[str, Any]]]:
    """What the SDK's app read of the request, and what was sent to the client."""
    read: list[tuple[bytes, bool]] = []
    sent: list[dict[str, Any]] = []

    async def sdk_app(scope: Any, receive: Any, send: Any) -> None:
        message = await receive()
        read.append((message["body"], message["more_body"]))
        await send({"type": "http.response.start", "status": 202, "headers": []})

    async def receive() -> dict[str, Any]:
        return {"type": "http.request", "body": BODY, "more_body": False}

    async def send(message: dict[str, Any]) -> None:
        sent.append(message)

    passing = HttpPassThrough(
        PassRules(names, ClientLimits(None, None), lambda arguments: None, lambda text: {})
    )
    app = passing.wrap(sdk_app, manager)
    passing.bind("s1", "mcp-1", "mcp-1", None)
    headers = [
        (b"mcp-session-id", b"s1"),
        (b"content-length", str(len(BODY)).encode()),
        (b"accept", b"application/json, text/event-stream"),
        (b"content-type", b"application/json"),
    ]
    scope = {"type": "http", "method": "POST", "path": "/mcp", "headers": headers}
    asyncio.run(app(scope, receive, send))
    return read, sent


@pytest.mark.parametrize(
    ("manager", "names"),
    [
        pytest.param(ChangedManager(), BrokenNames(), id="changed-session-manager"),
        pytest.param(Manager(Transport()), BrokenNames(), id="failing-tool-lookup"),
    ],
)
def test_a_request_the_pass_through_cannot_handle_goes_to_the_sdk_whole(manager: Any, names: Any) -> None:
    read, sent = _served(manager, names)
    assert read == [(BODY, False)]
    assert sent == [{"type": "http.response.start", "status": 202, "headers": []}]
