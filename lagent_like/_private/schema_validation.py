"""Check a model's arguments against a JSON Schema, for tools defined by a schema.

Tools made from a function are checked against its annotations (``validation.py``);
tools made from a JSON-schema function definition (``SchemaTool``) have no
annotations, only the schema. This module compiles the subset of JSON Schema that
function specs use into the same kind of validator (value in, possibly coerced value
out, :class:`Invalid` on failure) with the same lossless coercions (the type checks
themselves return a :class:`Refusal` rather than raise), so both kinds of
tool behave alike for a model. Compiling also checks the schema itself and collects
every problem in it (unknown type words, patterns that do not compile, impossible
bounds, dangling ``$ref``) so the programmer learns of all of them at once.
"""

from __future__ import annotations

import operator
import re
from collections.abc import Mapping
from typing import Any, Callable, Optional

from .text import did_you_mean, preview
from .validation import SCALAR_CHECKS, Check, Invalid, Refusal, Validator, _parse_json_text, validator_of

__all__ = ["TYPE_WORDS", "SchemaCompiler", "canonical_types", "resolve_ref"]

#: Canonical JSON Schema type of each type word real specs use (dialects included).
TYPE_WORDS: dict[str, str] = {
    "string": "string",
    "str": "string",
    "integer": "integer",
    "int": "integer",
    "number": "number",
    "float": "number",
    "boolean": "boolean",
    "bool": "boolean",
    "array": "array",
    "list": "array",
    "tuple": "array",
    "object": "object",
    "dict": "object",
    "null": "null",
    "any": "any",
}

#: Keywords with a meaning this module does not check; a schema using them is refused.
UNSUPPORTED = frozenset(
    [
        "not",
        "if",
        "then",
        "else",
        "patternProperties",
        "propertyNames",
        "minProperties",
        "maxProperties",
        "contains",
        "minContains",
        "maxContains",
        "dependentRequired",
        "dependentSchemas",
        "dependencies",
        "additionalItems",
        "unevaluatedItems",
        "unevaluatedProperties",
    ]
)


#: What a type check returns for a value of none of its types (its message is the
#: schema's whole expectation, worded by ``_combine``).
_REFUSED = Refusal("")


def _check_array(value: Any) -> Any:
    value = _parse_json_text(value, list)
    if isinstance(value, (list, tuple)):
        return list(value)
    return _REFUSED


def _check_object(value: Any) -> Any:
    value = _parse_json_text(value, dict)
    if isinstance(value, dict):
        return value
    return _REFUSED


def _accept(value: Any) -> Any:
    return value


def _refuse(value: Any) -> Any:
    raise Invalid("nothing (the schema allows no value here)", value)


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


#: The check (with lossless coercion) of each canonical type: the value or a ``Refusal``.
_TYPE_CHECKS: dict[str, Check] = {
    "string": SCALAR_CHECKS[str],
    "integer": SCALAR_CHECKS[int],
    "number": SCALAR_CHECKS[float],
    "boolean": SCALAR_CHECKS[bool],
    "null": SCALAR_CHECKS[type(None)],
    "array": _check_array,
    "object": _check_object,
    "any": _accept,
}

#: Whether a value already is of a canonical type, without coercion.
_IS_TYPE: dict[str, Callable[[Any], bool]] = {
    "string": lambda v: isinstance(v, str),
    "integer": lambda v: type(v) is int,
    "number": _is_number,
    "boolean": lambda v: isinstance(v, bool),
    "null": lambda v: v is None,
    "array": lambda v: isinstance(v, (list, tuple)),
    "object": lambda v: isinstance(v, dict),
    "any": lambda v: True,
}

#: Keywords that only make sense for one type: names the value when no type is given.
_FAMILIES: tuple[tuple[str, frozenset[str]], ...] = (
    ("number", frozenset({"minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf"})),
    ("string", frozenset({"minLength", "maxLength", "pattern"})),
    ("array", frozenset({"minItems", "maxItems", "uniqueItems", "items", "prefixItems"})),
    ("object", frozenset({"properties", "required", "additionalProperties"})),
)

_COMPARE: dict[str, Callable[[Any, Any], bool]] = {
    ">=": operator.ge,
    ">": operator.gt,
    "<=": operator.le,
    "<": operator.lt,
}


def json_equal(a: Any, b: Any) -> bool:
    """Equality as JSON sees it: ``1 == 1.0``, but ``True != 1``."""
    if isinstance(a, bool) or isinstance(b, bool):
        return type(a) is type(b) and a == b
    if _is_number(a) and _is_number(b):
        return bool(a == b)
    if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)):
        return len(a) == len(b) and all(map(json_equal, a, b))
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(json_equal(a[k], b[k]) for k in a)
    return type(a) is type(b) and bool(a == b)


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


def _nested(validator: Validator, value: Any, path: str) -> Any:
    try:
        return validator(value)
    except Invalid as exc:
        raise Invalid(exc.expected, exc.value, path + exc.path) from None


def _count_phrase(low: Optional[int], high: Optional[int], unit: str) -> Optional[str]:
    low = low or None  # "at least 0" says nothing
    if low is not None and high is not None:
        return f"of exactly {low} {unit}" if low == high else f"of {low} to {high} {unit}"
    if low is not None:
        return f"of at least {low} {unit}"
    return f"of at most {high} {unit}" if high is not None else None


def _typed(kinds: list[str]) -> Check:
    """The check of a schema's ``type``: the (coerced) value, or a ``Refusal``."""
    if len(kinds) == 1:
        return _TYPE_CHECKS[kinds[0]]

    def check(value: Any) -> Any:
        # A value that already has one of the types keeps it; coercion is the fallback.
        for kind in kinds:
            if _IS_TYPE[kind](value):
                return _TYPE_CHECKS[kind](value)
        for kind in kinds:
            result = _TYPE_CHECKS[kind](value)
            if type(result) is not Refusal:
                return result
        return _REFUSED

    return check


def _combine(expected: str, nullable: bool, level: list[Validator], nested: list[Validator]) -> Validator:
    """The validator of one schema: its own checks (``level``), then the nested ones.

    The validator is made by ``validator_of`` from a check that returns a ``Refusal``,
    so the parsers, which call that check, refuse a wrong argument without raising.
    """
    if not (level or nested or nullable):
        return _accept
    # Every check of this level fails with one sentence naming all of them.
    refusal = Refusal(expected)

    def check(value: Any) -> Any:
        if value is None and nullable:
            return None
        out = value
        try:
            for step in level:
                out = step(out)
                if type(out) is Refusal:  # the type check refuses by returning
                    return refusal
        except (Invalid, ValueError, TypeError, OverflowError):  # a coercion may raise on odd text
            return refusal
        try:
            for step in nested:
                out = step(out)
        except Invalid as exc:
            return Refusal(exc.expected, exc.value, exc.path)
        return out

    return validator_of(check)


class SchemaCompiler:
    """Compiles the schemas of one tool into validators, collecting definition problems.

    Args:
        root: the tool's parameters schema; local ``$ref`` are resolved in it.

    Attributes:
        problems: every problem found so far, each starting with where it is
            (``parameters.properties.city``) and naming the keyword.
    """

    def __init__(self, root: Mapping[str, Any]) -> None:
        self.root = root
        self.problems: list[str] = []
        self._refs: dict[str, Validator] = {}

    def _problem(self, path: str, text: str) -> None:
        self.problems.append(f"{path}: {text}")

    def compile(self, schema: Any, path: str) -> Validator:
        """The validator of ``schema`` (found at ``path``, for problem messages)."""
        if schema is True or schema == {}:
            return _accept
        if schema is False:
            return _refuse
        if not isinstance(schema, Mapping):
            self._problem(path, f"a schema must be an object or a boolean, got {preview(schema)}")
            return _accept
        for key in sorted(UNSUPPORTED & schema.keys()):
            self._problem(path, f"the keyword {key!r} is not supported")
        kinds = self.types(schema, path)
        level: list[Validator] = [_typed(kinds)] if kinds and "any" not in kinds else []
        level += self._values(schema, path) + self._numbers(schema, path)
        level += self._strings(schema, path) + self._arrays(schema, path)
        nested = self._items(schema, path) + self._object(schema, path) + self._choices(schema, path)
        if "$ref" in schema:
            nested.insert(0, self._ref(schema["$ref"], path))
        nullable = schema.get("nullable") is True
        return _combine(self.expectation(schema, kinds), nullable, level, nested)

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

    def expectation(self, schema: Mapping[str, Any], kinds: list[str]) -> str:
        """What ``schema`` asks for, in words a model acts on: ``integer >= 1``."""
        if "const" in schema:
            noun = f"exactly {schema['const']!r}"
        elif isinstance(schema.get("enum"), list):
            noun = f"one of {schema['enum']!r}"
        elif kinds:
            noun = " or ".join("any value" if k == "any" else k for k in kinds)
        else:
            noun = next((name for name, keys in _FAMILIES if keys & schema.keys()), "value")
        if schema.get("nullable") is True and "null" not in kinds:
            noun += " or null"
        parts = [noun, " and ".join(f"{op} {bound}" for op, bound, _ in self._bounds(schema))]
        if _is_number(schema.get("multipleOf")):
            parts.append(f"that is a multiple of {schema['multipleOf']}")
        parts.append(_count_phrase(schema.get("minLength"), schema.get("maxLength"), "characters") or "")
        if isinstance(schema.get("pattern"), str):
            parts.append(f"matching {schema['pattern']!r}")
        parts.append(_count_phrase(schema.get("minItems"), schema.get("maxItems"), "items") or "")
        if schema.get("uniqueItems") is True:
            parts.append("with unique items")
        return " ".join(p for p in parts if p)

    # --- keywords checked on the value itself (after the type's coercion) -----------

    def _values(self, schema: Mapping[str, Any], path: str) -> list[Validator]:
        options: Optional[list[Any]] = None
        if "enum" in schema:
            options = schema["enum"]
            if not isinstance(options, list) or not options:
                self._problem(path, f"'enum' must be a non-empty list, got {preview(options)}")
                return []
        if "const" in schema:
            options = [schema["const"]]
        if options is None:
            return []
        allowed = list(options)

        def check(value: Any) -> Any:
            for option in allowed:
                if json_equal(value, option):
                    return option
            raise Invalid("", value)

        return [check]

    def _number(self, schema: Mapping[str, Any], key: str, path: str) -> Optional[Any]:
        value = schema.get(key)
        if value is None or _is_number(value):
            return value
        self._problem(path, f"{key!r} must be a number, got {preview(value)}")
        return None

    def _bounds(self, schema: Mapping[str, Any]) -> list[tuple[str, Any, str]]:
        """``[('>=', 1, 'minimum'), ('<', 10, 'exclusiveMaximum')]``, draft-4 boolean exclusives included."""
        bounds = []
        for plain, exclusive, strict_op, op in (
            ("minimum", "exclusiveMinimum", ">", ">="),
            ("maximum", "exclusiveMaximum", "<", "<="),
        ):
            flag = schema.get(exclusive)
            if _is_number(schema.get(plain)):
                bounds.append((strict_op if flag is True else op, schema[plain], plain))
            if _is_number(flag):
                bounds.append((strict_op, flag, exclusive))
        return bounds

    def _numbers(self, schema: Mapping[str, Any], path: str) -> list[Validator]:
        for key in ("minimum", "maximum"):
            self._number(schema, key, path)
        for key in ("exclusiveMinimum", "exclusiveMaximum"):
            if not isinstance(schema.get(key), bool):
                self._number(schema, key, path)
        bounds = self._bounds(schema)
        tests = [(_COMPARE[op], bound) for op, bound, _ in bounds]
        for low_op, low, low_key in (b for b in bounds if b[0] in (">", ">=")):
            for high_op, high, high_key in (b for b in bounds if b[0] in ("<", "<=")):
                if low > high:
                    self._problem(path, f"{low_key!r} {low} is greater than {high_key!r} {high}")
                elif low == high and (low_op == ">" or high_op == "<"):
                    self._problem(path, f"{low_key!r} {low} and {high_key!r} {high} leave no number")
        step = self._number(schema, "multipleOf", path)
        if step is not None and step <= 0:
            self._problem(path, f"'multipleOf' must be greater than 0, got {step}")
            step = None
        if not tests and step is None:
            return []

        def check(value: Any) -> Any:
            if _is_number(value):
                if not all(compare(value, bound) for compare, bound in tests):
                    raise Invalid("", value)
                if step is not None:
                    ratio = value / step
                    if abs(ratio - round(ratio)) > 1e-9 * max(1.0, abs(ratio)):
                        raise Invalid("", value)
            return value

        return [check]

    def _counts(self, schema: Mapping[str, Any], low_key: str, high_key: str, path: str) -> tuple[int, float]:
        found: list[Any] = []
        for key, fallback in ((low_key, 0), (high_key, float("inf"))):
            value = schema.get(key, fallback)
            if key in schema and (type(value) is not int or value < 0):
                self._problem(path, f"{key!r} must be a non-negative integer, got {preview(value)}")
                value = fallback
            found.append(value)
        if found[0] > found[1]:
            self._problem(path, f"{low_key!r} {found[0]} is greater than {high_key!r} {found[1]}")
        return found[0], found[1]

    def _strings(self, schema: Mapping[str, Any], path: str) -> list[Validator]:
        low, high = self._counts(schema, "minLength", "maxLength", path)
        pattern = None
        if "pattern" in schema:
            try:
                pattern = re.compile(schema["pattern"])
            except (re.error, TypeError) as exc:
                self._problem(path, f"'pattern' {schema['pattern']!r} does not compile: {exc}")
        if not low and high == float("inf") and pattern is None:
            return []

        def check(value: Any) -> Any:
            if isinstance(value, str) and (
                not low <= len(value) <= high or (pattern is not None and not pattern.search(value))
            ):
                raise Invalid("", value)
            return value

        return [check]

    def _arrays(self, schema: Mapping[str, Any], path: str) -> list[Validator]:
        low, high = self._counts(schema, "minItems", "maxItems", path)
        unique = schema.get("uniqueItems", False)
        if not isinstance(unique, bool):
            self._problem(path, f"'uniqueItems' must be true or false, got {preview(unique)}")
            unique = False
        if not low and high == float("inf") and not unique:
            return []

        def check(value: Any) -> Any:
            if isinstance(value, list):
                if not low <= len(value) <= high:
                    raise Invalid("", value)
                if unique and any(json_equal(a, b) for i, a in enumerate(value) for b in value[i + 1 :]):
                    raise Invalid("", value)
            return value

        return [check]

    # --- keywords that check parts of the value, each reporting its own path --------

    def _items(self, schema: Mapping[str, Any], path: str) -> list[Validator]:
        items = schema.get("items")
        prefix_schemas = schema.get("prefixItems", items if isinstance(items, list) else [])
        if not isinstance(prefix_schemas, list):
            self._problem(path, f"'prefixItems' must be a list of schemas, got {preview(prefix_schemas)}")
            prefix_schemas = []
        prefix = [self.compile(s, f"{path}.prefixItems[{i}]") for i, s in enumerate(prefix_schemas)]
        rest = (
            self.compile(items, f"{path}.items")
            if "items" in schema and not isinstance(items, list)
            else None
        )
        if not prefix and rest is None:
            return []

        def check(value: Any) -> Any:
            if not isinstance(value, list):
                return value
            out = [_nested(v, x, f"[{i}]") for i, (v, x) in enumerate(zip(prefix, value))]
            tail = value[len(prefix) :]
            if rest is None:
                return out + tail
            return out + [_nested(rest, x, f"[{i}]") for i, x in enumerate(tail, len(prefix))]

        return [check]

    def _object(self, schema: Mapping[str, Any], path: str) -> list[Validator]:
        props = schema.get("properties", {})
        if not isinstance(props, Mapping):
            self._problem(path, f"'properties' must map names to schemas, got {preview(props)}")
            props = {}
        fields = {name: self.compile(s, f"{path}.properties.{name}") for name, s in props.items()}
        required = self.required(schema, props, path)
        extra = schema.get("additionalProperties", True)
        if not isinstance(extra, (bool, Mapping)):
            self._problem(path, f"'additionalProperties' must be a boolean or a schema, got {preview(extra)}")
            extra = True
        more = None if extra is False else self.compile(extra, f"{path}.additionalProperties")
        if not fields and not required and more is _accept:
            return []
        names = list(props)

        def check(value: Any) -> Any:
            if not isinstance(value, dict):
                return value
            if any(k not in value for k in required):
                raise Invalid(f"object with required keys {required!r}", value)
            if more is None and any(k not in fields for k in value):
                raise Invalid(f"object with only the keys {names!r}", value)
            return {k: _nested(fields.get(k, more or _accept), v, f".{k}") for k, v in value.items()}

        return [check]

    def required(self, schema: Mapping[str, Any], props: Mapping[str, Any], path: str) -> list[str]:
        """The ``required`` names of an object schema, each checked to be a property."""
        required = schema.get("required", [])
        if not isinstance(required, list) or not all(isinstance(r, str) for r in required):
            self._problem(path, f"'required' must be a list of property names, got {preview(required)}")
            return []
        for name in required:
            if name not in props:
                hint = did_you_mean(name, props)
                self._problem(path, f"'required' names {name!r}, which is not a property.{hint}".rstrip("."))
        return [r for r in required if r in props]

    def _choices(self, schema: Mapping[str, Any], path: str) -> list[Validator]:
        steps: list[Validator] = []
        for key in ("allOf", "anyOf", "oneOf"):
            if key not in schema:
                continue
            members = schema[key]
            if not isinstance(members, list) or not members:
                self._problem(path, f"{key!r} must be a non-empty list of schemas, got {preview(members)}")
                continue
            validators = [self.compile(m, f"{path}.{key}[{i}]") for i, m in enumerate(members)]
            steps.append(_all_of(validators) if key == "allOf" else _first_of(validators))
        return steps

    def _ref(self, ref: Any, path: str) -> Validator:
        if not isinstance(ref, str) or not ref.startswith("#"):
            self._problem(path, f"'$ref' {ref!r} is not a local reference (#/$defs/...)")
            return _accept
        if ref not in self._refs:
            target = resolve_ref(self.root, ref)
            self._refs[ref] = _accept  # stands in while compiling a schema that refers to itself
            if target is None:
                self._problem(path, f"'$ref' {ref!r} does not resolve")
            else:
                where = "parameters" + "".join(f".{p}" for p in ref[1:].split("/") if p)
                self._refs[ref] = self.compile(target, where)
        refs = self._refs

        def check(value: Any) -> Any:
            return refs[ref](value)

        return check


def _all_of(validators: list[Validator]) -> Validator:
    def check(value: Any) -> Any:
        for validator in validators:
            value = validator(value)
        return value

    return check


def _first_of(validators: list[Validator]) -> Validator:
    """``anyOf``/``oneOf``: the first member the value fits as it is, else the first that coerces it."""

    def check(value: Any) -> Any:
        failures = []
        coerced: list[Any] = []
        for validator in validators:
            try:
                out = validator(value)
            except Invalid as exc:
                failures.append(exc.expected if not exc.path else f"{exc.expected} at {exc.path}")
                continue
            if json_equal(out, value):
                return out
            coerced.append(out)
        if coerced:
            return coerced[0]
        raise Invalid(" or ".join(dict.fromkeys(failures)), value)

    return check
