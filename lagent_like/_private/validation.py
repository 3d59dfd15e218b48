"""Check and coerce a model's arguments against the declared parameter types.

Each parameter gets a validator compiled once, when its action is created: a function
that returns the (possibly coerced) value or raises :class:`Invalid` saying what was
expected and what arrived. Coercions happen only where nothing is lost (``"3"`` -> 3,
``3`` -> 3.0, ``"true"`` -> True, a JSON text for a list or dict, an Enum member from
its value); everything else is refused. Validators are built from lookup tables keyed
by class, so adding a type means adding a row.
"""

from __future__ import annotations

import dataclasses
import enum
import json
import math
import weakref
from typing import Any, Callable, Optional

from .text import preview
from .types import UNION_ORIGINS as _UNION_ORIGINS
from .types import strip_annotated
from .typing_compat import Literal, get_args, get_origin, get_type_hints, is_typeddict

Validator = Callable[[Any], Any]


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
        return f"{name + self.path!r} expected {self.expected}, got {describe_value(self.value)}"


def describe_value(value: Any) -> str:
    """``string 'x'``, ``number 2.5``, ``null``: a value as a model would name it."""
    if value is None:
        return "null"
    kind = _JSON_NAMES.get(type(value))
    if kind is None:
        kind = "number" if isinstance(value, (int, float)) else type(value).__name__
    if isinstance(value, bool):
        return f"boolean {json.dumps(value)}"
    return f"{kind} {preview(value)}"


def _nested(validator: Validator, value: Any, path: str) -> Any:
    try:
        return validator(value)
    except Invalid as exc:
        raise Invalid(exc.expected, exc.value, path + exc.path) from None


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


def _check_str(value: Any) -> Any:
    if type(value) is str:
        return value
    if isinstance(value, str):
        return str(value)
    raise Invalid("string", value)


def _check_int(value: Any) -> Any:
    kind = type(value)
    if kind is int:
        return value
    if kind is str:
        # An optional sign and ASCII digits only (other scripts' digits and '1_000'
        # are refused); checked first so that a refusal raises only once.
        text = value.strip()
        digits = text[1:] if text[:1] in ("+", "-") else text
        if digits.isdigit() and digits.isascii():
            try:
                return int(text)
            except ValueError:  # more digits than int() converts
                pass
        raise Invalid("integer", value)
    if kind is not bool:
        if isinstance(value, int):  # int subclasses (IntEnum members, NumPy integers)
            return int(value)
        if isinstance(value, float) and value.is_integer():  # also NumPy floats
            return int(value)
        if isinstance(value, str):  # str subclasses
            return _check_int(str(value))
    raise Invalid("integer", value)


def _check_float(value: Any) -> Any:
    if type(value) is float:
        return value
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        try:
            return float(value)
        except OverflowError:
            raise Invalid("number", value) from None
    if isinstance(value, str):
        try:
            number = float(value.strip())
        except ValueError:
            pass
        else:
            if math.isfinite(number):
                return number
    raise Invalid("number", value)


_BOOL_WORDS = {"true": True, "false": False}


def _check_bool(value: Any) -> Any:
    if type(value) is bool:
        return value
    if isinstance(value, str) and value.strip().lower() in _BOOL_WORDS:
        return _BOOL_WORDS[value.strip().lower()]
    raise Invalid("boolean", value)


def _check_none(value: Any) -> Any:
    if value is None:
        return None
    raise Invalid("null", value)


def _accept(value: Any) -> Any:
    return value


#: Validators of plain classes; generics and special forms are compiled below.
SCALARS: dict[Any, Validator] = {
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


def _sequence(item: Validator, build: Callable[[list[Any]], Any]) -> Validator:
    def check(value: Any) -> Any:
        value = _parse_json_text(value, list)
        if not isinstance(value, (list, tuple, set, frozenset)) or isinstance(value, str):
            raise Invalid("array", value)
        items = [_nested(item, v, f"[{i}]") for i, v in enumerate(value)]
        try:
            return build(items)
        except TypeError:  # unhashable items for a set
            raise Invalid("array of hashable items", value) from None

    return check


def _fixed_tuple(items: list[Validator]) -> Validator:
    def check(value: Any) -> Any:
        value = _parse_json_text(value, list)
        if not isinstance(value, (list, tuple)) or len(value) != len(items):
            raise Invalid(f"array of {len(items)} items", value)
        return tuple(_nested(v, x, f"[{i}]") for i, (v, x) in enumerate(zip(items, value)))

    return check


def _mapping(key: Validator, item: Validator) -> Validator:
    def check(value: Any) -> Any:
        value = _parse_json_text(value, dict)
        if not isinstance(value, dict):
            raise Invalid("object", value)
        return {_nested(key, k, f"[{k!r}]"): _nested(item, v, f"[{k!r}]") for k, v in value.items()}

    return check


def _fields(
    owner: str, fields: dict[str, Validator], required: frozenset[str], build: Callable[[dict[str, Any]], Any]
) -> Validator:
    def check(value: Any) -> Any:
        value = _parse_json_text(value, dict)
        if not isinstance(value, dict):
            raise Invalid(f"object ({owner})", value)
        unknown = [k for k in value if k not in fields]
        if unknown:
            raise Invalid(f"object ({owner}) with keys {sorted(fields)}", value)
        missing = sorted(required - value.keys())
        if missing:
            raise Invalid(f"object ({owner}) with required keys {missing}", value)
        return build({k: _nested(fields[k], v, f".{k}") for k, v in value.items()})

    return check


def _typed_dict(cls: type) -> Validator:
    hints = get_type_hints(cls, include_extras=True)
    required = frozenset(getattr(cls, "__required_keys__", hints))
    return _fields(cls.__name__, {k: compile_validator(t) for k, t in hints.items()}, required, dict)


def _dataclass(cls: type) -> Validator:
    hints = get_type_hints(cls, include_extras=True)
    fields = [f for f in dataclasses.fields(cls) if f.init]
    required = frozenset(
        f.name
        for f in fields
        if f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING  # type: ignore[misc]
    )
    validators = {f.name: compile_validator(hints.get(f.name, Any)) for f in fields}
    from_dict = _fields(cls.__name__, validators, required, lambda data: cls(**data))

    def check(value: Any) -> Any:
        return value if isinstance(value, cls) else from_dict(value)

    return check


#: Validators of TypedDicts and dataclasses, by class; a class that refers to itself
#: finds its own (still being built) entry through a trampoline instead of recursing.
_CLASS_VALIDATORS: weakref.WeakKeyDictionary[type, Validator] = weakref.WeakKeyDictionary()


def _class_validator(cls: type, build: Callable[[type], Validator]) -> Validator:
    known = _CLASS_VALIDATORS.get(cls)
    if known is not None:
        return known

    def trampoline(value: Any) -> Any:
        return _CLASS_VALIDATORS[cls](value)

    _CLASS_VALIDATORS[cls] = trampoline
    try:
        validator = build(cls)
    except BaseException:
        del _CLASS_VALIDATORS[cls]
        raise
    _CLASS_VALIDATORS[cls] = validator
    return validator


def _literal(values: tuple[Any, ...]) -> Validator:
    allowed = list(values)

    def check(value: Any) -> Any:
        for option in allowed:
            if value == option and type(value) is type(option):
                return option
        raise Invalid(f"one of {allowed!r}", value)

    return check


def _enum(cls: type[enum.Enum]) -> Validator:
    by_value = {member.value: member for member in cls}

    def check(value: Any) -> Any:
        if isinstance(value, cls):
            return value
        try:
            member = by_value[value]
        except (KeyError, TypeError):
            raise Invalid(f"one of {list(by_value)!r}", value) from None
        # True == 1 in Python; a boolean is not an integer member (nor the reverse).
        if isinstance(value, bool) != isinstance(member.value, bool):
            raise Invalid(f"one of {list(by_value)!r}", value)
        return member

    return check


def _union(members: list[Validator], nullable: bool) -> Validator:
    def check(value: Any) -> Any:
        if value is None and nullable:
            return None
        failures = []
        coerced: list[Any] = []
        for member in members:
            try:
                result = member(value)
            except Invalid as exc:
                failures.append(exc.expected)
                continue
            # A member the value already fits wins over one that would convert it.
            if result is value or (type(result) is type(value) and result == value):
                return result
            coerced.append(result)
        if coerced:
            return coerced[0]
        expected = " or ".join(dict.fromkeys(failures + (["null"] if nullable else [])))
        raise Invalid(expected, value)

    return check


def _instance(cls: type) -> Validator:
    def check(value: Any) -> Any:
        if isinstance(value, cls):
            return value
        raise Invalid(cls.__name__, value)

    return check


_SEQUENCE_BUILDERS: dict[Any, Callable[[list[Any]], Any]] = {
    list: list,
    tuple: tuple,
    set: set,
    frozenset: frozenset,
}


def compile_validator(annotation: Any) -> Validator:
    """Build the validator of one resolved annotation."""
    annotation, _ = strip_annotated(annotation)
    try:
        scalar = SCALARS.get(annotation)
    except TypeError:
        scalar = None
    if scalar is not None:
        return scalar
    origin, args = get_origin(annotation), get_args(annotation)
    if origin in _UNION_ORIGINS:
        members = [a for a in args if a is not type(None)]
        validators = [compile_validator(a) for a in members]
        nullable = len(members) != len(args)
        if len(validators) == 1 and not nullable:
            return validators[0]
        return _union(validators, nullable)
    if origin is Literal:
        return _literal(args)
    if origin is tuple and args and args[-1] is not Ellipsis:
        return _fixed_tuple([compile_validator(a) for a in args])
    # Mappings first: a Mapping is also an Iterable.
    if origin is dict or (origin is not None and _is_abc(origin, "Mapping")):
        key, item = (compile_validator(args[0]), compile_validator(args[1])) if args else (_accept, _accept)
        return _mapping(key, item)
    if origin in _SEQUENCE_BUILDERS or (
        origin is not None and _is_abc(origin, "Sequence", "Set", "Iterable")
    ):
        item = compile_validator(args[0]) if args else _accept
        return _sequence(item, _SEQUENCE_BUILDERS.get(origin, list))
    if isinstance(annotation, type):
        if annotation in _SEQUENCE_BUILDERS:
            return _sequence(_accept, _SEQUENCE_BUILDERS[annotation])
        if annotation is dict:
            return _mapping(_accept, _accept)
        if issubclass(annotation, enum.Enum):
            return _enum(annotation)
        if is_typeddict(annotation):
            return _class_validator(annotation, _typed_dict)
        if dataclasses.is_dataclass(annotation):
            return _class_validator(annotation, _dataclass)
        return _instance(annotation)
    return _accept


def _is_abc(origin: Any, *names: str) -> bool:
    import collections.abc

    return any(isinstance(origin, type) and issubclass(origin, getattr(collections.abc, n)) for n in names)


def exact_type(annotation: Any) -> Optional[type]:
    """The one class a value may have to skip validation, if the annotation is that simple."""
    try:
        return EXACT.get(annotation)
    except TypeError:  # an unhashable annotation object
        return None
