"""Dicts and lists that say when they change: a tool's own description, edited in place.

``get_actions_info()`` and the exports hand out a read-only copy of each tool's
description, made once; users may still edit the description itself (Lagent's is a
plain dict), and the next description must show the edit. Comparing the copy with the
description on every call cost as much as the rest of the call at thousands of tools.
The description is built of these containers instead: every change through them
calls their ``on_change``, so an unchanged description costs nothing to check.

A plain dict or list stored into one is kept as it is (the caller may still hold it
and edit it later): ``on_change(True)`` then says that this description can no longer
report every change, and its owner goes back to comparing. Watched values are ``dict``
and ``list`` subclasses, so they compare equal to plain ones, serialize to JSON, and
copy or pickle as plain ones.
"""

from __future__ import annotations

from typing import Any, Callable

from .frozen import thawed

__all__ = ["OnChange", "WatchedDict", "WatchedList", "watched_copy"]

#: ``on_change(unwatched)``: the description changed; ``unwatched``: a plain container is in it now.
OnChange = Callable[[bool], None]


def _unwatched(values: Any) -> bool:
    """Whether any of ``values`` is a plain container (a change inside it would go unseen)."""
    return any(map(_plain, values))


def _plain(value: Any) -> bool:
    """Whether ``value`` is a plain container (a change inside it would go unseen)."""
    return isinstance(value, (dict, list)) and not isinstance(value, (WatchedDict, WatchedList))


def _update_in_place(self: Any, other: Any) -> Any:
    """``watched |= other``: an update, reported."""
    self.update(other)
    return self


def _extend_in_place(self: Any, other: Any) -> Any:
    """``watched += other``: an extension, reported."""
    self.extend(other)
    return self


def _repeat_in_place(self: Any, times: Any) -> Any:
    """``watched *= times``, reported."""
    list.__imul__(self, times)
    self.on_change(False)
    return self


class WatchedDict(dict[Any, Any]):
    """A ``dict`` that calls its ``on_change`` whenever it is changed (see the module docstring)."""

    __slots__ = ("on_change",)

    on_change: OnChange

    def __setitem__(self, key: Any, value: Any) -> None:
        dict.__setitem__(self, key, value)
        self.on_change(_plain(value))

    def __delitem__(self, key: Any) -> None:
        dict.__delitem__(self, key)
        self.on_change(False)

    __ior__ = _update_in_place

    def clear(self) -> None:
        """Remove every key (and say so)."""
        dict.clear(self)
        self.on_change(False)

    def pop(self, *args: Any) -> Any:
        """As ``dict.pop`` (and say so)."""
        value = dict.pop(self, *args)
        self.on_change(False)
        return value

    def popitem(self) -> tuple[Any, Any]:
        """As ``dict.popitem`` (and say so)."""
        item = dict.popitem(self)
        self.on_change(False)
        return item

    def setdefault(self, key: Any, default: Any = None) -> Any:
        """As ``dict.setdefault`` (and say so)."""
        value = dict.setdefault(self, key, default)
        self.on_change(_plain(value))
        return value

    def update(self, *args: Any, **kwargs: Any) -> None:
        """As ``dict.update`` (and say so)."""
        dict.update(self, *args, **kwargs)
        self.on_change(_unwatched(self.values()))

    def __copy__(self) -> dict[Any, Any]:
        return dict(self)

    def __deepcopy__(self, memo: dict[int, Any]) -> Any:
        return thawed(self)

    def __reduce__(self) -> tuple[Any, ...]:
        return (dict, (dict(self),))


class WatchedList(list[Any]):
    """A ``list`` that calls its ``on_change`` whenever it is changed (see the module docstring)."""

    __slots__ = ("on_change",)

    on_change: OnChange

    def __setitem__(self, index: Any, value: Any) -> None:
        list.__setitem__(self, index, value)
        self.on_change(_unwatched(value) if isinstance(index, slice) else _plain(value))

    def __delitem__(self, index: Any) -> None:
        list.__delitem__(self, index)
        self.on_change(False)

    __iadd__ = _extend_in_place
    __imul__ = _repeat_in_place

    def append(self, value: Any) -> None:
        """As ``list.append`` (and say so)."""
        list.append(self, value)
        self.on_change(_plain(value))

    def extend(self, values: Any) -> None:
        """As ``list.extend`` (and say so)."""
        start = len(self)
        list.extend(self, values)
        self.on_change(_unwatched(self[start:]))

    def insert(self, index: Any, value: Any) -> None:
        """As ``list.insert`` (and say so)."""
        list.insert(self, index, value)
        self.on_change(_plain(value))

    def pop(self, *args: Any) -> Any:
        """As ``list.pop`` (and say so)."""
        value = list.pop(self, *args)
        self.on_change(False)
        return value

    def remove(self, value: Any) -> None:
        """As ``list.remove`` (and say so)."""
        list.remove(self, value)
        self.on_change(False)

    def clear(self) -> None:
        """Remove every item (and say so)."""
        list.clear(self)
        self.on_change(False)

    def sort(self, *args: Any, **kwargs: Any) -> None:
        """As ``list.sort`` (and say so)."""
        list.sort(self, *args, **kwargs)
        self.on_change(False)

    def reverse(self) -> None:
        """As ``list.reverse`` (and say so)."""
        list.reverse(self)
        self.on_change(False)

    def __copy__(self) -> list[Any]:
        return list(self)

    def __deepcopy__(self, memo: dict[int, Any]) -> Any:
        return thawed(self)

    def __reduce__(self) -> tuple[Any, ...]:
        return (list, (list(self),))


def watched_copy(value: Any, on_change: OnChange) -> Any:
    """A deep copy of a description, its dicts and lists watched, each reporting to ``on_change``.

    As :func:`~lagent_like._private.frozen.thawed`: scalars are shared, dict and list
    subclasses come back as watched ones.
    """
    if isinstance(value, dict):
        copied = WatchedDict({k: watched_copy(v, on_change) for k, v in value.items()})
        copied.on_change = on_change
        return copied
    if isinstance(value, list):
        items = WatchedList([watched_copy(v, on_change) for v in value])
        items.on_change = on_change
        return items
    return value
