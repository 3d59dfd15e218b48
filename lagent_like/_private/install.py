"""How an error or a doc line tells a user to install an optional extra.

Users install the package from an index (``pip install 'lagent-like[web]'``) or from a
clone of its repository (``pip install '.[web]'``); every hint names both, worded
here once.
"""

from __future__ import annotations

__all__ = ["install_hint"]


def install_hint(extra: str) -> str:
    """The command lines that install ``extra``, e.g. for ``'web'``.

    ``pip install 'lagent-like[web]'`` (from a clone: ``pip install '.[web]'``).
    """
    return f"pip install 'lagent-like[{extra}]' (from a clone: pip install '.[{extra}]')"
