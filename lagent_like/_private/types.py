"""Map Python annotations and docstring type words to Lagent's type names.

Lagent describes every parameter with one of a few type names. The mapping is two
lookup tables (one for classes, one for words found in docstrings) walked along the
class's MRO, so subclasses (``bool`` before ``int``, ``OrderedDict``) resolve naturally.
"""

from __future__ import annotations

import collections.abc
import dataclasses
import enum
import re
import types
from typing import Any, NamedTuple, Optional, Union

from .typing_compat import Annotated, Literal, get_args, get_origin, is_typeddict

STRING = "STRING"
NUMBER = "NUMBER"
FLOAT = "FLOAT"
BOOLEAN = "BOOLEAN"
ARRAY = "Array"
OBJECT = "OBJECT"

#: Lagent type name of each class (and of the ABCs that parametrised aliases use).
CLASS_TYPES: dict[Any, str] = {
    str: STRING,
    bytes: STRING,
    bool: BOOLEAN,
    int: NUMBER,
    float: FLOAT,
    list: ARRAY,
    tuple: ARRAY,
    set: ARRAY,
    frozenset: ARRAY,
    collections.abc.Sequence: ARRAY,
    collections.abc.Set: ARRAY,
    collections.abc.Iterable: ARRAY,
    dict: OBJECT,
    collections.abc.Mapping: OBJECT,
}

#: Lagent type name of the first word of a docstring type (``list of str``, ``Optional[int]``).
WORD_TYPES: dict[str, str] = {
    "str": STRING,
    "string": STRING,
    "bytes": STRING,
    "int": NUMBER,
    "integer": NUMBER,
    "float": FLOAT,
    "number": FLOAT,
    "bool": BOOLEAN,
    "boolean": BOOLEAN,
    "list": ARRAY,
    "tuple": ARRAY,
    "set": ARRAY,
    "sequence": ARRAY,
    "iterable": ARRAY,
    "array": ARRAY,
    "dict": OBJECT,
    "mapping": OBJECT,
    "object": OBJECT,
}

#: The Python class a Lagent type name stands for (to check docstring-typed parameters).
LAGENT_CLASSES: dict[str, type] = {
    STRING: str,
    NUMBER: int,
    FLOAT: float,
    BOOLEAN: bool,
    ARRAY: list,
    OBJECT: dict,
}

#: Wrappers whose first argument is the type a model sees.
_TRANSPARENT_WORDS = frozenset({"optional", "annotated", "typing"})

#: What ``get_origin`` returns for unions: ``Union[...]``, and ``X | Y`` on Python 3.10+.
UNION_ORIGINS: tuple[Any, ...] = (Union,)
if hasattr(types, "UnionType"):
    UNION_ORIGINS += (types.UnionType,)

_WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


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


def strip_annotated(annotation: Any) -> tuple[Any, tuple[Any, ...]]:
    """Split ``Annotated[X, *meta]`` into ``(X, meta)``; a ``NewType`` becomes its base type.

    Other annotations pass through with no metadata.
    """
    meta: tuple[Any, ...] = ()
    if get_origin(annotation) is Annotated:
        annotation, *rest = get_args(annotation)
        meta = tuple(rest)
    while hasattr(annotation, "__supertype__"):  # typing.NewType
        annotation = annotation.__supertype__
    return annotation, meta


def _type_of_values(values: list[Any]) -> str:
    names = {CLASS_TYPES.get(type(v), STRING) for v in values}
    return names.pop() if len(names) == 1 else STRING


def _class_type(cls: type) -> str:
    if dataclasses.is_dataclass(cls) or is_typeddict(cls):
        return OBJECT
    for klass in cls.__mro__:
        name = CLASS_TYPES.get(klass)
        if name is not None:
            return name
    return STRING


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
    try:
        plain = _PLAIN.get(annotation)
    except TypeError:  # an unhashable annotation object
        plain = None
    if plain is not None:
        return plain
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
        return TypeInfo(names.pop() if len(names) == 1 else STRING)
    if origin is Literal:
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
    return TypeInfo(STRING)


def describe_type_word(text: Optional[str]) -> Optional[str]:
    """Return the Lagent type named by a docstring type such as ``'list of str'``.

    Returns ``None`` when the docstring gives no type, and ``STRING`` for words the
    table does not know.
    """
    if not text:
        return None
    for word in _WORD.findall(text):
        word = word.lower()
        if word not in _TRANSPARENT_WORDS:
            return WORD_TYPES.get(word, STRING)
    return STRING
