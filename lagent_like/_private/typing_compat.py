"""The typing features this package needs, from ``typing`` where it has them.

typing-extensions backports them to Python 3.9 but costs milliseconds to import, and
from 3.10 the standard library has them all. One gap remains: typing-extensions has
its own ``TypedDict``, which ``typing.is_typeddict`` does not recognise; a program
that uses it has imported typing-extensions already, so it is asked then.
"""

from __future__ import annotations

import sys
import types
from typing import Any, Optional, Union

if sys.version_info >= (3, 10):
    from typing import Annotated, Literal, get_args, get_origin, get_type_hints
    from typing import is_typeddict as _is_std_typeddict

    def is_typeddict(tp: Any) -> bool:
        """Whether ``tp`` is a TypedDict class (from ``typing`` or typing-extensions)."""
        if _is_std_typeddict(tp):
            return True
        extensions = sys.modules.get("typing_extensions")
        return extensions is not None and bool(extensions.is_typeddict(tp))

else:  # pragma: no cover - Python 3.9
    from typing_extensions import Annotated, Literal, get_args, get_origin, get_type_hints, is_typeddict

__all__ = [
    "LITERAL_ORIGINS",
    "UNION_ORIGINS",
    "Annotated",
    "Literal",
    "get_args",
    "get_origin",
    "get_type_hints",
    "is_any",
    "is_typeddict",
    "strip_annotated",
    "typed_dict_fields",
]

#: What ``get_origin`` returns for unions: ``Union[...]``, and ``X | Y`` on Python 3.10+.
UNION_ORIGINS: tuple[Any, ...] = (Union,)
if hasattr(types, "UnionType"):
    UNION_ORIGINS += (types.UnionType,)


def _special_forms(name: str) -> tuple[Any, ...]:
    """``typing.<name>`` and typing-extensions' own, when they differ (Python 3.9's ``Literal``)."""
    import typing

    forms = [getattr(typing, name, None)]
    extensions = sys.modules.get("typing_extensions")
    if extensions is not None:
        forms.append(getattr(extensions, name, None))
    return tuple(f for f in dict.fromkeys(forms) if f is not None)


def is_any(tp: Any) -> bool:
    """Whether ``tp`` is ``typing.Any`` or typing-extensions' own (a class of its own before 3.11).

    Both are classes on some versions (``typing.Any`` from 3.11), yet take any value, not
    their instances: an annotation reader asks this before treating a class as a class.
    """
    if tp is Any:
        return True
    extensions = sys.modules.get("typing_extensions")  # imported already by a program using its Any
    return extensions is not None and tp is getattr(extensions, "Any", None)


#: What ``get_origin`` returns for ``Literal[...]`` (typing's and typing-extensions').
LITERAL_ORIGINS: tuple[Any, ...] = tuple(dict.fromkeys((Literal, *_special_forms("Literal"))))

#: TypedDict key qualifiers, which say nothing about the value's type, by name: on
#: Python 3.10 typing-extensions (perhaps imported after this module) has its own.
_REQUIRED, _NOT_REQUIRED = "Required", "NotRequired"
_QUALIFIER_NAMES = frozenset({_REQUIRED, _NOT_REQUIRED, "ReadOnly"})


def _qualifier(origin: Any) -> Optional[str]:
    """``'Required'``, ``'NotRequired'`` or ``'ReadOnly'`` for those special forms, else ``None``."""
    if origin is None or isinstance(origin, type):
        return None
    name = getattr(origin, "_name", None)
    return name if name in _QUALIFIER_NAMES else None


def strip_annotated(annotation: Any) -> tuple[Any, tuple[Any, ...]]:
    """Split ``Annotated[X, *meta]`` into ``(X, meta)``; a ``NewType`` becomes its base type.

    Other annotations pass through with no metadata.
    """
    meta: tuple[Any, ...] = ()
    origin = get_origin(annotation)
    while _qualifier(origin):  # Required[X], NotRequired[X], ReadOnly[X] in a TypedDict
        annotation = get_args(annotation)[0]
        origin = get_origin(annotation)
    if origin is Annotated:
        annotation, *rest = get_args(annotation)
        meta = tuple(rest)
        while _qualifier(get_origin(annotation)):
            annotation = get_args(annotation)[0]
    while hasattr(annotation, "__supertype__"):  # typing.NewType
        annotation = annotation.__supertype__
    return annotation, meta


def typed_dict_fields(cls: type) -> tuple[dict[str, Any], list[str]]:
    """``(hint of each key, the required keys in order)`` of a TypedDict class.

    ``Required``/``NotRequired`` are read from the resolved hints, so they count under
    ``from __future__ import annotations`` too, where the class's own
    ``__required_keys__`` cannot see them inside the annotation strings.
    """
    hints = get_type_hints(cls, include_extras=True)
    declared = getattr(cls, "__required_keys__", hints.keys())
    required = []
    for key, hint in hints.items():
        qualifiers = _qualifiers(hint)
        if _REQUIRED in qualifiers or (key in declared and _NOT_REQUIRED not in qualifiers):
            required.append(key)
    return hints, required


def _qualifiers(hint: Any) -> set[str]:
    found = set()
    while True:
        origin = get_origin(hint)
        name = _qualifier(origin)
        if name:
            found.add(name)
        elif origin is not Annotated:
            return found
        hint = get_args(hint)[0]
