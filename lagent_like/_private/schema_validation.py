"""Compile a JSON Schema into checks: the validator of tools defined by a schema.

Tools made from a function are checked against its annotations (``validation.py``);
tools made from a JSON-schema definition (``SchemaTool``, MCP) have only the schema.
This module compiles JSON Schema 2020-12 into the same kind of check (value in, the
possibly converted value or a :class:`~.families.Refusal` out), with the same
conversions per validation mode (the checks of the type families come from
``families.py``), so both kinds of tool behave alike for a model. Compiling also
checks the schema itself and collects every problem in it (unknown type words,
patterns that do not compile, impossible bounds, dangling ``$ref``, unsupported
keywords) so the programmer learns of all of them at once.

The dialect, everything in which this validator departs from JSON Schema 2020-12
(also in ``docs/function-calling.rst``, "Schema dialect"):

* ``oneOf`` is handled as ``anyOf``: a value that fits several members is accepted,
  converted by the first member it fits as it is (else the first that converts it);
* values are converted before they are checked, per validation mode (``"3"`` is an
  integer in mode ``"coerce"``); the tool receives the converted value;
* type words of other dialects are read as JSON types (``int``, ``float``, ``bool``,
  ``str``, ``list``, ``tuple``, ``dict``, and ``any`` for no type), OpenAPI's
  ``nullable: true`` adds ``null``, draft-4 boolean ``exclusiveMinimum``/
  ``exclusiveMaximum`` and draft-7 ``dependencies`` and list-form ``items`` (with
  ``additionalItems``) keep their old meaning;
* at the top of a tool's parameters, a missing ``additionalProperties`` means
  ``false`` (arguments a tool does not name are refused), and ``required`` names
  without ``properties`` (BFCL) are parameters of any type;
* ``format`` and the other annotations are not checked; ``unevaluatedProperties``,
  ``unevaluatedItems`` (other than ``true``), ``$dynamicRef``, ``$dynamicAnchor`` and
  ``$recursiveRef`` are refused at definition; ``$ref`` must be local (``#/...``);
* an annotation's schema (``json_schema.schema_of(..., python=True)``) says more than
  JSON Schema can: a ``Literal`` takes its values exactly (``"1"`` is not ``1``), a
  ``set`` drops duplicates instead of refusing them, and dataclasses, Enum members and
  tuples are built from the checked values (``python_values.py``).
"""

from __future__ import annotations

import operator
import re
from collections.abc import Mapping
from typing import Any, Callable, Optional

from . import families as fam
from .families import COERCE, ITSELF, Check, Refusal, accept
from .json_schema import PYTHON
from .python_values import python_check
from .text import did_you_mean, preview

__all__ = ["TYPE_WORDS", "SchemaCompiler", "canonical_types", "json_equal", "resolve_ref"]

#: Canonical JSON Schema type of each type word real specs use (dialects included).
TYPE_WORDS: dict[str, str] = {word: f.json for word, f in fam.FAMILY_OF_SCHEMA_WORD.items()}

#: Keywords whose meaning this validator does not check; a schema using them is refused.
UNSUPPORTED = frozenset(
    {"unevaluatedItems", "unevaluatedProperties", "$dynamicRef", "$dynamicAnchor", "$recursiveRef"}
)

_COMPARE: dict[str, Callable[[Any, Any], bool]] = {
    ">=": operator.ge,
    ">": operator.gt,
    "<=": operator.le,
    "<": operator.lt,
}


def _refuse_all(value: Any) -> Any:
    return Refusal("nothing (the schema allows no value here)", value)


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


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


def _typed(kinds: list[str], mode: str) -> Check:
    """The check of a schema's ``type``: the (converted) value, or a ``Refusal`` naming every type."""
    checks = {k: fam.FAMILY_OF_JSON[k].checks[mode] for k in kinds}
    if "array" in checks:
        checks["array"] = _as_list(checks["array"])
    if len(kinds) == 1:
        return checks[kinds[0]]
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


def _combine(expected: str, nullable: bool, level: list[Check], nested: list[Check]) -> Check:
    """The check of one schema: its own steps (``level``, refused with one sentence), then the nested ones."""
    if not (level or nested or nullable):
        return accept
    refusal = fam.refusal(expected)

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
        for step in nested:
            result = step(out)
            if type(result) is Refusal:
                return result if result.value is not ITSELF else result.at("", out)
            out = result
        return out

    return check


class SchemaCompiler:
    """Compiles the schemas of one tool into checks, collecting definition problems.

    Args:
        root: the tool's parameters schema; local ``$ref`` are resolved in it.
        mode: the validation mode, ``"coerce"`` or ``"strict"`` (``"off"`` compiles nothing).

    Attributes:
        problems: every problem found so far, each starting with where it is
            (``parameters.properties.city``) and naming the keyword.
    """

    def __init__(self, root: Mapping[str, Any], mode: str = COERCE) -> None:
        self.root = root
        self.mode = mode
        self.problems: list[str] = []
        self._refs: dict[str, Check] = {}

    def _problem(self, path: str, text: str) -> None:
        self.problems.append(f"{path}: {text}")

    def compile(self, schema: Any, path: str, top: bool = False) -> Check:
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
                return _typed(kinds, self.mode) if "any" not in kinds else accept
        for key in sorted(UNSUPPORTED & schema.keys()):
            if schema[key] is not True:
                self._problem(path, f"the keyword {key!r} is not supported")
        kinds = self.types(schema, path)
        level = [_typed(kinds, self.mode)] if kinds and "any" not in kinds and not top else []
        level += self._values(schema, path) + self._numbers(schema, path) + self._strings(schema, path)
        level += (
            self._arrays(schema, path) + self._counts_of_object(schema, path) + self._negation(schema, path)
        )
        nested = self._items(schema, path) + self._object(schema, path, top) + self._choices(schema, path)
        nested += self._conditional(schema, path) + self._dependent_schemas(schema, path)
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

    def expectation(self, schema: Any, kinds: Optional[list[str]] = None) -> str:
        """What ``schema`` asks for, in words a model acts on: ``integer >= 1``."""
        if not isinstance(schema, Mapping):
            return "any value" if schema is not False else "nothing"
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
        parts = [noun, " and ".join(f"{op} {bound}" for op, bound, _ in self._bounds(schema))]
        if _is_number(schema.get("multipleOf")):
            parts.append(f"that is a multiple of {schema['multipleOf']}")
        parts.append(_count_phrase(schema.get("minLength"), schema.get("maxLength"), "characters") or "")
        if isinstance(schema.get("pattern"), str):
            parts.append(f"matching {schema['pattern']!r}")
        parts.append(_count_phrase(schema.get("minItems"), schema.get("maxItems"), "items") or "")
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
        for key, names in self._dependent_required(schema).items():
            parts.append(f"where {key!r} needs {names!r}")
        if "not" in schema:
            parts.append(f"and not {self.expectation(schema['not'])}")
        return " ".join(p for p in parts if p)

    # --- keywords checked on the value itself (after the type's conversion) ---------

    def _values(self, schema: Mapping[str, Any], path: str) -> list[Check]:
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
            return Refusal("")

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

    def _numbers(self, schema: Mapping[str, Any], path: str) -> list[Check]:
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
                    return Refusal("")
                if step is not None:
                    ratio = value / step
                    if abs(ratio - round(ratio)) > 1e-9 * max(1.0, abs(ratio)):
                        return Refusal("")
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

    def _strings(self, schema: Mapping[str, Any], path: str) -> list[Check]:
        low, high = self._counts(schema, "minLength", "maxLength", path)
        pattern = self._pattern(schema.get("pattern"), path, "pattern") if "pattern" in schema else None
        if not low and high == float("inf") and pattern is None:
            return []

        def check(value: Any) -> Any:
            if isinstance(value, str) and (
                not low <= len(value) <= high or (pattern is not None and not pattern.search(value))
            ):
                return Refusal("")
            return value

        return [check]

    def _pattern(self, text: Any, path: str, key: str) -> Optional[re.Pattern[str]]:
        try:
            return re.compile(text)
        except (re.error, TypeError) as exc:
            self._problem(path, f"{key!r} {text!r} does not compile: {exc}")
            return None

    def _arrays(self, schema: Mapping[str, Any], path: str) -> list[Check]:
        low, high = self._counts(schema, "minItems", "maxItems", path)
        unique = schema.get("uniqueItems", False)
        if not isinstance(unique, bool):
            self._problem(path, f"'uniqueItems' must be true or false, got {preview(unique)}")
            unique = False
        steps: list[Check] = []
        if "contains" in schema:
            contains = self.compile(schema["contains"], f"{path}.contains")
            least, most = self._counts(schema, "minContains", "maxContains", path)
            least = least if "minContains" in schema else 1

            def count(value: Any) -> Any:
                if isinstance(value, list):
                    found = sum(type(contains(v)) is not Refusal for v in value)
                    if not least <= found <= most:
                        return Refusal("")
                return value

            steps.append(count)
        if not low and high == float("inf") and not unique:
            return steps

        def check(value: Any) -> Any:
            if isinstance(value, list):
                if not low <= len(value) <= high:
                    return Refusal("")
                if unique and any(json_equal(a, b) for i, a in enumerate(value) for b in value[i + 1 :]):
                    return Refusal("")
            return value

        return [check, *steps]

    def _dependent_required(self, schema: Mapping[str, Any]) -> dict[str, list[str]]:
        """``dependentRequired`` with draft-7 ``dependencies`` lists merged in (well-formed entries only)."""
        found: dict[str, list[str]] = {}
        for key in ("dependentRequired", "dependencies"):
            value = schema.get(key)
            if isinstance(value, Mapping):
                for name, names in value.items():
                    if isinstance(names, list) and all(isinstance(n, str) for n in names):
                        found[name] = found.get(name, []) + names
        return found

    def _counts_of_object(self, schema: Mapping[str, Any], path: str) -> list[Check]:
        low, high = self._counts(schema, "minProperties", "maxProperties", path)
        value = schema.get("dependentRequired", {})
        if not isinstance(value, Mapping) or not all(
            isinstance(v, list) and all(isinstance(n, str) for n in v) for v in value.values()
        ):
            self._problem(path, f"'dependentRequired' must map names to lists of names, got {preview(value)}")
        needs = self._dependent_required(schema)
        names = None
        if "propertyNames" in schema:
            names = self.compile(schema["propertyNames"], f"{path}.propertyNames")
        if not low and high == float("inf") and not needs and names is None:
            return []

        def check(value: Any) -> Any:
            if isinstance(value, dict):
                if not low <= len(value) <= high:
                    return Refusal("")
                if any(k in value and any(n not in value for n in ns) for k, ns in needs.items()):
                    return Refusal("")
                if names is not None and any(type(names(k)) is Refusal for k in value):
                    return Refusal("")
            return value

        return [check]

    def _negation(self, schema: Mapping[str, Any], path: str) -> list[Check]:
        if "not" not in schema:
            return []
        inner = self.compile(schema["not"], f"{path}.not")

        def check(value: Any) -> Any:
            return Refusal("") if type(inner(value)) is not Refusal else value

        return [check]

    # --- keywords that check parts of the value, each reporting its own path --------

    def _items(self, schema: Mapping[str, Any], path: str) -> list[Check]:
        items = schema.get("items")
        old_form = isinstance(items, list)
        prefix_schemas = schema.get("prefixItems", items if old_form else [])
        if not isinstance(prefix_schemas, list):
            self._problem(path, f"'prefixItems' must be a list of schemas, got {preview(prefix_schemas)}")
            prefix_schemas = []
        prefix = [self.compile(s, f"{path}.prefixItems[{i}]") for i, s in enumerate(prefix_schemas)]
        rest_key = "additionalItems" if old_form else "items"
        rest = self.compile(schema[rest_key], f"{path}.{rest_key}") if rest_key in schema else None
        if not prefix and rest is None:
            return []

        def check(value: Any) -> Any:
            if not isinstance(value, list):
                return value
            out = []
            for i, item in enumerate(value):
                step = prefix[i] if i < len(prefix) else rest
                result = item if step is None else step(item)
                if type(result) is Refusal:
                    return result.at(f"[{i}]", item)
                out.append(result)
            return out

        return [check]

    def _object(self, schema: Mapping[str, Any], path: str, top: bool) -> list[Check]:
        props = schema.get("properties", {})
        if not isinstance(props, Mapping):
            if not top:  # the tool reports its own parameters
                self._problem(path, f"'properties' must map names to schemas, got {preview(props)}")
            props = {}
        if top:  # the parser checks each parameter
            fields: dict[str, Check] = dict.fromkeys(props, accept)
        else:
            fields = {name: self.compile(s, f"{path}.properties.{name}") for name, s in props.items()}
        raw_patterns = schema.get("patternProperties", {})
        if not isinstance(raw_patterns, Mapping):
            self._problem(
                path, f"'patternProperties' must map patterns to schemas, got {preview(raw_patterns)}"
            )
            raw_patterns = {}
        patterns = [
            (compiled, self.compile(s, f"{path}.patternProperties.{p}"))
            for p, s in raw_patterns.items()
            if (compiled := self._pattern(p, path, "patternProperties")) is not None
        ]
        extra = schema.get("additionalProperties", not top)
        if not isinstance(extra, (bool, Mapping)):
            self._problem(path, f"'additionalProperties' must be a boolean or a schema, got {preview(extra)}")
            extra = True
        more = None if extra is False else self.compile(extra, f"{path}.additionalProperties")
        required = [] if top else self.required(schema, props, path)  # at the top: the parser's
        if top and not patterns and (more is None or more is accept):
            return []  # the parser checks names and parameters: nothing is left
        if not top and not fields and not patterns and not required and more is accept:
            return []
        names = list(props)
        listing = ", ".join(names) or "none"
        prefix = "" if top else "."

        def check(value: Any) -> Any:
            if not isinstance(value, dict):
                return value
            if any(k not in value for k in required):
                return Refusal(f"object with required keys {required!r}", value)
            out = {}
            for key, item in value.items():
                steps = [f for p, f in patterns if isinstance(key, str) and p.search(key)]
                if key in fields:
                    steps.insert(0, fields[key])
                elif not steps:
                    if more is None:
                        if top:
                            return Refusal("", item, str(key), f"is not a parameter; parameters: {listing}")
                        return Refusal(f"object with only the keys {names!r}", value)
                    steps.append(more)
                for step in steps:
                    result = step(item)
                    if type(result) is Refusal:
                        return result.at(f"{prefix}{key}", item)
                    item = result
                out[key] = item
            return out

        return [check]

    def required(
        self, schema: Mapping[str, Any], props: Mapping[str, Any], path: str, top: bool = False
    ) -> list[str]:
        """The ``required`` names of an object schema.

        A name that is not a property is a problem only where the schema allows no
        other key (``additionalProperties: false``, the default at the ``top``), and
        not at the top of a schema without ``properties`` (BFCL's form).
        """
        required = schema.get("required", [])
        if not isinstance(required, list) or not all(isinstance(r, str) for r in required):
            self._problem(path, f"'required' must be a list of property names, got {preview(required)}")
            return []
        closed = schema.get("additionalProperties", not top) is False and not schema.get("patternProperties")
        if top and "properties" not in schema:
            closed = False
        for name in required:
            if name not in props and closed:
                hint = did_you_mean(name, props)
                self._problem(path, f"'required' names {name!r}, which is not a property.{hint}".rstrip("."))
        return [r for r in required if r in props or not closed]

    def _choices(self, schema: Mapping[str, Any], path: str) -> list[Check]:
        steps: list[Check] = []
        for key in ("allOf", "anyOf", "oneOf"):
            if key not in schema:
                continue
            members = schema[key]
            if not isinstance(members, list) or not members:
                self._problem(path, f"{key!r} must be a non-empty list of schemas, got {preview(members)}")
                continue
            checks = [self.compile(m, f"{path}.{key}[{i}]") for i, m in enumerate(members)]
            steps.append(_all_of(checks) if key == "allOf" else _first_of(checks))
        return steps

    def _conditional(self, schema: Mapping[str, Any], path: str) -> list[Check]:
        if "if" not in schema:
            return []
        condition = self.compile(schema["if"], f"{path}.if")
        then = self.compile(schema.get("then", True), f"{path}.then")
        otherwise = self.compile(schema.get("else", True), f"{path}.else")

        def check(value: Any) -> Any:
            return then(value) if type(condition(value)) is not Refusal else otherwise(value)

        return [check]

    def _dependent_schemas(self, schema: Mapping[str, Any], path: str) -> list[Check]:
        found: dict[str, Check] = {}
        for key in ("dependentSchemas", "dependencies"):
            value = schema.get(key, {})
            if not isinstance(value, Mapping):
                self._problem(path, f"{key!r} must map names to schemas, got {preview(value)}")
                continue
            for name, sub in value.items():
                if not isinstance(sub, list):
                    found[name] = self.compile(sub, f"{path}.{key}.{name}")
        if not found:
            return []

        def check(value: Any) -> Any:
            if isinstance(value, dict):
                for name, sub in found.items():
                    if name in value:
                        value = sub(value)
                        if type(value) is Refusal:
                            return value
            return value

        return [check]

    def _ref(self, ref: Any, path: str) -> Check:
        if not isinstance(ref, str) or not ref.startswith("#"):
            self._problem(path, f"'$ref' {ref!r} is not a local reference (#/$defs/...)")
            return accept
        if ref not in self._refs:
            target = resolve_ref(self.root, ref)
            self._refs[ref] = accept  # stands in while compiling a schema that refers to itself
            if target is None:
                self._problem(path, f"'$ref' {ref!r} does not resolve")
            else:
                where = "parameters" + "".join(f".{p}" for p in ref[1:].split("/") if p)
                self._refs[ref] = self.compile(target, where)
        refs = self._refs

        def check(value: Any) -> Any:
            return refs[ref](value)

        return check


def _all_of(checks: list[Check]) -> Check:
    def check(value: Any) -> Any:
        for member in checks:
            result = member(value)
            if type(result) is Refusal:
                return result if result.value is not ITSELF else result.at("", value)
            value = result
        return value

    return check


def _first_of(checks: list[Check]) -> Check:
    """``anyOf``/``oneOf``: the first member the value fits as it is, else the first that converts it."""

    def check(value: Any) -> Any:
        failures = []
        converted: list[Any] = []
        for member in checks:
            out = member(value)
            if type(out) is Refusal:
                failures.append(out.expected if not out.path else f"{out.expected} at {out.path}")
                continue
            if json_equal(out, value):
                return out
            converted.append(out)
        if converted:
            return converted[0]
        return Refusal(" or ".join(dict.fromkeys(failures)), value)

    return check
