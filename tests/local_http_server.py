"""A local HTTP server for the HTTP tools' tests: 127.0.0.1, an ephemeral port, a thread.

Each test sets, per path, the status, body, headers and delay it answers with, and reads
back what arrived. No request leaves 127.0.0.1.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Union

import pytest


@dataclass
class Reply:
    status: int = 200
    body: Union[str, bytes] = b""
    delay: float = 0.0
    content_type: str = "application/json"
    headers: dict[str, str] = field(default_factory=dict)


@dataclass
class LocalServer:
    """What the handler answers (per path) and what it received."""

    base: str
    replies: dict[str, Reply] = field(default_factory=dict)
    requests: list[dict[str, Any]] = field(default_factory=list)
    stop: threading.Event = field(default_factory=threading.Event)

    def count(self, path: str) -> int:
        return sum(1 for r in self.requests if r["path"] == path)


def _handler(server: LocalServer) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def _answer(self) -> None:
            path, _, query = self.path.partition("?")
            length = int(self.headers.get("Content-Length") or 0)
            body = self.rfile.read(length) if length else b""
            server.requests.append(
                {
                    "method": self.command,
                    "path": path,
                    "query": query,
                    "headers": dict(self.headers),
                    "body": body,
                }
            )
            reply = server.replies.get(path, Reply(404, b"no such page", content_type="text/plain"))
            if reply.delay and server.stop.wait(reply.delay):
                return
            data = reply.body.encode() if isinstance(reply.body, str) else reply.body
            self.send_response(reply.status)
            self.send_header("Content-Type", reply.content_type)
            self.send_header("Content-Length", str(len(data)))
            for name, value in reply.headers.items():
                self.send_header(name, value)
            self.end_headers()
            self.wfile.write(data)

        do_GET = _answer
        do_POST = _answer

        def log_message(self, format: str, *args: Any) -> None:
            pass

    return Handler


@pytest.fixture
def server() -> Iterator[LocalServer]:
    local = LocalServer(base="")
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), _handler(local))
    httpd.daemon_threads = True
    httpd.block_on_close = False
    local.base = f"http://127.0.0.1:{httpd.server_address[1]}"
    thread = threading.Thread(target=httpd.serve_forever, args=(0.05,), daemon=True)
    thread.start()
    yield local
    local.stop.set()
    httpd.shutdown()
    httpd.server_close()
    thread.join(5)
