"""Check and coerce a model's arguments against the declared parameter types.

Each parameter gets a check compiled once, when its action is created: a function
that returns the (possibly coerced) value or a :class:`Refusal` saying what was
expected and what arrived. Refusals are returned, not raised: raising and catching
costs about a microsecond, on a path models take often. The *validator* of a check
(what ``BaseAction.argument_checks`` hands out) raises :class:`Invalid` instead; the
parsers call the check behind it. Coercions happen only where nothing is lost
(``"3"`` -> 3, ``3`` -> 3.0, ``"true"`` -> True, a JSON text for a list or dict, an
Enum member from its value); everything else is refused. Checks are built from
lookup tables keyed by class, so adding a type means adding a row.
"""

from __future__ import annotations

import dataclasses
import enum
import json
import math
import weakref
from typing import Any, Callable, Optional

from .text import MAX_SHOWN, preview
from .types import UNION_ORIGINS as _UNION_ORIGINS
from .types import strip_annotated
from .typing_compat import Literal, get_args, get_origin, get_type_hints, is_typeddict

Validator = Callable[[Any], Any]

#: A check: the (possibly coerced) value in, the value out, or a :class:`Refusal`.
Check = Callable[[Any], Any]


#: JSON names of Python values, for messages a model reads.
_JSON_NAMES: dict[type, str] = {
    str: "string",
    bool: "boolean",
    int: "integer",
    float: "number",
    list: "array",
    tuple: "array",
    dict: "object",
    type(None): "null",
}


class Invalid(Exception):
    """A value does not fit its parameter.

    Attributes:
        path: where inside the argument, e.g. ``'[2]'`` or ``'.city'`` (empty at the top).
        expected: what was expected, in JSON words (``'integer'``, ``'one of ['C', 'F']'``).
        value: what arrived.
    """

    def __init__(self, expected: str, value: Any, path: str = "") -> None:
        super().__init__(expected)
        self.expected = expected
        self.value = value
        self.path = path

    def describe(self, name: str) -> str:
        """``"'a' expected integer, got string 'x'"`` for parameter ``name``."""
        return Refusal(self.expected, self.value, self.path).describe(name, self.value)


class _Itself:
    """Type of :data:`ITSELF`."""

    def __repr__(self) -> str:
        return "ITSELF"


#: A refusal's value when it is the value the check was given (so that refusals of
#: scalars can be constants: a refused call allocates nothing until its message).
ITSELF: Any = _Itself()


class Refusal:
    """What a check returns for a value it refuses.

    Checks return this marker instead of raising :class:`Invalid`: raising and
    catching costs about a microsecond, on a path models take often. Nothing is
    formatted until :meth:`describe`, which runs once per refused argument.

    Attributes:
        expected: what was expected, in JSON words.
        value: what arrived, or :data:`ITSELF` for the value given to the check.
        path: where inside the argument (empty at the top).
    """

    __slots__ = ("expected", "path", "value")

    def __init__(self, expected: str, value: Any = ITSELF, path: str = "") -> None:
        self.expected = expected
        self.value = value
        self.path = path

    def __repr__(self) -> str:
        return f"Refusal({self.expected!r}, {self.value!r}, {self.path!r})"

    def got(self, given: Any) -> Any:
        """The refused value, for a check that was given ``given``."""
        return given if self.value is ITSELF else self.value

    def describe(self, name: str, given: Any) -> str:
        """``"'a[1]' expected integer, got string 'x'"`` for parameter ``name`` given ``given``.

        The one wording of a refused argument (``Invalid.describe`` uses it too).
        """
        value = given if self.value is ITSELF else self.value
        return f"{name + self.path!r} expected {self.expected}, got {describe_value(value)}"

    def error(self, given: Any) -> Invalid:
        """The :class:`Invalid` a validator raises for this refusal."""
        return Invalid(self.expected, self.got(given), self.path)


def describe_value(value: Any) -> str:
    """``string 'x'``, ``number 2.5``, ``null``: a value as a model would name it."""
    if type(value) is str:
        # The common refusal, inlined: a string's repr cannot fail.
        text = repr(value)
        if len(text) <= MAX_SHOWN:
            return "string " + text
    if value is None:
        return "null"
    kind = _JSON_NAMES.get(type(value))
    if kind is None:
        kind = "number" if isinstance(value, (int, float)) else type(value).__name__
    if isinstance(value, bool):
        return f"boolean {json.dumps(value)}"
    return f"{kind} {preview(value)}"


def _parse_json_text(value: Any, kind: type) -> Any:
    # Models often send a list or an object as a JSON string; accept it when it parses.
    if isinstance(value, str):
        try:
            parsed = json.loads(value)
        except ValueError:
            return value
        if isinstance(parsed, kind):
            return parsed
    return value


# --- scalars -------------------------------------------------------------------------

# Constant refusals: a scalar check allocates nothing to refuse.
_NOT_STRING = Refusal("string")
_NOT_INTEGER = Refusal("integer")
_NOT_NUMBER = Refusal("number")
_NOT_BOOLEAN = Refusal("boolean")
_NOT_NULL = Refusal("null")


def _check_str(value: Any) -> Any:
    if type(value) is str:
        return value
    if isinstance(value, str):
        return str(value)
    return _NOT_STRING


def _int_from_text(text: str) -> Any:
    # An optional sign and ASCII digits only (other scripts' digits and '1_000' are
    # refused).
    text = text.strip()
    digits = text[1:] if text[:1] in ("+", "-") else text
    if digits.isdigit() and digits.isascii():
        try:
            return int(text)
        except ValueError:  # more digits than int() converts
            pass
    return _NOT_INTEGER


def _check_int(value: Any) -> Any:
    kind = type(value)
    if kind is int:
        return value
    if kind is str:
        # The common coercion ("3") first, without stripping or slicing.
        if value.isdigit() and value.isascii() and len(value) < 4300:
            return int(value)
        return _int_from_text(value)
    if kind is not bool:
        if isinstance(value, int):  # int subclasses (IntEnum members, NumPy integers)
            return int(value)
        if isinstance(value, float) and value.is_integer():  # also NumPy floats
            return int(value)
        if isinstance(value, str):  # str subclasses
            return _int_from_text(str(value))
    return _NOT_INTEGER


def _check_float(value: Any) -> Any:
    if type(value) is float:
        return value
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        try:
            return float(value)
        except OverflowError:
            return _NOT_NUMBER
    if isinstance(value, str):
        try:
            number = float(value.strip())
        except ValueError:
            pass
        else:
            if math.isfinite(number):
                return number
    return _NOT_NUMBER


_BOOL_WORDS = {"true": True, "false": False}


def _check_bool(value: Any) -> Any:
    if type(value) is bool:
        return value
    if isinstance(value, str):
        word = _BOOL_WORDS.get(value.strip().lower())
        if word is not None:
            return word
    return _NOT_BOOLEAN


def _check_none(value: Any) -> Any:
    if value is None:
        return None
    return _NOT_NULL


def _accept(value: Any) -> Any:
    return value


#: Checks of plain classes (the value or a ``Refusal``); generics and special forms
#: are compiled below.
SCALAR_CHECKS: dict[Any, Check] = {
    str: _check_str,
    int: _check_int,
    float: _check_float,
    bool: _check_bool,
    type(None): _check_none,
    Any: _accept,
    object: _accept,
}

#: Marks a parameter without a check in the parsers' table of exact types.
ANY: Any = object()


class CHECK:
    """Marks a parameter that is always checked: no value has this class."""


#: Exact types whose values need no validator call at all (the parser's fast path).
EXACT: dict[Any, type] = {str: str, int: int, float: float, bool: bool}

# --- containers ----------------------------------------------------------------------


def _sequence(item: Check, build: Callable[[list[Any]], Any]) -> Check:
    def check(value: Any) -> Any:
        value = _parse_json_text(value, list)
        if not isinstance(value, (list, tuple, set, frozenset)) or isinstance(value, str):
            return Refusal("array", value)
        items = []
        for i, v in enumerate(value):
            result = item(v)
            if type(result) is Refusal:
                # The path is formatted only for the refused item.
                return Refusal(result.expected, result.got(v), f"[{i}]{result.path}")
            items.append(result)
        try:
            return build(items)
        except TypeError:  # unhashable items for a set
            return Refusal("array of hashable items", value)

    return check


def _fixed_tuple(items: list[Check]) -> Check:
    expected = f"array of {len(items)} items"

    def check(value: Any) -> Any:
        value = _parse_json_text(value, list)
        if not isinstance(value, (list, tuple)) or len(value) != len(items):
            return Refusal(expected, value)
        checked = []
        for i, (item, v) in enumerate(zip(items, value)):
            result = item(v)
            if type(result) is Refusal:
                return Refusal(result.expected, result.got(v), f"[{i}]{result.path}")
            checked.append(result)
        return tuple(checked)

    return check


def _mapping(key: Check, item: Check) -> Check:
    def check(value: Any) -> Any:
        value = _parse_json_text(value, dict)
        if not isinstance(value, dict):
            return Refusal("object", value)
        checked = {}
        for k, v in value.items():
            checked_key = key(k)
            if type(checked_key) is Refusal:
                return Refusal(checked_key.expected, checked_key.got(k), f"[{k!r}]{checked_key.path}")
            result = item(v)
            if type(result) is Refusal:
                return Refusal(result.expected, result.got(v), f"[{k!r}]{result.path}")
            checked[checked_key] = result
        return checked

    return check


def _fields(
    owner: str, fields: dict[str, Check], required: frozenset[str], build: Callable[[dict[str, Any]], Any]
) -> Check:
    not_object = f"object ({owner})"
    with_keys = f"object ({owner}) with keys {sorted(fields)}"

    def check(value: Any) -> Any:
        value = _parse_json_text(value, dict)
        if not isinstance(value, dict):
            return Refusal(not_object, value)
        if not value.keys() <= fields.keys():
            return Refusal(with_keys, value)
        missing = sorted(required - value.keys())
        if missing:
            return Refusal(f"object ({owner}) with required keys {missing}", value)
        checked = {}
        for k, v in value.items():
            result = fields[k](v)
            if type(result) is Refusal:
                return Refusal(result.expected, result.got(v), f".{k}{result.path}")
            checked[k] = result
        return build(checked)

    return check


def _typed_dict(cls: type) -> Check:
    hints = get_type_hints(cls, include_extras=True)
    required = frozenset(getattr(cls, "__required_keys__", hints))
    return _fields(cls.__name__, {k: compile_check(t) for k, t in hints.items()}, required, dict)


def _dataclass(cls: type) -> Check:
    hints = get_type_hints(cls, include_extras=True)
    fields = [f for f in dataclasses.fields(cls) if f.init]
    required = frozenset(
        f.name
        for f in fields
        if f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING  # type: ignore[misc]
    )
    checks = {f.name: compile_check(hints.get(f.name, Any)) for f in fields}
    from_dict = _fields(cls.__name__, checks, required, lambda data: cls(**data))

    def check(value: Any) -> Any:
        return value if isinstance(value, cls) else from_dict(value)

    return check


#: Checks of TypedDicts and dataclasses, by class; a class that refers to itself
#: finds its own (still being built) entry through a trampoline instead of recursing.
_CLASS_CHECKS: weakref.WeakKeyDictionary[type, Check] = weakref.WeakKeyDictionary()


def _class_check(cls: type, build: Callable[[type], Check]) -> Check:
    known = _CLASS_CHECKS.get(cls)
    if known is not None:
        return known

    def trampoline(value: Any) -> Any:
        return _CLASS_CHECKS[cls](value)

    _CLASS_CHECKS[cls] = trampoline
    try:
        check = build(cls)
    except BaseException:
        del _CLASS_CHECKS[cls]
        raise
    _CLASS_CHECKS[cls] = check
    return check


def _literal(values: tuple[Any, ...]) -> Check:
    allowed = list(values)
    refusal = Refusal(f"one of {allowed!r}")

    def check(value: Any) -> Any:
        for option in allowed:
            if value == option and type(value) is type(option):
                return option
        return refusal

    return check


_MISSING: Any = object()


def _enum(cls: type[enum.Enum]) -> Check:
    by_value = {member.value: member for member in cls}
    refusal = Refusal(f"one of {list(by_value)!r}")

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
    refusal = Refusal(cls.__name__)

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


def compile_check(annotation: Any) -> Check:
    """Build the check of one resolved annotation: value in, value or :class:`Refusal` out."""
    annotation, _ = strip_annotated(annotation)
    try:
        scalar = SCALAR_CHECKS.get(annotation)
    except TypeError:
        scalar = None
    if scalar is not None:
        return scalar
    origin, args = get_origin(annotation), get_args(annotation)
    if origin in _UNION_ORIGINS:
        members = [a for a in args if a is not type(None)]
        checks = [compile_check(a) for a in members]
        nullable = len(members) != len(args)
        if len(checks) == 1 and not nullable:
            return checks[0]
        return _union(checks, nullable)
    if origin is Literal:
        return _literal(args)
    if origin is tuple and args and args[-1] is not Ellipsis:
        return _fixed_tuple([compile_check(a) for a in args])
    # Mappings first: a Mapping is also an Iterable.
    if origin is dict or (origin is not None and _is_abc(origin, "Mapping")):
        key, item = (compile_check(args[0]), compile_check(args[1])) if args else (_accept, _accept)
        return _mapping(key, item)
    if origin in _SEQUENCE_BUILDERS or (
        origin is not None and _is_abc(origin, "Sequence", "Set", "Iterable")
    ):
        item = compile_check(args[0]) if args else _accept
        return _sequence(item, _SEQUENCE_BUILDERS.get(origin, list))
    if isinstance(annotation, type):
        if annotation in _SEQUENCE_BUILDERS:
            return _sequence(_accept, _SEQUENCE_BUILDERS[annotation])
        if annotation is dict:
            return _mapping(_accept, _accept)
        if issubclass(annotation, enum.Enum):
            return _enum(annotation)
        if is_typeddict(annotation):
            return _class_check(annotation, _typed_dict)
        if dataclasses.is_dataclass(annotation):
            return _class_check(annotation, _dataclass)
        return _instance(annotation)
    return _accept


# --- validators: checks that raise ---------------------------------------------------

#: The check behind each validator made by :func:`validator_of`, so that callers on
#: the hot path (the parsers) call the check and skip raising.
_CHECK_OF: weakref.WeakKeyDictionary[Validator, Check] = weakref.WeakKeyDictionary()


def validator_of(check: Check) -> Validator:
    """The validator of ``check``: returns the value or raises :class:`Invalid`."""

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
    :class:`Invalid`) is wrapped; its other exceptions propagate.
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
        except Invalid as exc:
            return Refusal(exc.expected, exc.value, exc.path)

    return check


def compile_validator(annotation: Any) -> Validator:
    """Build the validator of one resolved annotation (raising :class:`Invalid`)."""
    return validator_of(compile_check(annotation))


#: Validators of plain classes (raising :class:`Invalid`), for other validators to reuse.
SCALARS: dict[Any, Validator] = {kind: validator_of(check) for kind, check in SCALAR_CHECKS.items()}


def _is_abc(origin: Any, *names: str) -> bool:
    import collections.abc

    return any(isinstance(origin, type) and issubclass(origin, getattr(collections.abc, n)) for n in names)


def exact_type(annotation: Any) -> Optional[type]:
    """The one class a value may have to skip validation, if the annotation is that simple."""
    try:
        return EXACT.get(annotation)
    except TypeError:  # an unhashable annotation object
        return None
