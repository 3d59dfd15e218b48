"""Attributes of a tool that look like runtime settings, but that nothing reads.

A tool's attributes are its own, as in Lagent: ``self.timeout`` may be the time limit
a shell enforces itself. The executor reads its settings from ``ToolSettings`` only.
So a tool written the way other libraries' tools are (``timeout = 5.0`` in the class
body, ``self.max_retries = 3`` in ``__init__``, ``tool.timeout = 5.0`` afterwards)
would silently run without the limit it asks for. When nothing in the tool's class
reads such an attribute, it is meant for the runtime: this module finds those
attributes, so that defining the class (or handing the instance to an executor)
gives a ``DefinitionWarning`` and ``lagent-like lint`` an ``unread-setting`` finding.
"""

from __future__ import annotations

import dis
import types
from collections.abc import Iterator
from typing import Any

__all__ = ["PLAIN_VALUES", "SETTING_NAMES", "class_notes", "instance_notes"]

#: Attribute names that peers use for a runtime setting -> the ``ToolSettings`` field.
SETTING_NAMES = {
    "timeout": "timeout",
    "tool_timeout": "timeout",
    "retry": "retry",
    "retries": "retry",
    "max_retries": "retry",
    "retry_policy": "retry",
    "circuit_breaker": "circuit_breaker",
    "blocking": "blocking",
    "validation": "validation",
    "validation_mode": "validation",
}
_NAMES = frozenset(SETTING_NAMES)
#: The module of ``BaseAction``, whose own methods are not the tool's.
_FRAMEWORK = __name__.rsplit(".", 1)[0] + "._base_action"
_PACKAGE = __name__.split(".", 1)[0] + "."
#: What holds a function in a class body besides a function: whose code :func:`_value_codes` reads.
_WRAPPERS = (staticmethod, classmethod, property)
#: Classes of class-body values that are plain data: no code, no attributes of their own.
PLAIN_VALUES = frozenset({str, int, float, bool, type(None), tuple, frozenset, dict, list})
#: Instructions that read (or delete) an attribute by name.
_READS = frozenset({"LOAD_ATTR", "LOAD_METHOD", "LOAD_SUPER_ATTR", "DELETE_ATTR"})
#: Instructions that set an attribute by name.
_STORES = frozenset({"STORE_ATTR"})


def _codes(cls: type) -> Iterator[types.CodeType]:
    """The code of each function, property accessor and static or class method in ``cls``'s body."""
    for value in vars(cls).values():
        yield from _value_codes(value)


def _value_codes(value: Any) -> Iterator[types.CodeType]:
    """The code of ``value`` if it is a function, the accessors' of a property, a static or class method's."""
    if isinstance(value, (staticmethod, classmethod)):
        value = value.__func__
    if isinstance(value, property):
        yield from (
            f.__code__ for f in (value.fget, value.fset, value.fdel) if isinstance(f, types.FunctionType)
        )
    elif isinstance(value, types.FunctionType):
        yield value.__code__


def _names_used(code: types.CodeType, opnames: frozenset[str], found: set[str]) -> None:
    """Add to ``found`` the setting names ``code`` (or code nested in it) uses with ``opnames``.

    A string constant naming one counts as a read (``getattr(self, "timeout")``).
    """
    if not (_NAMES.isdisjoint(code.co_names) and _NAMES.isdisjoint(code.co_consts)):
        for instruction in dis.get_instructions(code):
            argval = instruction.argval
            if not isinstance(argval, str) or argval not in _NAMES:
                continue
            if instruction.opname in opnames or (opnames is _READS and instruction.opname == "LOAD_CONST"):
                found.add(argval)
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            _names_used(const, opnames, found)


def _read_names(cls: type) -> set[str]:
    """The setting names any method of ``cls`` or its bases reads."""
    found: set[str] = set()
    for klass in cls.__mro__[:-1]:
        if klass.__module__ == _FRAMEWORK:  # BaseAction takes the settings as keywords
            continue
        for code in _codes(klass):
            _names_used(code, _READS, found)
    return found


def _class_set_names(cls: type) -> list[tuple[str, str]]:
    """``(name, how it is set)`` of the setting names ``cls``'s own body sets."""
    own = vars(cls)
    found = [
        (name, f"{name} = {own[name]!r} in the class body")
        for name in SETTING_NAMES
        if name in own and not hasattr(type(own[name]), "__get__")
    ]
    stored: set[str] = set()
    for code in _codes(cls):
        if not _NAMES.isdisjoint(code.co_names):
            _names_used(code, _STORES, stored)
    found += [(name, f"self.{name} = ... in a method") for name in SETTING_NAMES if name in stored]
    return found


def _note(owner: str, name: str, how: str) -> str:
    field = SETTING_NAMES[name]
    return (
        f"{how} is read by nothing in the tool, and the executor does not read it as a "
        f"runtime setting; to set the tool's {field}, use __tool_settings__ = ToolSettings({field}=...) "
        f"or the constructor keyword {owner}({field}=...)"
    )


def _may_set(cls: type) -> bool:
    """Whether ``cls``'s own body or methods name a setting at all (the common answer, no, is cheap)."""
    own = vars(cls)
    if not _NAMES.isdisjoint(own):
        return True
    for value in own.values():
        # Speed (bench_scale's define row): a plain function, the common value, is read
        # without a generator; only the wrappers of functions hold other code.
        kind = type(value)
        if kind is types.FunctionType:
            if not _NAMES.isdisjoint(value.__code__.co_names):
                return True
        elif (
            kind not in PLAIN_VALUES
            and isinstance(value, _WRAPPERS)
            and any(not _NAMES.isdisjoint(c.co_names) for c in _value_codes(value))
        ):
            return True
    return False


def class_notes(cls: type) -> list[str]:
    """Notes on the attributes ``cls`` sets that look like runtime settings and are never read.

    Those are attributes set in its body or its methods, named like runtime settings,
    that nothing in the class reads.

    Returns:
        One sentence per attribute, naming it and saying to use ``ToolSettings``
        (a warning puts the class name before it); empty in the common case, found
        without disassembling.
    """
    if not _may_set(cls) or cls.__module__.startswith(_PACKAGE):  # shipped tools keep Lagent's attributes
        return []
    read = _read_names(cls)
    notes: dict[str, str] = {}
    for name, how in _class_set_names(cls):
        if name not in read and name not in notes:
            notes[name] = _note(cls.__name__, name, how)
    return list(notes.values())


def instance_notes(action: Any) -> list[str]:
    """Notes on the instance attributes of ``action`` that look like runtime settings, unread.

    Those are attributes named like runtime settings that nothing in its class reads, set
    on the instance (``tool.timeout = 5.0``) rather than by the class (those are
    :func:`class_notes`).
    """
    given = _NAMES.intersection(vars(action))
    if not given:
        return []
    cls = type(action)
    read = _read_names(cls)
    by_class = {name for klass in cls.__mro__[:-1] for name, _ in _class_set_names(klass)}
    return [
        _note(cls.__name__, name, f"the instance attribute {name} = {vars(action)[name]!r}")
        for name in sorted(given - read - by_class)
    ]
