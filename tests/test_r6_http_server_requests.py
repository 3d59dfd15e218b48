"""A server's requests on a passed call's stream are answered as the SDK path answers them.

While it runs a tool, a streamable-HTTP server may ask the client something on the
call's own event stream (a ping; sampling, elicitation or roots, which the proxy's
client does not offer). Through ``serve-mcp --transport http`` a passed call used to
leave such a request unanswered, so the tool waited until the call timed out; now the
proxy answers it as its SDK client session does on the slow path. Real processes on
127.0.0.1, as in ``test_r5_http_passthrough.py``.
"""

from __future__ import annotations

from typing import Any

import pytest

pytest.importorskip("mcp", reason="needs the 'mcp' extra: pip install '.[mcp]' (or 'lagent-like[mcp]')")

from test_r5_http_passthrough import Setup, session_calls, setup, stdio_setup  # noqa: F401 - the fixtures

from lagent_like.mcp._upstream_http import client_reply

#: What the upstream's ``ask`` tool reports when a client without callbacks answers it.
ANSWERED = (
    "ping: answered\n"
    "roots/list: error -32600 List roots not supported\n"
    "sampling/createMessage: error -32600 Sampling not supported\n"
    "elicitation/create: error -32600 Elicitation not supported"
)


def test_a_passed_call_answers_the_servers_requests_on_its_stream(setup: Setup) -> None:  # noqa: F811
    url = setup.proxy(env={"R5_TOOL_TIMEOUT": "30"})
    proxied = session_calls(url, [("ask", {})])
    direct = session_calls(setup.upstream_url, [("ask", {})], token=None)
    assert proxied == direct
    assert proxied[0][0]["content"] == [{"type": "text", "text": ANSWERED}]
    assert proxied[0][0]["isError"] is False
    assert setup.counts() == {"passed": 1, "forwarded": 0}


def test_the_sdk_path_answers_the_servers_requests_the_same(setup: Setup) -> None:  # noqa: F811
    url = setup.proxy()
    slow = session_calls(url, [("ask", {})], progress=True)  # a progress token: the SDK path
    assert slow[0][0]["content"] == [{"type": "text", "text": ANSWERED}]
    assert setup.counts() == {"passed": 0, "forwarded": 1}


def test_a_stdio_upstreams_requests_on_a_passed_call_are_answered_too(stdio_setup: Setup) -> None:  # noqa: F811
    url = stdio_setup.proxy(env={"R5_TOOL_TIMEOUT": "30"})
    proxied = session_calls(url, [("ask", {})])
    assert proxied[0][0]["content"] == [{"type": "text", "text": ANSWERED}]
    assert stdio_setup.counts() == {"passed": 1, "forwarded": 0}


@pytest.mark.parametrize(
    ("request_", "reply"),
    [
        pytest.param(
            {"jsonrpc": "2.0", "id": 4, "method": "ping"},
            {"jsonrpc": "2.0", "id": 4, "result": {}},
            id="ping",
        ),
        pytest.param(
            {"jsonrpc": "2.0", "id": "s", "method": "sampling/createMessage", "params": {}},
            {"jsonrpc": "2.0", "id": "s", "error": {"code": -32600, "message": "Sampling not supported"}},
            id="sampling",
        ),
        pytest.param(
            {"jsonrpc": "2.0", "id": 5, "method": "elicitation/create"},
            {"jsonrpc": "2.0", "id": 5, "error": {"code": -32600, "message": "Elicitation not supported"}},
            id="elicitation",
        ),
        pytest.param(
            {"jsonrpc": "2.0", "id": 6, "method": "roots/list"},
            {"jsonrpc": "2.0", "id": 6, "error": {"code": -32600, "message": "List roots not supported"}},
            id="roots",
        ),
        pytest.param(
            {"jsonrpc": "2.0", "id": 7, "method": "tasks/unknown"},
            {
                "jsonrpc": "2.0",
                "id": 7,
                "error": {"code": -32601, "message": "Method not found", "data": "tasks/unknown"},
            },
            id="unknown-method",
        ),
    ],
)
def test_the_proxys_reply_to_each_server_request(request_: dict[str, Any], reply: dict[str, Any]) -> None:
    assert client_reply(request_) == reply
