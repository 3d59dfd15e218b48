"""The wire format of OpenAI-style ``/chat/completions``: reading what a server sends back.

Why apart from the client: servers that claim the same API differ in the details (an
object where OpenAI sends a JSON string, content as a list of parts, the pre-tools
``function_call``, calls without ids, four shapes of error body), and streaming splits
one message across many server-sent events. Everything here turns those variants into
the one message shape the client returns, with no I/O and no retries, so each piece
can be read and tested alone; the client (:mod:`lagent_like.llms.openai`) sends the
requests and decides what a malformed answer means.
"""

from __future__ import annotations

import json
import math
import time
from collections.abc import Iterable, Iterator, Mapping
from email.utils import parsedate_to_datetime
from typing import TYPE_CHECKING, Any, Optional

if TYPE_CHECKING:
    import requests

__all__ = [
    "StreamedMessage",
    "assistant_message",
    "body_text",
    "completion_message",
    "error_message",
    "retry_after",
    "sse_data",
]

#: Where error bodies keep their message, tried in order: OpenAI and Ollama
#: (``{"error": {"message"}}``), plain ``{"error": "..."}``, vLLM's flat
#: ``{"object": "error", "message"}``, and FastAPI's ``{"detail"}``.
_ERROR_MESSAGE_PATHS: tuple[tuple[str, ...], ...] = (
    ("error", "message"),
    ("error",),
    ("message",),
    ("detail",),
)


def body_text(response: requests.Response) -> str:
    """The body as text: JSON is UTF-8, and guessing the charset of a large body is slow."""
    return response.content.decode("utf-8", errors="replace")


def error_message(body: str) -> str:
    """The server's explanation in an error body: a known JSON field, else the text itself."""
    try:
        data: Any = json.loads(body)
    except ValueError:
        return body
    for path in _ERROR_MESSAGE_PATHS:
        value = data
        for key in path:
            value = value.get(key) if isinstance(value, dict) else None
        if isinstance(value, str) and value.strip():
            return value
    return body


def retry_after(value: Optional[str]) -> Optional[float]:
    """Seconds asked for by a ``Retry-After`` header (delta-seconds or an HTTP date), if readable."""
    if value is None:
        return None
    try:
        seconds = float(value)
    except ValueError:
        try:
            when = parsedate_to_datetime(value)
        except (TypeError, ValueError):
            return None
        seconds = when.timestamp() - time.time()
    return max(0.0, seconds) if math.isfinite(seconds) else None


def _text_of(content: Any) -> Optional[str]:
    """Message content as text: a string, ``None``, or a list of ``{"type": "text"}`` parts joined."""
    if content is None or isinstance(content, str):
        return content
    if isinstance(content, list):
        return "".join(
            part.get("text", "") for part in content if isinstance(part, dict) and part.get("type") == "text"
        )
    return str(content)


def _arguments_text(arguments: Any) -> str:
    """Tool-call arguments as the JSON string OpenAI sends (some servers send an object)."""
    if arguments is None:
        return ""
    if isinstance(arguments, str):
        return arguments
    return json.dumps(arguments, ensure_ascii=False)


def _tool_call(raw: Mapping[str, Any], index: int) -> dict[str, Any]:
    """One tool call in OpenAI's shape, with an id made up if the server sent none."""
    function = raw.get("function")
    function = function if isinstance(function, Mapping) else {}
    call_id = raw.get("id")
    return {
        "id": call_id if isinstance(call_id, str) and call_id else f"call_{index}",
        "type": "function",
        "function": {
            "name": str(function.get("name") or ""),
            "arguments": _arguments_text(function.get("arguments")),
        },
    }


def assistant_message(raw: Mapping[str, Any]) -> dict[str, Any]:
    """The plain-dict assistant message returned by :meth:`OpenAIChat.chat`."""
    raw_calls = raw.get("tool_calls")
    if not raw_calls and isinstance(raw.get("function_call"), Mapping):
        # The pre-tools API (still spoken by some servers) returns one call, without an id.
        raw_calls = [{"function": raw["function_call"]}]
    calls = [_tool_call(call, i) for i, call in enumerate(raw_calls or []) if isinstance(call, Mapping)]
    message: dict[str, Any] = {"role": "assistant", "content": _text_of(raw.get("content"))}
    if calls:
        message["tool_calls"] = calls
    return message


def completion_message(data: Any) -> Optional[dict[str, Any]]:
    """The assistant message of a parsed chat completion; ``None`` without ``choices[0].message``."""
    choices = data.get("choices") if isinstance(data, dict) else None
    first = choices[0] if isinstance(choices, list) and choices else None
    message = first.get("message") if isinstance(first, dict) else None
    return assistant_message(message) if isinstance(message, dict) else None


def sse_data(lines: Iterable[bytes]) -> Iterator[str]:
    """The ``data`` of each server-sent event, its ``data:`` lines joined by newlines."""
    data: list[str] = []
    for raw in lines:
        line = raw.decode("utf-8", errors="replace")
        if not line:
            if data:
                yield "\n".join(data)
            data = []
            continue
        field, colon, value = line.partition(":")
        # Lines starting with ':' are comments (keep-alives); other fields carry no text.
        if field == "data":
            data.append(value[1:] if colon and value.startswith(" ") else value)
    if data:
        yield "\n".join(data)


class StreamedMessage:
    """Builds the assistant message from streamed chunks, the way the server would have sent it whole."""

    def __init__(self) -> None:
        self.text: list[str] = []
        self.calls: dict[int, dict[str, Any]] = {}

    def add(self, chunk: Mapping[str, Any]) -> str:
        """Take one chunk in; return the text it adds (``''`` for none)."""
        choices = chunk.get("choices")
        # A chunk without choices carries only usage statistics.
        if not isinstance(choices, list) or not choices or not isinstance(choices[0], Mapping):
            return ""
        delta = choices[0].get("delta")
        if not isinstance(delta, Mapping):
            return ""
        for position, call in enumerate(delta.get("tool_calls") or []):
            if isinstance(call, Mapping):
                self._add_call(call, position)
        text = _text_of(delta.get("content")) or ""
        if text:
            self.text.append(text)
        return text

    def _add_call(self, delta: Mapping[str, Any], position: int) -> None:
        index = delta.get("index")
        slot = self.calls.setdefault(index if isinstance(index, int) else position, {"function": {}})
        if delta.get("id"):
            slot["id"] = delta["id"]
        function = delta.get("function")
        if not isinstance(function, Mapping):
            return
        if function.get("name"):
            # Sent once, in full, by OpenAI and vLLM; kept whole if a server repeats it.
            slot["function"]["name"] = function["name"]
        arguments = function.get("arguments")
        if isinstance(arguments, str):
            slot["function"]["arguments"] = slot["function"].get("arguments", "") + arguments
        elif arguments is not None:
            slot["function"]["arguments"] = arguments

    def message(self) -> dict[str, Any]:
        """The assembled message, in the shape :meth:`OpenAIChat.chat` returns."""
        calls = [self.calls[index] for index in sorted(self.calls)]
        content = "".join(self.text) if self.text or not calls else None
        return assistant_message({"content": content, "tool_calls": calls})
