"""Read-only dicts and lists, shared by every copy of a description or export handed out.

``get_actions_info()`` and the ``to_*_tools()`` exports run for each model call and
cover the whole catalogue; copying every nested schema each time made them grow to
tens of milliseconds at thousands of tools. Their entries are now fresh at the top
(a caller may set a key) and share the nested parts, which are frozen: changing one
raises ``TypeError`` saying how to get a copy to edit, instead of silently changing
what the next caller gets. Frozen values are ``dict`` and ``list`` subclasses, so
they compare equal to plain ones, serialize to JSON, and copy or pickle as plain ones.
"""

from __future__ import annotations

from typing import Any, NoReturn

__all__ = ["FrozenDict", "FrozenList", "fresh_top", "frozen", "thawed"]

_READ_ONLY = (
    "this part of a tool description or export is shared by every copy handed out and is "
    "read-only; edit a copy made with copy.deepcopy()"
)


def _refuse(self: Any, *args: Any, **kwargs: Any) -> NoReturn:
    raise TypeError(_READ_ONLY)


class FrozenDict(dict):  # type: ignore[type-arg]
    """A ``dict`` that refuses changes (see the module docstring)."""

    __slots__ = ()
    __setitem__ = __delitem__ = clear = pop = popitem = setdefault = update = __ior__ = _refuse

    def __copy__(self) -> dict[Any, Any]:
        return dict(self)

    def __deepcopy__(self, memo: dict[int, Any]) -> Any:
        return thawed(self)

    def __reduce__(self) -> tuple[Any, ...]:
        return (dict, (dict(self),))


class FrozenList(list):  # type: ignore[type-arg]
    """A ``list`` that refuses changes (see the module docstring)."""

    __slots__ = ()
    __setitem__ = __delitem__ = __iadd__ = __imul__ = _refuse
    append = extend = insert = pop = remove = clear = sort = reverse = _refuse

    def __copy__(self) -> list[Any]:
        return list(self)

    def __deepcopy__(self, memo: dict[int, Any]) -> Any:
        return thawed(self)

    def __reduce__(self) -> tuple[Any, ...]:
        return (list, (list(self),))


def frozen(value: Any) -> Any:
    """``value`` with every dict and list in it made read-only (new containers; scalars shared)."""
    if type(value) is FrozenDict or type(value) is FrozenList:
        return value  # already read-only all the way down: shared
    if isinstance(value, dict):
        return FrozenDict({k: frozen(v) for k, v in value.items()})
    if isinstance(value, list):
        return FrozenList([frozen(v) for v in value])
    return value


def fresh_top(entry: dict[str, Any]) -> dict[str, Any]:
    """A copy of ``entry`` and of the dicts directly in it; what lies deeper is shared.

    An export entry is plain at those two levels (``tool["function"]["strict"]``)
    and read-only below them (the schemas), so the copy is the caller's to change.
    """
    return {k: dict(v) if isinstance(v, dict) else v for k, v in entry.items()}


def thawed(value: Any) -> Any:
    """A deep copy of a description: dicts and lists rebuilt plain, everything else shared.

    Descriptions hold dicts, lists and immutable scalars (enum values are shared as
    they are), so this is a deep copy at a fraction of ``copy.deepcopy``'s cost. Dict
    and list subclasses (frozen ones too) come back as plain dicts and lists.
    """
    if isinstance(value, dict):
        return {k: thawed(v) for k, v in value.items()}
    if isinstance(value, list):
        return [thawed(v) for v in value]
    return value
