"""Lagent's import path ``lagent.actions.ppt``.

The tool lives in :mod:`lagent_like.tools.ppt`.
"""

from ..tools.ppt import PPT, AsyncPPT

__all__ = ["AsyncPPT", "PPT"]
