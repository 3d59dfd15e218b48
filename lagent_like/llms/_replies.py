"""Reading a model server's success answer: one completion body, or a stream of chunks.

Why apart from the client: once a request has succeeded, what is left is reading the
body, and deciding what a malformed one means (a :class:`ModelResponseError`, or a
:class:`ModelConnectionError` for a stream cut short, never retried: the caller may
already have shown part of the answer). :mod:`lagent_like.llms.openai` sends and
retries; this module reads; :mod:`lagent_like.llms.chat_wire` turns the servers'
variants into one message shape, with no I/O.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from contextlib import closing
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Callable, Optional

from ..exceptions import ModelConnectionError, ModelResponseError
from .chat_wire import StreamedMessage, body_text, completion_message, error_message, sse_data

if TYPE_CHECKING:
    import requests

__all__ = ["ReplyReader"]


@dataclass(frozen=True)
class ReplyReader:
    """Reads the 2xx answer of one call.

    Attributes:
        where: the endpoint, as :func:`~lagent_like._net.http.display_url` shows it.
        attempts: how many requests the call made (every exception says so).
        quote: makes a server's text fit to quote in an exception (one line, redacted,
            shortened).
    """

    where: str
    attempts: int
    quote: Callable[[str], str]

    def completion(self, response: requests.Response) -> tuple[dict[str, Any], Optional[dict[str, Any]]]:
        """The assistant message of a (non-streamed) chat completion body, and its ``usage``."""
        with closing(response):
            text = body_text(response)
        try:
            data: Any = json.loads(text)
        except ValueError:
            what = f"answered HTTP {response.status_code} with a body that is not JSON: {self.quote(text)!r}"
            raise self._bad_answer(what) from None
        message = completion_message(data)
        if message is None:
            raise self._bad_answer(f"answered without choices[0].message: {self.quote(text)!r}")
        usage = data.get("usage")
        return message, dict(usage) if isinstance(usage, dict) else None

    def stream(
        self, response: requests.Response, on_token: Optional[Callable[[str], None]]
    ) -> dict[str, Any]:
        """Read server-sent chat-completion chunks up to ``[DONE]``, passing text to ``on_token``."""
        import requests

        streamed = StreamedMessage()
        with closing(response):
            try:
                # chunk_size=None: hand over each chunk as it arrives, not per 512 bytes.
                for data in sse_data(response.iter_lines(chunk_size=None)):
                    if data.strip() == "[DONE]":
                        break
                    text = streamed.add(self._chunk(data))
                    if text and on_token is not None:
                        on_token(text)
            except requests.RequestException as exc:
                # Not retried: the caller may already have shown part of the answer.
                raise ModelConnectionError(
                    f"the stream from model server {self.where} broke off ({type(exc).__name__}) "
                    f"after {len(streamed.text)} text chunks",
                    url=self.where,
                    attempts=self.attempts,
                ) from None
        return streamed.message()

    def _chunk(self, data: str) -> Mapping[str, Any]:
        """One streamed chunk, parsed; an error the server reports mid-stream is raised."""
        try:
            chunk: Any = json.loads(data)
        except ValueError:
            chunk = None
        if not isinstance(chunk, dict):
            raise self._bad_answer(f"streamed an event that is not a JSON object: {self.quote(data)!r}")
        if "error" in chunk:
            raise self._bad_answer(f"reported an error mid-stream: {self.quote(error_message(data))}")
        return chunk

    def _bad_answer(self, what: str) -> ModelResponseError:
        """The exception for an answer that is not a chat completion: the server ``what``."""
        return ModelResponseError(f"model server {self.where} {what}", url=self.where, attempts=self.attempts)
