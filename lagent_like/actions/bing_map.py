"""Lagent's import path ``lagent.actions.bing_map``.

The tool lives in :mod:`lagent_like.tools.web.bing_map`.
"""

from ..tools.web.bing_map import AsyncBINGMap, BINGMap

__all__ = ["AsyncBINGMap", "BINGMap"]
