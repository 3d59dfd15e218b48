"""How the model client words a failed request: one exception per rung of the HTTP ladder.

The ladder itself (:func:`lagent_like._net.http.send`) is shared with the web tools;
this module turns its :class:`~lagent_like._net.http.HttpFailure` into the
client's ``Model*Error`` exceptions, each naming the endpoint and the attempts made,
and says which of them are worth another attempt.
"""

from __future__ import annotations

from typing import Callable

from .._net.http import HttpFailure, is_transient_status
from ..exceptions import (
    ModelClientError,
    ModelConnectionError,
    ModelHTTPError,
    ModelTimeoutError,
)
from .chat_wire import error_message, retry_after

__all__ = ["attempts_text", "is_retryable", "model_error"]


def attempts_text(attempts: int) -> str:
    """``'after 1 attempt'``, ``'after 3 attempts'``."""
    return f"after {attempts} attempt{'s' if attempts != 1 else ''}"


def is_retryable(error: ModelClientError) -> bool:
    """The ladder's transient rungs: no answer, a rate limit or a server fault."""
    if isinstance(error, ModelHTTPError):
        return is_transient_status(error.status)
    return isinstance(error, ModelConnectionError)


def model_error(
    failure: HttpFailure, attempt: int, timeout: float, quote: Callable[[str], str]
) -> ModelClientError:
    """The client's exception for ``failure`` on attempt number ``attempt``.

    Args:
        failure: how the request failed.
        attempt: the 1-based number of the attempt.
        timeout: the client's timeout, named by a timeout's message.
        quote: makes server text fit to quote (one line, redacted, shortened).
    """
    where = failure.where
    tried = attempts_text(attempt)
    if failure.kind == "timeout":
        return ModelTimeoutError(
            f"no answer from model server {where} within {timeout:g} s ({tried})",
            url=where,
            attempts=attempt,
            timeout=timeout,
        )
    if failure.kind == "connection":
        return ModelConnectionError(
            f"could not reach model server {where} ({failure.detail}, {tried})", url=where, attempts=attempt
        )
    if failure.kind == "unsent":
        return ModelClientError(
            f"could not send the request to model server {where}: {quote(failure.detail)}",
            url=where,
            attempts=attempt,
        )
    status = failure.status or 0
    server_message = quote(error_message(failure.body))
    reason = f" {failure.reason}" if failure.reason else ""
    # Only what is retried says how often it was tried.
    retried = f" {tried}" if failure.transient else ""
    said = f": {server_message}" if server_message else ""
    return ModelHTTPError(
        f"model server {where} answered HTTP {status}{reason}{retried}{said}",
        url=where,
        attempts=attempt,
        status=status,
        server_message=server_message,
        retry_after=retry_after(failure.retry_after),
    )
