"""The keywords of JSON Schema, one compiler method per group, for ``SchemaCompiler``.

``schema_validation.SchemaCompiler`` walks a schema (types, references, what a refusal
says); the checks of the keywords themselves are here: those that test the value
itself (``enum``, bounds, lengths, counts, ``not``), whose failure the walker words as
one sentence, and those that check parts of the value (``items``, ``properties``,
``patternProperties``, ``if``/``then``/``else``, ``dependentSchemas``, ``anyOf``...),
each refusing with the path of the part. Every check returns the (possibly converted)
value or a :class:`~.families.Refusal`; problems in the schema itself are collected.
"""

from __future__ import annotations

import operator
import re
from collections.abc import Mapping
from typing import Any, Callable, Optional

from .._private.text import did_you_mean, preview
from .families import COERCE, ITSELF, Check, Refusal, accept, is_number, json_equal

_COMPARE: dict[str, Callable[[Any, Any], bool]] = {
    ">=": operator.ge,
    ">": operator.gt,
    "<=": operator.le,
    "<": operator.lt,
}


class KeywordCompiler:
    """The keyword groups of one schema compiler; :meth:`compile` walks a schema (subclass).

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
        """The check of ``schema`` found at ``path`` (see ``SchemaCompiler.compile``)."""
        raise NotImplementedError

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
            if is_number(value):
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
