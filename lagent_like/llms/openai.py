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
  :class:`~lagent_like.ModelClientError` naming the endpoint, the status and
  the number of attempts, and never the API key;
* **streaming**: with ``stream=True`` the server-sent events are read as they arrive,
  each text delta goes to an ``on_token`` callback, and text and tool-call deltas are
  assembled into the same message a non-streaming call returns.

Reading a success answer (one body or a stream) is in :mod:`lagent_like.llms._replies`,
and the variants of what servers send back (error bodies, server-sent events, message
shapes) in :mod:`lagent_like.llms.chat_wire`; requests go through the HTTP
failure ladder the web tools share (:mod:`lagent_like._net.http`), whose rungs
:mod:`lagent_like.llms._failures` words as this client's exceptions; this module sends
requests and decides what each answer means. ``requests`` is imported on first use, so
importing this module stays cheap.
"""

from __future__ import annotations

import json
import random as _random
import threading
import time
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any, Callable, Optional, Union

from .._net.http import HttpFailure, display_url, excerpt, read_key, send
from .._private.arg_checks import (
    check_arguments,
    is_count,
    is_duration,
    is_http_url,
    is_non_blank_str,
    is_positive_duration,
)
from .._private.log import logger
from ..exceptions import ModelClientError, ModelHTTPError
from ..runtime.policies import RetryPolicy
from ._failures import is_retryable, model_error
from ._replies import ReplyReader

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

#: Each back-off pause is shortened at random by up to half, so that many clients
#: refused together do not come back together: the policy's jitter of 0.5 with its
#: random draw taken from the lower half (see ``OpenAIChat._delay``).
_JITTER = 0.5

#: Longest server message quoted in an exception.
_MESSAGE_EXCERPT = 500

#: Request headers whose values are secrets, besides the API key itself.
_SECRET_HEADERS = frozenset({"authorization", "api-key", "x-api-key", "proxy-authorization"})


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
        retry: a :class:`~lagent_like.RetryPolicy` to back off with instead of
            ``max_retries``, ``backoff`` and ``max_delay`` (which then mirror it), e.g.
            the one an executor retries tools with. Its ``jitter`` only ever shortens a
            pause here (by up to that fraction); its ``retry_on`` is not used: the
            client retries what the HTTP failure ladder calls transient.

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
        retry: Optional[RetryPolicy] = None,
    ) -> None:
        check_arguments(
            "OpenAIChat",
            [
                ("model", model, is_non_blank_str, "a non-empty string"),
                ("base_url", base_url, is_http_url, "an http:// or https:// URL"),
                ("timeout", timeout, is_positive_duration, "a finite number > 0"),
                ("max_retries", max_retries, is_count, "an int >= 0"),
                ("backoff", backoff, is_duration, "a finite number >= 0"),
                ("max_delay", max_delay, is_duration, "a finite number >= 0"),
                ("retry", retry, lambda v: v is None or isinstance(v, RetryPolicy), "a RetryPolicy or None"),
            ],
        )
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
        #: The ``usage`` object (token counts) of the last non-streamed completion, or
        #: ``None`` when the server sent none; the ReAct agent records it per turn.
        self.last_usage: Optional[dict[str, Any]] = None
        # Stripped: a key read from a file ends in a newline, which no key contains.
        self._api_key = read_key(api_key, API_KEY_ENV)
        self._session = session
        self._owns_session = session is None
        self._session_lock = threading.Lock()
        self._sleep = sleep if sleep is not None else time.sleep
        self._random = random if random is not None else _random.random
        self._retry = retry
        if retry is not None:
            self.max_retries = retry.max_attempts - 1
            self.backoff = retry.base_delay
            self.max_delay = retry.max_delay

    @property
    def _secrets(self) -> list[str]:
        """Values no message may quote: the key and secret headers (read now: headers may change)."""
        secret_headers = [value for name, value in self.headers.items() if name.lower() in _SECRET_HEADERS]
        return [secret for secret in [self._api_key, *secret_headers] if secret]

    def __repr__(self) -> str:
        key = "'***'" if self._api_key else "None"
        return f"OpenAIChat(model={self.model!r}, base_url={display_url(self.base_url)!r}, api_key={key})"

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
            **params: request fields for this call, over ``default_params``
                (``temperature``, ``stop``, ``tool_choice``...).

        Returns:
            ``{'role': 'assistant', 'content': str or None, 'tool_calls': [...]}``, where
            each tool call is ``{'id', 'type': 'function', 'function': {'name',
            'arguments'}}`` with ``arguments`` a JSON string. The ``tool_calls`` key is
            present only when the model called tools.

        Raises:
            ModelHTTPError: an error status: a 4xx other than 429 at once, a 429 or 5xx
                once the retries are spent.
            ModelTimeoutError: no answer within ``timeout``, every attempt.
            ModelConnectionError: no connection, every attempt, or a stream cut short.
            ModelResponseError: a success status without a chat completion in it.
            ModelClientError: the request could not be sent at all (e.g. a bad URL).
            TypeError: ``messages``, ``tools`` or a parameter is not JSON-serialisable.
        """
        fields = {**self.default_params, **params}
        # 'stream' may come from default_params too; it decides how the answer is read.
        streaming = bool(fields.pop("stream", self.stream) if stream is None else stream)
        body = self._body(messages, tools, fields, streaming)
        self.last_usage = None
        response, attempts = self._post(body, streaming)
        reader = ReplyReader(display_url(self.url), attempts, self._quote)
        # A server that ignores 'stream' answers with one JSON body; it is read as usual.
        if streaming and not response.headers.get("Content-Type", "").startswith("application/json"):
            return reader.stream(response, on_token)
        message, self.last_usage = reader.completion(response)
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
        from .._private.version import __version__

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

    @property
    def retry_policy(self) -> RetryPolicy:
        """The back-off, the executor's :class:`~lagent_like.RetryPolicy`.

        The ``retry`` given, else ``max_retries + 1`` attempts with pauses from
        ``backoff`` doubling up to ``max_delay`` (read now: the attributes may
        change).
        """
        if self._retry is not None:
            return self._retry
        return RetryPolicy(
            max_attempts=self.max_retries + 1,
            base_delay=self.backoff,
            max_delay=self.max_delay,
            jitter=_JITTER,
        )

    def _post(self, body: bytes, streaming: bool) -> tuple[requests.Response, int]:
        """Send ``body``, retrying what may pass; return the 2xx response and the attempts made."""
        policy = self.retry_policy
        attempts = policy.max_attempts
        for attempt in range(1, attempts + 1):
            try:
                return self._send_once(body, streaming, attempt), attempt
            except ModelClientError as error:
                if attempt == attempts or not is_retryable(error):
                    raise
                delay = self._delay(policy, attempt, error)
                logger().info(
                    "%s; retrying in %.2f s (attempt %d of %d)", error, delay, attempt + 1, attempts
                )
                self._sleep(delay)
        raise AssertionError("unreachable: the last attempt returns or raises")

    def _send_once(self, body: bytes, streaming: bool, attempt: int) -> requests.Response:
        """One request through the shared ladder: a 2xx response, or a :class:`ModelClientError`."""
        try:
            return send(
                self._get_session(),
                "POST",
                self.url,
                timeout=self.timeout,
                secrets=self._secrets,
                data=body,
                headers=self._request_headers(streaming),
                stream=streaming,
            )
        except HttpFailure as failure:
            raise model_error(failure, attempt, self.timeout, self._quote) from None

    def _delay(self, policy: RetryPolicy, attempt: int, error: ModelClientError) -> float:
        """Seconds to wait after failed attempt ``attempt``: ``Retry-After``, else the policy's back-off."""
        asked = error.retry_after if isinstance(error, ModelHTTPError) else None
        if asked is not None:
            return min(asked, policy.max_delay)
        # The policy moves a pause by up to its jitter either way; drawing its random
        # from [0, 0.5] only ever shortens it (by up to half), as this client always has.
        return policy.delay(attempt, lambda: (1.0 - self._random()) / 2)

    def _quote(self, text: str) -> str:
        """``text`` fit to quote in an exception: on one line, redacted, shortened."""
        return excerpt(text, self._secrets, _MESSAGE_EXCERPT)
