"""Lagent's import path ``lagent.actions.google_scholar_search``.

The tool lives in :mod:`lagent_like.tools.web.google_scholar_search`.
"""

from ..tools.web.google_scholar_search import AsyncGoogleScholar, GoogleScholar

__all__ = ["AsyncGoogleScholar", "GoogleScholar"]
