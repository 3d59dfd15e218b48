"""Whether a callback can be called the way the package will call it.

Why: a callback whose signature does not fit (a hook method, an ``enable`` predicate)
would otherwise fail at every call, far from the mistake, and be mistaken for a
failing callback. Checking it when it is given turns that into a definition error that
names it. ``inspect.Signature.bind`` answers the question exactly, keyword-only and
``*args`` parameters included.
"""

from __future__ import annotations

import inspect
from typing import Any, Callable, Optional

__all__ = ["refusal", "signature_of"]


def signature_of(func: Callable[..., Any]) -> Optional[inspect.Signature]:
    """``func``'s signature, or ``None`` when it has none to read (some builtins: trusted)."""
    try:
        return inspect.signature(func)
    except (TypeError, ValueError):
        return None


def refusal(signature: Optional[inspect.Signature], *args: Any, **kwargs: Any) -> Optional[str]:
    """Why a call with these arguments would not bind (e.g. ``"too many positional arguments"``).

    ``None`` when it binds, or when there is no signature to check.
    """
    if signature is None:
        return None
    try:
        signature.bind(*args, **kwargs)
    except TypeError as exc:
        return str(exc)
    return None
