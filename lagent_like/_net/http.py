"""The one HTTP failure ladder, shared by the web tools and the model client.

Why one module: every HTTP caller (``ArxivSearch``, ``GoogleSearch``, ``BINGMap``,
``GoogleScholar``, ``WebBrowser`` and :class:`~lagent_like.llms.OpenAIChat`) must fail
the same way, or an agent's retry policy and its model see a different story per
caller. :func:`send` makes one request, always with a timeout, and sorts out how it
ended, once, as an :class:`HttpFailure` whose :attr:`~HttpFailure.kind` is one rung of
the ladder:

====================  ==================================  =========
kind                  cause                               transient
====================  ==================================  =========
``timeout``           no answer within the timeout        yes
``connection``        refused, reset, unresolvable        yes
``rate_limited``      HTTP 429                            yes
``server``            HTTP 5xx                            yes
``client``            any other non-2xx status            no
``unsent``            the request could not be made       no
====================  ==================================  =========

Each caller words the failure for its reader: the tools through :func:`http_request`
(a :class:`~lagent_like.TransientToolError` that the executor's
:class:`~lagent_like.RetryPolicy` retries, or an ``HTTP_ERROR`` record), the
model client as its ``Model*Error`` exceptions, retried with the same ``RetryPolicy``
back-off. Tool bodies are read up to a size cap (:data:`MAX_RESPONSE_BYTES`), so a
server cannot fill an agent's memory.

Secrets: every message built here goes through
:func:`~lagent_like._net.secrets.redact` with the caller's secrets (every spelling of
them, see :mod:`lagent_like._net.secrets`, re-exported here), so an API key never
reaches an ``errmsg``, an exception or a log line. ``requests`` is imported inside the
functions: importing ``lagent_like`` must stay cheap and must not need it.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Optional
from urllib.parse import urlsplit

from .._private.log import logger
from ..exceptions import LagentLikeError, ToolError, TransientToolError
from ..schema import ActionReturn, ActionStatusCode
from .secrets import REDACTED, excerpt, hide_in_library_logs, read_key, redact, secret_forms

if TYPE_CHECKING:
    import requests

__all__ = [
    "MAX_RESPONSE_BYTES",
    "POOL_MAXSIZE",
    "REDACTED",
    "HttpFailure",
    "HttpReply",
    "HttpStatusError",
    "close_session",
    "display_url",
    "excerpt",
    "http_request",
    "is_transient_status",
    "read_key",
    "redact",
    "secret_forms",
    "send",
    "shared_session",
]

#: Connections kept open per host by the shared session (threads of one executor
#: calling the same API concurrently each need one).
POOL_MAXSIZE = 32

#: Largest body a tool reads (bytes); a longer answer is an ``API_ERROR``.
MAX_RESPONSE_BYTES = 5 * 1024 * 1024

#: Longest error-body excerpt quoted in an ``HTTP_ERROR`` message.
_BODY_EXCERPT = 200

#: Failure kinds worth trying again.
_TRANSIENT = frozenset({"timeout", "connection", "rate_limited", "server"})

_session: Optional[requests.Session] = None
_session_lock = threading.Lock()


def shared_session() -> requests.Session:
    """The session every HTTP tool uses, created (thread-safely) on first use.

    Its adapters keep up to :data:`POOL_MAXSIZE` connections per host and never retry
    on their own: retrying is the retry policy's job, so that attempts are counted and
    delayed in one place.
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


def display_url(url: str) -> str:
    """``scheme://host[:port]/path`` of ``url``: no user info, no query (either may hold keys)."""
    parts = urlsplit(url)
    host = parts.netloc.rpartition("@")[2]
    return f"{parts.scheme}://{host}{parts.path}"


# -- the ladder ---------------------------------------------------------------------------


def is_transient_status(status: int) -> bool:
    """A rate limit (429) or a server fault (5xx) may pass; any other refusal will not."""
    return status == 429 or status >= 500


@dataclass(eq=False)
class HttpFailure(LagentLikeError):
    """How one request failed: one rung of the ladder (see the module docstring).

    Attributes:
        kind: ``'timeout'``, ``'connection'``, ``'rate_limited'``, ``'server'``,
            ``'client'`` or ``'unsent'``.
        where: the URL asked, as :func:`display_url` shows it.
        detail: for ``connection`` the exception's class name, for ``unsent`` its
            redacted message; empty otherwise.
        status: the HTTP status, for the status kinds.
        reason: the status's reason phrase (may be empty).
        body: the error body as text (not redacted: quote it through :func:`excerpt`).
        retry_after: the raw ``Retry-After`` header of the answer, if any.
    """

    kind: str
    where: str
    detail: str = ""
    status: Optional[int] = None
    reason: str = ""
    body: str = field(default="", repr=False)
    retry_after: Optional[str] = None

    @property
    def transient(self) -> bool:
        """Whether trying again may help."""
        return self.kind in _TRANSIENT

    def __str__(self) -> str:
        return f"{self.kind} failure of {self.where}" + (f" (HTTP {self.status})" if self.status else "")


def send(
    session: requests.Session,
    method: str,
    url: str,
    *,
    timeout: float,
    secrets: Iterable[Optional[str]] = (),
    **kwargs: Any,
) -> requests.Response:
    """Make one request and return its 2xx response, or raise how it failed.

    Args:
        session: the session to send through.
        method: ``'GET'``, ``'POST'``, ...
        url: the full URL.
        timeout: seconds allowed for connecting and for each read.
        secrets: values no message or log line may quote.
        **kwargs: passed to :meth:`requests.Session.request` (``params``, ``json``,
            ``data``, ``headers``, ``stream``).

    Returns:
        The response, with a 2xx status (its body not read when ``stream=True``).

    Raises:
        HttpFailure: every other outcome; an error status's body is read and the
            response closed.
    """
    import requests

    hidden = [s for s in secrets if s]
    hide_in_library_logs(hidden)
    where = display_url(url)
    try:
        response = session.request(method, url, timeout=timeout, **kwargs)
    except requests.Timeout:
        raise HttpFailure("timeout", where) from None
    except (requests.ConnectionError, requests.exceptions.ChunkedEncodingError) as exc:
        # requests' own message repeats the URL with its query and the pool's state;
        # the class name says enough, and the details go to the debug log, redacted.
        logger().debug("%s %s failed: %s", method, where, redact(str(exc), hidden))
        raise HttpFailure("connection", where, detail=type(exc).__name__) from None
    except (requests.RequestException, ValueError) as exc:
        # ValueError: e.g. a header value requests refuses (it quotes the value back).
        raise HttpFailure("unsent", where, detail=redact(str(exc), hidden)) from None
    status = response.status_code
    if 200 <= status < 300:
        return response
    with response:
        body = response.content.decode("utf-8", errors="replace")
    kind = "rate_limited" if status == 429 else "server" if status >= 500 else "client"
    raise HttpFailure(
        kind,
        where,
        status=status,
        reason=response.reason or "",
        body=body,
        retry_after=response.headers.get("Retry-After"),
    )


# -- the tools' wording ---------------------------------------------------------------------


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


@dataclass(frozen=True)
class HttpReply:
    """A 2xx answer whose body was read (at most :data:`MAX_RESPONSE_BYTES`).

    Attributes:
        status: the HTTP status.
        headers: the response headers (case-insensitive mapping).
        content: the body.
        url: the final URL (after redirects).
    """

    status: int
    headers: Mapping[str, str]
    content: bytes = field(repr=False)
    url: str = ""

    @property
    def text(self) -> str:
        """The body decoded with the declared charset (UTF-8 if none or unknown)."""
        charset = "utf-8"
        for part in self.headers.get("Content-Type", "").split(";")[1:]:
            name, _, value = part.strip().partition("=")
            if name.lower() == "charset" and value:
                charset = value.strip("\"'")
        try:
            return self.content.decode(charset, errors="replace")
        except LookupError:
            return self.content.decode("utf-8", errors="replace")

    def json(self) -> Any:
        """The body parsed as JSON (raises ``ValueError`` when it is not)."""
        return json.loads(self.content)


def _tool_error(tool: str, failure: HttpFailure, timeout: float, secrets: list[str]) -> ToolError:
    """The tool's wording of a failure: transient ones are retried by the executor."""
    where, status = failure.where, failure.status
    reason = f" {failure.reason}" if failure.reason else ""
    if failure.kind == "timeout":
        return TransientToolError(f"{tool}: no answer from {where} within {timeout:g} s")
    if failure.kind == "connection":
        return TransientToolError(f"{tool}: could not reach {where} ({failure.detail})")
    if failure.kind == "unsent":
        return ToolError(redact(f"{tool}: could not send the request to {where}: {failure.detail}", secrets))
    if failure.kind == "rate_limited":
        return TransientToolError(
            f"{tool}: {where} is rate limiting requests (HTTP 429{reason}); try again later"
        )
    if failure.kind == "server":
        return TransientToolError(f"{tool}: {where} failed with HTTP {status}{reason}; try again later")
    body = excerpt(failure.body, secrets, _BODY_EXCERPT)
    said = f": {body}" if body else ""
    return HttpStatusError(
        status or 0, redact(f"{tool}: {where} answered HTTP {status}{reason}{said}", secrets)
    )


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
    max_bytes: int = MAX_RESPONSE_BYTES,
    session: Optional[requests.Session] = None,
) -> HttpReply:
    """Make one request through the shared session, for a tool, and read its body.

    Args:
        tool: the tool's name, which starts every message.
        method: ``'GET'``, ``'POST'``, ...
        url: the full URL.
        timeout: seconds allowed for connecting and for each read.
        params: query-string parameters (a key sent here is redacted like any other).
        json: a JSON-able request body.
        headers: extra request headers (an API key goes here).
        secrets: values that must not appear in any message (the API key).
        max_bytes: the longest body read.
        session: the session to send through (default: :func:`shared_session`); the
            web tool passes one that checks every address it connects to.

    Returns:
        The 2xx answer with its body.

    Raises:
        TransientToolError: no connection, no answer within ``timeout``, HTTP 429 or 5xx.
        HttpStatusError: any other non-2xx status.
        ToolError: the request could not be made at all (e.g. a malformed URL), or the
            body is longer than ``max_bytes``.
    """
    import requests

    hidden = [s for s in secrets if s]
    try:
        response = send(
            session or shared_session(),
            method,
            url,
            timeout=timeout,
            secrets=hidden,
            params=params,
            json=json,
            headers=dict(headers or {}),
            stream=True,
        )
    except HttpFailure as failure:
        raise _tool_error(tool, failure, timeout, hidden) from None
    where = display_url(url)
    chunks: list[bytes] = []
    size = 0
    with response:
        try:
            for chunk in response.iter_content(chunk_size=65536):
                size += len(chunk)
                if size > max_bytes:
                    raise ToolError(f"{tool}: {where} answered with more than {max_bytes} bytes; not read")
                chunks.append(chunk)
        except requests.RequestException as exc:
            logger().debug("%s: reading %s failed: %s", tool, where, redact(str(exc), hidden))
            raise TransientToolError(
                f"{tool}: the answer from {where} broke off ({type(exc).__name__})"
            ) from None
    return HttpReply(response.status_code, response.headers, b"".join(chunks), response.url)
