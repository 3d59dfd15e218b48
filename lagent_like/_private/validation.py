"""Check a model's arguments against the declared Python annotations.

Each parameter gets a check compiled once, when its action is created: a function
that returns the (possibly converted) value or a :class:`Refusal` saying what was
expected and what arrived (the one error protocol of checks, see ``families.py``).
The checks of the JSON families (string, integer, ...) and what each validation mode
converts come from the one table in ``families.py``; this module adds what only
annotations say: the Python value to build (a tuple, set, dataclass, Enum member,
TypedDict), ``Literal`` values and unions. A *validator* (what
``BaseAction.argument_checks`` hands out) raises
:class:`~lagent_like.exceptions.ArgumentError` instead; the parsers call the check
behind it.
"""

from __future__ import annotations

import dataclasses
import enum
import weakref
from typing import Any, Callable, Optional

from ..exceptions import ArgumentError
from . import families as fam
from .families import COERCE, ITSELF, OFF, Check, Refusal, describe_value
from .types import LITERAL_ORIGINS as _LITERAL_ORIGINS
from .types import UNION_ORIGINS as _UNION_ORIGINS
from .types import strip_annotated, typed_dict_fields
from .typing_compat import get_args, get_origin, get_type_hints, is_typeddict

__all__ = [
    "ANY",
    "CHECK",
    "ITSELF",
    "Check",
    "Invalid",
    "Refusal",
    "Validator",
    "check_of",
    "compile_check",
    "compile_validator",
    "describe_value",
    "exact_type",
    "validator_of",
]

Validator = Callable[[Any], Any]

#: The exception a validator raises (kept under its old name for tools that raise it).
Invalid = ArgumentError

_parse_json_text = fam.parse_json_text
_accept = fam.accept


def scalar_checks(mode: str) -> dict[Any, Check]:
    """Checks of the plain classes in ``mode`` (generics and special forms are compiled below)."""
    checks: dict[Any, Check] = {
        str: fam.STRING.checks[mode],
        int: fam.INTEGER.checks[mode],
        float: fam.NUMBER.checks[mode],
        bool: fam.BOOLEAN.checks[mode],
        type(None): fam.NULL.checks[mode],
    }
    checks.update(dict.fromkeys(fam.ANY.classes, _accept))
    return checks


_SCALARS_BY_MODE: dict[str, dict[Any, Check]] = {mode: scalar_checks(mode) for mode in fam.MODES}

#: Checks of plain classes in the default mode.
SCALAR_CHECKS: dict[Any, Check] = _SCALARS_BY_MODE[COERCE]

#: Marks a parameter without a check in the parsers' table of exact types.
ANY: Any = object()


class CHECK:
    """Marks a parameter that is always checked: no value has this class."""


#: Exact types whose values need no check call at all (the parser's fast path).
EXACT: dict[Any, type] = {
    f.exact: f.exact for f in fam.FAMILIES if f.exact is not None and f.exact is not bytes
}

# --- containers: the family's check, then the parts, then the Python value -------------------


def _sequence(whole: Check, item: Check, build: Callable[[list[Any]], Any]) -> Check:
    def check(value: Any) -> Any:
        value = whole(value)
        if type(value) is Refusal:
            return value
        items = []
        for i, v in enumerate(value):
            result = item(v)
            if type(result) is Refusal:
                # The path is formatted only for the refused item.
                return result.at(f"[{i}]", v)
            items.append(result)
        try:
            return build(items)
        except TypeError:  # unhashable items for a set
            return Refusal("array of hashable items", value)

    return check


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
    def check(value: Any) -> Any:
        value = whole(value)
        if type(value) is Refusal:
            return value
        checked = {}
        for k, v in value.items():
            checked_key = key(k)
            if type(checked_key) is Refusal:
                return checked_key.at(f"[{k!r}]", k)
            result = item(v)
            if type(result) is Refusal:
                return result.at(f"[{k!r}]", v)
            checked[checked_key] = result
        return checked

    return check


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


def _typed_dict(cls: type, mode: str) -> Check:
    hints, required = typed_dict_fields(cls)
    checks = {k: compile_check(t, mode) for k, t in hints.items()}
    return _fields(cls.__name__, fam.OBJECT.checks[mode], checks, frozenset(required), dict)


def _dataclass(cls: type, mode: str) -> Check:
    hints = get_type_hints(cls, include_extras=True)
    fields = [f for f in dataclasses.fields(cls) if f.init]
    required = frozenset(
        f.name
        for f in fields
        if f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING  # type: ignore[misc]
    )
    checks = {f.name: compile_check(hints.get(f.name, Any), mode) for f in fields}
    from_dict = _fields(cls.__name__, fam.OBJECT.checks[mode], checks, required, lambda data: cls(**data))

    def check(value: Any) -> Any:
        return value if isinstance(value, cls) else from_dict(value)

    return check


#: Checks of TypedDicts and dataclasses, by class and mode; a class that refers to
#: itself finds its own (still being built) entry through a trampoline instead of recursing.
_CLASS_CHECKS: weakref.WeakKeyDictionary[type, dict[str, Check]] = weakref.WeakKeyDictionary()


def _class_check(cls: type, mode: str, build: Callable[[type, str], Check]) -> Check:
    by_mode = _CLASS_CHECKS.setdefault(cls, {})
    known = by_mode.get(mode)
    if known is not None:
        return known

    def trampoline(value: Any) -> Any:
        return by_mode[mode](value)

    by_mode[mode] = trampoline
    try:
        check = build(cls, mode)
    except BaseException:
        del by_mode[mode]
        raise
    by_mode[mode] = check
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


def _union(members: list[Check], nullable: bool) -> Check:
    def check(value: Any) -> Any:
        if value is None and nullable:
            return None
        failures = []
        coerced: list[Any] = []
        for member in members:
            result = member(value)
            if type(result) is Refusal:
                failures.append(result.expected)
                continue
            # A member the value already fits wins over one that would convert it.
            if result is value or (type(result) is type(value) and result == value):
                return result
            coerced.append(result)
        if coerced:
            return coerced[0]
        return Refusal(" or ".join(dict.fromkeys(failures + (["null"] if nullable else []))))

    return check


def _instance(cls: type) -> Check:
    refusal = fam.refusal(cls.__name__)

    def check(value: Any) -> Any:
        if isinstance(value, cls):
            return value
        return refusal

    return check


_SEQUENCE_BUILDERS: dict[Any, Callable[[list[Any]], Any]] = {
    list: list,
    tuple: tuple,
    set: set,
    frozenset: frozenset,
}


def compile_check(annotation: Any, mode: str = COERCE) -> Check:
    """Build the check of one resolved annotation in ``mode``: value in, value or :class:`Refusal` out."""
    if mode == OFF:
        return _accept
    annotation, _ = strip_annotated(annotation)
    try:
        scalar = _SCALARS_BY_MODE[mode].get(annotation)
    except TypeError:
        scalar = None
    if scalar is not None:
        return scalar
    origin, args = get_origin(annotation), get_args(annotation)
    if origin in _UNION_ORIGINS:
        members = [a for a in args if a is not type(None)]
        checks = [compile_check(a, mode) for a in members]
        nullable = len(members) != len(args)
        if len(checks) == 1 and not nullable:
            return checks[0]
        return _union(checks, nullable)
    if origin in _LITERAL_ORIGINS:
        return _literal(args)
    array, mapping = fam.ARRAY.checks[mode], fam.OBJECT.checks[mode]
    if origin is tuple and args and args[-1] is not Ellipsis:
        return _fixed_tuple(array, [compile_check(a, mode) for a in args])
    # Mappings first: a Mapping is also an Iterable.
    if origin is dict or (origin is not None and _is_abc(origin, "Mapping")):
        if not args:
            return _mapping(mapping, _accept, _accept)
        return _mapping(mapping, compile_check(args[0], mode), compile_check(args[1], mode))
    if origin in _SEQUENCE_BUILDERS or (
        origin is not None and _is_abc(origin, "Sequence", "Set", "Iterable")
    ):
        item = compile_check(args[0], mode) if args else _accept
        return _sequence(array, item, _SEQUENCE_BUILDERS.get(origin, list))
    if isinstance(annotation, type):
        if annotation in _SEQUENCE_BUILDERS:
            return _sequence(array, _accept, _SEQUENCE_BUILDERS[annotation])
        if annotation is dict:
            return _mapping(mapping, _accept, _accept)
        if issubclass(annotation, enum.Enum):
            return _enum(annotation)
        if is_typeddict(annotation):
            return _class_check(annotation, mode, _typed_dict)
        if dataclasses.is_dataclass(annotation):
            return _class_check(annotation, mode, _dataclass)
        return _instance(annotation)
    return _accept


# --- validators: checks that raise ---------------------------------------------------

#: The check behind each validator made by :func:`validator_of`, so that callers on
#: the hot path (the parsers) call the check and skip raising.
_CHECK_OF: weakref.WeakKeyDictionary[Validator, Check] = weakref.WeakKeyDictionary()


def validator_of(check: Check) -> Validator:
    """The validator of ``check``: returns the value or raises :class:`~lagent_like.ArgumentError`."""

    def validate(value: Any) -> Any:
        result = check(value)
        if type(result) is Refusal:
            raise result.error(value)
        return result

    _CHECK_OF[validate] = check
    return validate


def check_of(validator: Validator) -> Check:
    """The check behind ``validator``: returns the value or a :class:`Refusal`.

    A validator not made by :func:`validator_of` (one a tool supplies, raising
    :class:`~lagent_like.ArgumentError`) is wrapped; its other exceptions propagate.
    """
    try:
        known = _CHECK_OF.get(validator)
    except TypeError:  # not weakly referenceable
        known = None
    if known is not None:
        return known

    def check(value: Any) -> Any:
        try:
            return validator(value)
        except ArgumentError as exc:
            return Refusal(exc.expected, exc.value, exc.path)

    return check


def compile_validator(annotation: Any, mode: str = COERCE) -> Validator:
    """Build the validator of one resolved annotation (raising :class:`~lagent_like.ArgumentError`)."""
    return validator_of(compile_check(annotation, mode))


def _is_abc(origin: Any, *names: str) -> bool:
    import collections.abc

    return any(isinstance(origin, type) and issubclass(origin, getattr(collections.abc, n)) for n in names)


def exact_type(annotation: Any) -> Optional[type]:
    """The one class a value may have to skip validation, if the annotation is that simple."""
    try:
        return EXACT.get(annotation)
    except TypeError:  # an unhashable annotation object
        return None
