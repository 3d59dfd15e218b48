"""Keeping API keys out of every message: read them clean, redact them in any spelling.

Why a module of its own: a key must not reach an ``errmsg``, an exception, a ``repr``
or a log line, whichever library wrote the line, and it shows up in more spellings than
the one given: with the trailing newline of the file it was read from, URL-encoded in a
query string, or escaped as ``requests`` quotes a header value it refuses. The HTTP
plumbing (:mod:`lagent_like._net.http`) and the model client redact through here.
"""

from __future__ import annotations

import json
import logging
import os
import threading
from collections.abc import Iterable
from typing import Optional
from urllib.parse import quote, quote_plus

__all__ = ["REDACTED", "excerpt", "hide_in_library_logs", "read_key", "redact", "secret_forms"]

#: What a secret is replaced with in messages.
REDACTED = "***"


def read_key(given: Optional[str], *env_names: str) -> Optional[str]:
    """An API key: ``given``, else the first set environment variable, whitespace stripped.

    Keys are often read from files and arrive with a trailing newline, which no key
    contains and which ``requests`` refuses in a header (quoting the value back).

    Returns:
        The key, or ``None`` when none is given or set (or it is blank).
    """
    candidates = [given] if given is not None else [os.environ.get(name) for name in env_names]
    for candidate in candidates:
        if candidate and candidate.strip():
            return candidate.strip()
    return None


def secret_forms(secret: str) -> list[str]:
    r"""Every spelling of ``secret`` a message may quote, longest first.

    The secret as given and without surrounding whitespace, each URL-encoded (as a
    path and as a form value), escaped as Python's ``repr`` and JSON quote it (a key
    ending in a newline shows as ``key\n`` in ``requests``' header errors).
    """
    bases = {secret, secret.strip()}
    forms = set(bases)
    for base in bases:
        forms.update(
            (quote(base, safe=""), quote(base), quote_plus(base), repr(base)[1:-1], json.dumps(base)[1:-1])
        )
    return sorted((form for form in forms if form.strip()), key=len, reverse=True)


def redact(text: str, secrets: Iterable[Optional[str]] = ()) -> str:
    """``text`` with every form of every non-empty secret replaced by :data:`REDACTED`.

    Args:
        text: a message that may quote a secret (an error string, a URL, a body).
        secrets: the values to hide; ``None`` and blank strings are ignored.

    Returns:
        The redacted text.
    """
    forms = sorted(
        {form for secret in secrets if secret for form in secret_forms(secret)}, key=len, reverse=True
    )
    for form in forms:
        text = text.replace(form, REDACTED)
    return text


class _RedactingFilter(logging.Filter):
    """Redacts the keys sent so far from urllib3's log lines (it logs each URL, query included).

    Attached to urllib3's connection-pool logger on the first request
    (:func:`hide_in_library_logs`), not at import: importing the package changes no
    global state.
    """

    def __init__(self) -> None:
        super().__init__()
        self.secrets: set[str] = set()

    def filter(self, record: logging.LogRecord) -> bool:
        if self.secrets:
            record.msg, record.args = redact(record.getMessage(), list(self.secrets)), None
        return True


_log_filter = _RedactingFilter()
_log_filter_lock = threading.Lock()


def hide_in_library_logs(secrets: list[str]) -> None:
    if not secrets or _log_filter.secrets.issuperset(secrets):
        return
    with _log_filter_lock:
        _log_filter.secrets.update(secrets)
        pool_logger = logging.getLogger("urllib3.connectionpool")
        if _log_filter not in pool_logger.filters:
            pool_logger.addFilter(_log_filter)


def excerpt(text: str, secrets: Iterable[Optional[str]], limit: int) -> str:
    """``text`` on one line, redacted, then cut to ``limit`` characters with ``...``.

    Redacted before it is shortened, so that no cut-off piece of a secret survives.
    """
    flat = " ".join(redact(text, secrets).split())
    return flat if len(flat) <= limit else flat[: limit - 3] + "..."
