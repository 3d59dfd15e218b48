"""Compile a JSON Schema into checks: the one validator of every tool.

Tools defined by a schema (``SchemaTool``, MCP) are checked against it; tools made from
a function are checked against the schema of its annotations (``validation.py`` builds
it with ``json_schema.schema_of(..., python=True)``, which also records the Python
values to build). Either way this module compiles JSON Schema 2020-12 into a check
(value in, the possibly converted value or a :class:`~.families.Refusal` out), with
the conversions of each validation mode (the checks of the type families come from
``families.py``), so both kinds of tool behave alike for a model. Compiling also
checks the schema itself and collects every problem in it (unknown type words,
patterns that do not compile, impossible bounds, dangling ``$ref``, unsupported
keywords) so the programmer learns of all of them at once. This module walks a schema
(types, references, what a refusal says); the keywords themselves are read in
``schema_keywords.py`` and compiled into the checks of ``keyword_checks.py``, and the
Python values an annotation's schema builds are made in ``python_values.py``.

The dialect, everything in which this validator departs from JSON Schema 2020-12
(``oneOf`` handled as ``anyOf``, values converted before they are checked, other
dialects' type words and old keywords, the top of a tool's parameters closed by
default, annotations' schemas saying more than JSON Schema can...), is written down in
one place, for the users who write the schemas: ``docs/function-calling.rst``, section
"Schema dialect". A change of the dialect here is a change of that section.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Optional

from .._private.text import did_you_mean, preview
from . import _families as fam
from ._families import Check, Refusal, accept, is_number, json_equal
from ._json_schema import PYTHON
from ._keyword_checks import all_of, verified
from ._python_values import python_check
from ._schema_keywords import KeywordCompiler

__all__ = ["TYPE_WORDS", "SchemaCompiler", "canonical_types", "json_equal", "resolve_ref"]

#: Canonical JSON Schema type of each type word real specs use (dialects included).
TYPE_WORDS: dict[str, str] = {word: f.json for word, f in fam.FAMILY_OF_SCHEMA_WORD.items()}

#: Keywords whose meaning this validator does not check; a schema using them is refused.
UNSUPPORTED = frozenset(
    {"unevaluatedItems", "unevaluatedProperties", "$dynamicRef", "$dynamicAnchor", "$recursiveRef"}
)


def _refuse_all(value: Any) -> Any:
    return Refusal("nothing (the schema allows no value here)", value)


def canonical_types(value: Any) -> tuple[list[str], list[Any]]:
    """``(canonical type words, unknown words)`` of a schema's ``type`` value (a word or a list)."""
    words = value if isinstance(value, list) else [value]
    known = [TYPE_WORDS[w] for w in words if isinstance(w, str) and w in TYPE_WORDS]
    unknown = [w for w in words if not (isinstance(w, str) and w in TYPE_WORDS)]
    return list(dict.fromkeys(known)), unknown


def resolve_ref(root: Any, ref: str) -> Optional[Any]:
    """The schema a local ``$ref`` (``#/$defs/Point``, any JSON pointer) points to, or ``None``."""
    if not ref.startswith("#"):
        return None
    node = root
    for raw in [p for p in ref[1:].split("/") if p][:64]:
        part = raw.replace("~1", "/").replace("~0", "~")
        if isinstance(node, Mapping) and part in node:
            node = node[part]
        elif isinstance(node, list) and part.isdigit() and int(part) < len(node):
            node = node[int(part)]
        else:
            return None
    return node


def _count_phrase(low: Optional[int], high: Optional[int], unit: str) -> Optional[str]:
    low = low or None  # "at least 0" says nothing
    if low is not None and high is not None:
        return f"of exactly {low} {unit}" if low == high else f"of {low} to {high} {unit}"
    if low is not None:
        return f"of at least {low} {unit}"
    return f"of at most {high} {unit}" if high is not None else None


def _as_list(check: Check) -> Check:
    def to_list(value: Any) -> Any:
        out = check(value)
        return out if type(out) is Refusal or type(out) is list else list(out)

    return to_list


def _typed(kinds: list[str], mode: str, json_numbers: bool) -> Check:
    """The check of a schema's ``type``: the (converted) value, or a ``Refusal`` naming every type."""
    checks = {k: fam.FAMILY_OF_JSON[k].checks[mode] for k in kinds}
    if json_numbers and "number" in checks:
        checks["number"] = fam.JSON_NUMBER_CHECKS[mode]
    if "array" in checks:
        checks["array"] = _as_list(checks["array"])
    return checks[kinds[0]] if len(kinds) == 1 else _one_of_types(kinds, checks)


def _one_of_types(kinds: list[str], checks: dict[str, Check]) -> Check:
    # A value that already has one of the types keeps it (found by its class, the common
    # case); conversion, in the order of the types, is the fallback.
    by_class: dict[Any, Check] = {}
    for kind in reversed(kinds):
        by_class.update(dict.fromkeys(fam.FAMILY_OF_JSON[kind].classes, checks[kind]))
    if "number" in kinds and "integer" not in kinds:
        by_class[int] = checks["number"]
    if "boolean" not in kinds:
        by_class.pop(bool, None)
    refusal = fam.refusal(" or ".join(kinds))

    def check(value: Any) -> Any:
        own = by_class.get(type(value))
        if own is not None:
            return own(value)
        for kind in kinds:
            if fam.fits(kind, value):
                return checks[kind](value)
        for kind in kinds:
            result = checks[kind](value)
            if type(result) is not Refusal:
                return result
        return refusal

    return check


#: Keywords whose subschemas convert the value that the schema's other steps convert too.
_CONVERTING = ("allOf", "anyOf", "oneOf", "if", "dependentSchemas", "dependencies", "patternProperties")


def _may_conflict(schema: Mapping[str, Any], steps: int) -> bool:
    """Whether two steps of ``schema`` may convert a value for each other.

    Each step converts for itself (``{"allOf": [{"type": "string"}, {"type":
    "integer"}]}`` makes ``"1"`` of ``1``, then ``1`` again); what they hand the tool
    must then fit the whole schema as it is.
    """
    members = schema.get("allOf")
    if isinstance(members, list):
        steps += len(members) - 1
    return steps > 1 and any(key in schema for key in _CONVERTING)


def _combine(expected: str, nullable: bool, level: list[Check], nested: list[Check]) -> Check:
    """The check of one schema: its own steps (``level``, refused with one sentence), then the nested ones."""
    if not (level or nested or nullable):
        return accept
    refusal = fam.refusal(expected)
    rest = all_of(nested)

    def check(value: Any) -> Any:
        if value is None and nullable:
            return None
        out = value
        try:
            for step in level:
                out = step(out)
                if type(out) is Refusal:
                    return refusal
        except (ValueError, TypeError, OverflowError):  # a comparison may raise on odd values
            return refusal
        return rest(out)

    return check


class SchemaCompiler(KeywordCompiler):
    """Compiles the schemas of one tool into checks, collecting definition problems.

    Its arguments (``root``, ``mode``) and ``problems`` are :class:`~.schema_keywords.KeywordCompiler`'s.
    """

    def compile(self, schema: Any, path: str, top: bool = False) -> Check:  # noqa: C901 - one branch per schema form
        """The check of ``schema`` (found at ``path``, for problem messages).

        With ``top``, ``schema`` is a tool's whole parameters schema whose properties the
        parser checks one by one: the check covers everything else (pattern properties,
        additional properties, counts, dependencies, conditions) on the arguments object.
        """
        if schema is True or (isinstance(schema, Mapping) and not schema):
            return accept
        if schema is False:
            return _refuse_all
        if not isinstance(schema, Mapping):
            self._problem(path, f"a schema must be an object or a boolean, got {preview(schema)}")
            return accept
        info = schema.get(PYTHON)
        if info is not None:  # an annotation's node: builds a Python value
            return python_check(self.compile, schema, info, path, self.mode)
        if len(schema) == 1 and "type" in schema:  # a bare type, the common case: the families' checks
            kinds, unknown = canonical_types(schema["type"])
            if kinds and not unknown:
                return _typed(kinds, self.mode, self.json_numbers) if "any" not in kinds else accept
        for key in sorted(UNSUPPORTED & schema.keys()):
            if schema[key] is not True:
                self._problem(path, f"the keyword {key!r} is not supported")
        kinds = self.types(schema, path)
        typed = kinds and "any" not in kinds and not top
        level = [_typed(kinds, self.mode, self.json_numbers)] if typed else []
        level += self._values(schema, path) + self._numbers(schema, path) + self._strings(schema, path)
        level += (
            self._arrays(schema, path) + self._counts_of_object(schema, path) + self._negation(schema, path)
        )
        nested = self._items(schema, path) + self._object(schema, path, top) + self._choices(schema, path)
        nested += self._conditional(schema, path) + self._dependent_schemas(schema, path)
        if "$ref" in schema:
            nested.insert(0, self._ref(schema["$ref"], path))
        nullable = schema.get("nullable") is True
        check = _combine(self.expectation(schema, kinds), nullable, level, nested)
        if self.mode == fam.COERCE and _may_conflict(schema, len(level) + len(nested)):
            return verified(check, self.as_sent(schema, path, top))
        return check

    def compile_definitions(self) -> None:
        """Compile every ``$defs``/``definitions`` entry, so unused ones are checked too."""
        for key in ("$defs", "definitions"):
            defs = self.root.get(key)
            if isinstance(defs, Mapping):
                for name in defs:
                    self._ref(f"#/{key}/{name}", "parameters")
            elif defs is not None:
                self._problem(f"parameters.{key}", f"must map names to schemas, got {preview(defs)}")

    def types(self, schema: Mapping[str, Any], path: str) -> list[str]:
        """The canonical type words of ``schema`` (empty when it declares none)."""
        if "type" not in schema:
            return []
        kinds, unknown = canonical_types(schema["type"])
        for word in unknown:
            hint = did_you_mean(word, TYPE_WORDS) if isinstance(word, str) else ""
            self._problem(
                path,
                f"unknown 'type' {word!r}.{hint} Use one of: {', '.join(sorted(set(TYPE_WORDS.values())))}",
            )
        if not kinds and not unknown:
            self._problem(path, "'type' is an empty list")
        return kinds

    def expectation(self, schema: Any, kinds: Optional[list[str]] = None) -> str:
        """What ``schema`` asks for, in words a model acts on: ``integer >= 1``."""
        if not isinstance(schema, Mapping):
            return "any value" if schema is not False else "nothing"
        parts = [self._noun(schema, kinds), *self._value_phrases(schema), *self._container_phrases(schema)]
        return " ".join(p for p in parts if p)

    def _noun(self, schema: Mapping[str, Any], kinds: Optional[list[str]]) -> str:
        """What kind of value ``schema`` asks for: ``exactly 3``, ``integer or null``."""
        if kinds is None:
            kinds = canonical_types(schema["type"])[0] if "type" in schema else []
        if "const" in schema:
            noun = f"exactly {schema['const']!r}"
        elif isinstance(schema.get("enum"), list):
            noun = f"one of {schema['enum']!r}"
        elif kinds:
            noun = " or ".join("any value" if k == "any" else k for k in kinds)
        else:
            family = next((fam.FAMILY_OF_KEYWORD[k] for k in schema if k in fam.FAMILY_OF_KEYWORD), None)
            noun = family.json if family is not None else "value"
        if schema.get("nullable") is True and "null" not in kinds:
            noun += " or null"
        return noun

    def _value_phrases(self, schema: Mapping[str, Any]) -> list[str]:
        """What ``schema`` says of a number or string: bounds, ``multipleOf``, length, pattern."""
        parts = [" and ".join(f"{op} {bound}" for op, bound, _ in self._bounds(schema))]
        if is_number(schema.get("multipleOf")):
            parts.append(f"that is a multiple of {schema['multipleOf']}")
        parts.append(_count_phrase(schema.get("minLength"), schema.get("maxLength"), "characters") or "")
        if isinstance(schema.get("pattern"), str):
            parts.append(f"matching {schema['pattern']!r}")
        return parts

    def _container_phrases(self, schema: Mapping[str, Any]) -> list[str]:
        """What ``schema`` says of an array or object (counts, items, keys), and ``not``."""
        parts = [_count_phrase(schema.get("minItems"), schema.get("maxItems"), "items") or ""]
        if schema.get("uniqueItems") is True:
            parts.append("with unique items")
        if "contains" in schema:
            inner = self.expectation(schema["contains"])
            low, high = schema.get("minContains", 1), schema.get("maxContains")
            count = _count_phrase(low, high, "items") if (low, high) != (1, None) else None
            parts.append(f"with {count[3:]} that are {inner}" if count else f"with an item that is {inner}")
        parts.append(
            _count_phrase(schema.get("minProperties"), schema.get("maxProperties"), "properties") or ""
        )
        if "propertyNames" in schema:
            parts.append(f"whose keys are each {self.expectation(schema['propertyNames'])}")
        parts += [f"where {key!r} needs {names!r}" for key, names in self._dependent_required(schema).items()]
        if "not" in schema:
            parts.append(f"and not {self.expectation(schema['not'])}")
        return parts

    def _ref(self, ref: Any, path: str) -> Check:
        if not isinstance(ref, str) or not ref.startswith("#"):
            self._problem(path, f"'$ref' {ref!r} is not a local reference (#/$defs/...)")
            return accept
        key = (self.mode, ref)  # a test of the value as sent compiles its own (see as_sent)
        if key not in self._refs:
            target = resolve_ref(self.root, ref)
            self._refs[key] = accept  # stands in while compiling a schema that refers to itself
            if target is None:
                self._problem(path, f"'$ref' {ref!r} does not resolve")
            else:
                where = "parameters" + "".join(f".{p}" for p in ref[1:].split("/") if p)
                self._refs[key] = self.compile(target, where)
        refs = self._refs

        def check(value: Any) -> Any:
            return refs[key](value)

        return check
