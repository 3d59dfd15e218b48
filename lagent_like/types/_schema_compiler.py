"""Compile a JSON Schema into checks: the one validator of every tool.

Tools defined by a schema (``SchemaTool``, MCP) are checked against it; tools made from
a function are checked against the schema of its annotations (``_validation.py`` builds
it with ``_json_schema.schema_of(..., python=True)``, which also records the Python
values to build). Either way this module compiles JSON Schema 2020-12 into a check
(value in, the possibly converted value or a :class:`~._families.Refusal` out), with
the conversions of each validation mode (the checks of the type families come from
``_families.py``), so both kinds of tool behave alike for a model. Compiling also
checks the schema itself and collects every problem in it (unknown type words,
patterns that do not compile, impossible bounds, dangling ``$ref``, unsupported
keywords) so the programmer learns of all of them at once.

The module reads top-down: first the checks keywords compile into (one plain function
per keyword group, of the already compiled parts; checks of the value itself refuse
with an empty ``expected`` which the walker words as one sentence, checks of parts of
the value refuse with the path of the part), then the walker's helpers, then
``SchemaCompiler``: one method per keyword group (each checks its keywords' values,
collecting every problem, and compiles them) and the walk over a schema (types,
references, what a refusal says). The Python values an annotation's schema builds are
made in ``_python_values.py``.

The dialect, everything in which this validator departs from JSON Schema 2020-12
(``oneOf`` handled as ``anyOf``, values converted before they are checked, other
dialects' type words and old keywords, the top of a tool's parameters closed by
default, annotations' schemas saying more than JSON Schema can...), is written down in
one place, for the users who write the schemas: ``docs/function-calling.rst``, section
"Schema dialect". A change of the dialect here is a change of that section.
"""

from __future__ import annotations

import operator
from collections.abc import Mapping, Sized
from typing import Any, Callable, Optional

from .._private.patterns import PatternProblem, PatternSearch, compile_pattern
from .._private.text import did_you_mean, preview
from . import _families as fam
from ._families import COERCE, ITSELF, STRICT, Check, Refusal, accept, describe_value, is_number, json_equal
from ._json_schema import PYTHON
from ._python_values import python_check

__all__ = ["TYPE_WORDS", "SchemaCompiler", "canonical_types", "json_equal", "resolve_ref"]

_COMPARE: dict[str, Callable[[Any, Any], bool]] = {
    ">=": operator.ge,
    ">": operator.gt,
    "<=": operator.le,
    "<": operator.lt,
}

# --- keywords checked on the value itself (after the type's conversion) ----------------------


def one_of_values(allowed: list[Any]) -> Check:
    """``enum``/``const``: the first allowed value equal to the value (as JSON sees it)."""

    def check(value: Any) -> Any:
        for option in allowed:
            if json_equal(value, option):
                return option
        return Refusal("")

    return check


def number_check(bounds: list[tuple[str, Any]], step: Optional[Any]) -> Check:
    """Bounds (``('>=', 1)``) and ``multipleOf`` ``step`` on a number; other values pass."""
    tests = [(_COMPARE[op], bound) for op, bound in bounds]

    def check(value: Any) -> Any:
        if not is_number(value):
            return value
        if not all(compare(value, bound) for compare, bound in tests):
            return Refusal("")
        if step is not None:
            ratio = value / step
            if abs(ratio - round(ratio)) > 1e-9 * max(1.0, abs(ratio)):
                return Refusal("")
        return value

    return check


#: A test of a whole value (true: it passes).
Test = Callable[[Any], Any]


def sized_check(kind: type[Sized], low: int, high: float, tests: list[Test]) -> Check:
    """A ``kind`` value (string, list, dict) whose length is ``low`` to ``high`` and that passes ``tests``.

    Values of other kinds pass: the keywords of a string say nothing about a number.
    """

    def check(value: Any) -> Any:
        if isinstance(value, kind):
            if not low <= len(value) <= high:
                return Refusal("")
            for test in tests:
                if not test(value):
                    return Refusal("")
        return value

    return check


def unique_items(value: list[Any]) -> bool:
    """``uniqueItems``: no two items equal as JSON sees it."""
    return not any(json_equal(a, b) for i, a in enumerate(value) for b in value[i + 1 :])


def has_needed(needs: dict[str, list[str]]) -> Test:
    """``dependentRequired``: each key present brings the keys it needs."""
    return lambda value: not any(k in value and any(n not in value for n in ns) for k, ns in needs.items())


def keys_fit(names: Check) -> Test:
    """``propertyNames``: every key passes ``names``."""
    return lambda value: not any(type(names(k)) is Refusal for k in value)


def contains_check(contains: Check, least: int, most: float) -> Check:
    """``contains`` with ``minContains``/``maxContains``: how many items fit ``contains``."""

    def count(value: Any) -> Any:
        if isinstance(value, list):
            found = sum(type(contains(v)) is not Refusal for v in value)
            if not least <= found <= most:
                return Refusal("")
        return value

    return count


def negation(inner: Check) -> Check:
    """``not``: the value, if ``inner`` refuses it."""

    def check(value: Any) -> Any:
        return Refusal("") if type(inner(value)) is not Refusal else value

    return check


# --- keywords that check parts of the value, each refusal located at the part ---------------


def items_check(prefix: list[Check], rest: Optional[Check]) -> Check:
    """``prefixItems`` and ``items``: each item by its position's check (``rest`` after the prefix)."""

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

    return check


#: Refuses a key no keyword of an object schema names: ``(key, its value, the object)``.
Unknown = Callable[[Any, Any, Any], Refusal]


def unknown_key(names: list[str], top: bool) -> Unknown:
    if top:  # a tool's arguments: the parameter is named
        listing = ", ".join(names) or "none"
        return lambda key, item, _: Refusal("", item, str(key), f"is not a parameter; parameters: {listing}")
    expected = f"object with only the keys {names!r}"
    return lambda key, item, value: Refusal(expected, value)


def steps_of_key(
    fields: dict[str, Check], patterns: list[tuple[PatternSearch, Check]], more: Optional[Check]
) -> Callable[[Any], Optional[list[Check]]]:
    """The checks of an object's key: its property's, its patterns', else ``more`` (``None``: unknown)."""

    def steps_of(key: Any) -> Optional[list[Check]]:
        steps = [f for search, f in patterns if isinstance(key, str) and search(key)]
        if key in fields:
            steps.insert(0, fields[key])
        elif not steps:
            return None if more is None else [more]
        return steps

    return steps_of


def object_check(
    steps_of: Callable[[Any], Optional[list[Check]]], required: list[str], unknown: Unknown, top: bool
) -> Check:
    """``properties``, ``patternProperties``, ``additionalProperties`` and ``required`` on a dict."""
    prefix = "" if top else "."

    def check(value: Any) -> Any:
        if not isinstance(value, dict):
            return value
        if any(k not in value for k in required):
            return Refusal(f"object with required keys {required!r}", value)
        out = {}
        for key, item in value.items():
            steps = steps_of(key)
            if steps is None:
                return unknown(key, item, value)
            for step in steps:
                result = step(item)
                if type(result) is Refusal:
                    return result.at(f"{prefix}{key}", item)
                item = result
            out[key] = item
        return out

    return check


def conditional(condition: Check, then: Check, otherwise: Check) -> Check:
    """``if``/``then``/``else``."""

    def check(value: Any) -> Any:
        return then(value) if type(condition(value)) is not Refusal else otherwise(value)

    return check


def dependent_check(found: dict[str, Check]) -> Check:
    """``dependentSchemas``: the schema of each name present, in turn."""

    def check(value: Any) -> Any:
        if isinstance(value, dict):
            for name, sub in found.items():
                if name in value:
                    value = sub(value)
                    if type(value) is Refusal:
                        return value
        return value

    return check


def all_of(checks: list[Check]) -> Check:
    """Every check in turn, each on what the one before returned; a refusal of the value itself is located."""

    def check(value: Any) -> Any:
        for member in checks:
            result = member(value)
            if type(result) is Refusal:
                return result if result.value is not ITSELF else result.at("", value)
            value = result
        return value

    return check


def first_of(checks: list[Check]) -> Check:
    """``anyOf``/``oneOf``: the first member the value fits as it is, else the first that converts it.

    A value refused by every member gets the one refusal that looked inside it, when
    only one did (``Optional[list[Model]]`` given a list names the failing fields),
    else a refusal naming every member.
    """

    def check(value: Any) -> Any:
        refusals = []
        converted: list[Any] = []
        for member in checks:
            out = member(value)
            if type(out) is Refusal:
                refusals.append(out)
                continue
            if json_equal(out, value):
                return out
            converted.append(out)
        if converted:
            return converted[0]
        return _refusal_of_all(refusals, value)

    return check


def _refusal_of_all(refusals: list[Refusal], value: Any) -> Refusal:
    inside = [r for r in refusals if r.path or r.parts]
    if len(inside) == 1:
        return inside[0]
    failures = [r.expected if not r.path else f"{r.expected} at {r.path}" for r in refusals]
    return Refusal(" or ".join(dict.fromkeys(failures)), value)


def verified(check: Check, test: Check) -> Check:
    """``check``, whose result must then pass ``test`` (the same schema, converting nothing) as it is."""

    def run(value: Any) -> Any:
        out = check(value)
        if type(out) is Refusal:
            return out
        refused = test(out)
        if type(refused) is Refusal:
            got = refused.got(out)
            sentence = refused.sentence or (
                f"expected {refused.expected} but the schema's other parts turn it into {describe_value(got)}"
            )
            return Refusal(refused.expected, got, refused.path, sentence)
        return out

    return run


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


class SchemaCompiler:
    """Compiles the schemas of one tool into checks, collecting definition problems.

    Args:
        root: the tool's parameters schema; local ``$ref`` are resolved in it.
        mode: the validation mode, ``"coerce"`` or ``"strict"`` (``"off"`` compiles nothing).
        json_numbers: ``number`` keeps integers as integers, as JSON Schema says (the
            schema is a tool's own); otherwise a number is built as a ``float`` (the
            schema is an annotation's).
        patterns: ``pattern`` and ``patternProperties`` will be matched; ``False`` for
            a tool whose own validation is ``"off"``: only their syntax is checked, and
            a pattern the engine cannot run is no problem.

    Attributes:
        problems: every problem found so far, each starting with where it is
            (``parameters.properties.city``) and naming the keyword.
    """

    def __init__(
        self, root: Mapping[str, Any], mode: str = COERCE, json_numbers: bool = False, patterns: bool = True
    ) -> None:
        self.root = root
        self.mode = mode
        self.json_numbers = json_numbers
        self.patterns = patterns
        self.problems: list[str] = []
        self._refs: dict[tuple[str, str], Check] = {}

    def _problem(self, path: str, text: str) -> None:
        problem = f"{path}: {text}"
        if problem not in self.problems:  # a subschema compiled in two modes is reported once
            self.problems.append(problem)

    def as_sent(self, schema: Any, path: str, top: bool = False) -> Check:
        """The check of ``schema`` as a test of the value as sent: nothing is converted.

        The subschemas of ``not``, ``if``, ``contains`` and ``propertyNames`` ask whether
        a value *is* valid; a converted copy would answer for another value
        (``{"not": {"type": "string"}}`` would refuse ``1``, which converts to ``"1"``).
        """
        if self.mode == STRICT:
            return self.compile(schema, path, top)
        mode, self.mode = self.mode, STRICT
        try:
            return self.compile(schema, path, top)
        finally:
            self.mode = mode

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
        return [one_of_values(list(options))]

    def _number(self, schema: Mapping[str, Any], key: str, path: str) -> Optional[Any]:
        value = schema.get(key)
        if value is None or is_number(value):
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
            if is_number(schema.get(plain)):
                bounds.append((strict_op if flag is True else op, schema[plain], plain))
            if is_number(flag):
                bounds.append((strict_op, flag, exclusive))
        return bounds

    def _numbers(self, schema: Mapping[str, Any], path: str) -> list[Check]:
        for key in ("minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum"):
            if not (key.startswith("exclusive") and isinstance(schema.get(key), bool)):  # draft-4 flags
                self._number(schema, key, path)
        bounds = self._bounds(schema)
        for problem in _contradictions(bounds):
            self._problem(path, problem)
        step = self._number(schema, "multipleOf", path)
        if step is not None and step <= 0:
            self._problem(path, f"'multipleOf' must be greater than 0, got {step}")
            step = None
        tests = [(op, bound) for op, bound, _ in bounds]
        return [number_check(tests, step)] if tests or step is not None else []

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
        return [sized_check(str, low, high, [] if pattern is None else [pattern])]

    def _pattern(self, text: Any, path: str, key: str) -> Optional[PatternSearch]:
        """``text``'s linear-time search (see :mod:`.._private.patterns`), else a problem."""
        if not isinstance(text, str):
            self._problem(path, f"{key!r} must be a string, got {preview(text)}")
            return None
        search = compile_pattern(text)
        if isinstance(search, PatternProblem):
            if self.patterns or search.syntax:  # unmatched patterns need only be readable
                self._problem(path, f"{key!r} {text!r} {search.reason}")
            return None
        return search

    def _arrays(self, schema: Mapping[str, Any], path: str) -> list[Check]:
        low, high = self._counts(schema, "minItems", "maxItems", path)
        unique = schema.get("uniqueItems", False)
        if not isinstance(unique, bool):
            self._problem(path, f"'uniqueItems' must be true or false, got {preview(unique)}")
            unique = False
        steps = self._contains(schema, path)
        if not low and high == float("inf") and not unique:
            return steps
        return [sized_check(list, low, high, [unique_items] if unique else []), *steps]

    def _contains(self, schema: Mapping[str, Any], path: str) -> list[Check]:
        if "contains" not in schema:
            return []
        contains = self.as_sent(schema["contains"], f"{path}.contains")
        least, most = self._counts(schema, "minContains", "maxContains", path)
        least = least if "minContains" in schema else 1
        return [contains_check(contains, least, most)]

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
        tests = [has_needed(needs)] if needs else []
        if "propertyNames" in schema:
            tests.append(keys_fit(self.as_sent(schema["propertyNames"], f"{path}.propertyNames")))
        if not low and high == float("inf") and not tests:
            return []
        return [sized_check(dict, low, high, tests)]

    def _negation(self, schema: Mapping[str, Any], path: str) -> list[Check]:
        if "not" not in schema:
            return []
        return [negation(self.as_sent(schema["not"], f"{path}.not"))]

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
        return [items_check(prefix, rest)]

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
        patterns = self._pattern_properties(schema, path)
        more = self._additional(schema, path, top)
        required = [] if top else self.required(schema, props, path)  # at the top: the parser's
        if top and not patterns and (more is None or more is accept):
            return []  # the parser checks names and parameters: nothing is left
        if not top and not fields and not patterns and not required and more is accept:
            return []
        steps_of = steps_of_key(fields, patterns, more)
        return [object_check(steps_of, required, unknown_key(list(props), top), top)]

    def _pattern_properties(self, schema: Mapping[str, Any], path: str) -> list[tuple[PatternSearch, Check]]:
        raw = schema.get("patternProperties", {})
        if not isinstance(raw, Mapping):
            self._problem(path, f"'patternProperties' must map patterns to schemas, got {preview(raw)}")
            raw = {}
        return [
            (compiled, self.compile(s, f"{path}.patternProperties.{p}"))
            for p, s in raw.items()
            if (compiled := self._pattern(p, path, "patternProperties")) is not None
        ]

    def _additional(self, schema: Mapping[str, Any], path: str, top: bool) -> Optional[Check]:
        """The check of keys no other keyword names, ``None`` if there may be none (missing at the top)."""
        extra = schema.get("additionalProperties", not top)
        if not isinstance(extra, (bool, Mapping)):
            self._problem(path, f"'additionalProperties' must be a boolean or a schema, got {preview(extra)}")
            extra = True
        return None if extra is False else self.compile(extra, f"{path}.additionalProperties")

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
            steps.append(all_of(checks) if key == "allOf" else first_of(checks))
        return steps

    def _conditional(self, schema: Mapping[str, Any], path: str) -> list[Check]:
        if "if" not in schema:
            return []
        condition = self.as_sent(schema["if"], f"{path}.if")
        then = self.compile(schema.get("then", True), f"{path}.then")
        otherwise = self.compile(schema.get("else", True), f"{path}.else")
        return [conditional(condition, then, otherwise)]

    def _dependent_schemas(self, schema: Mapping[str, Any], path: str) -> list[Check]:
        found: dict[str, Check] = {}
        for key in ("dependentSchemas", "dependencies"):
            value = schema.get(key, {})
            if not isinstance(value, Mapping):
                self._problem(path, f"{key!r} must map names to schemas, got {preview(value)}")
                continue
            # A list is draft-7 dependentRequired (``_dependent_required``).
            found.update(
                (name, self.compile(sub, f"{path}.{key}.{name}"))
                for name, sub in value.items()
                if not isinstance(sub, list)
            )
        return [dependent_check(found)] if found else []

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


def _contradictions(bounds: list[tuple[str, Any, str]]) -> list[str]:
    """What is wrong with a set of bounds no number meets (``minimum`` 5 above ``maximum`` 1)."""
    problems = []
    for low_op, low, low_key in (b for b in bounds if b[0] in (">", ">=")):
        for high_op, high, high_key in (b for b in bounds if b[0] in ("<", "<=")):
            if low > high:
                problems.append(f"{low_key!r} {low} is greater than {high_key!r} {high}")
            elif low == high and (low_op == ">" or high_op == "<"):
                problems.append(f"{low_key!r} {low} and {high_key!r} {high} leave no number")
    return problems
