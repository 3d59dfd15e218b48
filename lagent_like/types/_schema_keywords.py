"""The keywords of JSON Schema, one compiler method per group, for ``SchemaCompiler``.

``schema_validation.SchemaCompiler`` walks a schema (types, references, what a refusal
says); the keywords themselves are read here, one method per group: each checks its
keywords' values (collecting every problem in the schema) and compiles them into the
checks of ``keyword_checks.py``: those that test the value itself (``enum``, bounds,
lengths, counts, ``not``), whose failure the walker words as one sentence, and those
that check parts of the value (``items``, ``properties``, ``patternProperties``,
``if``/``then``/``else``, ``dependentSchemas``, ``anyOf``...), each refusing with the
path of the part.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Optional

from .._private.patterns import PatternProblem, PatternSearch, compile_pattern
from .._private.text import did_you_mean, preview
from . import _keyword_checks as kc
from ._families import COERCE, STRICT, Check, accept, is_number


class KeywordCompiler:
    """The keyword groups of one schema compiler; :meth:`compile` walks a schema (``SchemaCompiler``).

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
        return [kc.one_of_values(list(options))]

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
        return [kc.number_check(tests, step)] if tests or step is not None else []

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
        return [kc.sized_check(str, low, high, [] if pattern is None else [pattern])]

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
        return [kc.sized_check(list, low, high, [kc.unique_items] if unique else []), *steps]

    def _contains(self, schema: Mapping[str, Any], path: str) -> list[Check]:
        if "contains" not in schema:
            return []
        contains = self.as_sent(schema["contains"], f"{path}.contains")
        least, most = self._counts(schema, "minContains", "maxContains", path)
        least = least if "minContains" in schema else 1
        return [kc.contains_check(contains, least, most)]

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
        tests = [kc.has_needed(needs)] if needs else []
        if "propertyNames" in schema:
            tests.append(kc.keys_fit(self.as_sent(schema["propertyNames"], f"{path}.propertyNames")))
        if not low and high == float("inf") and not tests:
            return []
        return [kc.sized_check(dict, low, high, tests)]

    def _negation(self, schema: Mapping[str, Any], path: str) -> list[Check]:
        if "not" not in schema:
            return []
        return [kc.negation(self.as_sent(schema["not"], f"{path}.not"))]

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
        return [kc.items_check(prefix, rest)]

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
        steps_of = kc.steps_of_key(fields, patterns, more)
        return [kc.object_check(steps_of, required, kc.unknown_key(list(props), top), top)]

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
            steps.append(kc.all_of(checks) if key == "allOf" else kc.first_of(checks))
        return steps

    def _conditional(self, schema: Mapping[str, Any], path: str) -> list[Check]:
        if "if" not in schema:
            return []
        condition = self.as_sent(schema["if"], f"{path}.if")
        then = self.compile(schema.get("then", True), f"{path}.then")
        otherwise = self.compile(schema.get("else", True), f"{path}.else")
        return [kc.conditional(condition, then, otherwise)]

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
        return [kc.dependent_check(found)] if found else []


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
