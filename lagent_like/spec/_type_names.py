"""Map Python annotations and docstring type words to Lagent's type names.

Lagent describes every parameter with one of a few type names. Which class or word
stands for which name is the one table of type families (``families.py``); classes are
looked up along their MRO, so subclasses (``bool`` before ``int``, ``OrderedDict``)
resolve naturally. This module adds what only annotations have: ``Annotated`` labels,
``Literal`` and ``Enum`` values, unions, TypedDict key qualifiers.
"""

from __future__ import annotations

import dataclasses
import enum
import types
from typing import Any, NamedTuple, Optional

from .._private.lazy import lazy_pattern
from .._private.typing_compat import (
    LITERAL_ORIGINS,
    UNION_ORIGINS,
    Annotated,
    get_args,
    get_origin,
    is_typeddict,
    strip_annotated,
)
from ..types import _families as fam
from ..types._pydantic import is_model
from ..types._value_classes import value_class_of

#: The Lagent type words of parameters with a shape (nested fields) worth describing.
SHAPED_WORDS = frozenset({fam.OBJECT.lagent, fam.ARRAY.lagent})

#: Lagent type name of each class (and of the ABCs that parametrised aliases use): a view
#: of the family table, without ``object``/``Any``/``None`` (which describe as strings).
CLASS_TYPES: dict[Any, str] = {
    cls: f.lagent for cls, f in fam.FAMILY_OF_CLASS.items() if f is not fam.ANY and f is not fam.NULL
}

#: Lagent type name of the first word of a docstring type (``list of str``, ``Optional[int]``).
WORD_TYPES: dict[str, str] = {word: f.lagent for word, f in fam.FAMILY_OF_WORD.items()}

#: The Python class a Lagent type name stands for (to check docstring-typed parameters).
LAGENT_CLASSES: dict[str, type] = {
    f.lagent: f.classes[0] for f in reversed(fam.FAMILIES) if f not in (fam.ANY, fam.NULL)
}

#: Wrappers whose first argument is the type a model sees.
_TRANSPARENT_WORDS = frozenset({"optional", "annotated", "typing"})

#: A word of a docstring type (compiled on first use: only docstring-typed parameters read it).
_WORD = lazy_pattern(r"[A-Za-z_][A-Za-z0-9_]*")


class TypeInfo(NamedTuple):
    """What a description says about one annotation.

    Attributes:
        name: the Lagent type name.
        enum: the allowed values for ``Literal`` and ``Enum`` types, else ``None``.
        label: the first string in ``Annotated[X, 'label', ...]``, else ``None``.
    """

    name: str
    enum: Optional[list[Any]] = None
    label: Optional[str] = None


def _type_of_values(values: list[Any]) -> str:
    names = {fam.family_of_class(type(v)).lagent for v in values}
    return names.pop() if len(names) == 1 else fam.STRING.lagent


def _class_type(cls: type) -> str:
    if dataclasses.is_dataclass(cls) or is_typeddict(cls) or is_model(cls):
        return fam.OBJECT.lagent
    value = value_class_of(cls)  # datetime, Decimal, ...: before bytes' string family
    return value.lagent if value is not None else fam.family_of_class(cls).lagent


#: Ready answers for plain classes, the common case, without any ``typing`` introspection.
PLAIN_TYPES: dict[Any, TypeInfo] = {cls: TypeInfo(name) for cls, name in CLASS_TYPES.items()}
_PLAIN = PLAIN_TYPES

#: The class of builtin generics such as ``list[str]``.
_BUILTIN_ALIAS = types.GenericAlias


def is_plain(annotation: Any) -> bool:
    """Whether ``annotation`` is one of the classes of :data:`CLASS_TYPES` itself."""
    try:
        return annotation in _PLAIN
    except TypeError:  # an unhashable annotation object
        return False


def alias_origin(annotation: Any) -> Any:
    """``get_origin(annotation)`` when :func:`strip_annotated` would leave it unchanged, else ``None``.

    That is every parametrised alias but ``Annotated``: typing's aliases refuse dunder
    attributes, so none looks like a ``NewType``. A builtin alias (``list[str]``) passes
    attribute lookups on to its origin class, so it only qualifies when that class is
    one of :data:`CLASS_TYPES`. Callers skip ``strip_annotated``'s probing with it.
    """
    if type(annotation) is _BUILTIN_ALIAS:
        origin = annotation.__origin__
        return origin if origin in _PLAIN else None
    origin = get_origin(annotation)
    if origin is None or origin is Annotated:
        return None
    return origin


def describe_annotation(annotation: Any) -> TypeInfo:
    """Return the Lagent type, enum values and ``Annotated`` label of a resolved annotation."""
    # Only classes are keys of _PLAIN: typing's aliases, whose hash is computed in
    # Python, are not looked up (the define benchmark).
    if isinstance(annotation, type) and is_plain(annotation):
        return _PLAIN[annotation]
    if type(annotation) is _BUILTIN_ALIAS:
        # list[str], dict[str, int]: their origin class says it all.
        plain = _PLAIN.get(annotation.__origin__)
        if plain is not None:
            return plain
    origin = alias_origin(annotation)
    if origin is not None:
        return _describe(annotation, origin)
    annotation, meta = strip_annotated(annotation)
    if meta:
        labels = [m for m in meta if isinstance(m, str)]
        return describe_annotation(annotation)._replace(label=labels[0] if labels else None)
    return _describe(annotation, get_origin(annotation))


def _describe(annotation: Any, origin: Any) -> TypeInfo:
    """:func:`describe_annotation` of an annotation without ``Annotated`` or ``NewType``."""
    if origin in UNION_ORIGINS:
        members = [describe_annotation(a) for a in get_args(annotation) if a is not type(None)]
        if len(members) == 1:
            return members[0]
        names = {m.name for m in members}
        return TypeInfo(names.pop() if len(names) == 1 else fam.STRING.lagent)
    if origin in LITERAL_ORIGINS:
        values = list(get_args(annotation))
        return TypeInfo(_type_of_values(values), values)
    if origin is not None:
        # Builtin classes and ABCs: no enum, dataclass or TypedDict among them.
        plain = _PLAIN.get(origin)
        if plain is not None:
            return plain
        annotation = origin
    if isinstance(annotation, type):
        if issubclass(annotation, enum.Enum):
            values = [member.value for member in annotation]
            return TypeInfo(_type_of_values(values), values)
        return TypeInfo(_class_type(annotation))
    return TypeInfo(fam.STRING.lagent)


def describe_type_word(text: Optional[str]) -> Optional[str]:
    """Return the Lagent type named by a docstring type such as ``'list of str'``.

    Returns ``None`` when the docstring gives no type, and ``STRING`` for words the
    table does not know.
    """
    if not text:
        return None
    for word in _WORD().findall(text):
        word = word.lower()
        if word not in _TRANSPARENT_WORDS:
            return WORD_TYPES.get(word, fam.STRING.lagent)
    return fam.STRING.lagent


def declared_class_of_word(text: Optional[str]) -> Optional[type]:
    """The class a docstring-typed parameter is checked against, or ``None`` for no check.

    ``None`` when the docstring gives no type or says ``Any`` (or ``None``): those accept
    anything. Words the table does not know are checked as strings, as they are described.
    """
    if not text:
        return None
    for word in _WORD().findall(text):
        word = word.lower()
        if word not in _TRANSPARENT_WORDS:
            family = fam.FAMILY_OF_WORD.get(word, fam.STRING)
            return None if family in (fam.ANY, fam.NULL) else LAGENT_CLASSES[family.lagent]
    return str
