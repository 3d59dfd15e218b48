"""Lagent's import path ``lagent.actions.google_search``.

The tool lives in :mod:`lagent_like.tools.web.google_search`.
"""

from ..tools.web.google_search import AsyncGoogleSearch, GoogleSearch

__all__ = ["AsyncGoogleSearch", "GoogleSearch"]
