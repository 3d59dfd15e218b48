"""The proxy's raw POSTs to an HTTP MCP server read every framing and event stream a server may write.

Each test runs a small HTTP server on 127.0.0.1 that answers with the exact bytes given
(the framings and SSE spellings the rules allow), and checks what ``UpstreamHttp.post``
returns for them.
"""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest

pytest.importorskip("mcp", reason="needs the 'mcp' extra: pip install '.[mcp]' (or 'lagent-like[mcp]')")

from lagent_like.mcp._upstream_http import Refused, UpstreamHttp, UpstreamLost

ANSWER = {"jsonrpc": "2.0", "id": "p-1", "result": {"content": [{"type": "text", "text": "hi"}]}}
TEXT = json.dumps(ANSWER).encode()
PROGRESS = json.dumps({"jsonrpc": "2.0", "method": "notifications/message", "params": {"data": 1}}).encode()


def _chunked(*pieces: bytes) -> bytes:
    body = b"".join(b"%x\r\n%s\r\n" % (len(piece), piece) for piece in pieces)
    return body + b"0\r\n\r\n"


def _sse_head() -> bytes:
    return b"HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ntransfer-encoding: chunked\r\n\r\n"


MULTI_LINE = TEXT.replace(b'"result": ', b'"result":\ndata: ')

ANSWERS = [
    pytest.param(
        b"HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: %d\r\n\r\n%s"
        % (len(TEXT), TEXT),
        TEXT,
        id="json-content-length",
    ),
    pytest.param(
        _sse_head() + _chunked(b"event: message\r\ndata: " + TEXT + b"\r\n\r\n"), TEXT, id="sse-crlf"
    ),
    pytest.param(
        _sse_head()
        + _chunked(b": ping\n\nid: 1\nevent: message\ndata:" + PROGRESS + b"\n\ndata: " + TEXT + b"\n\n"),
        TEXT,
        id="sse-comment-and-notification-first",
    ),
    pytest.param(
        _sse_head() + _chunked(b"data: " + MULTI_LINE + b"\r\n\r\n"),
        MULTI_LINE.replace(b"\ndata: ", b"\n"),
        id="sse-multi-line-data",
    ),
    pytest.param(
        _sse_head() + _chunked(b"data: " + TEXT[:10], TEXT[10:] + b"\r", b"\n\r\n"),
        TEXT,
        id="sse-event-split-across-chunks",
    ),
    pytest.param(_sse_head() + _chunked(b"data: " + TEXT + b"\r\r"), TEXT, id="sse-cr-line-ends"),
    pytest.param(
        b"HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\n"
        b"connection: close\r\n\r\ndata: " + TEXT + b"\n\n",
        TEXT,
        id="sse-after-100-continue-to-close",
    ),
]


async def _serve(answers: list[bytes], seen: list[bytes]) -> tuple[asyncio.AbstractServer, str, list[int]]:
    """A server answering each request with the next of ``answers``; the connections it accepted."""
    connections = [0]

    async def handle(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        connections[0] += 1
        try:
            while answers:
                head = await reader.readuntil(b"\r\n\r\n")
                length = int(head.lower().split(b"content-length: ")[1].split(b"\r\n")[0])
                seen.append(head + await reader.readexactly(length))
                writer.write(answers.pop(0))
                await writer.drain()
        except (asyncio.IncompleteReadError, ConnectionError):
            pass
        finally:
            writer.close()

    server = await asyncio.start_server(handle, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    return server, f"http://127.0.0.1:{port}/mcp", connections


def _post(answers: list[bytes], calls: int = 1) -> tuple[list[Any], list[bytes], int]:
    async def run() -> tuple[list[Any], list[bytes], int]:
        seen: list[bytes] = []
        server, url, connections = await _serve(list(answers), seen)
        http = UpstreamHttp(url)
        results: list[Any] = []
        try:
            for _ in range(calls):
                try:
                    results.append(await http.post(b'{"id":"p-1"}', [("x-test", "1")], "p-1"))
                except (Refused, UpstreamLost) as exc:
                    results.append(exc)
                await asyncio.gather(*http._tasks)  # the rest of the answer is read: the connection is idle
        finally:
            http.close()
            server.close()
            await server.wait_closed()
        return results, seen, connections[0]

    return asyncio.run(run())


@pytest.mark.parametrize(("answer", "expected"), ANSWERS)
def test_the_response_is_read_from_every_framing_and_event_stream(answer: bytes, expected: bytes) -> None:
    [result], seen, _ = _post([answer])
    assert result == expected
    assert seen == [
        b"POST /mcp HTTP/1.1\r\nhost: 127.0.0.1:%d\r\nx-test: 1\r\ncontent-length: 12\r\n\r\n"
        % int(seen[0].split(b"127.0.0.1:")[1].split(b"\r\n")[0])
        + b'{"id":"p-1"}'
    ]


def test_a_kept_alive_connection_carries_the_next_call() -> None:
    answer = _sse_head() + _chunked(b"data: " + TEXT + b"\n\n")
    results, _, connections = _post([answer, answer, answer], calls=3)
    assert results == [TEXT, TEXT, TEXT]
    assert connections == 1


def test_a_status_other_than_200_is_a_refusal() -> None:
    body = b'{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"Session not found"}}'
    [result], _, _ = _post([b"HTTP/1.1 404 Not Found\r\ncontent-length: %d\r\n\r\n%s" % (len(body), body)])
    assert isinstance(result, Refused)
    assert result.status == 404


LOST = [
    pytest.param(_sse_head() + b"20\r\ndata: {", id="ends-mid-chunk"),
    pytest.param(_sse_head() + _chunked(b"data: " + PROGRESS + b"\n\n"), id="stream-ends-without-the-answer"),
    pytest.param(b"", id="no-answer-at-all"),
    pytest.param(
        b"HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: 2\r\n\r\n{}",
        id="json-not-the-answer",
    ),
    pytest.param(
        b"HTTP/1.1 200 OK\r\ncontent-type: text/plain\r\ncontent-length: 2\r\n\r\nhi", id="other-type"
    ),
]


@pytest.mark.parametrize("answer", LOST)
def test_an_answer_that_never_comes_is_lost(answer: bytes) -> None:
    [result], _, _ = _post([answer])
    assert isinstance(result, UpstreamLost)
