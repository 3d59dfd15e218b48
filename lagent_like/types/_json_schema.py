"""JSON Schema for tool parameters, from the same annotations the descriptions use.

Function-calling APIs (OpenAI, Anthropic, MCP) take a JSON Schema per tool. It is
built from resolved annotations with the table of type families (``families.py``) for
plain classes and one rule per special form; parameters without annotations fall back
to their Lagent type name.
Nested TypedDicts and dataclasses are inlined; a type that refers to itself becomes a
plain ``object`` at the second visit instead of recursing forever. A pydantic model is
described by its own schema (``_pydantic.py``), whose ``$defs`` :func:`hoist_definitions`
moves to the top of the schema that holds it, where its ``$ref``s point; so is an
``Annotated`` type whose metadata pydantic reads (``Field(ge=1)``, ``Gt(0)``).
"""

from __future__ import annotations

import collections.abc
import dataclasses
import enum
import functools
import json
from collections.abc import Iterator
from typing import Any, Optional

from .._private.records import field_repr, frozen_delattr, frozen_setattr, mark_frozen
from .._private.typing_compat import LITERAL_ORIGINS as _LITERAL_ORIGINS
from .._private.typing_compat import UNION_ORIGINS as _UNION_ORIGINS
from .._private.typing_compat import (
    get_args,
    get_origin,
    get_type_hints,
    is_any,
    is_typeddict,
    strip_annotated,
    typed_dict_fields,
)
from . import _families as fam
from ._pydantic import is_model, is_pydantic_type, model_schema, pydantic_metadata
from ._value_classes import value_class_of

Schema = dict[str, Any]

#: JSON Schema type of each plain class (checked along the MRO): a view of the family table.
CLASS_SCHEMAS: dict[Any, str] = {cls: f.json for cls, f in fam.FAMILY_OF_CLASS.items() if f is not fam.ANY}

_UNIQUE = (set, frozenset, collections.abc.Set)

#: The key under which an annotation's schema (``schema_of(..., python=True)``) carries
#: what JSON Schema cannot say: which Python value to build. Never exported.
PYTHON = "$python"


@mark_frozen
@dataclasses.dataclass(init=False, repr=False, eq=False)
class PythonType:
    """What only the annotation says about a schema node: the Python value to build.

    Attributes:
        kind: ``'literal'`` (exact values), ``'enum'`` (a member from its value),
            ``'sequence'`` (built by ``build``), ``'tuple'`` (fixed items), ``'mapping'``
            (keys checked by ``key``), ``'fields'`` (a TypedDict or dataclass ``cls``),
            ``'again'`` (``cls`` inside its own definition), ``'value'`` (a value
            class such as ``datetime``, read from its JSON form: ``_value_classes.py``),
            ``'instance'`` (an ``isinstance`` check of ``cls``) or ``'model'`` (pydantic
            validates ``cls``: a model, or an ``Annotated`` type whose metadata pydantic reads).
        cls: the class concerned.
        values: the ``Literal`` values.
        build: the sequence class, or the mapping class (``dict`` unless a subclass
            such as ``OrderedDict`` or ``Counter`` is annotated).
        key: the schema of a mapping's keys.
    """

    kind: str
    cls: Any = None
    values: tuple[Any, ...] = ()
    build: Any = list
    key: Optional[Schema] = None

    # Written here rather than by @dataclass, which compiles them at import
    # (lagent_like._private.records says why).
    def __init__(
        self,
        kind: str,
        cls: Any = None,
        values: tuple[Any, ...] = (),
        build: Any = list,
        key: Optional[Schema] = None,
    ) -> None:
        object.__setattr__(self, "kind", kind)
        object.__setattr__(self, "cls", cls)
        object.__setattr__(self, "values", values)
        object.__setattr__(self, "build", build)
        object.__setattr__(self, "key", key)

    __repr__ = field_repr
    # Frozen: as @dataclass(frozen=True) would make it, without compiling at import.
    __setattr__ = frozen_setattr
    __delattr__ = frozen_delattr


#: Classes whose schema says everything: no Python value to build beyond the JSON one.
_JSON_CLASSES = frozenset({str, int, float, bool, type(None)})


def _value_type(values: list[Any]) -> Optional[str]:
    names = {CLASS_SCHEMAS.get(type(v)) for v in values}
    return names.pop() if len(names) == 1 and None not in names else None


def _enum_schema(values: list[Any]) -> Schema:
    schema: Schema = {}
    kind = _value_type(values)
    if kind is not None:
        schema["type"] = kind
    schema["enum"] = values
    return schema


def _object_schema(
    owner: type, hints: dict[str, Any], required: list[str], seen: frozenset[Any], python: bool
) -> Schema:
    return {
        "type": "object",
        "title": owner.__name__,
        "properties": {k: schema_of(t, seen | {owner}, python) for k, t in hints.items()},
        "required": required,
        "additionalProperties": False,
    }


def _class_schema(cls: type, seen: frozenset[Any], python: bool = False) -> Schema:
    if cls in seen:
        return {"type": "object", PYTHON: PythonType("again", cls)} if python else {"type": "object"}
    if issubclass(cls, enum.Enum):
        return _with(_enum_schema([m.value for m in cls]), python, PythonType("enum", cls))
    if is_model(cls):
        return _with(model_schema(cls), python, PythonType("model", cls))
    value = value_class_of(cls)
    if value is not None:
        return _with(dict(value.schema), python, PythonType("value", cls))
    if is_pydantic_type(cls):
        return _with(model_schema(cls), python, PythonType("model", cls))
    fields = _fields_of(cls)
    if fields is not None:
        described = _object_schema(cls, *fields, seen, python)
        return _with(described, python, PythonType("fields", cls))
    if python and cls not in _JSON_CLASSES:
        return _python_class_schema(cls)
    return _plain_class_schema(cls)


def _fields_of(cls: type) -> Optional[tuple[dict[str, Any], list[str]]]:
    """``(type of each field, the required ones)`` of a TypedDict or dataclass, else ``None``."""
    if is_typeddict(cls):
        return typed_dict_fields(cls)
    return _dataclass_fields(cls) if dataclasses.is_dataclass(cls) else None


def _dataclass_fields(cls: type) -> tuple[dict[str, Any], list[str]]:
    """``(type of each field __init__ takes, the required ones)`` of a dataclass."""
    hints = get_type_hints(cls, include_extras=True)
    fields = [f for f in dataclasses.fields(cls) if f.init]
    missing = dataclasses.MISSING
    required = [f.name for f in fields if f.default is missing and f.default_factory is missing]
    return {f.name: hints.get(f.name, Any) for f in fields}, required


def _python_class_schema(cls: type) -> Schema:
    """The schema of a class that is not a JSON one, for the validator: what to build or check."""
    if issubclass(cls, _SEQUENCE_CLASSES):
        return {"type": "array", "items": {}, PYTHON: PythonType("sequence", build=cls)}
    if issubclass(cls, dict):
        return {"type": "object", PYTHON: PythonType("mapping", key={}, build=_mapping_class(cls))}
    return {} if cls is object else {PYTHON: PythonType("instance", cls)}


#: Classes an array is built into by calling them with its items (subclasses too:
#: ``deque``, a user's ``class Tags(list)``); other array classes (``Sequence``) get a list.
_SEQUENCE_CLASSES = (list, tuple, set, frozenset, collections.deque)


def _sequence_class(origin: type) -> type:
    """The class a JSON array is built into for ``origin``: itself when callable with the items."""
    return origin if issubclass(origin, _SEQUENCE_CLASSES) else list


def _mapping_class(origin: type) -> Any:
    """The class a JSON object is built into for ``origin``: a ``dict`` subclass itself, else ``dict``.

    A ``defaultdict`` is built with no default factory (a JSON object carries none).
    """
    if not issubclass(origin, dict) or origin is dict:
        return dict
    if issubclass(origin, collections.defaultdict):
        return functools.partial(origin, None)
    return origin


def _plain_class_schema(cls: type) -> Schema:
    """The schema of the first class along ``cls``'s MRO that has a family (``{}`` if none)."""
    for klass in cls.__mro__:
        kind = CLASS_SCHEMAS.get(klass)
        if kind is not None:
            return {"type": kind, "items": {}} if kind == "array" else {"type": kind}
    return {}


def _with(schema: Schema, python: bool, info: PythonType) -> Schema:
    if python:
        schema[PYTHON] = info
    return schema


def schema_of(annotation: Any, seen: frozenset[Any] = frozenset(), python: bool = False) -> Schema:
    """The JSON Schema of one resolved annotation (without description or default).

    With ``python``, nodes also carry (under :data:`PYTHON`) what only the annotation
    says: the Python value to build. The validator compiles such schemas; they are
    never exported.
    """
    stripped, meta = strip_annotated(annotation)
    if meta and pydantic_metadata(meta):  # Field(ge=1), Gt(0)...: pydantic describes and checks it
        return _with(model_schema(annotation), python, PythonType("model", annotation))
    annotation = stripped
    origin, args = get_origin(annotation), get_args(annotation)
    if origin in _UNION_ORIGINS:
        members = [schema_of(a, seen, python) for a in args]
        if all(list(m) == ["type"] for m in members):
            return {"type": list(dict.fromkeys(_type_words(m["type"] for m in members)))}
        return {"anyOf": members}
    if origin in _LITERAL_ORIGINS:
        return _with(_enum_schema(list(args)), python, PythonType("literal", values=args))
    if origin is tuple and args and args[-1] is not Ellipsis:
        items = [schema_of(a, seen, python) for a in args]
        schema = {"type": "array", "prefixItems": items, "minItems": len(items), "maxItems": len(items)}
        return _with(schema, python, PythonType("tuple"))
    if origin is not None and isinstance(origin, type):
        return _generic_schema(origin, args, seen, python)
    if is_any(annotation):  # a class on some versions, but it takes anything, not its instances
        return {}
    if isinstance(annotation, type):
        schema = _class_schema(annotation, seen, python)
        if annotation in _UNIQUE and not python:
            schema["uniqueItems"] = True
        return schema
    return {}


def _type_words(kinds: Any) -> Iterator[str]:
    """The type words of a union's members, each a word or a list of them (``Decimal``'s)."""
    for kind in kinds:
        yield from kind if isinstance(kind, list) else (kind,)


def _generic_schema(origin: type, args: tuple[Any, ...], seen: frozenset[Any], python: bool) -> Schema:
    """The schema of a parameterised class: ``list[int]``, ``dict[str, Point]``, ``Sequence[str]``."""
    kind = _class_schema(origin, seen).get("type")
    if kind == "array":
        schema: Schema = {"type": "array", "items": schema_of(args[0], seen, python) if args else {}}
        if python:
            schema[PYTHON] = PythonType("sequence", build=_sequence_class(origin))
        elif issubclass(origin, _UNIQUE):
            schema["uniqueItems"] = True
        return schema
    if kind == "object":
        value = schema_of(args[1], seen, python) if len(args) == 2 else {}
        key = schema_of(args[0], seen, python) if len(args) == 2 else {}
        info = PythonType("mapping", key=key, build=_mapping_class(origin))
        return _with({"type": "object", "additionalProperties": value}, python, info)
    return {} if python else _class_schema(origin, seen)


_NOT_JSON = object()


def _as_json(value: Any) -> Any:
    """``value`` as JSON would carry it (tuples become lists), or ``_NOT_JSON``."""
    try:
        return json.loads(json.dumps(value))
    except (TypeError, ValueError):
        return _NOT_JSON


def parameter_schema(
    hint: Any, lagent_type: str, description: str, default: Any, has_default: bool
) -> Schema:
    """The schema of one parameter: its type, description and JSON-able default."""
    if hint is not None:
        schema = dict(schema_of(hint))
        if isinstance(default, enum.Enum):
            default = default.value
    else:
        schema = {"type": fam.FAMILY_OF_LAGENT.get(lagent_type, fam.STRING).json}
    if description:
        schema["description"] = description
    if has_default:
        value = _as_json(default)
        if value is not _NOT_JSON:
            schema["default"] = value
    return schema


def hoist_definitions(schema: Schema) -> Schema:
    """``schema`` with every nested ``$defs`` moved to its top, where their ``$ref``s point.

    A pydantic model's schema keeps its definitions (shared or recursive models) under its
    own ``$defs`` with references ``#/$defs/Name``, which resolve from the top of the
    whole schema only. Two different definitions under one name are refused: a
    reference could not tell them apart.

    Raises:
        ValueError: two different definitions share a name (naming it).
    """
    found: dict[str, Any] = {}
    lifted: Schema = _lift(schema, found)
    if not found:
        return schema
    lifted["$defs"] = found
    return lifted


def _lift(node: Any, found: dict[str, Any]) -> Any:
    """``node`` without its nested ``$defs``, which go into ``found``."""
    if isinstance(node, list):
        return [_lift(item, found) for item in node]
    if not isinstance(node, dict):
        return node
    lifted = {k: _lift(v, found) for k, v in node.items() if k != "$defs"}
    definitions = node.get("$defs")
    for name, own in definitions.items() if isinstance(definitions, dict) else ():
        definition = _lift(own, found)
        if name in found and found[name] != definition:
            raise ValueError(f"two different schemas are named {name!r} in $defs; rename one of the models")
        found[name] = definition
    return lifted


def object_shape(annotation: Any) -> Optional[Schema]:
    """The JSON Schema of an annotation that names object keys; ``None`` for others.

    Such annotations are a model, a TypedDict, a dataclass, a list of them...; the
    schema has its ``$defs`` at its top.

    Lagent's description names only a parameter's type word (``OBJECT``); this is what
    it shows besides, so that a model writing arguments as text knows the keys.
    """
    if not _has_keyed_class(annotation):  # most annotations: settled without building a schema
        return None
    schema = schema_of(annotation)
    return hoist_definitions(schema) if _names_keys(schema) else None


#: Annotations known to name no class with keys (``list[str]``, ``dict[str, int]``): the
#: common case, answered again without walking them (the define benchmark).
_KEYLESS: dict[Any, bool] = {}
_KEYLESS_LIMIT = 4096


def _has_keyed_class(annotation: Any) -> bool:
    """Whether ``annotation`` names a TypedDict, dataclass or pydantic model, at any depth."""
    try:
        if annotation in _KEYLESS:
            return False
    except TypeError:  # an unhashable annotation object
        return _walk_keyed(annotation)
    keyed = _walk_keyed(annotation)
    if not keyed and len(_KEYLESS) < _KEYLESS_LIMIT:
        _KEYLESS[annotation] = False
    return keyed


def _walk_keyed(annotation: Any) -> bool:
    args = get_args(annotation)
    if args:
        return any(_walk_keyed(a) for a in args)
    if not isinstance(annotation, type):
        return False
    return is_typeddict(annotation) or dataclasses.is_dataclass(annotation) or is_model(annotation)


def property_shape(prop: Any, root: Any) -> Optional[Schema]:
    """:func:`object_shape` of a property of a tool's parameters schema ``root``.

    Without its ``description`` (the Lagent description says it already), with the
    root's definitions when it refers to them.
    """
    if not isinstance(prop, dict) or not _names_keys(prop):
        return None
    shape = {k: v for k, v in prop.items() if k != "description"}
    if _refers(prop) and isinstance(root, dict):
        shape.update((k, root[k]) for k in ("$defs", "definitions") if k in root and k not in shape)
    return shape


def _refers(node: Any) -> bool:
    if isinstance(node, list):
        return any(_refers(item) for item in node)
    return isinstance(node, dict) and ("$ref" in node or any(_refers(v) for v in node.values()))


def _names_keys(node: Any) -> bool:
    if isinstance(node, list):
        return any(_names_keys(item) for item in node)
    if not isinstance(node, dict):
        return False
    return "properties" in node or "$ref" in node or any(_names_keys(v) for v in node.values())


#: One value of each JSON type: a class none of them is an instance of holds no JSON value.
_JSON_SAMPLES: tuple[Any, ...] = ("", 0, 0.5, True, None, [], {})

#: :func:`opaque_classes`'s answers per annotation (a program's few annotations; the define benchmark).
_OPAQUE: dict[Any, tuple[type, ...]] = {}


def opaque_classes(annotation: Any) -> tuple[type, ...]:
    """The classes in ``annotation`` that no JSON value can be (``class Foo: pass``), at any depth.

    Such a class is checked with ``isinstance``: Python callers may pass its objects, but
    a model, which sends JSON, never can. Dataclasses, TypedDicts, pydantic models, enums
    and the value classes (``datetime``, ``Decimal``...) are read from JSON, so they are
    not among them. The fields of a dataclass or TypedDict are not looked into.
    """
    try:
        known = _OPAQUE.get(annotation)
    except TypeError:  # an unhashable annotation object
        return _walk_opaque(annotation)
    if known is None:
        known = _walk_opaque(annotation)
        if len(_OPAQUE) < _KEYLESS_LIMIT:
            _OPAQUE[annotation] = known
    return known


def _walk_opaque(annotation: Any) -> tuple[type, ...]:
    stripped, _ = strip_annotated(annotation)
    origin = get_origin(stripped)
    if origin in _LITERAL_ORIGINS:  # values, not classes
        return ()
    if stripped in _NO_JSON_FORMS or origin in _NO_JSON_FORMS:  # a function or a class: never JSON
        return (origin or stripped,)
    args = get_args(stripped)
    if args:
        return tuple(dict.fromkeys(cls for arg in args for cls in _walk_opaque(arg)))
    return (stripped,) if isinstance(stripped, type) and _is_opaque(stripped) else ()


#: Annotations of what no JSON value is, read as anything: ``Callable[...]`` and ``type[...]``.
_NO_JSON_FORMS = (collections.abc.Callable, type)


def _is_opaque(cls: type) -> bool:
    """Whether ``cls`` is checked with ``isinstance`` and no JSON value is one."""
    if cls in _JSON_CLASSES or cls is object or is_any(cls) or issubclass(cls, enum.Enum):
        return False
    if is_model(cls) or is_pydantic_type(cls) or value_class_of(cls) is not None:
        return False
    if _fields_of(cls) is not None:
        return False
    info = _python_class_schema(cls).get(PYTHON)
    if info is None or info.kind != "instance":
        return False
    try:
        return not any(isinstance(value, cls) for value in _JSON_SAMPLES)
    except TypeError:  # a class isinstance refuses (a protocol that is not runtime-checkable)
        return False


def opaque_note(name: str, annotation: Any) -> Optional[str]:
    """What to say of parameter ``name`` when its annotation names an :func:`opaque_classes` class."""
    classes = opaque_classes(annotation)
    if not classes:
        return None
    names = " or ".join(f"a {cls.__name__}" for cls in classes)
    return (
        f"parameter {name!r}: no JSON value is {names}, so a model cannot send one; annotate it "
        f"with a dataclass, TypedDict or pydantic model, or a JSON type"
    )
