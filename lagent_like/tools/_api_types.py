"""The return annotations of the built-in tools' APIs: Lagent's ``dict``, typed for mypy.

Lagent annotates its tools' APIs ``-> dict``, and that bare word is read at run time:
MCP announces it as the API's ``outputSchema`` (``{"type": "object"}``, where
``dict[str, Any]`` would add ``"additionalProperties": {}``), and describing resolves it
with the parameters. mypy --strict, on the other hand, wants type arguments, and the
web tools' APIs also return an ``HTTP_ERROR`` :class:`~lagent_like.ActionReturn`
for a refused request (a record the executor completes, which no exception can give:
a raised :class:`~lagent_like.ToolError` is an ``API_ERROR``).

So each name here is ``dict`` at run time, and for the type checker the values the
API really returns. The run-time side is what the descriptions and schemas were
recorded from; the checked side is what the code is checked against.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Union

if TYPE_CHECKING:
    from ..schema import ActionReturn

__all__ = ["Dict", "DictOrRecord", "TextOrRecord"]

if TYPE_CHECKING:
    #: An API's result object (keys of any type, as the bare ``dict`` means).
    Dict = dict[Any, Any]
    #: An API's result object, or the ``HTTP_ERROR`` record of a refused request.
    DictOrRecord = Union[dict[str, Any], ActionReturn]
    #: Text where Lagent declares ``dict`` (its API returns the text itself), or the
    #: ``HTTP_ERROR`` record of a refused request.
    TextOrRecord = Union[str, ActionReturn]
else:
    Dict = DictOrRecord = TextOrRecord = dict
