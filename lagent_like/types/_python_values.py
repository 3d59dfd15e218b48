"""The Python values an annotation declares, built from checked JSON values.

An annotation says more than its JSON Schema: a ``tuple[int, str]`` is an array of two
items *built as a tuple*, a dataclass is an object *built by its class*, a ``Literal``
takes its values exactly, a ``dict[int, str]`` converts its keys. ``schema_of(...,
python=True)`` records that under the schema's ``$python`` key, and the one schema
compiler (``schema_validation.py``) hands such nodes to :func:`python_check`, which
wraps the checks compiled from the node's parts. Messages name the Python class where
there is one (``object (Point) with required keys ['y']``).
"""

from __future__ import annotations

import dataclasses
import enum
import operator
import weakref
from collections.abc import Mapping
from typing import Any, Callable

from . import _families as fam
from ._families import Check, Refusal
from ._json_schema import PythonType
from ._pydantic import model_check
from ._value_classes import value_check

__all__ = ["python_check"]

#: Compiles a subschema found at a path into a check (the schema compiler's ``compile``).
Compile = Callable[[Any, str], Check]


def python_check(
    compile: Compile, schema: Mapping[str, Any], info: PythonType, path: str, mode: str
) -> Check:
    """The check of a schema node that builds a Python value (see :class:`~.json_schema.PythonType`)."""
    kind = info.kind
    if kind == "literal":
        return _literal(info.values)
    if kind == "enum":
        return _enum(info.cls)
    if kind == "instance":
        return _instance(info.cls)
    if kind == "value":
        return value_check(info.cls, mode)
    if kind == "model":
        return model_check(info.cls, mode)
    array, mapping = fam.ARRAY.checks[mode], fam.OBJECT.checks[mode]
    if kind == "tuple":
        items = [compile(s, f"{path}.prefixItems[{i}]") for i, s in enumerate(schema["prefixItems"])]
        return _fixed_tuple(array, items)
    if kind == "sequence":
        return _sequence(array, compile(schema.get("items", {}), f"{path}.items"), info.build)
    if kind == "mapping":
        key = compile(info.key or {}, f"{path}.propertyNames")
        item = compile(schema.get("additionalProperties", {}), f"{path}.additionalProperties")
        checked = _mapping(mapping, key, item)
        return checked if info.build in (dict, list) else _built(checked, info.build)
    return _class_check(info.cls, mode, lambda: _fields_of(compile, schema, info.cls, path, mode))


def _fields_of(compile: Compile, schema: Mapping[str, Any], cls: type, path: str, mode: str) -> Check:
    checks = {k: compile(s, f"{path}.properties.{k}") for k, s in schema["properties"].items()}
    required = frozenset(schema["required"])
    whole = fam.OBJECT.checks[mode]
    if not dataclasses.is_dataclass(cls):
        return _fields(cls.__name__, whole, checks, required, dict)
    from_dict = _fields(cls.__name__, whole, checks, required, lambda data: cls(**data))

    def check(value: Any) -> Any:
        return value if isinstance(value, cls) else from_dict(value)

    return check


#: Checks of TypedDicts and dataclasses, by class and mode; a class that refers to
#: itself finds its own (still being built) entry through a trampoline instead of recursing.
_CLASS_CHECKS: weakref.WeakKeyDictionary[type, dict[str, Check]] = weakref.WeakKeyDictionary()


def _class_check(cls: type, mode: str, build: Callable[[], Check]) -> Check:
    by_mode = _CLASS_CHECKS.setdefault(cls, {})
    known = by_mode.get(mode)
    if known is not None:
        return known

    def trampoline(value: Any) -> Any:
        return by_mode[mode](value)

    by_mode[mode] = trampoline
    try:
        check = build()
    except BaseException:
        del by_mode[mode]
        raise
    by_mode[mode] = check
    return check


# --- containers: the family's check, then the parts, then the Python value -------------------


def _sequence(whole: Check, item: Check, build: Callable[[list[Any]], Any]) -> Check:
    plain_list = build is list
    exact = fam.KEEPS_EXACT.get(item)

    def check(value: Any) -> Any:
        value = whole(value)
        if type(value) is Refusal:
            return value
        if plain_list and exact is not None and type(value) is list and set(map(type, value)) <= {exact}:
            return value  # every item already of its class: no check per item, no copy
        # The loops run in C (map, set, all): a model's array may hold 100,000 items.
        items = list(map(item, value))
        if Refusal in set(map(type, items)):
            return _first_refused(items, value)
        if plain_list:
            # Nothing changed (every item already of its type): the array itself, not a copy.
            if type(value) is list and all(map(operator.is_, items, value)):
                return value
            return items
        try:
            return build(items)
        except TypeError:  # unhashable items for a set
            return Refusal("array of hashable items", value)

    return check


def _first_refused(items: list[Any], value: Any) -> Refusal:
    """The refusal of the first refused item, at its index (formatted only for it)."""
    index, refusal = next((i, r) for i, r in enumerate(items) if type(r) is Refusal)
    return refusal.at(f"[{index}]", list(value)[index])


def _fixed_tuple(whole: Check, items: list[Check]) -> Check:
    expected = f"array of {len(items)} items"

    def check(given: Any) -> Any:
        value = whole(given)
        if type(value) is Refusal:
            return Refusal(expected, given)
        if not isinstance(value, (list, tuple)) or len(value) != len(items):
            return Refusal(expected, value)
        checked = []
        for i, (item, v) in enumerate(zip(items, value)):
            result = item(v)
            if type(result) is Refusal:
                return result.at(f"[{i}]", v)
            checked.append(result)
        return tuple(checked)

    return check


def _mapping(whole: Check, key: Check, item: Check) -> Check:
    exact_key = {fam.KEEPS_EXACT.get(key, object)}  # ``object``: no value's exact class
    exact_item = {fam.KEEPS_EXACT.get(item, object)}

    def check(value: Any) -> Any:
        value = whole(value)
        if type(value) is Refusal:
            return value
        if (
            type(value) is dict
            and set(map(type, value)) <= exact_key
            and set(map(type, value.values())) <= exact_item
        ):
            return value  # every key and value already of its class: no check each, no copy
        checked = {}
        unchanged = type(value) is dict
        for k, v in value.items():
            checked_key = key(k)
            if type(checked_key) is Refusal:
                return checked_key.at(f"[{k!r}]", k)
            result = item(v)
            if type(result) is Refusal:
                return result.at(f"[{k!r}]", v)
            unchanged = unchanged and checked_key is k and result is v
            checked[checked_key] = result
        # Unchanged: the mapping itself, so that an array holding it is not copied either.
        return value if unchanged else checked

    return check


def _built(check: Check, build: Callable[[Any], Any]) -> Check:
    """``check``, its accepted value built into the annotated mapping class (``OrderedDict``, ``Counter``)."""

    def built(value: Any) -> Any:
        result = check(value)
        return result if type(result) is Refusal else build(result)

    return built


def _fields(
    owner: str,
    whole: Check,
    fields: dict[str, Check],
    required: frozenset[str],
    build: Callable[[dict[str, Any]], Any],
) -> Check:
    not_object = f"object ({owner})"
    with_keys = f"object ({owner}) with keys {sorted(fields)}"

    def check(given: Any) -> Any:
        value = whole(given)
        if type(value) is Refusal:
            return Refusal(not_object, value.got(given))
        if not value.keys() <= fields.keys():
            return Refusal(with_keys, value)
        missing = sorted(required - value.keys())
        if missing:
            return Refusal(f"object ({owner}) with required keys {missing}", value)
        checked = {}
        for k, v in value.items():
            result = fields[k](v)
            if type(result) is Refusal:
                return result.at(f".{k}", v)
            checked[k] = result
        return build(checked)

    return check


def _literal(values: tuple[Any, ...]) -> Check:
    allowed = list(values)
    refusal = fam.refusal(f"one of {allowed!r}")

    def check(value: Any) -> Any:
        for option in allowed:
            if value == option and type(value) is type(option):
                return option
        return refusal

    return check


_MISSING: Any = object()


def _enum(cls: type[enum.Enum]) -> Check:
    by_value = {member.value: member for member in cls}
    refusal = fam.refusal(f"one of {list(by_value)!r}")

    def check(value: Any) -> Any:
        if isinstance(value, cls):
            return value
        try:
            member = by_value.get(value, _MISSING)
        except TypeError:  # unhashable
            return refusal
        # True == 1 in Python; a boolean is not an integer member (nor the reverse).
        if member is _MISSING or isinstance(value, bool) != isinstance(member.value, bool):
            return refusal
        return member

    return check


def _instance(cls: type) -> Check:
    refusal = fam.refusal(cls.__name__)

    def check(value: Any) -> Any:
        if isinstance(value, cls):
            return value
        return refusal

    return check
