from __future__ import annotations

# TypedDicts written under ``from __future__ import annotations`` (every annotation a
# string), imported by ``test_typeddict_keys.py``: ``Required``/``NotRequired`` hide inside
# the strings, where the class's own ``__required_keys__`` cannot see them.
from typing_extensions import NotRequired, Required, TypedDict

from lagent_like import BaseAction, tool_api


class FutureTags(TypedDict):
    name: str
    tags: NotRequired[int]


class FutureLoose(TypedDict, total=False):
    name: Required[str]
    size: int


class FutureKit(BaseAction):
    """TypedDicts with key qualifiers under postponed annotations."""

    @tool_api
    def tag(self, item: FutureTags) -> str:
        """Tag an item.

        Args:
            item: the item
        """
        return repr(item)

    @tool_api
    def loose(self, item: FutureLoose) -> str:
        """A loose item.

        Args:
            item: the item
        """
        return repr(item)
