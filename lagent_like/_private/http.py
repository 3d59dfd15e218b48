"""The HTTP plumbing shared by the built-in web tools (``ArxivSearch``, ``GoogleSearch``).

Why one module: every HTTP tool must fail the same way, or an agent's retry policy and
its model see a different story per tool. Here a request

* goes through one shared :class:`requests.Session`, created on first use, so tools
  reuse pooled connections instead of opening one per call;
* is always made with a timeout, so a server that never answers cannot hang an agent;
* ends in one of three ways: a response with a 2xx status; a
  :class:`~lagent_like.exceptions.TransientToolError` for what may pass (no connection,
  a timeout, HTTP 429, HTTP 5xx), which retry policies try again; or an
  :class:`HttpStatusError` for any other status, which the tool turns into an
  ``HTTP_ERROR`` record with :meth:`HttpStatusError.to_action_return`.

Every message built here goes through :func:`redact` (or :func:`excerpt`, for quoted
bodies) with the tool's secrets, so an API key never reaches an ``errmsg`` or a log
line; the model client (:mod:`lagent_like.llms.openai`) quotes servers through them
too. ``requests`` is imported inside the functions: importing ``lagent_like`` must
stay cheap and must not need it.
"""

from __future__ import annotations

import threading
from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, Any, Optional
from urllib.parse import urlsplit

from ..exceptions import ToolError, TransientToolError
from ..schema import ActionReturn, ActionStatusCode
from .log import logger

if TYPE_CHECKING:
    import requests

__all__ = [
    "HttpStatusError",
    "POOL_MAXSIZE",
    "REDACTED",
    "close_session",
    "excerpt",
    "http_request",
    "redact",
    "shared_session",
]

#: What a secret is replaced with in messages.
REDACTED = "***"

#: Connections kept open per host by the shared session (threads of one executor
#: calling the same API concurrently each need one).
POOL_MAXSIZE = 32

#: Longest error-body excerpt quoted in an ``HTTP_ERROR`` message.
_BODY_EXCERPT = 200

_session: Optional[requests.Session] = None
_session_lock = threading.Lock()


def shared_session() -> requests.Session:
    """The session every HTTP tool uses, created (thread-safely) on first use.

    Its adapters keep up to :data:`POOL_MAXSIZE` connections per host and never retry
    on their own: retrying is the executor's retry policy's job, so that attempts are
    counted and delayed in one place.
    """
    global _session
    session = _session
    if session is not None:
        return session
    with _session_lock:
        if _session is None:
            import requests
            from requests.adapters import HTTPAdapter

            created = requests.Session()
            adapter = HTTPAdapter(pool_connections=8, pool_maxsize=POOL_MAXSIZE, max_retries=0)
            created.mount("http://", adapter)
            created.mount("https://", adapter)
            _session = created
        return _session


def close_session() -> None:
    """Close the shared session's connections; the next request opens a new session."""
    global _session
    with _session_lock:
        session, _session = _session, None
    if session is not None:
        session.close()


def redact(text: str, secrets: Iterable[Optional[str]] = ()) -> str:
    """``text`` with every non-empty secret replaced by :data:`REDACTED`.

    Args:
        text: a message that may quote a secret (an error string, a URL, a body).
        secrets: the values to hide; ``None`` and empty strings are ignored.

    Returns:
        The redacted text.
    """
    for secret in secrets:
        if secret:
            text = text.replace(secret, REDACTED)
    return text


def excerpt(text: str, secrets: Iterable[Optional[str]], limit: int) -> str:
    """``text`` on one line, redacted, then cut to ``limit`` characters with ``...``.

    Redacted before it is shortened, so that no cut-off piece of a secret survives.
    """
    flat = " ".join(redact(text, secrets).split())
    return flat if len(flat) <= limit else flat[: limit - 3] + "..."


def _where(url: str) -> str:
    """``scheme://host[:port]/path`` of ``url``: the query string may hold user input or keys."""
    parts = urlsplit(url)
    return f"{parts.scheme}://{parts.netloc}{parts.path}"


class HttpStatusError(ToolError):
    """A non-2xx answer that is not worth retrying (a 4xx other than 429).

    A tool catches it and returns :meth:`to_action_return`, an ``HTTP_ERROR`` record.
    Left uncaught, it is a :class:`ToolError` like any other (``API_ERROR`` with the
    same message).

    Attributes:
        status: the HTTP status code.
        message: the redacted message for the model, naming the status.
    """

    def __init__(self, status: int, message: str) -> None:
        self.status = status
        super().__init__(message)

    def to_action_return(self) -> ActionReturn:
        """The ``HTTP_ERROR`` record of this failure (the executor fills ``args``/``type``)."""
        return ActionReturn(errmsg=self.message, state=ActionStatusCode.HTTP_ERROR)


def http_request(
    tool: str,
    method: str,
    url: str,
    *,
    timeout: float,
    params: Optional[Mapping[str, Any]] = None,
    json: Any = None,
    headers: Optional[Mapping[str, str]] = None,
    secrets: Iterable[Optional[str]] = (),
) -> requests.Response:
    """Make one request through the shared session and sort out how it ended.

    Args:
        tool: the tool's name, which starts every message.
        method: ``'GET'``, ``'POST'``, ...
        url: the full URL (without secrets: keys go in ``headers``).
        timeout: seconds allowed for connecting and for each read.
        params: query-string parameters.
        json: a JSON-able request body.
        headers: extra request headers (an API key goes here).
        secrets: values that must not appear in any message (the API key).

    Returns:
        The response, with a 2xx status and its body read.

    Raises:
        TransientToolError: no connection, no answer within ``timeout``, HTTP 429 or 5xx.
        HttpStatusError: any other non-2xx status.
        ToolError: the request could not be made at all (e.g. a malformed URL).
    """
    import requests

    hidden = [s for s in secrets if s]
    where = _where(url)
    try:
        response = shared_session().request(
            method, url, params=params, json=json, headers=dict(headers or {}), timeout=timeout
        )
    except requests.Timeout:
        raise TransientToolError(
            redact(f"{tool}: no answer from {where} within {timeout:g} s", hidden)
        ) from None
    except (requests.ConnectionError, requests.exceptions.ChunkedEncodingError) as exc:
        # requests' own message repeats the URL with its query and the pool's state;
        # the class name says enough, and the details go to the debug log, redacted.
        logger().debug("%s: %s %s failed: %s", tool, method, where, redact(str(exc), hidden))
        raise TransientToolError(
            redact(f"{tool}: could not reach {where} ({type(exc).__name__})", hidden)
        ) from None
    except requests.RequestException as exc:
        raise ToolError(redact(f"{tool}: could not send the request to {where}: {exc}", hidden)) from None
    status = response.status_code
    if 200 <= status < 300:
        return response
    reason = f" {response.reason}" if response.reason else ""
    if status == 429:
        raise TransientToolError(
            redact(f"{tool}: {where} is rate limiting requests (HTTP 429{reason}); try again later", hidden)
        )
    if status >= 500:
        raise TransientToolError(
            redact(f"{tool}: {where} failed with HTTP {status}{reason}; try again later", hidden)
        )
    body = excerpt(response.text, hidden, _BODY_EXCERPT)
    said = f": {body}" if body else ""
    raise HttpStatusError(status, redact(f"{tool}: {where} answered HTTP {status}{reason}{said}", hidden))
