"""Reading what models write.

``arguments`` holds the reader protocol and the argument checks every parser shares,
``base`` the ``BaseParser``, ``json_parser`` and ``tuple_parser`` the two parsers of
Lagent, ``lenient_json`` the reading of the JSON models actually write. Lagent's import
path, ``lagent_like.actions.parser``, re-exports the parsers.
"""
