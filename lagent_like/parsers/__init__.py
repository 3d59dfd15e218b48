"""Reading what models write.

``_arguments`` holds the reader protocol and the argument checks every parser shares,
``_base`` the ``BaseParser``, ``_json_parser`` and ``_tuple_parser`` the two parsers of
Lagent, ``_lenient_json`` the reading of the JSON models actually write. Lagent's import
path, ``lagent_like.actions.parser``, re-exports the parsers. ``TupleParser`` is imported
on first use: most catalogues never read tuples.
"""

from typing import TYPE_CHECKING

from .._private import lazy as _lazy
from ._base import BaseParser
from ._json_parser import JsonParser

if TYPE_CHECKING:
    from ._tuple_parser import TupleParser

__all__ = ["BaseParser", "JsonParser", "TupleParser"]

__getattr__ = _lazy.lazy_getattr(globals(), {"TupleParser": "lagent_like.parsers._tuple_parser"})
