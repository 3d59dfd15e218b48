"""Reading what models write.

``_arguments`` holds the reader protocol and the argument checks every parser shares,
``_base`` the ``BaseParser``, ``_json_parser`` and ``_tuple_parser`` the two parsers of
Lagent, ``_lenient_json`` the reading of the JSON models actually write. Lagent's import
path, ``lagent_like.actions.parser``, re-exports the parsers.
"""

from ._base import BaseParser
from ._json_parser import JsonParser
from ._tuple_parser import TupleParser

__all__ = ["BaseParser", "JsonParser", "TupleParser"]
