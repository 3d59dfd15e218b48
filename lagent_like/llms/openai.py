"""A chat client for any server that speaks OpenAI's ``/chat/completions`` API.

Why it exists: an agent needs a model, and vLLM, LMDeploy, Ollama and OpenAI itself all
serve the same endpoint, ``POST {base_url}/chat/completions``. One small client on
``requests`` therefore covers hosted and local models alike, for both ways an agent
talks to them: plain text (ReAct prompts) and native tool calls.

What it takes care of, so that agents do not have to:

* **retries**: a refused connection, a timeout, HTTP 429 and HTTP 5xx are tried again
  after an exponential, jittered and capped pause (a 429's ``Retry-After`` is honoured);
  any other 4xx is raised at once with the server's own message;
* **errors**: every failure reaches the caller as a
  :class:`~lagent_like.exceptions.ModelClientError` naming the endpoint, the status and
  the number of attempts, and never the API key;
* **streaming**: with ``stream=True`` the server-sent events are read as they arrive,
  each text delta goes to an ``on_token`` callback, and text and tool-call deltas are
  assembled into the same message a non-streaming call returns.

``requests`` is imported on first use, so importing this module stays cheap.
"""

from __future__ import annotations

import json
import math
import os
import random as _random
import threading
import time
from collections.abc import Iterable, Iterator, Mapping, Sequence
from contextlib import closing
from email.utils import parsedate_to_datetime
from typing import TYPE_CHECKING, Any, Callable, Optional, Union
from urllib.parse import urlsplit

from .._private.http import redact
from .._private.log import logger
from ..exceptions import (
    ModelClientError,
    ModelConnectionError,
    ModelHTTPError,
    ModelResponseError,
    ModelTimeoutError,
)

if TYPE_CHECKING:
    import requests

__all__ = ["API_KEY_ENV", "DEFAULT_BASE_URL", "Messages", "OnToken", "OpenAIChat"]

#: Where OpenAI serves its API; local servers are e.g. ``http://localhost:11434/v1`` (Ollama).
DEFAULT_BASE_URL = "https://api.openai.com/v1"

#: The environment variable the API key is read from when none is given.
API_KEY_ENV = "OPENAI_API_KEY"

#: A conversation: OpenAI-style message dicts, or one string for a single user message.
Messages = Union[str, Sequence[Mapping[str, Any]]]

#: Called with each piece of text as it streams in.
OnToken = Callable[[str], None]

#: Each back-off pause is shortened at random by up to this fraction, so that many
#: clients refused together do not come back together.
_JITTER = 0.5

#: Longest server message quoted in an exception.
_MESSAGE_EXCERPT = 500

#: Request headers whose values are secrets, besides the API key itself.
_SECRET_HEADERS = frozenset({"authorization", "api-key", "x-api-key", "proxy-authorization"})

#: Where error bodies keep their message, tried in order: OpenAI and Ollama
#: (``{"error": {"message"}}``), plain ``{"error": "..."}``, vLLM's flat
#: ``{"object": "error", "message"}``, and FastAPI's ``{"detail"}``.
_ERROR_MESSAGE_PATHS: tuple[tuple[str, ...], ...] = (
    ("error", "message"),
    ("error",),
    ("message",),
    ("detail",),
)


def _is_number(value: object) -> bool:
    # bool is an int subclass, but True is never a sensible duration or count.
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)


def _is_positive_duration(value: object) -> bool:
    return _is_number(value) and value > 0  # type: ignore[operator]


def _is_duration(value: object) -> bool:
    return _is_number(value) and value >= 0  # type: ignore[operator]


def _is_count(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= 0


def _is_http_url(value: object) -> bool:
    if not isinstance(value, str):
        return False
    parts = urlsplit(value)
    return parts.scheme in ("http", "https") and bool(parts.netloc)


def _is_model_name(value: object) -> bool:
    return isinstance(value, str) and bool(value.strip())


#: ``(argument, what it must be, check)`` for each constructor argument that is checked.
_ARGUMENT_CHECKS: tuple[tuple[str, str, Callable[[object], bool]], ...] = (
    ("model", "a non-empty string", _is_model_name),
    ("base_url", "an http:// or https:// URL", _is_http_url),
    ("timeout", "a finite number > 0", _is_positive_duration),
    ("max_retries", "an int >= 0", _is_count),
    ("backoff", "a finite number >= 0", _is_duration),
    ("max_delay", "a finite number >= 0", _is_duration),
)


def _display_url(url: str) -> str:
    """``url`` without user info or query string, which may hold credentials."""
    parts = urlsplit(url)
    host = parts.netloc.rpartition("@")[2]
    return f"{parts.scheme}://{host}{parts.path}"


def _attempts_text(attempts: int) -> str:
    return f"after {attempts} attempt{'s' if attempts != 1 else ''}"


def _excerpt(text: str, secrets: Iterable[str]) -> str:
    """``text`` on one line, redacted, then shortened (so no cut-off piece of a key survives)."""
    flat = " ".join(redact(text, secrets).split())
    return flat if len(flat) <= _MESSAGE_EXCERPT else flat[: _MESSAGE_EXCERPT - 3] + "..."


def _body_text(response: requests.Response) -> str:
    """The body as text: JSON is UTF-8, and guessing the charset of a large body is slow."""
    return response.content.decode("utf-8", errors="replace")


def _error_message(body: str) -> str:
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


def _retry_after(value: Optional[str]) -> Optional[float]:
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


def _is_retryable(error: ModelClientError) -> bool:
    """No answer, a rate limit or a server fault may pass; any other refusal will not."""
    if isinstance(error, ModelHTTPError):
        return error.status == 429 or error.status >= 500
    return isinstance(error, ModelConnectionError)


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


def _assistant_message(raw: Mapping[str, Any]) -> dict[str, Any]:
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


def _sse_data(lines: Iterable[bytes]) -> Iterator[str]:
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


class _StreamedMessage:
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
        return _assistant_message({"content": content, "tool_calls": calls})


class OpenAIChat:
    """A chat model behind an OpenAI-compatible server (OpenAI, vLLM, LMDeploy, Ollama).

    Call it with a conversation for the reply text (``model(messages) -> str``), or use
    :meth:`chat` for the whole assistant message, native tool calls included. Both send
    ``POST {base_url}/chat/completions``.

    Args:
        model: the model name the server knows, e.g. ``'gpt-4o-mini'`` or ``'qwen2.5:7b'``.
        base_url: the API root, up to and including ``/v1``. Defaults to OpenAI.
        api_key: the bearer token. ``None`` reads :data:`API_KEY_ENV` (``OPENAI_API_KEY``)
            once, here; ``''`` (or no key found) sends no ``Authorization`` header, which
            local servers do not need. The key never appears in ``repr``, exceptions or logs.
        timeout: seconds allowed for connecting and for each read (between two streamed
            chunks, when streaming).
        max_retries: how many times a failed request is tried again (so at most
            ``max_retries + 1`` requests); ``0`` never retries.
        backoff: the pause before the first retry, in seconds; it doubles before each
            further retry, and each pause is shortened at random by up to half.
        max_delay: the cap on each pause, ``Retry-After`` included.
        stream: whether calls stream by default (each call may say otherwise).
        default_params: request fields sent with every call (``temperature``, ``stop``,
            ``max_tokens``...); a call's own parameters override them.
        session: a ``requests.Session`` to send through (it is not closed by
            :meth:`close`); by default one is created on the first request.
        sleep: waits between attempts; defaults to :func:`time.sleep`. Tests pass a fake.
        random: returns a float in ``[0, 1)`` for the jitter; defaults to
            :func:`random.random`. ``lambda: 0.0`` gives the pauses without jitter.
        headers: extra request headers, e.g. ``{'api-key': ...}`` for servers that want
            another header than ``Authorization``; they override the client's own.

    Raises:
        ValueError: an argument is out of range or of the wrong kind; the message names it.

    Attributes:
        model: the model name sent with each request.
        base_url: the API root, without a trailing slash.
        url: the endpoint requested, ``base_url + '/chat/completions'``.
        timeout: see the argument.
        max_retries: see the argument.
        backoff: see the argument.
        max_delay: see the argument.
        stream: see the argument.
        default_params: a copy of the argument (empty if none).
        headers: a copy of the argument (empty if none).
    """

    def __init__(
        self,
        model: str,
        base_url: str = DEFAULT_BASE_URL,
        api_key: Optional[str] = None,
        *,
        timeout: float = 60.0,
        max_retries: int = 3,
        backoff: float = 0.5,
        max_delay: float = 30.0,
        stream: bool = False,
        default_params: Optional[Mapping[str, Any]] = None,
        session: Optional[requests.Session] = None,
        sleep: Optional[Callable[[float], None]] = None,
        random: Optional[Callable[[], float]] = None,
        headers: Optional[Mapping[str, str]] = None,
    ) -> None:
        values = {
            "model": model,
            "base_url": base_url,
            "timeout": timeout,
            "max_retries": max_retries,
            "backoff": backoff,
            "max_delay": max_delay,
        }
        for name, expected, accepts in _ARGUMENT_CHECKS:
            if not accepts(values[name]):
                raise ValueError(f"OpenAIChat: {name} must be {expected}, got {values[name]!r}")
        self.model = model
        self.base_url = base_url.rstrip("/")
        self.url = f"{self.base_url}/chat/completions"
        self.timeout = float(timeout)
        self.max_retries = max_retries
        self.backoff = float(backoff)
        self.max_delay = float(max_delay)
        self.stream = stream
        self.default_params = dict(default_params or {})
        self.headers = dict(headers or {})
        key = os.environ.get(API_KEY_ENV) if api_key is None else api_key
        self._api_key = key or None
        self._session = session
        self._owns_session = session is None
        self._session_lock = threading.Lock()
        self._sleep = sleep if sleep is not None else time.sleep
        self._random = random if random is not None else _random.random

    @property
    def _secrets(self) -> list[str]:
        """Values no message may quote: the key and secret headers (read now: headers may change)."""
        secret_headers = [value for name, value in self.headers.items() if name.lower() in _SECRET_HEADERS]
        return [secret for secret in [self._api_key, *secret_headers] if secret]

    def __repr__(self) -> str:
        key = "'***'" if self._api_key else "None"
        return f"OpenAIChat(model={self.model!r}, base_url={_display_url(self.base_url)!r}, api_key={key})"

    def __enter__(self) -> OpenAIChat:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def close(self) -> None:
        """Close the session this client created (a session passed in is left open)."""
        with self._session_lock:
            session = self._session if self._owns_session else None
            if self._owns_session:
                self._session = None
        if session is not None:
            session.close()

    def __call__(
        self,
        messages: Messages,
        *,
        stream: Optional[bool] = None,
        on_token: Optional[OnToken] = None,
        **params: Any,
    ) -> str:
        """Send the conversation and return the reply text.

        Args:
            messages: OpenAI-style ``{'role', 'content'}`` dicts, or a string sent as one
                user message.
            stream: stream this call (``None``: the client's default).
            on_token: called with each piece of text as it arrives when streaming, or
                once with the whole text otherwise.
            **params: request fields for this call (``temperature``, ``stop``, ``tools``...).

        Returns:
            The assistant's text; ``''`` if it answered with tool calls only.

        Raises:
            ModelClientError: the server could not be reached or refused the request
                (see :meth:`chat`).
        """
        return self.chat(messages, stream=stream, on_token=on_token, **params)["content"] or ""

    def chat(
        self,
        messages: Messages,
        tools: Optional[Sequence[Mapping[str, Any]]] = None,
        *,
        stream: Optional[bool] = None,
        on_token: Optional[OnToken] = None,
        **params: Any,
    ) -> dict[str, Any]:
        """Send the conversation and return the assistant message.

        Args:
            messages: OpenAI-style message dicts, or a string sent as one user message.
            tools: OpenAI tool definitions (``{'type': 'function', 'function': {...}}``),
                e.g. from an executor's function-calling export; ``None`` or empty sends none.
            stream: stream this call (``None``: the client's default).
            on_token: called with each piece of text as it arrives when streaming, or
                once with the whole text otherwise (not called for an empty text).
            **params: request fields for this call, over :attr:`default_params`
                (``temperature``, ``stop``, ``tool_choice``...).

        Returns:
            ``{'role': 'assistant', 'content': str or None, 'tool_calls': [...]}``, where
            each tool call is ``{'id', 'type': 'function', 'function': {'name',
            'arguments'}}`` with ``arguments`` a JSON string. The ``tool_calls`` key is
            present only when the model called tools.

        Raises:
            ModelHTTPError: an error status: a 4xx other than 429 at once, a 429 or 5xx
                once the retries are spent.
            ModelTimeoutError: no answer within :attr:`timeout`, every attempt.
            ModelConnectionError: no connection, every attempt, or a stream cut short.
            ModelResponseError: a success status without a chat completion in it.
            ModelClientError: the request could not be sent at all (e.g. a bad URL).
            TypeError: ``messages``, ``tools`` or a parameter is not JSON-serialisable.
        """
        fields = {**self.default_params, **params}
        # 'stream' may come from default_params too; it decides how the answer is read.
        streaming = bool(fields.pop("stream", self.stream) if stream is None else stream)
        body = self._body(messages, tools, fields, streaming)
        response, attempts = self._post(body, streaming)
        # A server that ignores 'stream' answers with one JSON body; it is read as usual.
        if streaming and not response.headers.get("Content-Type", "").startswith("application/json"):
            return self._read_stream(response, on_token, attempts)
        message = self._read_completion(response, attempts)
        if on_token is not None and message["content"]:
            on_token(message["content"])
        return message

    def _body(
        self,
        messages: Messages,
        tools: Optional[Sequence[Mapping[str, Any]]],
        fields: Mapping[str, Any],
        streaming: bool,
    ) -> bytes:
        """The request body, serialised once for every attempt."""
        if isinstance(messages, str):
            conversation: list[Mapping[str, Any]] = [{"role": "user", "content": messages}]
        else:
            conversation = list(messages)
        body: dict[str, Any] = {"model": self.model, "messages": conversation, **fields}
        if tools:
            body["tools"] = list(tools)
        if streaming:
            body["stream"] = True
        return json.dumps(body, ensure_ascii=False, allow_nan=False).encode("utf-8")

    def _request_headers(self, streaming: bool) -> dict[str, str]:
        # Imported here: the package may one day import this module while it is still loading.
        from .. import __version__

        headers = {
            "Content-Type": "application/json",
            "Accept": "text/event-stream" if streaming else "application/json",
            "User-Agent": f"lagent-like/{__version__}",
        }
        if self._api_key:
            headers["Authorization"] = f"Bearer {self._api_key}"
        headers.update(self.headers)
        return headers

    def _get_session(self) -> requests.Session:
        """The session to send through, created (thread-safely) on the first request."""
        with self._session_lock:
            if self._session is None:
                import requests

                self._session = requests.Session()
            return self._session

    def _post(self, body: bytes, streaming: bool) -> tuple[requests.Response, int]:
        """Send ``body``, retrying what may pass; return the 2xx response and the attempts made."""
        attempts = self.max_retries + 1
        for attempt in range(1, attempts + 1):
            try:
                return self._send_once(body, streaming, attempt), attempt
            except ModelClientError as error:
                if attempt == attempts or not _is_retryable(error):
                    raise
                delay = self._delay(attempt, error)
                logger().info(
                    "%s; retrying in %.2f s (attempt %d of %d)", error, delay, attempt + 1, attempts
                )
                self._sleep(delay)
        raise AssertionError("unreachable: the last attempt returns or raises")

    def _send_once(self, body: bytes, streaming: bool, attempt: int) -> requests.Response:
        """One request; a 2xx response, or the failure as a :class:`ModelClientError`."""
        import requests

        where = _display_url(self.url)
        tried = _attempts_text(attempt)
        try:
            response = self._get_session().post(
                self.url,
                data=body,
                headers=self._request_headers(streaming),
                timeout=self.timeout,
                stream=streaming,
            )
        except requests.Timeout:
            raise ModelTimeoutError(
                f"no answer from model server {where} within {self.timeout:g} s ({tried})",
                url=where,
                attempts=attempt,
                timeout=self.timeout,
            ) from None
        except (requests.ConnectionError, requests.exceptions.ChunkedEncodingError) as exc:
            # requests' own message repeats the URL and the pool's state: the class name
            # is enough here, and the details go to the debug log, redacted.
            logger().debug("POST %s failed: %s", where, redact(str(exc), self._secrets))
            raise ModelConnectionError(
                f"could not reach model server {where} ({type(exc).__name__}, {tried})",
                url=where,
                attempts=attempt,
            ) from None
        except requests.RequestException as exc:
            raise ModelClientError(
                f"could not send the request to model server {where}: {_excerpt(str(exc), self._secrets)}",
                url=where,
                attempts=attempt,
            ) from None
        if response.ok:
            return response
        with closing(response):
            raise self._http_error(response, attempt)

    def _http_error(self, response: requests.Response, attempt: int) -> ModelHTTPError:
        """The exception for an error status, quoting the server's message."""
        where = _display_url(self.url)
        status = response.status_code
        server_message = _excerpt(_error_message(_body_text(response)), self._secrets)
        reason = f" {response.reason}" if response.reason else ""
        retryable = status == 429 or status >= 500
        tried = f" {_attempts_text(attempt)}" if retryable else ""
        said = f": {server_message}" if server_message else ""
        return ModelHTTPError(
            f"model server {where} answered HTTP {status}{reason}{tried}{said}",
            url=where,
            attempts=attempt,
            status=status,
            server_message=server_message,
            retry_after=_retry_after(response.headers.get("Retry-After")),
        )

    def _delay(self, attempt: int, error: ModelClientError) -> float:
        """Seconds to wait after failed attempt number ``attempt``: ``Retry-After``, else backoff."""
        asked = error.retry_after if isinstance(error, ModelHTTPError) else None
        if asked is not None:
            return min(asked, self.max_delay)
        # 2.0 ** 1024 overflows; far past any max_delay anyway, where min() takes over.
        pause = min(self.max_delay, self.backoff * 2.0 ** min(attempt - 1, 1023))
        return pause * (1 - _JITTER * self._random())

    def _read_completion(self, response: requests.Response, attempts: int) -> dict[str, Any]:
        """The assistant message of a (non-streamed) chat completion body."""
        where = _display_url(self.url)
        with closing(response):
            text = _body_text(response)
        try:
            data: Any = json.loads(text)
        except ValueError:
            raise ModelResponseError(
                f"model server {where} answered HTTP {response.status_code} with a body that is not JSON: "
                f"{_excerpt(text, self._secrets)!r}",
                url=where,
                attempts=attempts,
            ) from None
        choices = data.get("choices") if isinstance(data, dict) else None
        first = choices[0] if isinstance(choices, list) and choices else None
        message = first.get("message") if isinstance(first, dict) else None
        if not isinstance(message, dict):
            raise ModelResponseError(
                f"model server {where} answered without choices[0].message: "
                f"{_excerpt(text, self._secrets)!r}",
                url=where,
                attempts=attempts,
            )
        return _assistant_message(message)

    def _read_stream(
        self, response: requests.Response, on_token: Optional[OnToken], attempts: int
    ) -> dict[str, Any]:
        """Read server-sent chat-completion chunks up to ``[DONE]``, passing text to ``on_token``."""
        import requests

        where = _display_url(self.url)
        streamed = _StreamedMessage()
        with closing(response):
            try:
                # chunk_size=None: hand over each chunk as it arrives, not per 512 bytes.
                for data in _sse_data(response.iter_lines(chunk_size=None)):
                    if data.strip() == "[DONE]":
                        break
                    text = streamed.add(self._stream_chunk(data, attempts))
                    if text and on_token is not None:
                        on_token(text)
            except requests.RequestException as exc:
                # Not retried: the caller may already have shown part of the answer.
                raise ModelConnectionError(
                    f"the stream from model server {where} broke off ({type(exc).__name__}) "
                    f"after {len(streamed.text)} text chunks",
                    url=where,
                    attempts=attempts,
                ) from None
        return streamed.message()

    def _stream_chunk(self, data: str, attempts: int) -> Mapping[str, Any]:
        """One streamed chunk, parsed; an error the server reports mid-stream is raised."""
        where = _display_url(self.url)
        try:
            chunk: Any = json.loads(data)
        except ValueError:
            chunk = None
        if not isinstance(chunk, dict):
            raise ModelResponseError(
                f"model server {where} streamed an event that is not a JSON object: "
                f"{_excerpt(data, self._secrets)!r}",
                url=where,
                attempts=attempts,
            )
        if "error" in chunk:
            raise ModelResponseError(
                f"model server {where} reported an error mid-stream: "
                f"{_excerpt(_error_message(data), self._secrets)}",
                url=where,
                attempts=attempts,
            )
        return chunk
