"""Lagent's import path ``lagent.actions.web_browser``.

The tool lives in :mod:`lagent_like.tools.web.web_browser`.
"""

from ..tools.web.web_browser import AsyncWebBrowser, WebBrowser

__all__ = ["AsyncWebBrowser", "WebBrowser"]
