"""What the package's records are built from: dataclass methods written once, and the codes' base.

Why the methods are here: ``@dataclass`` writes each class's ``__init__``,
``__repr__``, ``__eq__`` and ``__hash__`` as source text and compiles it with ``exec``
when the class is created, 0.3 to 1 ms a class, paid by every program at import (15
dataclasses were most of the time ``from lagent_like import ActionExecutor,
BaseAction, tool_api`` spent in the package's own code). The records on that path are
therefore declared ``@dataclass(init=False, repr=False, eq=False)``: each writes its
``__init__`` in its class body (compiled once, with its module's bytecode; the call
path builds these records, so it stays a plain function) and takes the three methods
here, which read the fields that ``@dataclass`` recorded. A frozen one also takes
:func:`frozen_setattr` and :func:`frozen_delattr` (``frozen=True`` compiles two more
methods) and is marked frozen with :func:`mark_frozen`. ``dataclasses.fields``,
``replace``, ``asdict``, subclassing and pickling work as before;
``tests/test_r5_import_records.py`` checks each class against a dataclass generated
from the same fields (signature, state, repr, equality, hash, frozenness).

:class:`Code` is the base of the records' status codes: the schema's, and Lagent 0.5's
stream codes, which load only when first read.
"""

from __future__ import annotations

import reprlib
import weakref
from dataclasses import FrozenInstanceError, fields
from enum import IntEnum
from operator import attrgetter
from typing import Any, Callable, TypeVar

__all__ = [
    "FACTORY",
    "Code",
    "field_eq",
    "field_hash",
    "field_repr",
    "frozen_delattr",
    "frozen_setattr",
    "mark_frozen",
]

_Class = TypeVar("_Class", bound=type)


class _Factory:
    """The default of an ``__init__`` parameter whose field has a ``default_factory``."""

    def __repr__(self) -> str:
        return "<factory>"  # as dataclasses' own marker, so that signatures read the same


#: The default of a parameter whose field has a ``default_factory``: ``__init__`` calls
#: the factory when it gets this (typed ``Any``: it stands in for a value of any field).
FACTORY: Any = _Factory()


class _Plan:
    """What the three methods read of one class's fields, gathered on its first use."""

    __slots__ = ("compared", "hashed", "names", "shown")

    def __init__(self, cls: type) -> None:
        own = fields(cls)
        #: Every field's name (a frozen record refuses to set these, whatever its class).
        self.names = frozenset(f.name for f in own)
        #: The names shown in the repr, in field order.
        self.shown = tuple(f.name for f in own if f.repr)
        #: The values compared for equality, as one tuple (``attrgetter`` is the fastest read).
        self.compared = _tuple_getter(tuple(f.name for f in own if f.compare))
        #: The values hashed: those compared, unless a field says otherwise.
        self.hashed = _tuple_getter(tuple(f.name for f in own if (f.compare if f.hash is None else f.hash)))


def _tuple_getter(names: tuple[str, ...]) -> Callable[[Any], tuple[Any, ...]]:
    """A function returning ``(record.name, ...)`` for ``names``, a tuple even for one name or none."""
    if len(names) > 1:
        return attrgetter(*names)
    if names:
        one = attrgetter(names[0])
        return lambda record: (one(record),)
    return lambda record: ()


#: Each class's :class:`_Plan`, made on the first call of one of its methods (weakly
#: held: a class made at run time, a test's subclass for instance, can still go).
_PLANS: weakref.WeakKeyDictionary[type, _Plan] = weakref.WeakKeyDictionary()


def _plan(cls: type) -> _Plan:
    """The :class:`_Plan` of ``cls`` (two threads may both make it: either is the same)."""
    plan = _PLANS.get(cls)
    if plan is None:
        plan = _PLANS[cls] = _Plan(cls)
    return plan


@reprlib.recursive_repr()  # '...' for a record inside itself, as dataclasses' repr
def field_repr(self: Any) -> str:
    """``Class(field=value, ...)`` over the fields shown in the repr, as ``@dataclass`` writes it."""
    shown = ", ".join([f"{name}={getattr(self, name)!r}" for name in _plan(type(self)).shown])
    return f"{type(self).__qualname__}({shown})"


def field_eq(self: Any, other: Any) -> Any:
    """Equal when ``other`` has the same class and equal compared fields, as ``@dataclass`` writes it."""
    if other.__class__ is self.__class__:
        compared = _plan(type(self)).compared
        return compared(self) == compared(other)
    return NotImplemented


def field_hash(self: Any) -> int:
    """The hash of the hashed fields (those compared, unless a field says otherwise), as ``@dataclass``."""
    return hash(_plan(type(self)).hashed(self))


def _refuses(self: Any, name: str, method: str, function: Any) -> bool:
    """Whether a frozen record refuses to change ``name``, by ``@dataclass(frozen=True)``'s rule.

    The rule: always on the frozen class itself (the one whose own ``method`` is
    ``function``); on a plain subclass, only the fields, so that the subclass's own
    attributes can still be set.
    """
    cls = type(self)
    return vars(cls).get(method) is function or name in _plan(cls).names


def frozen_setattr(self: Any, name: str, value: Any) -> None:
    """Refuse an assignment as ``@dataclass(frozen=True)`` does.

    For the frozen records (see the module's docstring): ``@dataclass(frozen=True)``
    compiles this and :func:`frozen_delattr` for each class at import. Their
    ``__init__`` sets the fields with ``object.__setattr__``, as the generated one does.
    A plain (non-dataclass) subclass may set attributes that are not fields.

    Raises:
        FrozenInstanceError: with ``@dataclass``'s message.
    """
    if _refuses(self, name, "__setattr__", frozen_setattr):
        raise FrozenInstanceError(f"cannot assign to field {name!r}")
    object.__setattr__(self, name, value)


def frozen_delattr(self: Any, name: str) -> None:
    """Refuse a deletion as ``@dataclass(frozen=True)`` does (see :func:`frozen_setattr`).

    Raises:
        FrozenInstanceError: with ``@dataclass``'s message.
    """
    if _refuses(self, name, "__delattr__", frozen_delattr):
        raise FrozenInstanceError(f"cannot delete field {name!r}")
    object.__delattr__(self, name)


def mark_frozen(cls: _Class) -> _Class:
    """Record the dataclass ``cls`` as frozen, as ``@dataclass(frozen=True)`` records it.

    For a class that takes :func:`frozen_setattr` and :func:`frozen_delattr` instead of
    passing ``frozen=True``: ``dataclasses`` reads this flag when a dataclass subclasses
    it (a frozen subclass is allowed, a non-frozen one refused), as before.
    """
    vars(cls)["__dataclass_params__"].frozen = True
    return cls


class Code(IntEnum):
    """A record's code: an ``IntEnum`` that prints as its number."""

    def __str__(self) -> str:
        """The number, as ``IntEnum`` prints it from Python 3.11 on, on every version."""
        return str(self.value)
