"""The checks JSON Schema keywords compile into: one function per keyword group.

``schema_keywords.py`` reads a schema's keywords and reports what is wrong with them;
what it compiles them into is here, each a plain function of the already compiled
parts (bounds, subschemas' checks) returning a check: a value in, the (possibly
converted) value or a :class:`~.families.Refusal` out. Checks of the value itself
refuse with an empty ``expected`` (the schema walker words the sentence); checks of
parts of the value refuse with the path of the part.
"""

from __future__ import annotations

import operator
from collections.abc import Sized
from typing import Any, Callable, Optional

from .._private.patterns import PatternSearch
from ._families import ITSELF, Check, Refusal, describe_value, is_number, json_equal

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
