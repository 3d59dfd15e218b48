"""One JSON Schema, rewritten for each provider's dialect, with the reasons a provider refuses.

The executor describes every API once, as JSON Schema (2020-12). Providers accept
different subsets of it:

* **OpenAI strict mode** (``"strict": true``) wants every property required (optional
  ones nullable instead), ``additionalProperties: false`` on every object, no
  ``default`` and none of a list of keywords; objects with arbitrary keys, ``allOf``,
  ``not`` and conditionals cannot be expressed at all.
* **Gemini** function declarations take a subset of OpenAPI 3.0: upper-case ``type``
  names, ``nullable`` instead of ``"null"`` types, no type arrays, ``anyOf`` alone (no
  sibling keys), no ``$ref``, ``const``, ``additionalProperties``, exclusive bounds, ...

Each rewrite keeps what the dialect can say, drops what it cannot (the executor still
checks every argument against the full schema at call time) and names what it did, so
that :mod:`lagent_like.cli.lint` can say why a provider would refuse or loosen a tool.
"""

from __future__ import annotations

import copy
import re
from typing import Any, Optional

__all__ = [
    "GEMINI_NAME",
    "Conversion",
    "has_null_field",
    "to_gemini_schema",
    "to_openai_strict_schema",
    "without_nulls",
]


class Conversion:
    """A schema rewritten for one dialect.

    Attributes:
        schema: the rewritten schema (``None`` when the dialect cannot express it).
        refused: what the dialect cannot express at all, one sentence each.
        dropped: keywords left out of the rewrite (still checked at call time).
    """

    __slots__ = ("dropped", "refused", "schema")

    def __init__(self, schema: Optional[dict[str, Any]], refused: list[str], dropped: list[str]) -> None:
        self.schema = schema
        self.refused = refused
        self.dropped = dropped


#: Gemini's function names: a letter or underscore first, then letters, digits, ``_.-``.
GEMINI_NAME = re.compile(r"[a-zA-Z_][a-zA-Z0-9_.-]{0,63}")


# -- OpenAI strict mode ------------------------------------------------------------

#: Keywords strict mode accepts (besides the structural ones handled below).
_STRICT_KEEP = frozenset(
    (
        "type",
        "description",
        "title",
        "enum",
        "const",
        "pattern",
        "format",
        "multipleOf",
        "minimum",
        "maximum",
        "exclusiveMinimum",
        "exclusiveMaximum",
        "minItems",
        "maxItems",
    )
)
_STRICT_FORMATS = frozenset(
    ("date-time", "time", "date", "duration", "email", "hostname", "ipv4", "ipv6", "uuid")
)
#: Keywords strict mode cannot express at all.
_STRICT_REFUSED = ("allOf", "not", "if", "then", "else", "dependentSchemas", "dependentRequired")


def _where(path: str) -> str:
    return f"at {path}" if path else "at the top"


def _nullable(schema: dict[str, Any]) -> dict[str, Any]:
    """``schema`` that also accepts ``null``."""
    kind = schema.get("type")
    if "anyOf" in schema:
        branches = schema["anyOf"]
        if not any(b.get("type") == "null" for b in branches):
            schema = {**schema, "anyOf": [*branches, {"type": "null"}]}
        return schema
    if isinstance(kind, str):
        if kind == "null":
            return schema
        schema = {**schema, "type": [kind, "null"]}
    elif isinstance(kind, list):
        if "null" not in kind:
            schema = {**schema, "type": [*kind, "null"]}
    elif "$ref" in schema or "enum" in schema or "const" in schema:
        description = {k: schema[k] for k in ("description",) if k in schema}
        inner = {k: v for k, v in schema.items() if k != "description"}
        return {"anyOf": [inner, {"type": "null"}], **description}
    if "enum" in schema and None not in schema["enum"]:
        schema = {**schema, "enum": [*schema["enum"], None]}
    return schema


def _strict(schema: Any, path: str, refused: list[str], dropped: list[str]) -> Any:
    if not isinstance(schema, dict):
        return schema
    out: dict[str, Any] = {}
    for key in _STRICT_REFUSED:
        if key in schema:
            refused.append(f"{key!r} {_where(path)} has no equivalent in OpenAI strict mode")
    if not any(k in schema for k in ("type", "anyOf", "oneOf", "$ref", "enum", "const")):
        refused.append(
            f"the value {_where(path)} may be of any type, which OpenAI strict mode cannot express"
        )
    for key, value in schema.items():
        if key in _STRICT_KEEP:
            if key == "format" and value not in _STRICT_FORMATS:
                dropped.append(f"format {value!r} {_where(path)}")
                continue
            out[key] = value
        elif key in ("anyOf", "oneOf"):
            out["anyOf"] = [_strict(b, f"{path}|{i}", refused, dropped) for i, b in enumerate(value)]
        elif key == "items":
            out["items"] = _strict(value, f"{path}[]", refused, dropped)
        elif key == "$ref":
            out["$ref"] = value
        elif key in ("$defs", "definitions"):
            out[key] = {n: _strict(s, f"{key}.{n}", refused, dropped) for n, s in value.items()}
        elif key in ("properties", "required", "additionalProperties"):
            continue  # below
        elif key in _STRICT_REFUSED or key == "default":
            continue  # refused above; a default applies when the model sends null
        else:
            dropped.append(f"{key!r} {_where(path)}")
    is_object = schema.get("type") == "object" or "properties" in schema
    if is_object:
        properties = schema.get("properties", {})
        extra = schema.get("additionalProperties", False)
        if extra not in (False, None) and not (extra == {} and properties):
            refused.append(
                f"the object {_where(path)} takes arbitrary keys (additionalProperties), "
                "which OpenAI strict mode cannot express"
            )
        required = set(schema.get("required", []))
        out["properties"] = {}
        for name, sub in properties.items():
            converted = _strict(sub, f"{path}.{name}" if path else name, refused, dropped)
            out["properties"][name] = converted if name in required else _nullable(converted)
        out["required"] = list(properties)
        out["additionalProperties"] = False
        out["type"] = "object"
    return out


def to_openai_strict_schema(schema: dict[str, Any]) -> Conversion:
    """``schema`` as OpenAI strict mode wants it; ``schema`` is not modified.

    Optional parameters become required and nullable; a ``null`` the model sends for
    them stands for "not given" (the executor then applies the Python default).
    """
    refused: list[str] = []
    dropped: list[str] = []
    converted = _strict(copy.deepcopy(schema), "", refused, dropped)
    return Conversion(None if refused else converted, refused, dropped)


def has_null_field(value: Any) -> bool:
    """Whether a dict anywhere in ``value`` has a ``None`` value (a strict-mode "not given")."""
    if isinstance(value, dict):
        return any(v is None or has_null_field(v) for v in value.values())
    if isinstance(value, list):
        return any(has_null_field(v) for v in value)
    return False


def without_nulls(value: Any) -> Any:
    """``value`` without the ``None`` entries of its dicts, at any depth.

    Strict mode makes the optional fields of nested objects required and nullable; a
    value the type refuses is checked again without them, so that their defaults apply.
    """
    if isinstance(value, dict):
        return {k: without_nulls(v) for k, v in value.items() if v is not None}
    if isinstance(value, list):
        return [without_nulls(v) for v in value]
    return value


# -- Gemini ------------------------------------------------------------------------

#: Keywords of OpenAPI 3.0's Schema object that Gemini's function declarations accept.
_GEMINI_KEEP = frozenset(
    (
        "description",
        "title",
        "format",
        "minItems",
        "maxItems",
        "minLength",
        "maxLength",
        "pattern",
        "minimum",
        "maximum",
        "minProperties",
        "maxProperties",
        "example",
    )
)
_GEMINI_TYPES = {
    "string": "STRING",
    "number": "NUMBER",
    "integer": "INTEGER",
    "boolean": "BOOLEAN",
    "array": "ARRAY",
    "object": "OBJECT",
}


def _resolve(
    schema: dict[str, Any], defs: dict[str, Any], seen: tuple[str, ...], path: str, refused: list[str]
) -> Any:
    ref = schema["$ref"]
    name = ref.rsplit("/", 1)[-1]
    if name in seen:
        refused.append(f"the schema {_where(path)} is recursive ($ref {ref!r}), which Gemini cannot express")
        return None
    target = defs.get(name)
    if target is None:
        refused.append(f"$ref {ref!r} {_where(path)} points nowhere")
        return None
    merged = {**target, **{k: v for k, v in schema.items() if k != "$ref"}}
    return _gemini(merged, defs, (*seen, name), path, refused, [])


def _gemini(
    schema: Any,
    defs: dict[str, Any],
    seen: tuple[str, ...],
    path: str,
    refused: list[str],
    dropped: list[str],
) -> Any:
    if not isinstance(schema, dict):
        return schema
    if "$ref" in schema:
        return _resolve(schema, defs, seen, path, refused)
    branches = schema.get("anyOf", schema.get("oneOf"))
    out: dict[str, Any] = {}
    nullable = False
    described: Optional[str] = None
    if branches is not None:
        real = [b for b in branches if not (isinstance(b, dict) and b.get("type") == "null")]
        nullable = len(real) < len(branches)
        siblings = {k: v for k, v in schema.items() if k not in ("anyOf", "oneOf", "default")}
        if len(real) == 1:  # Optional[X]: X, nullable
            merged = {**real[0], **siblings}
            out = _gemini(merged, defs, seen, path, refused, dropped) or {}
        else:
            # anyOf stands alone in Gemini: each branch carries the description.
            converted = []
            for i, branch in enumerate(real):
                item = _gemini({**branch, **siblings}, defs, seen, f"{path}|{i}", refused, dropped)
                if nullable and isinstance(item, dict):
                    item["nullable"] = True
                converted.append(item)
            return {"anyOf": converted}
        if nullable:
            out["nullable"] = True
        return out
    kind = schema.get("type")
    if isinstance(kind, list):
        real_types = [t for t in kind if t != "null"]
        nullable = len(real_types) < len(kind)
        if len(real_types) > 1:
            rest = {k: v for k, v in schema.items() if k not in ("type", "default")}
            return {
                "anyOf": [
                    {
                        **(_gemini({**rest, "type": t}, defs, seen, path, refused, dropped) or {}),
                        **({"nullable": True} if nullable else {}),
                    }
                    for t in real_types
                ]
            }
        kind = real_types[0] if real_types else None
    if kind == "null":
        refused.append(f"the value {_where(path)} can only be null, which Gemini cannot express")
        return None
    if kind is not None:
        out["type"] = _GEMINI_TYPES.get(kind, str(kind).upper())
    elif "enum" not in schema and "const" not in schema:
        refused.append(f"the value {_where(path)} may be of any type, which Gemini cannot express")
    if nullable:
        out["nullable"] = True
    for key, value in schema.items():
        if key in _GEMINI_KEEP:
            out[key] = value
        elif key == "enum":
            if all(isinstance(v, str) for v in value):
                out["enum"] = value
                out.setdefault("type", "STRING")
            elif all(isinstance(v, str) or v is None for v in value):
                out["enum"] = [v for v in value if v is not None]
                out["nullable"] = True
                out.setdefault("type", "STRING")
            else:
                dropped.append(f"a non-string enum {_where(path)}")
                choices = ", ".join(repr(v) for v in value)
                described = (schema.get("description", "") + f" (one of {choices})").strip()
                if "type" not in out and not any(isinstance(v, bool) for v in value):
                    numbers = all(isinstance(v, (int, float)) for v in value)
                    if numbers:
                        out["type"] = "INTEGER" if all(isinstance(v, int) for v in value) else "NUMBER"
        elif key == "const":
            if isinstance(value, str):
                out["enum"] = [value]
                out.setdefault("type", "STRING")
            else:
                dropped.append(f"'const' {_where(path)}")
        elif key == "items":
            out["items"] = _gemini(value, defs, seen, f"{path}[]", refused, dropped)
        elif key == "properties":
            out["properties"] = {
                name: _gemini(sub, defs, seen, f"{path}.{name}" if path else name, refused, dropped)
                for name, sub in value.items()
            }
            out["propertyOrdering"] = list(value)
        elif key == "required":
            out["required"] = list(value)
        elif key == "additionalProperties":
            if value not in (False, None, {}) and not schema.get("properties"):
                refused.append(
                    f"the object {_where(path)} takes arbitrary keys (additionalProperties), "
                    "which Gemini cannot express"
                )
        elif key in ("type", "default", "$defs", "definitions", "$schema"):
            continue
        else:
            dropped.append(f"{key!r} {_where(path)}")
    if described is not None:
        out["description"] = described
    # An object without properties is refused; a free-form one is reported above already.
    free_form = any("arbitrary keys" in r and _where(path) in r for r in refused)
    if out.get("type") == "OBJECT" and not out.get("properties") and path and not free_form:
        refused.append(f"the object {_where(path)} has no properties, which Gemini refuses")
    return out


def to_gemini_schema(schema: dict[str, Any]) -> Conversion:
    """``schema`` as a Gemini function declaration's ``parameters``; not modified.

    ``$ref`` is inlined (a recursive schema cannot be), type arrays and ``"null"``
    types become ``nullable``, an ``anyOf`` stands alone. An API without parameters
    gets ``None``: Gemini wants no ``parameters`` at all rather than an empty object.
    """
    refused: list[str] = []
    dropped: list[str] = []
    defs = {**schema.get("definitions", {}), **schema.get("$defs", {})}
    if not schema.get("properties") and not schema.get("additionalProperties"):
        return Conversion(None, refused, dropped)
    converted = _gemini(copy.deepcopy(schema), defs, (), "", refused, dropped)
    return Conversion(converted, refused, dropped)
