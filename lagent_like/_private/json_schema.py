"""JSON Schema for tool parameters, from the same annotations the descriptions use.

Function-calling APIs (OpenAI, Anthropic, MCP) take a JSON Schema per tool. It is
built from resolved annotations with the table of type families (``families.py``) for
plain classes and one rule per special form; parameters without annotations fall back
to their Lagent type name.
Nested TypedDicts and dataclasses are inlined; a type that refers to itself becomes a
plain ``object`` at the second visit instead of recursing forever.
"""

from __future__ import annotations

import collections.abc
import dataclasses
import enum
import json
from typing import Any, Optional

from . import families as fam
from .types import LITERAL_ORIGINS as _LITERAL_ORIGINS
from .types import UNION_ORIGINS as _UNION_ORIGINS
from .types import strip_annotated, typed_dict_fields
from .typing_compat import get_args, get_origin, get_type_hints, is_typeddict

Schema = dict[str, Any]

#: JSON Schema type of each plain class (checked along the MRO): a view of the family table.
CLASS_SCHEMAS: dict[Any, str] = {cls: f.json for cls, f in fam.FAMILY_OF_CLASS.items() if f is not fam.ANY}

_UNIQUE = (set, frozenset, collections.abc.Set)


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


def _object_schema(owner: type, hints: dict[str, Any], required: list[str], seen: frozenset[Any]) -> Schema:
    return {
        "type": "object",
        "title": owner.__name__,
        "properties": {k: schema_of(t, seen | {owner}) for k, t in hints.items()},
        "required": required,
        "additionalProperties": False,
    }


def _class_schema(cls: type, seen: frozenset[Any]) -> Schema:
    if cls in seen:
        return {"type": "object"}
    if issubclass(cls, enum.Enum):
        return _enum_schema([m.value for m in cls])
    if is_typeddict(cls):
        hints, required = typed_dict_fields(cls)
        return _object_schema(cls, hints, required, seen)
    if dataclasses.is_dataclass(cls):
        hints = get_type_hints(cls, include_extras=True)
        fields = [f for f in dataclasses.fields(cls) if f.init]
        required = [
            f.name
            for f in fields
            if f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING  # type: ignore[misc]
        ]
        return _object_schema(cls, {f.name: hints.get(f.name, Any) for f in fields}, required, seen)
    for klass in cls.__mro__:
        kind = CLASS_SCHEMAS.get(klass)
        if kind is not None:
            schema: Schema = {"type": kind}
            if kind == "array":
                schema["items"] = {}
            return schema
    return {}


def schema_of(annotation: Any, seen: frozenset[Any] = frozenset()) -> Schema:
    """The JSON Schema of one resolved annotation (without description or default)."""
    annotation, _ = strip_annotated(annotation)
    origin, args = get_origin(annotation), get_args(annotation)
    if origin in _UNION_ORIGINS:
        members = [schema_of(a, seen) for a in args]
        simple = [m.get("type") for m in members if list(m) == ["type"]]
        if len(simple) == len(members):
            return {"type": list(dict.fromkeys(simple))}
        return {"anyOf": members}
    if origin in _LITERAL_ORIGINS:
        return _enum_schema(list(args))
    if origin is tuple and args and args[-1] is not Ellipsis:
        items = [schema_of(a, seen) for a in args]
        return {"type": "array", "prefixItems": items, "minItems": len(items), "maxItems": len(items)}
    if origin is not None and isinstance(origin, type):
        kind = _class_schema(origin, seen).get("type")
        if kind == "array":
            schema: Schema = {"type": "array", "items": schema_of(args[0], seen) if args else {}}
            if issubclass(origin, _UNIQUE):
                schema["uniqueItems"] = True
            return schema
        if kind == "object":
            value = schema_of(args[1], seen) if len(args) == 2 else {}
            return {"type": "object", "additionalProperties": value}
        return _class_schema(origin, seen)
    if isinstance(annotation, type):
        schema = _class_schema(annotation, seen)
        if annotation in _UNIQUE:
            schema["uniqueItems"] = True
        return schema
    return {}


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
