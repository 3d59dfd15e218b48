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
that :mod:`lagent_like.lint._lint` can say why a provider would refuse or loosen a tool.
"""

from __future__ import annotations

import copy
import re
from collections.abc import Mapping
from typing import Any, Callable, NamedTuple, Optional

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
    ("type", "description", "title", "enum", "const", "pattern", "format", "multipleOf", "minimum",
     "maximum", "exclusiveMinimum", "exclusiveMaximum", "minItems", "maxItems")
)  # fmt: skip
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


class _Notes(NamedTuple):
    """What a rewrite reports: sentences of what is refused, keywords dropped."""

    refused: list[str]
    dropped: list[str]


class _Node:
    """One schema node being rewritten for a dialect: a method per keyword writes into ``out``."""

    __slots__ = ("out", "path")

    def __init__(self, path: str) -> None:
        self.path = path
        self.out: dict[str, Any] = {}

    def keep(self, key: str, value: Any) -> None:
        self.out[key] = value

    def rewrite(
        self, schema: dict[str, Any], rules: Mapping[str, Rule], silent: frozenset[str], dropped: list[str]
    ) -> None:
        """Each keyword of ``schema`` by its rule; one without a rule (nor ``silent``) goes to ``dropped``."""
        for key, value in schema.items():
            rule = rules.get(key)
            if rule is not None:
                rule(self, key, value)
            elif key not in silent:
                dropped.append(f"{key!r} {_where(self.path)}")


#: What a dialect does with one keyword: ``(node, keyword, value)``; it writes into ``node.out``.
Rule = Callable[[Any, str, Any], None]


class _StrictNode(_Node):
    """A node rewritten for OpenAI strict mode."""

    __slots__ = ("notes",)

    def __init__(self, path: str, notes: _Notes) -> None:
        super().__init__(path)
        self.notes = notes

    def string_format(self, key: str, value: Any) -> None:
        if value in _STRICT_FORMATS:
            self.out[key] = value
        else:
            self.notes.dropped.append(f"format {value!r} {_where(self.path)}")

    def branches(self, key: str, value: Any) -> None:
        self.out["anyOf"] = [_strict(b, f"{self.path}|{i}", self.notes) for i, b in enumerate(value)]

    def items(self, key: str, value: Any) -> None:
        self.out["items"] = _strict(value, f"{self.path}[]", self.notes)

    def definitions(self, key: str, value: Any) -> None:
        self.out[key] = {n: _strict(s, f"{key}.{n}", self.notes) for n, s in value.items()}


#: What strict mode does with each keyword it keeps (``oneOf`` becomes ``anyOf``).
_STRICT_RULES: dict[str, Rule] = {
    **dict.fromkeys(_STRICT_KEEP, _Node.keep),
    "format": _StrictNode.string_format,
    "anyOf": _StrictNode.branches,
    "oneOf": _StrictNode.branches,
    "items": _StrictNode.items,
    "$ref": _Node.keep,
    "$defs": _StrictNode.definitions,
    "definitions": _StrictNode.definitions,
}
#: Keywords left out without a note: rewritten by ``_strict_object``, refused already, or
#: ``default`` (which applies when the model sends null).
_STRICT_SILENT = frozenset(("properties", "required", "additionalProperties", "default", *_STRICT_REFUSED))


def _strict(schema: Any, path: str, notes: _Notes) -> Any:
    if not isinstance(schema, dict):
        return schema
    for key in _STRICT_REFUSED:
        if key in schema:
            notes.refused.append(f"{key!r} {_where(path)} has no equivalent in OpenAI strict mode")
    if not any(k in schema for k in ("type", "anyOf", "oneOf", "$ref", "enum", "const")):
        notes.refused.append(
            f"the value {_where(path)} may be of any type, which OpenAI strict mode cannot express"
        )
    node = _StrictNode(path, notes)
    node.rewrite(schema, _STRICT_RULES, _STRICT_SILENT, notes.dropped)
    if schema.get("type") == "object" or "properties" in schema:
        _strict_object(schema, node.out, path, notes)
    return node.out


def _strict_object(schema: dict[str, Any], out: dict[str, Any], path: str, notes: _Notes) -> None:
    """Every property required (the optional ones nullable), no other key."""
    properties = schema.get("properties", {})
    extra = schema.get("additionalProperties", False)
    if extra not in (False, None) and not (extra == {} and properties):
        notes.refused.append(
            f"the object {_where(path)} takes arbitrary keys (additionalProperties), "
            "which OpenAI strict mode cannot express"
        )
    required = set(schema.get("required", []))
    out["properties"] = {}
    for name, sub in properties.items():
        converted = _strict(sub, f"{path}.{name}" if path else name, notes)
        out["properties"][name] = converted if name in required else _nullable(converted)
    out["required"] = list(properties)
    out["additionalProperties"] = False
    out["type"] = "object"


def to_openai_strict_schema(schema: dict[str, Any]) -> Conversion:
    """``schema`` as OpenAI strict mode wants it; ``schema`` is not modified.

    Optional parameters become required and nullable; a ``null`` the model sends for
    them stands for "not given" (the executor then applies the Python default).
    """
    notes = _Notes([], [])
    converted = _strict(copy.deepcopy(schema), "", notes)
    return Conversion(None if notes.refused else converted, notes.refused, notes.dropped)


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
    ("description", "title", "minItems", "maxItems", "minLength", "maxLength", "pattern",
     "minimum", "maximum", "minProperties", "maxProperties", "example")
)  # fmt: skip
_GEMINI_TYPES = {t: t.upper() for t in ("string", "number", "integer", "boolean", "array", "object")}
#: The formats Gemini accepts, per type; it refuses a declaration with any other
#: ("only 'enum' and 'date-time' are supported for STRING type").
_GEMINI_FORMATS = {
    "STRING": frozenset(("enum", "date-time")),
    "NUMBER": frozenset(("float", "double")),
    "INTEGER": frozenset(("int32", "int64")),
}


class _Walk(NamedTuple):
    """Where a Gemini rewrite is: the definitions to inline, the ``$ref`` being inlined, notes."""

    defs: dict[str, Any]
    seen: tuple[str, ...]
    refused: list[str]
    dropped: list[str]


def _gemini(schema: Any, path: str, walk: _Walk) -> Any:
    if not isinstance(schema, dict):
        return schema
    if "$ref" in schema:
        return _resolve(schema, path, walk)
    branches = schema.get("anyOf", schema.get("oneOf"))
    if branches is not None:
        return _gemini_branches(schema, branches, path, walk)
    kind = schema.get("type")
    nullable = False
    if isinstance(kind, list):
        real_types = [t for t in kind if t != "null"]
        nullable = len(real_types) < len(kind)
        if len(real_types) > 1:
            return _gemini_types(schema, real_types, nullable, path, walk)
        kind = real_types[0] if real_types else None
    return _gemini_typed(schema, kind, nullable, path, walk)


def _resolve(schema: dict[str, Any], path: str, walk: _Walk) -> Any:
    ref = schema["$ref"]
    name = ref.rsplit("/", 1)[-1]
    if name in walk.seen:
        walk.refused.append(
            f"the schema {_where(path)} is recursive ($ref {ref!r}), which Gemini cannot express"
        )
        return None
    target = walk.defs.get(name)
    if target is None:
        walk.refused.append(f"$ref {ref!r} {_where(path)} points nowhere")
        return None
    merged = {**target, **{k: v for k, v in schema.items() if k != "$ref"}}
    # What an inlined definition drops is not reported (it is reported where it is used).
    return _gemini(merged, path, walk._replace(seen=(*walk.seen, name), dropped=[]))


def _gemini_branches(schema: dict[str, Any], branches: list[Any], path: str, walk: _Walk) -> Any:
    """``anyOf``/``oneOf``: ``Optional[X]`` becomes X, nullable; else an ``anyOf`` standing alone."""
    real = [b for b in branches if not (isinstance(b, dict) and b.get("type") == "null")]
    nullable = len(real) < len(branches)
    siblings = {k: v for k, v in schema.items() if k not in ("anyOf", "oneOf", "default")}
    if len(real) != 1:
        # anyOf stands alone in Gemini: each branch carries the description.
        converted = []
        for i, branch in enumerate(real):
            item = _gemini({**branch, **siblings}, f"{path}|{i}", walk)
            if nullable and isinstance(item, dict):
                item["nullable"] = True
            converted.append(item)
        return {"anyOf": converted}
    out = _gemini({**real[0], **siblings}, path, walk) or {}
    if nullable:
        out["nullable"] = True
    return out


def _gemini_types(
    schema: dict[str, Any], kinds: list[str], nullable: bool, path: str, walk: _Walk
) -> dict[str, Any]:
    """A type array of several types: an ``anyOf`` of one branch per type."""
    rest = {k: v for k, v in schema.items() if k not in ("type", "default")}
    return {
        "anyOf": [
            {
                **(_gemini({**rest, "type": t}, path, walk) or {}),
                **({"nullable": True} if nullable else {}),
            }
            for t in kinds
        ]
    }


def _gemini_typed(schema: dict[str, Any], kind: Any, nullable: bool, path: str, walk: _Walk) -> Any:
    """A schema of one type (or none), nullable or not, keyword by keyword."""
    if kind == "null":
        walk.refused.append(f"the value {_where(path)} can only be null, which Gemini cannot express")
        return None
    node = _Declaration(schema, path, walk)
    if kind is not None:
        node.out["type"] = _GEMINI_TYPES.get(kind, str(kind).upper())
    elif "enum" not in schema and "const" not in schema:
        walk.refused.append(f"the value {_where(path)} may be of any type, which Gemini cannot express")
    if nullable:
        node.out["nullable"] = True
    node.rewrite(schema, _GEMINI_RULES, _GEMINI_SILENT, walk.dropped)
    return node.finish()


def _string_enum(values: Any) -> bool:
    """Whether Gemini takes ``values`` as an enum: strings (a ``None`` among them means nullable)."""
    return all(isinstance(v, str) or v is None for v in values)


class _Declaration(_Node):
    """A node rewritten for a Gemini function declaration."""

    __slots__ = ("schema", "walk")

    def __init__(self, schema: dict[str, Any], path: str, walk: _Walk) -> None:
        super().__init__(path)
        self.schema = schema
        self.walk = walk

    def enum(self, key: str, value: Any) -> None:
        """A string enum stays (``None`` in it: nullable); another is described by :meth:`finish`."""
        if _string_enum(value):
            strings = [v for v in value if v is not None]
            self.out["enum"] = strings if len(strings) < len(value) else value
            if len(strings) < len(value):
                self.out["nullable"] = True
            self.out.setdefault("type", "STRING")
            return
        self.walk.dropped.append(f"a non-string enum {_where(self.path)}")
        numbers = not any(isinstance(v, bool) for v in value) and all(
            isinstance(v, (int, float)) for v in value
        )
        if "type" not in self.out and numbers:
            self.out["type"] = "INTEGER" if all(isinstance(v, int) for v in value) else "NUMBER"

    def string_format(self, key: str, value: Any) -> None:
        """A format Gemini knows for the node's type stays; another is dropped (the executor checks it)."""
        if value in _GEMINI_FORMATS.get(self.out.get("type", ""), ()):
            self.out[key] = value
        else:
            self.walk.dropped.append(f"format {value!r} {_where(self.path)}")

    def const(self, key: str, value: Any) -> None:
        if isinstance(value, str):
            self.out["enum"] = [value]
            self.out.setdefault("type", "STRING")
        else:
            self.walk.dropped.append(f"'const' {_where(self.path)}")

    def items(self, key: str, value: Any) -> None:
        self.out["items"] = _gemini(value, f"{self.path}[]", self.walk)

    def properties(self, key: str, value: Any) -> None:
        path = self.path
        self.out["properties"] = {
            name: _gemini(sub, f"{path}.{name}" if path else name, self.walk) for name, sub in value.items()
        }
        self.out["propertyOrdering"] = list(value)

    def required(self, key: str, value: Any) -> None:
        self.out["required"] = list(value)

    def extra(self, key: str, value: Any) -> None:
        if value not in (False, None, {}) and not self.schema.get("properties"):
            self.walk.refused.append(
                f"the object {_where(self.path)} takes arbitrary keys (additionalProperties), "
                "which Gemini cannot express"
            )

    def finish(self) -> dict[str, Any]:
        """``out``, a non-string enum said in the description, an object without properties refused."""
        out, schema, where = self.out, self.schema, _where(self.path)
        if "enum" in schema and not _string_enum(schema["enum"]):
            choices = ", ".join(repr(v) for v in schema["enum"])
            out["description"] = (schema.get("description", "") + f" (one of {choices})").strip()
        # A free-form object is reported already.
        free_form = any("arbitrary keys" in r and where in r for r in self.walk.refused)
        if out.get("type") == "OBJECT" and not out.get("properties") and self.path and not free_form:
            self.walk.refused.append(f"the object {where} has no properties, which Gemini refuses")
        return out


#: What a Gemini rewrite does with each keyword it reads.
_GEMINI_RULES: dict[str, Rule] = {
    **dict.fromkeys(_GEMINI_KEEP, _Node.keep),
    "enum": _Declaration.enum,
    "const": _Declaration.const,
    "format": _Declaration.string_format,
    "items": _Declaration.items,
    "properties": _Declaration.properties,
    "required": _Declaration.required,
    "additionalProperties": _Declaration.extra,
}
#: Keywords read elsewhere (``type``) or meaningless in a declaration: left out without a note.
_GEMINI_SILENT = frozenset(("type", "default", "$defs", "definitions", "$schema"))


def to_gemini_schema(schema: dict[str, Any]) -> Conversion:
    """``schema`` as a Gemini function declaration's ``parameters``; not modified.

    ``$ref`` is inlined (a recursive schema cannot be), type arrays and ``"null"``
    types become ``nullable``, an ``anyOf`` stands alone. An API without parameters
    gets ``None``: Gemini wants no ``parameters`` at all rather than an empty object.
    """
    walk = _Walk({**schema.get("definitions", {}), **schema.get("$defs", {})}, (), [], [])
    if not schema.get("properties") and not schema.get("additionalProperties"):
        return Conversion(None, walk.refused, walk.dropped)
    converted = _gemini(copy.deepcopy(schema), "", walk)
    return Conversion(converted, walk.refused, walk.dropped)
