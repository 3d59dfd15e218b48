"""``MCPToolkit(url=..., http_client_factory=...)``: the caller's HTTP client carries the connection.

A real ``serve-mcp --transport http`` subprocess on 127.0.0.1 answers; the factory's
client records what it sends, so the test sees that the toolkit used it (with the
token's header) and closed it with the toolkit.
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any, Optional

import pytest

pytest.importorskip("mcp", reason="needs the 'mcp' extra: pip install '.[mcp]' (or 'lagent-like[mcp]')")

import mcp_tools
from _servers import serving
from mcp.shared import _httpx_utils as sdk_http

from lagent_like import ActionExecutor, ActionStatusCode
from lagent_like.mcp import MCPConnectionError, MCPToolkit

TESTS = Path(__file__).resolve().parent
SERVE = [
    *(sys.executable, "-m", "lagent_like", "-m", "mcp_tools", "serve-mcp", "--tools", "McpEcho"),
    *("--transport", "http", "--host", "127.0.0.1", "--port", "0"),
]
ENV = {
    **os.environ,
    "PYTHONPATH": os.pathsep.join([str(TESTS), os.environ.get("PYTHONPATH", "")]),
    "LAGENT_LIKE_MCP_TOKEN": mcp_tools.TOKEN,
}
#: The httpx module the SDK's transport takes clients of (``httpx2`` in SDK 2).
HTTPX: Any = vars(sdk_http).get("httpx2") or vars(sdk_http)["httpx"]


@pytest.fixture(scope="module")
def url() -> Iterator[str]:
    """The URL of a ``serve-mcp`` HTTP server offering ``McpEcho`` (token ``mcp_tools.TOKEN``)."""
    with serving(SERVE, ENV) as served:
        yield served


class RecordingFactory:
    """An ``http_client_factory`` whose clients record each request's JSON-RPC method and token."""

    def __init__(self) -> None:
        self.clients: list[Any] = []
        self.sent: list[tuple[str, Optional[str]]] = []

    def __call__(self, headers: Optional[dict[str, str]] = None, **_: Any) -> Any:
        async def record(request: Any) -> None:
            if request.method == "POST":
                self.sent.append(
                    (json.loads(request.content)["method"], request.headers.get("authorization"))
                )

        client = HTTPX.AsyncClient(headers=headers, event_hooks={"request": [record]})
        self.clients.append(client)
        return client


def test_http_client_factory_builds_the_client_the_toolkit_calls_through_and_closes(url: str) -> None:
    factory = RecordingFactory()
    with MCPToolkit(url=url, token=mcp_tools.TOKEN, timeout=30, http_client_factory=factory) as toolkit:
        ret = ActionExecutor([toolkit])("MCP.McpEcho", '{"text": "pinned"}')
        open_before_close = [client.is_closed for client in factory.clients]
    assert (ret.state, ret.format_result()) == (ActionStatusCode.SUCCESS, "PINNED")
    bearer = f"Bearer {mcp_tools.TOKEN}"
    assert factory.sent == [
        ("initialize", bearer),
        ("notifications/initialized", bearer),
        ("tools/list", bearer),
        ("tools/call", bearer),
    ]
    assert (open_before_close, [client.is_closed for client in factory.clients]) == ([False], [True])


def no_headers() -> Any:
    """A factory that cannot be given the toolkit's headers."""
    return HTTPX.AsyncClient()


@pytest.mark.parametrize(
    ("options", "error", "message"),
    [
        pytest.param(
            {"url": "http://127.0.0.1:9/mcp", "http_client_factory": "httpx.AsyncClient"},
            TypeError,
            "MCPToolkit's http_client_factory must be callable \\(headers=...\\) -> httpx.AsyncClient, got str",
            id="not-callable",
        ),
        pytest.param(
            {"url": "http://127.0.0.1:9/mcp", "http_client_factory": no_headers},
            TypeError,
            "MCPToolkit's http_client_factory must take headers= \\(it is called as factory\\(headers=...\\)\\); "
            "no_headers\\(\\) does not",
            id="takes-no-headers",
        ),
        pytest.param(
            {"command": sys.executable, "http_client_factory": RecordingFactory()},
            ValueError,
            "MCPToolkit's http_client_factory= is used only with url= \\(a streamable-HTTP server\\)",
            id="stdio-server",
        ),
    ],
)
def test_http_client_factory_is_refused_before_connecting(
    options: dict[str, Any], error: type[Exception], message: str
) -> None:
    with pytest.raises(error, match=f"^{message}$"):
        MCPToolkit(**options)


def test_a_factory_returning_no_client_fails_the_connection_naming_the_option() -> None:
    refused = "http://127.0.0.1:9/mcp"  # never reached: the factory's answer is refused first
    with pytest.raises(MCPConnectionError) as raised:
        MCPToolkit(url=refused, http_client_factory=lambda headers=None: {"headers": headers})
    assert str(raised.value) == (
        f"cannot connect to the MCP server {refused}: TypeError: "
        "MCPToolkit's http_client_factory returned dict, not an httpx.AsyncClient"
    )
