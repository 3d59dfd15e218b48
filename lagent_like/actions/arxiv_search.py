"""Lagent's import path ``lagent.actions.arxiv_search``.

The tool lives in :mod:`lagent_like.tools.web.arxiv_search`.
"""

from ..tools.web.arxiv_search import ArxivSearch, AsyncArxivSearch

__all__ = ["ArxivSearch", "AsyncArxivSearch"]
