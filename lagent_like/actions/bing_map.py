"""Lagent's import path ``lagent.actions.bing_map``.

The tool lives in :mod:`lagent_like.tools.bing_map`.
"""

from ..tools.bing_map import AsyncBINGMap, BINGMap

__all__ = ["AsyncBINGMap", "BINGMap"]
