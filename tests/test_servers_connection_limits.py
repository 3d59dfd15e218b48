"""Servers hold before authentication: ``serve-mcp --transport http`` and the inspector, attacked.

An attacker without the token opens connections and never finishes a request head.
Each test does that against a real server on 127.0.0.1 (ephemeral port; other
loopback addresses, 127.0.0.x, stand for other peers), with bounded loops, and
asserts the server's exact answer; waits are reads with a deadline, never sleeps.
Every server and socket is closed at the end.
"""

from __future__ import annotations

import http.client
import os
import re
import select
import socket
import sys
import time
from collections.abc import Iterator
from contextlib import ExitStack
from pathlib import Path
from typing import Any, Callable, NamedTuple

import pytest
from _servers import INITIALIZE_REQUEST, start_announced, stop

pytest.importorskip("uvicorn", reason="needs the 'web' extra: pip install '.[web]' (or 'lagent-like[web]')")

from lagent_like import ActionExecutor, BaseAction, tool_api

TESTS = Path(__file__).resolve().parent
#: Seconds any one wait may take (a deadline, not a pause).
LIMIT = 30
TOKEN = "limits-test-token"
ATTACKER = "127.0.0.1"


class Target(NamedTuple):
    """A running server: its port, and a request that a client with the token sends."""

    port: int
    method: str
    path: str
    body: bytes
    headers: dict[str, str]


class LimitsEcho(BaseAction, register=False):
    """Echo for the limits tests."""

    @tool_api
    def run(self, text: str) -> str:
        """Echo a text.

        Args:
            text: the text
        """
        return text


INITIALIZE = INITIALIZE_REQUEST.encode()


def _serve_mcp(stack: ExitStack, *options: str) -> Target:
    pytest.importorskip("mcp", reason="needs the 'mcp' extra: pip install '.[mcp]' (or 'lagent-like[mcp]')")
    command = [sys.executable, "-m", "lagent_like", "-m", "mcp_tools", "serve-mcp", "--tools", "McpEcho"]
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join([str(TESTS), os.environ.get("PYTHONPATH", "")]),
        "LAGENT_LIKE_MCP_TOKEN": TOKEN,
    }
    proc, url = start_announced([*command, "--transport", "http", "--port", "0", *options], env)
    stack.callback(stop, proc)
    headers = {
        "Authorization": f"Bearer {TOKEN}",
        "Content-Type": "application/json",
        "Accept": "application/json, text/event-stream",
    }
    return Target(int(url.split(":")[2].split("/")[0]), "POST", "/mcp", INITIALIZE, headers)


def _serve_inspector(stack: ExitStack, *options: str) -> Target:
    pytest.importorskip(
        "starlette", reason="needs the 'web' extra: pip install '.[web]' (or 'lagent-like[web]')"
    )
    from lagent_like.web import InspectorServer

    names = {"--max-connections": "max_connections", "--max-connections-per-peer": "max_connections_per_peer"}
    pairs = dict(zip(options[::2], options[1::2]))
    kwargs: dict[str, Any] = {names[k]: int(v) for k, v in pairs.items() if k in names}
    if "--head-timeout" in pairs:
        kwargs["head_timeout"] = float(pairs["--head-timeout"])
    server = InspectorServer(ActionExecutor([LimitsEcho()]), token=TOKEN, **kwargs).start()
    stack.callback(server.stop)
    assert server.port is not None
    return Target(server.port, "GET", "/api/tools", b"", {"Authorization": f"Bearer {TOKEN}"})


SERVERS = [pytest.param(_serve_mcp, id="serve-mcp"), pytest.param(_serve_inspector, id="inspector")]
Serve = Callable[..., Target]


@pytest.fixture
def stack() -> Iterator[ExitStack]:
    with ExitStack() as opened:
        yield opened


def _connect(stack: ExitStack, port: int, source: str = ATTACKER) -> socket.socket:
    sock = socket.create_connection(("127.0.0.1", port), timeout=LIMIT, source_address=(source, 0))
    stack.callback(sock.close)
    return sock


def _read_until_closed(sock: socket.socket) -> bytes:
    """Everything the server sends until it closes the connection (or LIMIT passes)."""
    received = b""
    while chunk := sock.recv(65536):
        received += chunk
    return received


def _answer(target: Target, source: str) -> int:
    """The status a client with the token gets, connecting from ``source``."""
    connection = http.client.HTTPConnection(
        "127.0.0.1", target.port, timeout=LIMIT, source_address=(source, 0)
    )
    try:
        connection.request(target.method, target.path, body=target.body or None, headers=target.headers)
        response = connection.getresponse()
        response.read()
        return response.status
    finally:
        connection.close()


def _refusal(status: str, message: str) -> bytes:
    body = message.encode() + b"\n"
    return (
        f"HTTP/1.1 {status}\r\ncontent-type: text/plain; charset=utf-8\r\n"
        f"content-length: {len(body)}\r\nconnection: close\r\n\r\n"
    ).encode() + body


HALF_HEAD = b"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: appl"


@pytest.mark.parametrize("serve", SERVERS)
def test_half_sent_heads_from_one_address_do_not_starve_another(serve: Serve, stack: ExitStack) -> None:
    target = serve(stack, "--max-connections-per-peer", "8", "--head-timeout", "600")
    held = [_connect(stack, target.port) for _ in range(8)]
    for sock in held:
        sock.sendall(HALF_HEAD)
    # Over the cap: answered and closed at once, before anything is read.
    over = [_read_until_closed(_connect(stack, target.port)) for _ in range(4)]
    assert (
        over
        == [
            _refusal(
                "429 Too Many Requests",
                f"too many connections from {ATTACKER}: this server takes 8 per address",
            )
        ]
        * 4
    )
    assert _answer(target, "127.0.0.3") == 200
    # The held connections were neither answered nor closed.
    assert select.select(held, [], [], 0)[0] == []
    # Once they close, the address is served again (the server learns of it soon after).
    for sock in held:
        sock.close()
    assert _answered_before_the_deadline(target, ATTACKER) == 200


def _answered_before_the_deadline(target: Target, source: str) -> int:
    """The status of the first request from ``source`` that is not refused, polling until LIMIT."""
    deadline = time.monotonic() + LIMIT
    while True:
        try:
            status = _answer(target, source)
        except OSError:  # refused at once: the reset can beat the 429 to the client
            status = 429
        if status != 429 or time.monotonic() > deadline:
            return status


@pytest.mark.parametrize("serve", SERVERS)
def test_the_default_limits_hold_a_flood_of_half_sent_heads(serve: Serve, stack: ExitStack) -> None:
    # The default caps; a long head timeout, so that no held head expires on a slow machine.
    target = serve(stack, "--head-timeout", "600")
    held = [_connect(stack, target.port) for _ in range(64)]
    for sock in held:
        sock.sendall(HALF_HEAD)
    over = {_read_until_closed(_connect(stack, target.port)) for _ in range(36)}
    assert over == {
        _refusal(
            "429 Too Many Requests", f"too many connections from {ATTACKER}: this server takes 64 per address"
        )
    }
    assert _answer(target, "127.0.0.3") == 200


@pytest.mark.parametrize("serve", SERVERS)
def test_connections_over_the_total_are_answered_503(serve: Serve, stack: ExitStack) -> None:
    target = serve(
        stack, "--max-connections", "6", "--max-connections-per-peer", "3", "--head-timeout", "600"
    )
    for source in ("127.0.0.1", "127.0.0.1", "127.0.0.1", "127.0.0.4", "127.0.0.4", "127.0.0.5"):
        _connect(stack, target.port, source).sendall(HALF_HEAD)
    refused = _read_until_closed(_connect(stack, target.port, "127.0.0.3"))
    assert refused == _refusal("503 Service Unavailable", "too many connections: this server takes 6")


def _nothing(sock: socket.socket, target: Target) -> bytes:
    return b""


def _half_head(sock: socket.socket, target: Target) -> bytes:
    sock.sendall(HALF_HEAD)
    return b""


def _after_an_answer(sock: socket.socket, target: Target) -> bytes:
    # A whole request without the token is answered 401; the connection stays open for
    # the next request, whose head then never finishes.
    sock.sendall(f"GET {target.path} HTTP/1.1\r\nHost: 127.0.0.1:{target.port}\r\n\r\n".encode())
    sock.sendall(b"GET / HTTP/1.1\r\nHo")
    return b"HTTP/1.1 401 "


@pytest.mark.parametrize("serve", SERVERS)
@pytest.mark.parametrize(
    "attack",
    [
        pytest.param(_nothing, id="nothing-sent"),
        pytest.param(_half_head, id="half-a-head"),
        pytest.param(_after_an_answer, id="half-a-second-head"),
    ],
)
def test_a_head_that_does_not_finish_is_answered_408_and_closed(
    serve: Serve, attack: Callable[[socket.socket, Target], bytes], stack: ExitStack
) -> None:
    target = serve(stack, "--head-timeout", "0.5")
    sock = _connect(stack, target.port)
    first = attack(sock, target)
    received = _read_until_closed(sock)
    timeout = _refusal("408 Request Timeout", "the request head did not arrive within 0.5 s")
    assert received.startswith(first) and received.endswith(timeout)
    assert received.count(b"HTTP/1.1 ") == (2 if first else 1)
    # The slot is free again: a client with the token is served.
    assert _answer(target, ATTACKER) == 200


@pytest.mark.parametrize(
    ("options", "message"),
    [
        pytest.param(
            ["--head-timeout", "0"],
            "argument --head-timeout: must be a number above 0, got '0'",
            id="zero-timeout",
        ),
        pytest.param(
            ["--max-connections", "-1"],
            "argument --max-connections: must be a number above 0, got '-1'",
            id="negative",
        ),
        pytest.param(
            ["--max-connections-per-peer", "x"],
            "argument --max-connections-per-peer: must be a number above 0, got 'x'",
            id="not-a-number",
        ),
    ],
)
def test_serve_mcp_refuses_limits_that_are_not_positive(
    options: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    from lagent_like.cli import main

    with pytest.raises(SystemExit) as exited:
        main(["serve-mcp", "--transport", "http", *options])
    assert exited.value.code == 2
    assert capsys.readouterr().err.splitlines()[-1] == f"lagent-like serve-mcp: error: {message}"


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        pytest.param(
            {"head_timeout": 0}, "head_timeout must be a positive number of seconds, got 0", id="timeout"
        ),
        pytest.param({"max_connections": 0}, "max_connections must be a positive integer, got 0", id="total"),
        pytest.param(
            {"max_connections_per_peer": 2.5},
            "max_connections_per_peer must be a positive integer, got 2.5",
            id="per-peer",
        ),
    ],
)
def test_inspector_refuses_limits_that_are_not_positive(arguments: dict[str, Any], message: str) -> None:
    pytest.importorskip(
        "starlette", reason="needs the 'web' extra: pip install '.[web]' (or 'lagent-like[web]')"
    )
    from lagent_like.web import InspectorServer

    with pytest.raises(ValueError, match=f"^{re.escape(message)}$"):
        InspectorServer(ActionExecutor([LimitsEcho()]), **arguments)
