"""A fake OpenAI-compatible chat server, so model clients and agents are tested offline.

It is a real :class:`http.server.ThreadingHTTPServer` on 127.0.0.1 (an ephemeral port)
in a daemon thread, answering ``POST /v1/chat/completions`` from a script of replies
in OpenAI's response format, whole or streamed as server-sent events. Every request is
recorded, so a test can check what a client sent::

    with FakeOpenAIServer(["Hello!", {"tool_calls": [{"name": "Calc.add", "arguments": '{"a": 1}'}]}]) as server:
        client = OpenAIChat("fake-model", base_url=server.base_url)
        ...
        assert server.requests[0]["messages"] == [...]

A reply is one of:

* a string: the assistant's text;
* a dict with any of these keys:

  - ``content``: the assistant's text (``None`` or absent with tool calls);
  - ``tool_calls``: ``[{"name": ..., "arguments": str or dict, "id": optional}]``; ids
    default to ``call_0``, ``call_1``... counted across the whole server;
  - ``chunks``: how ``content`` is cut into streamed deltas (default: word by word);
  - ``finish_reason``: default ``'tool_calls'`` with tool calls, else ``'stop'``;
  - ``status``: an HTTP status (default 200, or 400 with ``error``); an error status
    answers ``{"error": {"message": ...}}``;
  - ``error``: the message of that error body;
  - ``body``: a raw body to send instead (with ``content_type``, default ``text/plain``);
  - ``headers``: extra response headers, e.g. ``{"Retry-After": "0"}``;
  - ``delay``: seconds to wait before answering (a slow server);
  - ``drop``: ``True`` closes the connection without answering;

* a callable taking the request body (a dict) and returning one of the above.

The script is a list of replies used in order (a request after the last one is
answered with HTTP 500 and a message saying so), or one callable used for every request.

Run as a program (``python tests/fake_openai_server.py --script FILE.json``), it serves
the JSON list of replies in FILE, prints its base URL as the first line of stdout and
serves until it is terminated; ``--record FILE`` appends each request body to FILE as a
line of JSON.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import re
import signal
import socket
import sys
import threading
import time
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any, Callable, Optional, TextIO, Union

__all__ = ["FakeOpenAIServer", "RecordedRequest", "Reply", "Script"]

#: One scripted answer (see the module docstring).
Reply = Union[str, Mapping[str, Any], Callable[[dict[str, Any]], Any]]

#: A list of replies used in order, or one callable answering every request.
Script = Union[Sequence[Reply], Callable[[dict[str, Any]], Any]]

CHAT_PATH = "/v1/chat/completions"
MODELS_PATH = "/v1/models"


@dataclass
class RecordedRequest:
    """One request the server received.

    Attributes:
        method: ``'POST'``, ``'GET'``...
        path: the path, without the query string.
        headers: the request headers (names as sent).
        body: the body parsed as JSON, or its text if it is not JSON (``''`` if none).
    """

    method: str
    path: str
    headers: dict[str, str]
    body: Any


@dataclass
class _Answer:
    """What the handler sends back: a status, headers and a body (or a stream of events)."""

    status: int
    body: bytes = b""
    content_type: str = "application/json"
    headers: dict[str, str] = field(default_factory=dict)
    events: Optional[list[dict[str, Any]]] = None
    delay: float = 0.0
    drop: bool = False


def _json_bytes(data: Any) -> bytes:
    return json.dumps(data, ensure_ascii=False).encode("utf-8")


def _error_body(message: str, status: int) -> bytes:
    kind = "invalid_request_error" if status < 500 else "server_error"
    return _json_bytes({"error": {"message": message, "type": kind, "param": None, "code": None}})


def _words(text: str) -> list[str]:
    """``text`` cut into word-sized deltas that join back to exactly ``text``."""
    return re.findall(r"\S+\s*|\s+", text)


def _count_tokens(messages: Any) -> int:
    """A rough prompt size: the words in every message's text content."""
    if not isinstance(messages, list):
        return 0
    return sum(len(str(m.get("content") or "").split()) for m in messages if isinstance(m, dict))


class FakeOpenAIServer:
    """A scripted OpenAI-compatible server on 127.0.0.1, started and stopped as a context manager.

    Args:
        script: the replies (see the module docstring).
        model: the model name reported when a request names none, and by ``GET /v1/models``.
        port: the port to listen on; ``0`` picks a free one.
        record_to: a text file each request body is written to as a line of JSON.

    Attributes:
        received: every request, in order of arrival.
        replies_used: how many scripted replies have been consumed.
    """

    def __init__(
        self,
        script: Script = (),
        *,
        model: str = "fake-model",
        port: int = 0,
        record_to: Optional[TextIO] = None,
    ) -> None:
        self.script = script
        self.model = model
        self.received: list[RecordedRequest] = []
        self.replies_used = 0
        self._port = port
        self._record_to = record_to
        self._lock = threading.Lock()
        self._next_call_id = 0
        self._stop = threading.Event()
        self._connections: set[socket.socket] = set()
        self._httpd: Optional[ThreadingHTTPServer] = None
        self._thread: Optional[threading.Thread] = None
        self._base_url: Optional[str] = None

    # -- what tests read ---------------------------------------------------------------

    @property
    def base_url(self) -> str:
        """``http://127.0.0.1:PORT/v1``, the ``base_url`` a client is given."""
        if self._base_url is None:
            raise RuntimeError("FakeOpenAIServer was never started: use it in a 'with' block")
        return self._base_url

    @property
    def requests(self) -> list[Any]:
        """The body of every chat-completion request, parsed, in order."""
        with self._lock:
            return [r.body for r in self.received if r.path == CHAT_PATH]

    @property
    def headers(self) -> list[dict[str, str]]:
        """The headers of every chat-completion request, in order."""
        with self._lock:
            return [r.headers for r in self.received if r.path == CHAT_PATH]

    @property
    def hits(self) -> int:
        """How many chat-completion requests arrived."""
        return len(self.requests)

    # -- life cycle --------------------------------------------------------------------

    def start(self) -> FakeOpenAIServer:
        """Listen and serve in a daemon thread; returns ``self``."""
        httpd = ThreadingHTTPServer(("127.0.0.1", self._port), _handler_for(self))
        httpd.daemon_threads = True
        self._httpd = httpd
        host, port = httpd.server_address[:2]
        # Kept after stop(), so that tests can still build the messages they expect.
        self._base_url = f"http://{host!s}:{port}/v1"
        # A short poll interval: shutdown() waits for the serving loop's next poll.
        self._thread = threading.Thread(
            target=httpd.serve_forever, args=(0.02,), name="fake-openai-server", daemon=True
        )
        self._thread.start()
        return self

    def stop(self) -> None:
        """Stop serving: cut short slow replies and open connections, then close the socket."""
        httpd, self._httpd = self._httpd, None
        if httpd is None:
            return
        self._stop.set()
        httpd.shutdown()
        with self._lock:
            connections = list(self._connections)
        for connection in connections:
            # Wakes handler threads blocked on a client that keeps its connection open.
            with contextlib.suppress(OSError):
                connection.shutdown(socket.SHUT_RDWR)
        httpd.server_close()
        if self._thread is not None:
            self._thread.join()

    def __enter__(self) -> FakeOpenAIServer:
        return self.start()

    def __exit__(self, *exc_info: object) -> None:
        self.stop()

    # -- answering ---------------------------------------------------------------------

    def _record(self, request: RecordedRequest) -> None:
        with self._lock:
            self.received.append(request)
            if self._record_to is not None and request.path == CHAT_PATH:
                self._record_to.write(json.dumps(request.body, ensure_ascii=False) + "\n")
                self._record_to.flush()

    def _track(self, connection: socket.socket, is_open: bool) -> None:
        with self._lock:
            if is_open:
                self._connections.add(connection)
            else:
                self._connections.discard(connection)

    def _next_reply(self, body: dict[str, Any]) -> Optional[Any]:
        """The scripted reply for this request, or ``None`` when the script is spent."""
        with self._lock:
            if callable(self.script):
                self.replies_used += 1
                reply: Any = self.script
            elif self.replies_used < len(self.script):
                reply = self.script[self.replies_used]
                self.replies_used += 1
            else:
                return None
        # Called outside the lock: a dynamic script may take its time.
        return reply(body) if callable(reply) else reply

    def _call_ids(self, count: int) -> list[str]:
        with self._lock:
            first, self._next_call_id = self._next_call_id, self._next_call_id + count
        return [f"call_{first + i}" for i in range(count)]

    def answer_chat(self, body: Any) -> _Answer:
        """The answer to one ``POST /v1/chat/completions`` with ``body``."""
        if not isinstance(body, dict):
            return _Answer(400, _error_body("fake server: the request body is not a JSON object", 400))
        reply = self._next_reply(body)
        if reply is None:
            used = self.replies_used
            message = (
                f"fake server: script exhausted: all {used} replies used, none left for request {used + 1}"
            )
            return _Answer(500, _error_body(message, 500))
        spec: Mapping[str, Any] = {"content": reply} if isinstance(reply, str) else reply
        answer = self._error_answer(spec) or self._completion_answer(spec, body)
        answer.headers.update(spec.get("headers") or {})
        answer.delay = float(spec.get("delay") or 0.0)
        answer.drop = bool(spec.get("drop"))
        return answer

    def _error_answer(self, spec: Mapping[str, Any]) -> Optional[_Answer]:
        """The answer for a reply with a raw body or an error status; ``None`` for a completion."""
        status = int(spec.get("status") or (400 if "error" in spec else 200))
        if "body" in spec:
            raw = spec["body"]
            data = raw.encode("utf-8") if isinstance(raw, str) else bytes(raw)
            return _Answer(status, data, str(spec.get("content_type") or "text/plain; charset=utf-8"))
        if status < 400:
            return None
        message = str(spec.get("error") or f"fake server: scripted HTTP {status}")
        return _Answer(status, _error_body(message, status))

    def _completion_answer(self, spec: Mapping[str, Any], body: dict[str, Any]) -> _Answer:
        """A chat completion, whole or as stream events, as the request asked."""
        calls = list(spec.get("tool_calls") or [])
        ids = self._call_ids(len(calls))
        tool_calls = [
            {
                "id": str(call.get("id") or call_id),
                "type": "function",
                "function": {
                    "name": call["name"],
                    "arguments": call["arguments"]
                    if isinstance(call.get("arguments"), str)
                    else json.dumps(call.get("arguments") or {}),
                },
            }
            for call, call_id in zip(calls, ids)
        ]
        content = spec.get("content")
        if content is None and not tool_calls:
            content = ""
        finish_reason = spec.get("finish_reason") or ("tool_calls" if tool_calls else "stop")
        common = {
            "id": f"chatcmpl-fake-{len(self.received)}",
            "created": int(time.time()),
            "model": body.get("model") or self.model,
        }
        prompt_tokens = _count_tokens(body.get("messages"))
        completion_tokens = len(str(content or "").split())
        usage = {
            "prompt_tokens": prompt_tokens,
            "completion_tokens": completion_tokens,
            "total_tokens": prompt_tokens + completion_tokens,
        }
        if body.get("stream"):
            events = list(_stream_chunks(common, content, spec.get("chunks"), tool_calls, finish_reason))
            options = body.get("stream_options")
            if isinstance(options, dict) and options.get("include_usage"):
                events.append({**common, "object": "chat.completion.chunk", "choices": [], "usage": usage})
            return _Answer(200, content_type="text/event-stream", events=events)
        message: dict[str, Any] = {"role": "assistant", "content": content}
        if tool_calls:
            message["tool_calls"] = tool_calls
        completion = {
            **common,
            "object": "chat.completion",
            "choices": [{"index": 0, "message": message, "logprobs": None, "finish_reason": finish_reason}],
            "usage": usage,
        }
        return _Answer(200, _json_bytes(completion))


def _stream_chunks(
    common: Mapping[str, Any],
    content: Optional[str],
    chunks: Optional[Sequence[str]],
    tool_calls: Sequence[Mapping[str, Any]],
    finish_reason: str,
) -> Iterator[dict[str, Any]]:
    """OpenAI's ``chat.completion.chunk`` events for one reply: role, text, tool calls, finish."""

    def chunk(delta: dict[str, Any], finish: Optional[str] = None) -> dict[str, Any]:
        choice = {"index": 0, "delta": delta, "logprobs": None, "finish_reason": finish}
        return {**common, "object": "chat.completion.chunk", "choices": [choice]}

    yield chunk({"role": "assistant", "content": ""})
    for piece in chunks if chunks is not None else _words(content or ""):
        yield chunk({"content": piece})
    for index, call in enumerate(tool_calls):
        function = call["function"]
        head = {"index": index, "id": call["id"], "type": "function"}
        yield chunk({"tool_calls": [{**head, "function": {"name": function["name"], "arguments": ""}}]})
        # Arguments arrive in pieces, as real servers send them.
        arguments = function["arguments"]
        half = len(arguments) // 2
        for piece in (arguments[:half], arguments[half:]):
            if piece:
                yield chunk({"tool_calls": [{"index": index, "function": {"arguments": piece}}]})
    yield chunk({}, finish_reason)


def _handler_for(server: FakeOpenAIServer) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        # HTTP/1.1 for chunked streaming; every answer closes its connection all the same,
        # so no handler thread outlives its request.
        protocol_version = "HTTP/1.1"

        def setup(self) -> None:
            super().setup()
            server._track(self.connection, True)

        def finish(self) -> None:
            server._track(self.connection, False)
            super().finish()

        def _read_body(self) -> Any:
            length = int(self.headers.get("Content-Length") or 0)
            text = self.rfile.read(length).decode("utf-8", errors="replace") if length else ""
            try:
                return json.loads(text)
            except ValueError:
                return text

        def do_POST(self) -> None:
            path = self.path.partition("?")[0]
            body = self._read_body()
            server._record(RecordedRequest(self.command, path, dict(self.headers), body))
            if path != CHAT_PATH:
                self._send(_Answer(404, _error_body(f"fake server: no route POST {path}", 404)))
                return
            self._send(server.answer_chat(body))

        def do_GET(self) -> None:
            path = self.path.partition("?")[0]
            server._record(RecordedRequest(self.command, path, dict(self.headers), ""))
            if path != MODELS_PATH:
                self._send(_Answer(404, _error_body(f"fake server: no route GET {path}", 404)))
                return
            models = {"object": "list", "data": [{"id": server.model, "object": "model", "owned_by": "fake"}]}
            self._send(_Answer(200, _json_bytes(models)))

        def _send(self, answer: _Answer) -> None:
            self.close_connection = True
            # The wait ends early when the server stops, so no test waits on a slow reply.
            if answer.delay and server._stop.wait(answer.delay):
                return
            if answer.drop:
                return
            self.send_response(answer.status)
            self.send_header("Content-Type", answer.content_type)
            self.send_header("Connection", "close")
            for name, value in answer.headers.items():
                self.send_header(name, str(value))
            if answer.events is None:
                self.send_header("Content-Length", str(len(answer.body)))
                self.end_headers()
                self.wfile.write(answer.body)
                return
            self.send_header("Cache-Control", "no-cache")
            self.send_header("Transfer-Encoding", "chunked")
            self.end_headers()
            for event in answer.events:
                self._write_chunk(b"data: " + _json_bytes(event) + b"\n\n")
            self._write_chunk(b"data: [DONE]\n\n")
            self.wfile.write(b"0\r\n\r\n")

        def _write_chunk(self, data: bytes) -> None:
            self.wfile.write(f"{len(data):x}\r\n".encode() + data + b"\r\n")
            self.wfile.flush()

        def log_message(self, format: str, *args: Any) -> None:
            pass

    return Handler


def main(argv: Optional[Sequence[str]] = None) -> int:
    """Serve a JSON script until terminated, printing the base URL first."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--script", type=Path, required=True, help="a JSON file: a list of replies")
    parser.add_argument("--record", type=Path, help="append each request body to this file as JSON")
    parser.add_argument("--port", type=int, default=0, help="the port (default: a free one)")
    parser.add_argument("--model", default="fake-model", help="the model name reported")
    args = parser.parse_args(argv)
    script = json.loads(args.script.read_text(encoding="utf-8"))
    if not isinstance(script, list):
        parser.error(f"{args.script}: the script must be a JSON list of replies")
    stopped = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: stopped.set())
    record_to = args.record.open("a", encoding="utf-8") if args.record else None
    try:
        with FakeOpenAIServer(script, model=args.model, port=args.port, record_to=record_to) as server:
            print(server.base_url, flush=True)
            with contextlib.suppress(KeyboardInterrupt):
                stopped.wait()
    finally:
        if record_to is not None:
            record_to.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
