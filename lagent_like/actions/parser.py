"""Lagent's import path of the parsers (``lagent.actions.parser``).

The parsers live in :mod:`lagent_like.parsers`: the reader protocol and argument checks
in ``arguments``, ``BaseParser`` in ``base``, ``JsonParser`` and ``TupleParser`` in
modules of their own. ``ParseError`` is importable here as in Lagent.
"""

from __future__ import annotations

from ..exceptions import ParseError as ParseError
from ..parsers import BaseParser, JsonParser, TupleParser
from ..parsers._base import render_outputs as render_outputs

__all__ = ["BaseParser", "JsonParser", "TupleParser"]
